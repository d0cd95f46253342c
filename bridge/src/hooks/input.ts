// What a client's command hook passes on stdin, reduced to the few fields we act on; everything else is ignored.

import { isAbsolute } from 'node:path';
import { sessionFilePath } from '../usage/transcript-note.js';

/** Larger input is not a hook event we understand: read no further. */
const MAX_INPUT_BYTES = 1_000_000;
/** Session ids are opaque; a longer one is not trusted as a key. */
const MAX_SESSION_ID = 200;
const MAX_CWD = 4096;

export interface HookInput {
  /** The client's session id, or "default" when it gave none. Only ever used hashed, as a state key. */
  readonly sessionId: string;
  /** Claude Code and Codex: true while the agent already continues because a Stop hook blocked. */
  readonly stopHookActive: boolean;
  /** The event the client says it sent, when it says. */
  readonly eventName: string | undefined;
  /** Claude Code and Codex: the session's JSONL file, where the bridge reads the session's model use (usage/). */
  readonly transcriptPath: string | undefined;
  /** The session's working folder, as the client says; the bridge serving that folder reads the transcript. */
  readonly cwd: string | undefined;
}

export class BadHookInput extends Error {}

/** Parses the hook's JSON. Unknown fields (prompts, messages) are not read, logged or kept; the transcript's path is kept, never its content. */
export function parseHookInput(text: string): HookInput {
  if (text.trim() === '') return { sessionId: 'default', stopHookActive: false, eventName: undefined, transcriptPath: undefined, cwd: undefined };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new BadHookInput('the hook input on stdin is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new BadHookInput('the hook input on stdin is not a JSON object');
  const fields = value as Record<string, unknown>;
  const session = fields['session_id'];
  const sessionId = typeof session === 'string' && session.length > 0 && session.length <= MAX_SESSION_ID ? session : 'default';
  const event = fields['hook_event_name'];
  return {
    sessionId,
    stopHookActive: fields['stop_hook_active'] === true,
    eventName: typeof event === 'string' ? event : undefined,
    transcriptPath: sessionFilePath(fields['transcript_path']),
    cwd: typeof fields['cwd'] === 'string' && fields['cwd'].length <= MAX_CWD && isAbsolute(fields['cwd']) ? fields['cwd'] : undefined,
  };
}

/** Reads stdin to its end (the client closes it after writing the event); nothing when stdin is a terminal. */
export async function readHookStdin(stdin: NodeJS.ReadStream = process.stdin): Promise<string> {
  if (stdin.isTTY) return '';
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    size += (chunk as Buffer).length;
    if (size > MAX_INPUT_BYTES) throw new BadHookInput(`the hook input on stdin is over ${MAX_INPUT_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
