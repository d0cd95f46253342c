// The doctor's port line: whether the board answers GET /status where it is configured to, and whether it is this database's.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { resolve } from 'node:path';
import type { Config } from '../runtime/config.js';
import { daemonUsing } from '../runtime/db-lock.js';
import type { CheckResult } from '../store/check-result.js';
import { errorCode, result } from './result.js';

const PROBE_TIMEOUT_MS = 3_000;

/** The address the board is configured to listen on, as a URL (an IPv6 host in brackets). */
export function boardUrl(config: Config): string {
  const shown = config.host.includes(':') && !config.host.startsWith('[') ? `[${config.host}]` : config.host;
  return `${config.tls ? 'https' : 'http'}://${shown}:${config.port}`;
}

interface ProbeAnswer {
  readonly status: number;
  readonly body: unknown;
  readonly ms: number;
}

/** Where to reach the board: a wildcard bind address is reached on loopback. */
function probeHost(config: Config): string {
  const host = config.host.replace(/^\[|\]$/g, '');
  return host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
}

/** GET /status on the configured address, with Host: localhost (always allowed) and a short timeout. */
function probeStatus(config: Config): Promise<ProbeAnswer> {
  const hostname = probeHost(config);
  const started = performance.now();
  return new Promise((resolvePromise, reject) => {
    const onResponse = (res: IncomingMessage) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (text.length < 64 * 1024) text += chunk;
      });
      res.on('end', () => {
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
        resolvePromise({ status: res.statusCode ?? 0, body, ms: performance.now() - started });
      });
      res.on('error', reject);
    };
    const options = { hostname, port: config.port, path: '/status', method: 'GET', headers: { host: `localhost:${config.port}` }, timeout: PROBE_TIMEOUT_MS };
    // This checks that the board answers, not who it is: the certificate itself is checked by the tls line.
    const req = config.tls ? httpsRequest({ ...options, rejectUnauthorized: false }, onResponse) : httpRequest(options, onResponse);
    req.on('timeout', () => req.destroy(Object.assign(new Error(`no answer within ${PROBE_TIMEOUT_MS / 1000} s`), { code: 'ETIMEDOUT' })));
    req.on('error', reject);
    req.end();
  });
}

export async function checkPort(config: Config): Promise<CheckResult> {
  const url = `${boardUrl({ ...config, host: probeHost(config) })}/status`;
  const pid = daemonUsing(config.dbPath);
  const startFix = '`roundtable run` (or `systemctl start roundtable` where it is installed as a service)';
  if (config.port === 0) {
    return result('port', pid === undefined ? 'warn' : 'ok', pid === undefined ? 'no daemon running (and ROUNDTABLE_PORT=0 has no fixed port to check)' : `a daemon (pid ${pid}) uses the database; ROUNDTABLE_PORT=0, so there is no fixed port to check`, pid === undefined ? startFix : undefined);
  }
  let answer: ProbeAnswer | undefined;
  let problem = '';
  try {
    answer = await probeStatus(config);
  } catch (error) {
    problem = errorCode(error);
  }
  const body = answer?.body as { ok?: unknown; version?: unknown; error?: { code?: unknown } } | undefined;
  const isBoard = answer !== undefined && ((answer.status === 200 && body?.ok === true) || (answer.status === 429 && body?.error?.code === 'rate_limited'));
  if (pid !== undefined) {
    if (isBoard) {
      const version = typeof body?.version === 'string' ? `roundtable ${body.version}, ` : '';
      return result('port', 'ok', `${url} answers in ${answer!.ms.toFixed(0)} ms (${version}daemon pid ${pid})`);
    }
    return result(
      'port',
      'fail',
      `a daemon (pid ${pid}) uses the database, but ${url} ${answer ? `answers HTTP ${answer.status}, not the board's status` : `does not answer (${problem})`}`,
      "check that ROUNDTABLE_HOST and ROUNDTABLE_PORT match the running board's, and read its log (journalctl -u roundtable, or its stderr)",
    );
  }
  if (isBoard) {
    return result('port', 'warn', `a board answers at ${url}, but no daemon uses ${resolve(config.dbPath)}`, 'that board uses another database: check ROUNDTABLE_DB_PATH');
  }
  if (answer) {
    return result('port', 'fail', `no daemon running, and something else answers at ${url} (HTTP ${answer.status}): the board could not listen there`, 'stop the other program, or set ROUNDTABLE_PORT to a free port');
  }
  return result('port', 'warn', `no daemon running (nothing answers at ${url})`, startFix);
}
