// A file only the board's user may read (agents.json, webhook-secrets.json), replaced atomically: readers see the
// old content or the new, never a part, and the file is never readable by others, not even for a moment.
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * Writes `text` to a new temporary file beside `path` (mode 600 from its creation, flushed to disk), then renames it
 * over `path`. A failed rename removes the temporary file and rethrows.
 */
export function writePrivateFile(path: string, text: string): void {
  // Beside the target, so the rename stays on one file system; a dot name, so watchers of the folder ignore it.
  const temp = join(dirname(path), `.${randomBytes(6).toString('hex')}.${basename(path)}.tmp`);
  const fd = openSync(temp, 'wx', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(temp, path);
  } catch (error) {
    unlinkSync(temp);
    throw error;
  }
}
