// What every part of the board works with: the store, the agents in force, the event bus, the output helpers.
import { UNTRUSTED_CONTENT_WARNING } from 'roundtable-shared';
import type { Agent, AgentDirectory } from '../agents/directory.js';
import type { EventBus } from '../events.js';
import type { AuditTicket, BoardStore, ResponseRecord, WriteExtras } from '../store/store.js';
import type { Leases } from './leases.js';
import type { Caller } from './rules.js';

export interface BoardDeps {
  readonly store: BoardStore;
  /** The agents in force; a getter so a reloaded agents.json applies at once. */
  readonly agents: () => AgentDirectory;
  /** What the board is called now (a project's title can change while it runs). */
  readonly boardName: () => string;
  readonly events: EventBus;
  readonly leases: Leases;
}

/** An idempotency key the caller sent with a mutation; the store records the response under it. */
export interface IdempotencyClaim {
  readonly agent: string;
  readonly key: string;
  readonly tool: string;
  readonly requestHash: string;
  readonly expiredBefore: string;
}

export interface CallContext {
  readonly idempotency?: IdempotencyClaim;
  /** The call's audit row, for the store to write inside the call's own transaction. */
  readonly audit?: AuditTicket;
  /** Aborted when the caller goes away (for calls that wait). */
  readonly signal?: AbortSignal;
}

export const warning = { untrusted_content_warning: UNTRUSTED_CONTENT_WARNING } as const;

/** What a write records beside its change: the audit row, and the rendered answer under an idempotency key. */
export function writeExtras<T>(ctx: CallContext, render: (result: T) => object): WriteExtras<T> {
  const response: ResponseRecord<T> | undefined = ctx.idempotency && { ...ctx.idempotency, render: (result: T) => JSON.stringify(render(result)) };
  return { response, audit: ctx.audit };
}

export function callerOf(deps: BoardDeps, agent: Agent): Caller {
  return { agent, mode: deps.agents().mode };
}
