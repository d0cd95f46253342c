// The SQLite board's webhook signing secrets: webhook-secrets.json beside agents.json, mode 600, replaced atomically.
// They must stay usable for HMAC, so they cannot be kept as hashes; the file is the only place they are written.
import { readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { writePrivateFile } from '../runtime/private-file.js';

export const SECRETS_FILE = 'webhook-secrets.json';

export function secretsPathBeside(agentsConfigPath: string): string {
  return join(dirname(agentsConfigPath), SECRETS_FILE);
}

export function readSecrets(path: string): Record<string, string> {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, string>) : {};
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new Error(`${path} cannot be read as JSON; restore it from a backup or remove and re-add the webhooks`);
  }
}

/** Replaces the file with `secrets`, mode 600, atomically. */
export function writeSecrets(path: string, secrets: Record<string, string>): void {
  writePrivateFile(path, `${JSON.stringify(secrets, null, 2)}\n`);
}

/** Reads the file again only when it changed (size and mtime), so a delivery costs no read in the common case. */
export function cachedSecrets(path: string): (id: string) => string | undefined {
  let stamp = '';
  let secrets: Record<string, string> = {};
  return (id) => {
    let now = 'missing';
    try {
      const s = statSync(path);
      now = `${s.size}:${s.mtimeMs}:${s.ino}`;
    } catch {
      // missing: no secrets
    }
    if (now !== stamp) {
      try {
        secrets = now === 'missing' ? {} : readSecrets(path);
        stamp = now;
      } catch {
        return undefined;
      }
    }
    return secrets[id];
  };
}
