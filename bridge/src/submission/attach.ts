// What the bridge adds to a call before forwarding it: the git work behind a submit_result (work/) and the model use
// the app reported (usage/). A provider that cannot tell anything adds nothing; a provider that fails never fails the
// call: the call goes out as the app wrote it, and the failure is a debug line.
import { log } from '../log.js';

export type CallArgs = Record<string, unknown>;

/** One source of facts about a call: `before` may add fields, `after` learns what the board answered. */
export interface CallProvider {
  readonly name: string;
  /** Fields to add to this call's arguments; only fields the app did not set itself are added. */
  before?(tool: string, args: CallArgs): Promise<CallArgs | undefined>;
  /** The board answered the call (not called on a refusal). */
  after?(tool: string, args: CallArgs, output: Record<string, unknown>): Promise<void> | void;
}

/** A provider whose module is loaded at its first use, so a bridge that only lists tools never pays for it. */
export function lazyProvider(name: string, load: () => Promise<CallProvider>): CallProvider {
  let loaded: Promise<CallProvider> | undefined;
  const provider = () => (loaded ??= load());
  return {
    name,
    async before(tool, args) {
      return (await provider()).before?.(tool, args);
    },
    async after(tool, args, output) {
      await (await provider()).after?.(tool, args, output);
    },
  };
}

/** Each provider's `before` must answer within this, or the call goes out without its fields. */
export const PROVIDER_DEADLINE_MS = 5_000;

export class CallAttachments {
  constructor(private readonly providers: readonly CallProvider[]) {}

  async before(tool: string, args: CallArgs): Promise<CallArgs> {
    let out = args;
    for (const provider of this.providers) {
      if (!provider.before) continue;
      const added = await withDeadline(provider.name, () => provider.before!(tool, args));
      if (!added) continue;
      for (const [field, value] of Object.entries(added)) {
        if (out[field] === undefined && value !== undefined) out = { ...out, [field]: value };
      }
    }
    return out;
  }

  async after(tool: string, args: CallArgs, output: Record<string, unknown>): Promise<void> {
    for (const provider of this.providers) {
      if (!provider.after) continue;
      try {
        await provider.after(tool, args, output);
      } catch (error) {
        log.debug('call provider failed after the call', { provider: provider.name, error: String((error as Error)?.message ?? error) });
      }
    }
  }
}

async function withDeadline(name: string, work: () => Promise<CallArgs | undefined>): Promise<CallArgs | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work(),
      new Promise<undefined>((resolve) => {
        timer = setTimeout(() => {
          log.debug('call provider too slow; the call goes without it', { provider: name, deadline_ms: PROVIDER_DEADLINE_MS });
          resolve(undefined);
        }, PROVIDER_DEADLINE_MS);
      }),
    ]);
  } catch (error) {
    log.debug('call provider failed; the call goes without it', { provider: name, error: String((error as Error)?.message ?? error) });
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}
