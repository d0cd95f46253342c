// `roundtable status`: whether a board runs on this folder's database, and what its /status says, for a person.
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { TASK_STATUSES } from 'roundtable-shared';
import type { Config } from '../runtime/config.js';
import { liveDaemon } from '../runtime/db-lock.js';
import type { Command } from './command.js';

const ASK_TIMEOUT_MS = 3_000;
const HOW_TO_START = 'Start one with `roundtable start` (in a checkout: `npm start`)';

interface StatusBody {
  readonly ok: boolean;
  readonly board?: string;
  readonly version?: string;
  readonly uptime_seconds?: number;
  readonly tasks_by_status?: Record<string, number>;
  readonly tasks_ready?: number;
  readonly tasks_blocked?: number;
  readonly active_agents?: number;
  readonly database?: string;
}

/** Where to find the board: the address its lock records (SQLite), else the configured one (PostgreSQL boards keep no lock). */
interface Found {
  readonly pid: number | undefined;
  readonly url: string;
}

/** A board listening on every interface is asked on loopback, which it always admits. */
function askableUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.hostname === '0.0.0.0') parsed.hostname = '127.0.0.1';
  if (parsed.hostname === '[::]') parsed.hostname = '[::1]';
  return parsed.origin;
}

/** GET /status; the board's own certificate is trusted when the board serves TLS with ROUNDTABLE_TLS_CERT (often self-signed). */
function askStatus(url: string, config: Config): Promise<{ code: number; body: StatusBody }> {
  const target = new URL('/status', askableUrl(url));
  const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
  const ca = target.protocol === 'https:' && config.tls ? readFileSync(config.tls.certPath) : undefined;
  return new Promise((resolve, reject) => {
    const req = request(target, { timeout: ASK_TIMEOUT_MS, ...(ca && { ca }) }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        try {
          resolve({ code: res.statusCode ?? 0, body: JSON.parse(text) as StatusBody });
        } catch {
          reject(new Error(`it answered HTTP ${res.statusCode} without the board's JSON (another program on that port?)`));
        }
      });
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${ASK_TIMEOUT_MS / 1000} s`)));
    req.on('error', (error: NodeJS.ErrnoException) => reject(error.code === 'ECONNREFUSED' ? new Error('nothing listens there (connection refused)') : error));
    req.end();
  });
}

/** "2d 3h", "1h 4m", "5m 2s", "40s". */
export function describeUptime(seconds: number): string {
  const parts: Array<[number, string]> = [
    [Math.floor(seconds / 86_400), 'd'],
    [Math.floor(seconds / 3600) % 24, 'h'],
    [Math.floor(seconds / 60) % 60, 'm'],
    [seconds % 60, 's'],
  ];
  const first = parts.findIndex(([n]) => n > 0);
  if (first === -1) return '0s';
  return parts
    .slice(first, first + 2)
    .map(([n, unit]) => `${n}${unit}`)
    .join(' ');
}

function describeTasks(body: StatusBody): string {
  const counts = body.tasks_by_status ?? {};
  return TASK_STATUSES.map((state) => {
    const n = counts[state] ?? 0;
    return state === 'open' && body.tasks_ready !== undefined ? `open ${n} (${body.tasks_ready} ready, ${body.tasks_blocked ?? 0} blocked)` : `${state} ${n}`;
  }).join(', ');
}

function locate(config: Config): Found | string {
  if (config.databaseUrl) {
    if (config.port === 0) return 'the board is on PostgreSQL and ROUNDTABLE_PORT is 0 (any port), so there is no address to ask; set ROUNDTABLE_PORT (or --port) to the port the board uses';
    const host = config.host.includes(':') ? `[${config.host}]` : config.host;
    return { pid: undefined, url: `${config.tls ? 'https' : 'http'}://${host}:${config.port}` };
  }
  const daemon = liveDaemon(config.dbPath);
  if (!daemon) return `no board is running for ${config.dbPath} (no live daemon holds its lock). ${HOW_TO_START}`;
  if (!daemon.url) return `a daemon (pid ${daemon.pid}) holds ${config.dbPath} but is not listening yet (still starting, or an older version that records no address); try again in a moment`;
  return { pid: daemon.pid, url: daemon.url };
}

/** Prints the board's state; the exit code is 0 when a board answers and its database is reachable, else 1. */
export async function statusCommand(config: Config, json: boolean): Promise<number> {
  const found = locate(config);
  const refuse = (reason: string): number => {
    if (json) process.stdout.write(`${JSON.stringify({ running: false, reason })}\n`);
    else process.stderr.write(`roundtable: ${reason}\n`);
    return 1;
  };
  if (typeof found === 'string') return refuse(found);
  let answer: { code: number; body: StatusBody };
  try {
    answer = await askStatus(found.url, config);
  } catch (error) {
    const who = found.pid === undefined ? `no board answers at ${found.url} (ROUNDTABLE_HOST, ROUNDTABLE_PORT)` : `the daemon (pid ${found.pid}) at ${found.url} does not answer /status`;
    return refuse(`${who}: ${(error as Error).message}. ${found.pid === undefined ? HOW_TO_START : 'Look at its log'}`);
  }
  const { body } = answer;
  if (json) {
    process.stdout.write(`${JSON.stringify({ running: true, ...(found.pid !== undefined && { pid: found.pid }), url: found.url, ...body })}\n`);
    return body.ok ? 0 : 1;
  }
  const lines = [
    `Board "${body.board ?? '?'}" is running${found.pid !== undefined ? ` (pid ${found.pid}) for ${config.dbPath}` : ' (PostgreSQL)'}`,
    `  address  ${found.url} (web page ${found.url}/, MCP ${found.url}/mcp)`,
    `  version  ${body.version ?? '?'}`,
    `  uptime   ${body.uptime_seconds === undefined ? '?' : describeUptime(body.uptime_seconds)}`,
  ];
  if (!body.ok) {
    lines.push(`  database ${body.database ?? 'unavailable'}: the daemon runs but its database does not answer; \`roundtable doctor\` says why`);
  } else {
    lines.push(`  agents   ${body.active_agents ?? 0} active (a tool call in the last 15 minutes)`, `  tasks    ${describeTasks(body)}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  return body.ok ? 0 : 1;
}

export const STATUS: Command = {
  name: 'status',
  usage: 'status [--json]',
  summary: "whether a board runs on this folder's database: its address, version, uptime, agents active, tasks by state",
  options: ['json'],
  args: [],
  async run(config, { values }) {
    process.exitCode = await statusCommand(config, values['json'] === true);
  },
};
