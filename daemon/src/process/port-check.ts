// Whether the board's port can be bound, checked before `start` writes anything, and what to say when it cannot:
// the port, the program holding it where `ss` or `lsof` can tell (as scripts/install-local.sh does), and the way out.
import { execFileSync } from 'node:child_process';
import { readlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { basename } from 'node:path';

/** The board cannot listen where it is told to: the message names the port and what to do. */
export class PortUnavailable extends Error {}

/** The first ports above a busy one that are tried, to name a free one in the message. */
const NEARBY_PORTS = 20;

/** Resolves with the error code of binding host:port ("free" when it could), closing the test listener at once. */
function tryBind(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'EUNKNOWN'));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve('free')));
  });
}

function run(command: string, args: readonly string[]): string {
  try {
    return execFileSync(command, args, { encoding: 'utf8', timeout: 2000, stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return '';
  }
}

/**
 * The program's name: its executable's when /proc shows it (Node 24 names its main thread "MainThread", which is what
 * ss and lsof report), else the name they gave.
 */
function programName(pid: string, reported: string): string {
  try {
    return basename(readlinkSync(`/proc/${pid}/exe`));
  } catch {
    return reported;
  }
}

/** "node (pid 1234)" for the process listening on the TCP port, or undefined when neither ss nor lsof can say. */
export function portHolder(port: number): string | undefined {
  const ss = /users:\(\("((?:[^"\\]|\\.)*)",pid=(\d+)/.exec(run('ss', ['-Hltnp', `sport = :${port}`]));
  if (ss) return `${programName(ss[2]!, ss[1]!)} (pid ${ss[2]})`;
  // -F pc: one "p<pid>" line, then one "c<command>" line, per process.
  const lsof = /^p(\d+)\nc(.+)$/m.exec(run('lsof', ['-nP', `-iTCP:${port}`, '-sTCP:LISTEN', '-Fpc']));
  if (lsof) return `${programName(lsof[1]!, lsof[2]!)} (pid ${lsof[1]})`;
  return undefined;
}

async function freePortAbove(host: string, port: number): Promise<number | undefined> {
  for (let candidate = port + 1; candidate <= Math.min(65535, port + NEARBY_PORTS); candidate++) {
    if ((await tryBind(host, candidate)) === 'free') return candidate;
  }
  return undefined;
}

/** The refusal for a port another process holds; `next` is a free port to suggest, when one was found. */
export function portInUse(host: string, port: number, next?: number): PortUnavailable {
  const holder = portHolder(port);
  const other = next ?? port + 1;
  return new PortUnavailable(
    `port ${port} on ${host} is already in use${holder ? ` by ${holder}` : ''}; stop that program, or start on another port: ` +
      `ROUNDTABLE_PORT=${other} npm start, or roundtable start --port ${other}`,
  );
}

/**
 * Refuses, before anything is written, a host:port the board could not listen on. Port 0 (any free port) always binds.
 * A port taken between this check and the real listen is named the same way (listenFailure).
 */
export async function checkPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  const outcome = await tryBind(host, port);
  if (outcome === 'free') return;
  if (outcome === 'EADDRINUSE') throw portInUse(host, port, await freePortAbove(host, port));
  throw listenFailure(Object.assign(new Error(outcome), { code: outcome }), host, port);
}

/** The error of a failed listen, as a message naming the port (or the host) and what to do; other errors unchanged. */
export function listenFailure(error: NodeJS.ErrnoException, host: string, port: number): Error {
  switch (error.code) {
    case 'EADDRINUSE':
      return portInUse(host, port);
    case 'EACCES':
      return new PortUnavailable(`port ${port} needs privileges this user does not have (ports below 1024 do); use a port above 1024: ROUNDTABLE_PORT=8000, or --port 8000`);
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
      return new PortUnavailable(`ROUNDTABLE_HOST ${host} is not an address of this machine; use 127.0.0.1 (this machine only) or 0.0.0.0 (every interface)`);
    default:
      return error;
  }
}
