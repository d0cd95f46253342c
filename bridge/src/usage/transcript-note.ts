// Where an app's hook said its session's file is (Claude Code's hook input names `transcript_path`), kept per working
// folder so the bridge serving that folder reads that file rather than guessing the newest one.
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { stateDir } from '../platform.js';

export type UsageApp = 'claude-code' | 'codex';

export interface TranscriptNote {
  readonly app: UsageApp;
  readonly path: string;
  /** When the hook wrote it (ms). */
  readonly at: number;
}

const PATH_MAX = 4096;

/** A session file's path as a hook gives it: absolute, a .jsonl file, of a sane length; else undefined. */
export function sessionFilePath(value: unknown): string | undefined {
  return typeof value === 'string' && value.length <= PATH_MAX && isAbsolute(value) && value.endsWith('.jsonl') && !value.includes('\0') ? value : undefined;
}

/** The folder of the usage state: the working folder is hashed, so it never becomes a path of its own choosing. */
export function usageStateFile(kind: 'note' | 'ledger', cwd: string, dir: string = stateDir()): string {
  const key = createHash('sha256').update(cwd).digest('hex').slice(0, 32);
  return join(dir, 'usage', `${key}.${kind}.json`);
}

/** Written to a temporary file and renamed, so a reader never sees half of it. */
export async function writeStateFile(file: string, value: unknown): Promise<void> {
  await mkdir(join(file, '..'), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(temporary, JSON.stringify(value), { mode: 0o600 });
  await rename(temporary, file);
}

export async function noteTranscript(options: { cwd: string; app: UsageApp; path: string; dir?: string; now?: number }): Promise<void> {
  const note: TranscriptNote = { app: options.app, path: options.path, at: options.now ?? Date.now() };
  await writeStateFile(usageStateFile('note', options.cwd, options.dir), note);
}

export async function readTranscriptNote(cwd: string, dir?: string): Promise<TranscriptNote | undefined> {
  try {
    const value = JSON.parse(await readFile(usageStateFile('note', cwd, dir), 'utf8')) as Record<string, unknown>;
    const path = sessionFilePath(value['path']);
    const app = value['app'] === 'claude-code' || value['app'] === 'codex' ? value['app'] : undefined;
    return path && app && typeof value['at'] === 'number' ? { app, path, at: value['at'] } : undefined;
  } catch {
    return undefined;
  }
}
