// The bridge's version and its package folder, read once from where this module sits (dist/ or bundle/).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The package folder: bridge/ in the repository, node_modules/roundtable-bridge when installed. */
export const PACKAGE_DIR: string = fileURLToPath(new URL('..', import.meta.url)).replace(/[\\/]$/, '');

export const VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
