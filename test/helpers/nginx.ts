// The shipped nginx config (deploy/nginx/), run for real by Debian's nginx on loopback ports with a self-signed
// certificate, in front of one daemon or several (the several-daemons upstream block spliced in, as DEPLOY §15 says).
import { execFileSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './board.js';
import { eventually } from './eventually.js';
import { freePort } from './net.js';
import { spawnTracked, stopProcess } from './processes.js';

export const NGINX = '/usr/sbin/nginx';
export const HAVE_NGINX = existsSync(NGINX);
const REQUIRE_NGINX = process.env['ROUNDTABLE_REQUIRE_NGINX'] === '1';
export const SHIPPED_CONF = join(ROOT, 'deploy/nginx/roundtable.conf');
export const SEVERAL_DAEMONS_CONF = join(ROOT, 'deploy/nginx/roundtable-several-daemons.conf');
/** The public name of the board in these tests; it is in the certificate and in ROUNDTABLE_ALLOWED_HOSTS. */
export const HOST = 'board.test';

/**
 * Whether this file's nginx tests can run. Without nginx they are skipped, unless ROUNDTABLE_REQUIRE_NGINX=1 (CI
 * installs nginx-light and sets it): then a failing test says what is missing. Call at the top level of a test file.
 */
export function nginxTestsRun(what: string): boolean {
  if (!HAVE_NGINX && !REQUIRE_NGINX) {
    console.warn(`${what} skipped: ${NGINX} is not installed (apt-get install nginx-light; CI sets ROUNDTABLE_REQUIRE_NGINX=1)`);
  }
  if (!HAVE_NGINX && REQUIRE_NGINX) {
    describe('nginx', () => {
      it('is installed', () => {
        throw new Error(`ROUNDTABLE_REQUIRE_NGINX=1, but ${NGINX} is missing: apt-get install nginx-light`);
      });
    });
  }
  return HAVE_NGINX;
}

/**
 * A shipped file with only the values on its "# EDIT" lines replaced. Each replacement must match exactly the
 * expected number of times and every EDIT line must change, so the test cannot drift from the file.
 */
function substituted(path: string, replacements: Array<[from: string, to: string, count: number]>): string {
  const shipped = readFileSync(path, 'utf8');
  let text = shipped;
  for (const [from, to, count] of replacements) {
    expect(text.split(from).length - 1, `occurrences of "${from}" in ${path}`).toBe(count);
    text = text.split(from).join(to);
  }
  const before = shipped.split('\n');
  const after = text.split('\n');
  expect(after).toHaveLength(before.length);
  const untouched = before.filter((line, i) => /;\s+# EDIT\b/.test(line) && after[i] === line);
  expect(untouched, `EDIT lines of ${path} the test did not substitute`).toEqual([]);
  return text;
}

const UPSTREAM_BLOCK = /^upstream roundtable_daemon \{\n[\s\S]*?^\}$/m;

function upstreamBlockOf(text: string, path: string): string {
  const blocks = text.match(new RegExp(UPSTREAM_BLOCK, 'gm')) ?? [];
  expect(blocks, `upstream roundtable_daemon blocks in ${path}`).toHaveLength(1);
  return blocks[0]!;
}

interface ConfigValues {
  httpPort: number;
  httpsPort: number;
  daemonPorts: readonly number[];
  cert: string;
  key: string;
  logs: string;
}

/**
 * roundtable.conf for these ports and files. With several daemons, its upstream block is replaced by the one in
 * roundtable-several-daemons.conf (a server line per daemon there, each pointed at a test daemon).
 */
export function substitutedConfig(values: ConfigValues): string {
  let site = substituted(SHIPPED_CONF, [
    ['board.example.com', HOST, 4],
    ['server 127.0.0.1:8000;', `server 127.0.0.1:${values.daemonPorts[0]};`, 1],
    ['listen 80;', `listen 127.0.0.1:${values.httpPort};`, 1],
    ['listen [::]:80;', '# (no IPv6 listener in the test)', 1],
    ['listen 443 ssl;', `listen 127.0.0.1:${values.httpsPort} ssl;`, 1],
    ['listen [::]:443 ssl;', '# (no IPv6 listener in the test)', 1],
    [`/etc/letsencrypt/live/${HOST}/fullchain.pem`, values.cert, 1],
    [`/etc/letsencrypt/live/${HOST}/privkey.pem`, values.key, 1],
    ['/var/log/nginx/', `${values.logs}/`, 3],
  ]);
  if (values.daemonPorts.length > 1) {
    const several = substituted(
      SEVERAL_DAEMONS_CONF,
      values.daemonPorts.map((port, i): [string, string, number] => [`server 10.0.0.1${i + 1}:8000 `, `server 127.0.0.1:${port} `, 1]),
    );
    upstreamBlockOf(site, SHIPPED_CONF);
    site = site.replace(UPSTREAM_BLOCK, upstreamBlockOf(several, SEVERAL_DAEMONS_CONF));
  }
  return site;
}

async function waitForPort(port: number, child: ChildProcess, output: () => string): Promise<void> {
  try {
    await eventually(`nginx to listen on ${port}`, async () => {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`nginx exited (${child.exitCode ?? child.signalCode})`);
      return new Promise<boolean>((resolve) => {
        const socket = connect(port, '127.0.0.1', () => {
          socket.destroy();
          resolve(true);
        });
        socket.on('error', () => resolve(false));
      });
    });
  } catch (error) {
    throw new Error(`${(error as Error).message}:\n${output()}`);
  }
}

export interface TestNginx {
  readonly httpsPort: number;
  readonly httpPort: number;
  /** https://board.test:PORT, the board's public URL (resolvable where resolverPreload is loaded). */
  readonly url: string;
  readonly dir: string;
  readonly logs: string;
  /** The certificate file (for --ca) and its PEM. */
  readonly cert: string;
  readonly ca: string;
  /** A CommonJS preload (`node --require`) that resolves board.test to 127.0.0.1 and every other name as usual. */
  readonly resolverPreload: string;
  /** What nginx wrote to stdout and stderr. */
  output(): string;
  /** Stops nginx and removes its folder (logs included). */
  stop(): Promise<void>;
}

/** nginx with the shipped config in front of the daemons on these loopback ports, listening on free ports. */
export async function startNginx(options: { daemonPorts: readonly number[] }): Promise<TestNginx> {
  const dir = mkdtempSync(join(tmpdir(), 'roundtable-nginx-'));
  // nginx started as root runs its workers as an unprivileged user; they need to reach the temp folders.
  chmodSync(dir, 0o755);
  const logs = join(dir, 'logs');
  mkdirSync(logs);
  for (const temp of ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, temp));

  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', `/CN=${HOST}`,
    '-addext', `subjectAltName=DNS:${HOST},IP:127.0.0.1`, '-keyout', key, '-out', cert,
  ], { stdio: 'ignore' });

  const httpsPort = await freePort();
  const httpPort = await freePort();
  writeFileSync(join(dir, 'roundtable.conf'), substitutedConfig({ httpPort, httpsPort, daemonPorts: options.daemonPorts, cert, key, logs }));
  // A test-only top level around the shipped server blocks: only the paths nginx writes are set here.
  writeFileSync(
    join(dir, 'nginx.conf'),
    [
      'worker_processes 1;',
      `error_log ${logs}/error.log warn;`,
      'events { worker_connections 256; }',
      'http {',
      `  client_body_temp_path ${dir}/client_body;`,
      `  proxy_temp_path ${dir}/proxy;`,
      `  fastcgi_temp_path ${dir}/fastcgi;`,
      `  uwsgi_temp_path ${dir}/uwsgi;`,
      `  scgi_temp_path ${dir}/scgi;`,
      `  access_log ${logs}/access.log;`,
      `  include ${dir}/roundtable.conf;`,
      '}',
      '',
    ].join('\n'),
  );

  // Clients must reach https://board.test:PORT/ with the certificate verified for the name board.test, the Host
  // header board.test (nginx's server_name; the daemon's allow-list), exactly as a real client reaches
  // board.example.com. Nothing resolves board.test, and a test may not edit /etc/hosts, so a client process gets an
  // in-process hosts entry: a preload that answers board.test -> 127.0.0.1 and defers every other name to the real
  // resolver. TLS verification is untouched (--ca with our cert).
  // (https://127.0.0.1:PORT would verify too, with the certificate's IP SAN, but its Host is then 127.0.0.1:
  // a loopback name, which the daemon admits whatever ROUNDTABLE_ALLOWED_HOSTS says, so it would not test
  // the allow-list, and which the shipped config refuses for that reason.)
  const resolverPreload = join(dir, 'resolve-board-test.cjs');
  writeFileSync(
    resolverPreload,
    `const dns = require('node:dns');
const lookup = dns.lookup;
if (!lookup.answersBoardTest) {
  dns.lookup = function (hostname, options, callback) {
    if (typeof options === 'function') { callback = options; options = {}; }
    if (typeof options === 'number') options = { family: options };
    if (String(hostname).toLowerCase() !== ${JSON.stringify(HOST)}) return lookup.call(this, hostname, options, callback);
    const answer = { address: '127.0.0.1', family: 4 };
    process.nextTick(() => (options && options.all ? callback(null, [answer]) : callback(null, answer.address, answer.family)));
  };
  dns.lookup.answersBoardTest = true;
}
`,
  );

  let output = '';
  const nginx = spawnTracked(NGINX, ['-e', 'stderr', '-p', `${dir}/`, '-c', join(dir, 'nginx.conf'), '-g', `daemon off; pid ${dir}/nginx.pid;`], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  nginx.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  nginx.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  try {
    await waitForPort(httpsPort, nginx, () => output);
    await waitForPort(httpPort, nginx, () => output);
  } catch (error) {
    await stopProcess(nginx);
    throw error;
  }
  return {
    httpsPort,
    httpPort,
    url: `https://${HOST}:${httpsPort}`,
    dir,
    logs,
    cert,
    ca: readFileSync(cert, 'utf8'),
    resolverPreload,
    output: () => output,
    async stop() {
      await stopProcess(nginx);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Makes this (test) process resolve board.test as the preload does for the processes it is given to. */
export function resolveBoardNameHere(nginx: TestNginx): void {
  createRequire(import.meta.url)(nginx.resolverPreload);
}
