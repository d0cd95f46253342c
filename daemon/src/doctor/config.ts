// The doctor's config line: where the board listens and keeps its data, and settings that keep clients away.
import { resolve } from 'node:path';
import { plainHttpExposure } from '../process/exposure.js';
import type { Config } from '../runtime/config.js';
import type { CheckResult } from '../store/check-result.js';
import { describeDatabase } from '../store/open.js';
import { boardUrl } from './port.js';
import { summarise, type Finding } from './result.js';

export function checkConfig(config: Config): CheckResult {
  const base = `${boardUrl(config)}, database ${config.databaseUrl ? describeDatabase(config) : resolve(config.dbPath)}, agents ${resolve(config.agentsConfigPath)}`;
  const findings: Finding[] = [];
  const exposure = plainHttpExposure(config);
  if (exposure) findings.push({ status: 'warn', detail: exposure.detail, fix: exposure.fix });
  if (config.port === 0) {
    findings.push({ status: 'warn', detail: 'ROUNDTABLE_PORT=0 picks a new random port at every start, so clients cannot find the board', fix: 'set ROUNDTABLE_PORT to a fixed port, e.g. 8000' });
  }
  return summarise('config', base, findings);
}
