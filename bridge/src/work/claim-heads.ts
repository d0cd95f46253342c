// The commit HEAD was at when this agent's claim_task on a task succeeded: the base of the work when the branch has
// no point where it left the default branch (work done on the default branch itself). One small JSON file in the
// bridge's state folder, keyed by board, project and task, so a restart of the bridge keeps it; mode 600.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stateDir } from '../platform.js';

interface Entry {
  readonly head: string;
  /** When it was recorded (ms since the epoch): the oldest go first once the file holds MAX_ENTRIES. */
  readonly at: number;
}

/** Claims remembered at most; a worker holds a few at a time, so this is weeks of claims. */
const MAX_ENTRIES = 500;
const COMMIT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

export class ClaimHeads {
  private readonly file: string;
  /** Writes go one after another, so two claims at once do not lose one. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(options: { dir?: string } = {}) {
    this.file = join(options.dir ?? stateDir(), 'work', 'claim-heads.json');
  }

  private static key(board: string, project: string | undefined, taskId: number): string {
    return `${board}\n${project ?? ''}\n${taskId}`;
  }

  private async readAll(): Promise<Record<string, Entry>> {
    try {
      const value = JSON.parse(await readFile(this.file, 'utf8')) as unknown;
      return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, Entry>) : {};
    } catch {
      // Missing or damaged: no claim is remembered, and the next write starts the file afresh.
      return {};
    }
  }

  async get(board: string, project: string | undefined, taskId: number): Promise<string | undefined> {
    const entry = (await this.readAll())[ClaimHeads.key(board, project, taskId)];
    return typeof entry?.head === 'string' && COMMIT_ID.test(entry.head) ? entry.head : undefined;
  }

  set(board: string, project: string | undefined, taskId: number, head: string, now = Date.now()): Promise<void> {
    const write = this.queue.then(async () => {
      const all = await this.readAll();
      all[ClaimHeads.key(board, project, taskId)] = { head, at: now };
      const kept = Object.entries(all)
        .filter(([, e]) => typeof e?.head === 'string' && Number.isFinite(e.at))
        .sort((a, b) => b[1].at - a[1].at)
        .slice(0, MAX_ENTRIES);
      await mkdir(join(this.file, '..'), { recursive: true, mode: 0o700 });
      const temporary = `${this.file}.${process.pid}.tmp`;
      await writeFile(temporary, JSON.stringify(Object.fromEntries(kept)), { mode: 0o600 });
      await rename(temporary, this.file);
    });
    this.queue = write.catch(() => undefined);
    return write;
  }
}
