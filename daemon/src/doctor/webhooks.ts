// The doctor's webhooks line: the SQLite board's signing secrets file, readable by the board's user only.
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Config } from '../runtime/config.js';
import type { CheckResult } from '../store/check-result.js';
import { SECRETS_FILE, secretsPathBeside } from '../webhooks/secret-file.js';
import { errorCode, openTo, result } from './result.js';

/** The SQLite board's webhook signing secrets: only the board's user may read them, as for agents.json. */
export function checkWebhookSecrets(config: Config): CheckResult {
  if (config.databaseUrl) return result('webhooks', 'ok', 'the board is on PostgreSQL: the signing secrets are in its webhooks table');
  const path = resolve(secretsPathBeside(config.agentsConfigPath));
  let mode: number;
  try {
    mode = statSync(path).mode & 0o777;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return result('webhooks', 'ok', `no ${SECRETS_FILE} (no webhook added)`);
    return result('webhooks', 'fail', `cannot read ${path} (${errorCode(error)})`, "check that the board's user can read it");
  }
  const exposure = openTo(mode);
  if (exposure) return result('webhooks', 'warn', `${path} mode ${mode.toString(8)}: ${exposure}`, `chmod 600 ${path}`);
  return result('webhooks', 'ok', `${path}, mode ${mode.toString(8)}`);
}
