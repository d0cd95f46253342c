// What the hooks remember between runs of one session: the Stop blocks in a row and the last digest. One small file
// per (agent, session) under the user's state directory, mode 600; losing it only makes a hook say something again.
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stateDir } from '../platform.js';

export interface DigestFacts {
  /** Claimed task ids the agent holds, ascending. */
  readonly held: number[];
  readonly unread: number;
  readonly claimable: number;
  readonly toReview: number;
}

export interface HookState {
  /** Stop hooks that blocked in a row; reset when a stop is let through or the person prompts. */
  stopBlocks: number;
  /** What the last digest (SessionStart or UserPromptSubmit) saw. */
  digest?: DigestFacts;
  /** The board's change cursor at the last digest: the next prompt is told of what changed after it. */
  cursor?: string;
}

/** A change cursor is short (LIMITS.cursor); anything longer in the file is not one. */
const CURSOR_MAX = 200;
/** Files of sessions idle this long are removed at the next SessionStart. */
const STALE_MS = 7 * 24 * 3600 * 1000;

export class HookStateStore {
  private readonly dir: string;

  constructor(dir: string = stateDir()) {
    this.dir = join(dir, 'hooks');
  }

  /** The session id comes from the client: it is hashed, so it never becomes a path of its own choosing. */
  private fileFor(account: string, sessionId: string): string {
    const key = createHash('sha256').update(`${account}\n${sessionId}`).digest('hex').slice(0, 32);
    return join(this.dir, `${key}.json`);
  }

  async read(account: string, sessionId: string): Promise<HookState> {
    try {
      const value = JSON.parse(await readFile(this.fileFor(account, sessionId), 'utf8')) as Partial<HookState>;
      const state: HookState = { stopBlocks: Number.isInteger(value.stopBlocks) && value.stopBlocks! >= 0 ? value.stopBlocks! : 0 };
      if (isDigest(value.digest)) state.digest = value.digest;
      if (typeof value.cursor === 'string' && value.cursor.length <= CURSOR_MAX) state.cursor = value.cursor;
      return state;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { stopBlocks: 0 };
      // A damaged file is started afresh rather than trusted.
      if (error instanceof SyntaxError) return { stopBlocks: 0 };
      throw error;
    }
  }

  /** Written to a temporary file and renamed, so a hook killed mid-write leaves the old state. */
  async write(account: string, sessionId: string, state: HookState): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const file = this.fileFor(account, sessionId);
    const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    await writeFile(temporary, JSON.stringify(state), { mode: 0o600 });
    await rename(temporary, file);
  }

  /** Removes the files of sessions not touched for a week. */
  async prune(now = Date.now()): Promise<void> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return;
    }
    for (const name of names) {
      if (!name.endsWith('.json') && !name.endsWith('.tmp')) continue;
      const path = join(this.dir, name);
      const info = await stat(path).catch(() => undefined);
      if (info && now - info.mtimeMs > STALE_MS) await unlink(path).catch(() => undefined);
    }
  }
}

function isDigest(value: unknown): value is DigestFacts {
  const d = value as DigestFacts | undefined;
  return (
    typeof d === 'object' &&
    d !== null &&
    Array.isArray(d.held) &&
    d.held.every((id) => Number.isInteger(id)) &&
    [d.unread, d.claimable, d.toReview].every((n) => Number.isInteger(n) && n >= 0)
  );
}
