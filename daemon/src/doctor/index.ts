// `roundtable doctor`: independent checks of the set-up, one line each, saying what is wrong and how to fix it.
// It only reads: the database through a read-only connection, agents.json for names and roles, the TLS files,
// and GET /status. It never prints a token or board text. Each check is a file of doctor/; this is their list and the report.
import type { Config } from '../runtime/config.js';
import { escapeControls } from '../runtime/terminal-text.js';
import { VERSION } from '../runtime/version.js';
import type { CheckResult, CheckStatus } from '../store/check-result.js';
import { checkAgentsOf } from './agents.js';
import { checkBackupsOf } from './backups.js';
import { checkConfig } from './config.js';
import { checkDatabaseOf } from './database.js';
import { checkDisk } from './disk.js';
import { checkGit } from './git.js';
import { checkPort } from './port.js';
import { result } from './result.js';
import { checkTls } from './tls.js';
import { checkWebhookSecrets } from './webhooks.js';

export type Check = (config: Config) => CheckResult | Promise<CheckResult>;

export const CHECKS: ReadonlyArray<readonly [string, Check]> = [
  ['config', checkConfig],
  ['agents', checkAgentsOf],
  ['database', checkDatabaseOf],
  ['backups', checkBackupsOf],
  ['disk', checkDisk],
  ['tls', (config) => checkTls(config)],
  ['webhooks', checkWebhookSecrets],
  ['git', checkGit],
  ['port', checkPort],
];

export function formatResult(r: CheckResult): string {
  const line = `${r.status.padEnd(6)}${r.name.padEnd(11)}${r.detail}`;
  return r.fix && r.status !== 'ok' ? `${line}\n${' '.repeat(17)}fix: ${r.fix}` : line;
}

/** Runs every check (one failing to run is itself reported), printing each line as it completes. */
export async function runChecks(config: Config, write: (text: string) => void, checks = CHECKS): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const [name, check] of checks) {
    let r: CheckResult;
    try {
      r = await check(config);
    } catch (error) {
      r = result(name, 'fail', `the check could not run: ${(error as Error).message ?? String(error)}`);
    }
    results.push(r);
    write(`${formatResult(r)}\n`);
  }
  return results;
}

/** Returns the exit code: 1 when a check failed, 0 otherwise (warnings do not fail). */
export async function runDoctor(config: Config): Promise<number> {
  // Findings may quote agents.json (a refused name): shown escaped, like every CLI message (runtime/terminal-text.ts).
  const write = (text: string) => void process.stdout.write(escapeControls(text, { keepLineBreaks: true }));
  write(`roundtable doctor ${VERSION}\n`);
  const results = await runChecks(config, write);
  const count = (s: CheckStatus) => results.filter((r) => r.status === s).length;
  const failed = count('fail');
  const warned = count('warn');
  write(
    `\n${count('ok')} ok, ${warned} warning${warned === 1 ? '' : 's'}, ${failed} failed: ${
      failed ? 'fix the fail lines above' : warned ? 'the board can run; see the warnings' : 'all good'
    }\n`,
  );
  return failed ? 1 : 0;
}
