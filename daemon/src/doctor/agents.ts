// The doctor's agents line: agents.json (its mode, plaintext tokens) on SQLite, the agents table on PostgreSQL.
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadCatalog, type Catalog } from '../agents/catalog.js';
import { AgentsFileError } from '../agents/directory.js';
import type { Config } from '../runtime/config.js';
import type { CheckResult } from '../store/check-result.js';
import { openTo, result, summarise, type Finding } from './result.js';

export function checkAgents(config: Config): CheckResult {
  const path = resolve(config.agentsConfigPath);
  let directory;
  try {
    directory = loadCatalog(config.agentsConfigPath);
  } catch (error) {
    if (!(error instanceof AgentsFileError)) throw error;
    // The directory's messages name the place (a JSON error by line and column), never the file's text.
    const missing = !existsSync(config.agentsConfigPath);
    return result(
      'agents',
      'fail',
      error.message,
      missing
        ? '`roundtable init` writes a new one (or set ROUNDTABLE_AGENTS_CONFIG to the existing file)'
        : 'correct the file at the place named above; a running board keeps the last valid file in force meanwhile',
    );
  }
  const mode = statSync(config.agentsConfigPath).mode & 0o777;
  const findings: Finding[] = [];
  const exposure = openTo(mode);
  if (exposure) findings.push({ status: 'warn', detail: `mode ${mode.toString(8)}: ${exposure}`, fix: `chmod 600 ${path}` });
  const plaintext = directory.plaintextTokens;
  if (plaintext.length) {
    findings.push({
      status: 'warn',
      detail: `plaintext token for ${plaintext.join(', ')}`,
      fix: `${plaintext.map((n) => `roundtable agents rotate ${n}`).join(', ')} (stores only the hash; give the agent its new token)`,
    });
  }
  const base = `${countAgents(directory)}${exposure ? '' : `, mode ${mode.toString(8)}`}`;
  return summarise('agents', base, findings);
}

/** "4 agents (1 leader, 3 workers)", and the mode when it is peer; with several projects, how many of each. */
function countAgents(catalog: Catalog): string {
  const projects = catalog.projects;
  if (projects.length > 1) {
    const agents = projects.reduce((n, p) => n + p.agentCount, 0);
    return `${projects.length} projects, ${agents} agent${agents === 1 ? '' : 's'}, ${catalog.people.length} ${catalog.people.length === 1 ? 'person' : 'people'}`;
  }
  const directory = projects[0]!.directory;
  const agents = directory.list();
  const byRole = new Map<string, number>();
  for (const agent of agents) byRole.set(agent.role, (byRole.get(agent.role) ?? 0) + 1);
  const roles = [...byRole].map(([role, n]) => `${n} ${role}${n === 1 ? '' : 's'}`).join(', ');
  return `${agents.length} agent${agents.length === 1 ? '' : 's'} (${roles})${directory.mode === 'peer' ? ', peer mode' : ''}`;
}

/** On PostgreSQL the agents live in the agents table; agents.json only matters while the table is empty. */
export async function checkAgentsOf(config: Config): Promise<CheckResult> {
  if (!config.databaseUrl) return checkAgents(config);
  const { readAgentsTable } = await import('../agents/table.js');
  let directory: Catalog | undefined;
  try {
    directory = await readAgentsTable(config.databaseUrl);
  } catch (error) {
    // A table that breaks a rule (two names equal but for case, held from before the rule): its daemons refuse to start.
    if (error instanceof AgentsFileError) return result('agents', 'fail', error.message, 'daemons on this board refuse to start until it is fixed');
    return result('agents', 'fail', `cannot read the agents table: ${(error as { code?: string }).code ?? 'connection failed'}`, 'see the database line below');
  }
  if (directory) return result('agents', 'ok', `${countAgents(directory)} in the agents table`);
  return existsSync(config.agentsConfigPath)
    ? result('agents', 'warn', `the agents table is empty; the daemon moves ${config.agentsConfigPath} in when it starts`, `or now: roundtable agents import ${config.agentsConfigPath}`)
    : result('agents', 'fail', `the agents table is empty and there is no ${config.agentsConfigPath}`, '`roundtable init` writes one, then `roundtable agents import agents.json`');
}
