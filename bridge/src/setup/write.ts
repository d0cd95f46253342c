// Replacing a client's config file safely: a dated backup first, then the new text renamed into place.
import { chmodSync, constants, copyFileSync, existsSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** The file's text, or undefined when there is none yet. */
export function readConfig(path: string): string | undefined {
  if (!existsSync(path)) return undefined;
  if (!statSync(path).isFile()) throw new Error(`${path} is not a file`);
  return readFileSync(path, 'utf8');
}

/** 20260102T030405Z: sorts by time and is a valid file name everywhere. */
function stamp(now: Date): string {
  return now.toISOString().replace(/\.\d+Z$/, 'Z').replace(/[-:]/g, '');
}

/**
 * Writes `text` to `path`. An existing file is first copied to PATH.bak-<time> (same mode), and the new text goes
 * through a temporary file renamed over the real one (through a symlink, onto its target), keeping the file's mode.
 * Returns the backup's path, if there was a file to back up.
 */
export function replaceConfig(path: string, text: string, now = new Date()): string | undefined {
  let target = path;
  let backup: string | undefined;
  let mode: number | undefined;
  if (existsSync(path)) {
    target = realpathSync(path);
    mode = statSync(target).mode & 0o777;
    const base = `${target}.bak-${stamp(now)}`;
    for (let n = 1; !backup; n++) {
      const candidate = n === 1 ? base : `${base}-${n}`;
      try {
        copyFileSync(target, candidate, constants.COPYFILE_EXCL);
        backup = candidate;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || n > 100) throw error;
      }
    }
  } else {
    mkdirSync(dirname(path), { recursive: true });
  }
  const temporary = `${target}.tmp-${process.pid}`;
  try {
    writeFileSync(temporary, text, { flag: 'wx', ...(mode !== undefined && { mode }) });
    if (mode !== undefined) chmodSync(temporary, mode);
    renameSync(temporary, target);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
  return backup;
}
