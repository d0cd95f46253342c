// Replacing a client's config file safely: only inside the scope's own folder, never a file its owner made read-only,
// a dated backup first, then the new text renamed into place.
import { chmodSync, constants, copyFileSync, existsSync, lstatSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { ConfigRefused } from './json-text.js';

/** The file's text, or undefined when there is none yet. */
export function readConfig(path: string): string | undefined {
  if (!existsSync(path)) return undefined;
  if (!statSync(path).isFile()) throw new ConfigRefused(`it is not a file`);
  return readFileSync(path, 'utf8');
}

/** 20260102T030405Z: sorts by time and is a valid file name everywhere. */
function stamp(now: Date): string {
  return now.toISOString().replace(/\.\d+Z$/, 'Z').replace(/[-:]/g, '');
}

/** Whether `path` is `folder` or lies under it. */
export function isInside(path: string, folder: string): boolean {
  const rel = relative(folder, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

function refuseReadOnly(target: string): void {
  if (!existsSync(target)) return;
  const mode = statSync(target).mode & 0o777;
  if ((mode & 0o200) === 0) throw new ConfigRefused(`it is read-only (mode ${mode.toString(8)}); make it writable (chmod u+w) if setup may change it`);
}

/**
 * Where writing `path` really lands: the file a symlink points to, or for a file not there yet, its name under the
 * real path of the nearest folder that is. Refused when that is outside `scope` (the home folder for user scope, the
 * project for project scope): a link in a project must not get setup to rewrite a file elsewhere.
 */
export function writeTarget(path: string, scope: string): string {
  const realScope = existsSync(scope) ? realpathSync(scope) : scope;
  let target: string;
  if (existsSync(path)) {
    target = realpathSync(path);
  } else {
    let folder = dirname(path);
    const rest = [path.slice(folder.length + 1)];
    while (!existsSync(folder) && dirname(folder) !== folder) {
      rest.unshift(folder.slice(dirname(folder).length + 1));
      folder = dirname(folder);
    }
    target = join(realpathSync(folder), ...rest);
  }
  if (!isInside(target, realScope)) {
    const link = lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() ? 'it is a symlink to' : 'a symlinked folder on its path leads to';
    throw new ConfigRefused(`${link} ${target}, outside ${realScope}; setup writes only inside the folder of the scope`);
  }
  return target;
}

/**
 * Writes `text` to `path`. An existing file is first copied to PATH.bak-<time> (same mode), and the new text goes
 * through a temporary file renamed over the real one (through a symlink, onto its target), keeping the file's mode.
 * A file without its owner's write permission (mode 444) is refused: someone made it read-only on purpose.
 * Returns the backup's path, if there was a file to back up.
 */
export function replaceConfig(path: string, text: string, scope: string, now = new Date()): string | undefined {
  const target = writeTarget(path, scope);
  let backup: string | undefined;
  let mode: number | undefined;
  refuseReadOnly(target);
  if (existsSync(target)) {
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
    mkdirSync(dirname(target), { recursive: true });
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

/** Whether writing would be refused, checked before anything is written so a run changes all its files or none. */
export function checkWritable(path: string, scope: string): void {
  refuseReadOnly(writeTarget(path, scope));
}

/**
 * Puts a file `replaceConfig` wrote back as it was: its backup renamed over it (the same bytes and mode), or, when
 * there was no file before, the new one removed.
 */
export function restoreConfig(path: string, backup: string | undefined, scope: string): void {
  const target = writeTarget(path, scope);
  if (backup === undefined) rmSync(target, { force: true });
  else renameSync(backup, target);
}
