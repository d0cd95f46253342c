// The daemon package's own folder, where migrations/, web/ and package.json live beside the code.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The nearest folder above this code that holds a package.json: daemon/ in the repository (the code runs from
 * dist/ or bundle/, at different depths) and the installed package's folder alike.
 */
function findPackageDir(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}: the roundtable-daemon package is incomplete`);
  }
}

export const PACKAGE_DIR: string = findPackageDir(dirname(fileURLToPath(import.meta.url)));
