// The shipped nginx reverse proxy (deploy/nginx/roundtable.conf), run for real by Debian's nginx on loopback
// ports with a self-signed certificate, in front of the real daemon: a tool call through the bridge over
// HTTPS, /status, the daemon's Host check behind the proxy (an owner's page actions too), client-IP handling, and an
// access log without tokens.
//
// Needs /usr/sbin/nginx and openssl. Without nginx the file is skipped, unless ROUNDTABLE_REQUIRE_NGINX=1
// (CI installs nginx-light and sets it), when it fails.
import { existsSync, readFileSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, DEFAULT_AGENTS, startBoard, type TestBoard } from '../helpers/board.js';
import { body, BRIDGE_BIN, bridgeEnv, startBridge } from '../helpers/bridge.js';
import { HOST, nginxTestsRun, SHIPPED_CONF, startNginx, type TestNginx } from '../helpers/nginx.js';
import { spawnTracked } from '../helpers/processes.js';

const STATUS_LIMIT = 30;
const RUN = nginxTestsRun('deployment test');

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** An HTTPS request to nginx on 127.0.0.1, with SNI and certificate verification for `servername`. */
function https(options: { port: number; ca: string; path: string; method?: string; host?: string; headers?: Record<string, string>; body?: string }): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: '127.0.0.1',
        port: options.port,
        servername: HOST,
        ca: options.ca,
        method: options.method ?? 'GET',
        path: options.path,
        headers: { host: options.host ?? HOST, ...options.headers },
        agent: false,
      },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Only the status line and headers of a GET (the body may be an endless event stream). */
function head(url: string | { port: number; ca: string; path: string }): Promise<{ status: number; type: string | undefined }> {
  return new Promise((resolve, reject) => {
    const onResponse = (res: IncomingMessage) => {
      resolve({ status: res.statusCode!, type: res.headers['content-type'] });
      res.destroy();
    };
    const req =
      typeof url === 'string'
        ? httpRequest(url, { agent: false }, onResponse)
        : httpsRequest({ host: '127.0.0.1', port: url.port, servername: HOST, ca: url.ca, path: url.path, headers: { host: HOST }, agent: false }, onResponse);
    req.on('error', reject);
    req.end();
  });
}

function http(options: { port: number; path: string; host: string }): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: options.port, path: options.path, headers: { host: options.host }, agent: false }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Runs a command to its end (tracked, so a hang shows up as a leaked process). */
function run(command: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawnTracked(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe.runIf(RUN)('behind the shipped nginx config', () => {
  let board: TestBoard;
  let nginx: TestNginx;
  let ca: string;
  let httpsPort: number;
  let httpPort: number;
  const bridgeOutputs: string[] = [];

  beforeAll(async () => {
    board = await startBoard({
      agents: [...DEFAULT_AGENTS, { name: 'boss', role: 'owner' }],
      env: {
        ROUNDTABLE_ALLOWED_HOSTS: HOST,
        ROUNDTABLE_TRUST_PROXY: 'true',
        ROUNDTABLE_STATUS_RATE_LIMIT_PER_MINUTE: String(STATUS_LIMIT),
      },
    });
    nginx = await startNginx({ daemonPorts: [board.port] });
    ({ ca, httpsPort, httpPort } = nginx);
  });

  afterAll(async () => {
    const nginxOutput = nginx?.output() ?? '';
    if (nginx) await nginx.stop();
    if (board) await board.stop();
    // No token anywhere: nginx's own output, the bridges' stderr, the daemon's logs.
    const everything = [nginxOutput, ...bridgeOutputs, board?.output().stderr ?? ''].join('\n');
    for (const token of Object.values(board?.tokens ?? {})) expect(everything).not.toContain(token);
  });

  function bridgeArgs(...extra: string[]): string[] {
    return ['--url', nginx.url, '--ca', nginx.cert, ...extra];
  }
  function bridgeEnvFor(agent: string): Record<string, string> {
    return bridgeEnv({ ROUNDTABLE_TOKEN: board.tokens[agent]!, NODE_OPTIONS: `--require ${JSON.stringify(nginx.resolverPreload)}` });
  }

  it('serves tool calls through the bridge over HTTPS: whoami, create_task, get_task', async () => {
    const leader = await startBridge({ args: bridgeArgs(), env: bridgeEnvFor('lead') });
    try {
      const me = await leader.client.callTool({ name: 'whoami', arguments: {} });
      expect(me.isError, JSON.stringify(me)).toBeFalsy();
      expect(body(me)).toMatchObject({ name: 'lead', role: 'leader' });

      const created = await leader.client.callTool({ name: 'create_task', arguments: { title: 'through nginx', description: 'TLS at the proxy' } });
      expect(created.isError, JSON.stringify(created)).toBeFalsy();
      const id = body(created).task.id as number;

      const fetched = await leader.client.callTool({ name: 'get_task', arguments: { task_id: id } });
      expect(fetched.isError, JSON.stringify(fetched)).toBeFalsy();
      expect(body(fetched).task).toMatchObject({ id, title: 'through nginx', description: 'TLS at the proxy', status: 'open' });
      expect(body(fetched).history.map((h: { action: string }) => h.action)).toEqual(['created']);
    } finally {
      await leader.close();
      bridgeOutputs.push(leader.stderr());
    }
    // The task is really on the board behind the proxy.
    const direct = await fetch(`${board.url}/api/v1/tools/list_tasks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${board.tokens['w1']}` },
      body: '{}',
    });
    expect(((await direct.json()) as { tasks: Array<{ title: string }> }).tasks.map((t) => t.title)).toContain('through nginx');
  });

  it('`roundtable-bridge status` checks the board through the proxy', async () => {
    const result = await run(process.execPath, [BRIDGE_BIN, 'status', ...bridgeArgs()], bridgeEnvFor('w1'));
    bridgeOutputs.push(result.stdout, result.stderr);
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(result.stdout).toMatch(/daemon: +reachable/);
    expect(result.stdout).toMatch(/agent: +w1 \(worker\)/);
  });

  it('serves MCP on /mcp over HTTPS', async () => {
    const answer = await https({
      port: httpsPort,
      ca,
      path: '/mcp',
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${board.tokens['w2']}`,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } }),
    });
    expect(answer.status, answer.text).toBe(200);
    const message = JSON.parse(answer.text) as { result: { content: Array<{ text: string }> } };
    expect(JSON.parse(message.result.content[0]!.text)).toMatchObject({ name: 'w2', role: 'worker' });
  });

  it('GET /status over HTTPS returns the board status, with HSTS', async () => {
    const answer = await https({ port: httpsPort, ca, path: '/status' });
    expect(answer.status, answer.text).toBe(200);
    const status = JSON.parse(answer.text) as Record<string, unknown>;
    expect(status).toMatchObject({ ok: true, board: 'Roundtable' });
    expect(status['tasks_by_status']).toBeTypeOf('object');
    expect(answer.headers['strict-transport-security']).toMatch(/max-age=\d+/);
    expect(answer.headers['server']).toBe('nginx');
  });

  it('passes the Host on, so the daemon refuses a foreign one: 404 on /status, 403 on /mcp and the API', async () => {
    const status = await https({ port: httpsPort, ca, path: '/status', host: 'evil.example' });
    expect(status.status, status.text).toBe(404);
    expect(status.text).not.toContain('tasks_by_status');
    // The daemon answered (it tags every response with a request id), not nginx's own catch-all.
    expect(status.headers['x-request-id']).toBeTruthy();

    const mcp = await https({
      port: httpsPort,
      ca,
      path: '/mcp',
      method: 'POST',
      host: 'evil.example',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${board.tokens['w1']}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(mcp.status, mcp.text).toBe(403);
    expect(JSON.parse(mcp.text).error.code).toBe('forbidden');
    expect(mcp.headers['x-request-id']).toBeTruthy();

    const apiCall = await https({
      port: httpsPort,
      ca,
      path: '/api/v1/tools/whoami',
      method: 'POST',
      host: 'evil.example',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${board.tokens['w1']}` },
      body: '{}',
    });
    expect(apiCall.status, apiCall.text).toBe(403);

    // The Origin header reaches the daemon too: a foreign Origin on the right Host is refused.
    const crossSite = await https({
      port: httpsPort,
      ca,
      path: '/mcp',
      method: 'POST',
      headers: { origin: 'https://evil.example', 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${board.tokens['w1']}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(crossSite.status, crossSite.text).toBe(403);
    expect(crossSite.headers['x-request-id']).toBeTruthy();
  });

  it('nginx passes Host without its port: the public name on the standard port signs in, another port of it is refused', async () => {
    const signIn = (origin: string) =>
      https({ port: httpsPort, ca, path: '/session', method: 'POST', headers: { origin, 'content-type': 'application/json' }, body: JSON.stringify({ token: board.tokens['w1'] }) });
    const admitted = await signIn(`https://${HOST}`);
    expect(admitted.status, admitted.text).toBe(200);
    expect(String(admitted.headers['set-cookie'])).toMatch(/^__Host-rt_session=/);
    const otherPort = await signIn(`https://${HOST}:8443`);
    expect(otherPort.status, otherPort.text).toBe(403);
    expect(otherPort.headers['set-cookie']).toBeUndefined();
    expect(otherPort.headers['x-request-id'], 'refused by the daemon').toBeTruthy();
  });

  it("an owner's page action through the proxy: the public origin acts, another port of it is refused and changes nothing", async () => {
    const origin = `https://${HOST}`;
    const signedIn = await https({ port: httpsPort, ca, path: '/session', method: 'POST', headers: { origin, 'content-type': 'application/json' }, body: JSON.stringify({ token: board.tokens['boss'] }) });
    expect(signedIn.status, signedIn.text).toBe(200);
    // Secure: nginx says the client came over HTTPS.
    expect(String(signedIn.headers['set-cookie'])).toMatch(/; Secure;/);
    const cookie = `__Host-rt_session=${/__Host-rt_session=([^;]+)/.exec(String(signedIn.headers['set-cookie']))![1]}`;
    const state = JSON.parse((await https({ port: httpsPort, ca, path: '/view/state', headers: { cookie } })).text) as { csrf_token: string; me: { acts: boolean } };
    expect(state.me.acts).toBe(true);
    const act = (from: string, title: string) =>
      https({
        port: httpsPort,
        ca,
        path: '/actions/create_task',
        method: 'POST',
        headers: { origin: from, cookie, 'content-type': 'application/json', 'sec-fetch-site': 'same-origin', 'x-csrf-token': state.csrf_token },
        body: JSON.stringify({ title }),
      });
    const done = await act(origin, 'planned through the proxy');
    expect(done.status, done.text).toBe(200);
    expect(JSON.parse(done.text).task).toMatchObject({ title: 'planned through the proxy', created_by: 'boss' });
    const otherPort = await act(`https://${HOST}:8443`, 'from another port');
    expect(otherPort.status, otherPort.text).toBe(403);
    const titles = (await api(board, 'lead', 'list_tasks', { limit: 100 })).body.tasks.map((t: { title: string }) => t.title);
    expect(titles).toContain('planned through the proxy');
    expect(titles).not.toContain('from another port');
  });

  it('refuses the loopback names in Host and Origin itself: the daemon would admit them', async () => {
    const mcpHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${board.tokens['w1']}` };
    const toolsList = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const refused = [
      await https({ port: httpsPort, ca, path: '/status', host: 'localhost' }),
      await https({ port: httpsPort, ca, path: '/status', host: `127.0.0.1:${httpsPort}` }),
      await https({ port: httpsPort, ca, path: '/mcp', method: 'POST', host: 'LOCALHOST', headers: mcpHeaders, body: toolsList }),
      await https({ port: httpsPort, ca, path: '/mcp', method: 'POST', host: '[::1]', headers: mcpHeaders, body: toolsList }),
      await https({ port: httpsPort, ca, path: '/mcp', method: 'POST', headers: { ...mcpHeaders, origin: 'http://localhost:3000' }, body: toolsList }),
      await https({ port: httpsPort, ca, path: '/api/v1/tools/whoami', method: 'POST', headers: { ...mcpHeaders, origin: 'http://127.0.0.1' }, body: '{}' }),
    ];
    for (const answer of refused) {
      expect(answer.status, answer.text).toBe(403);
      expect(JSON.parse(answer.text).error.code).toBe('forbidden');
      expect(answer.headers['x-request-id'], 'refused by nginx, before the daemon').toBeUndefined();
    }
  });

  it('leaves unknown paths to the daemon, refuses bodies over 4 MB as the daemon does, and redirects port 80 to HTTPS', async () => {
    const other = await https({ port: httpsPort, ca, path: '/.env' });
    expect(other.status).toBe(404);
    expect(JSON.parse(other.text).error.code).toBe('not_found');
    expect(other.headers['x-request-id']).toBeTruthy();
    // The web page and its event stream get what the daemon itself answers.
    for (const path of ['/', '/events']) {
      expect(await head({ port: httpsPort, ca, path }), path).toEqual(await head(`${board.url}${path}`));
    }

    // Over 4 MB: nginx refuses it before it reaches the daemon, with the same answer the daemon gives.
    const oversized = JSON.stringify({ title: 'x', description: 'y'.repeat(4_300_000) });
    const big = await https({
      port: httpsPort,
      ca,
      path: '/api/v1/tools/create_task',
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${board.tokens['lead']}` },
      body: oversized,
    });
    const direct = await fetch(`${board.url}/api/v1/tools/create_task`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${board.tokens['lead']}` },
      body: oversized,
    });
    expect(big.status, big.text).toBe(direct.status);
    expect(JSON.parse(big.text)).toEqual(await direct.json());
    expect(big.headers['x-request-id']).toBeUndefined();

    const plain = await http({ port: httpPort, path: '/status?x=1', host: HOST });
    expect(plain.status).toBe(301);
    expect(plain.headers['location']).toBe(`https://${HOST}/status?x=1`);
  });

  it('keeps the settings that long-polling calls and server-sent events need', () => {
    // Not observable yet (no streaming route); checked on the shipped text so they are not dropped.
    const shipped = readFileSync(SHIPPED_CONF, 'utf8');
    for (const directive of ['proxy_buffering off;', 'proxy_read_timeout 75s;', 'proxy_http_version 1.1;', 'client_max_body_size 4m;']) {
      expect(shipped).toContain(directive);
    }
    // A POST already sent to a daemon is never resent to another (docs/DECISIONS.md, failover behind nginx).
    expect(shipped).toContain('proxy_next_upstream error timeout;');
    expect(shipped).not.toMatch(/^\s*proxy_next_upstream\b[^;]*non_idempotent/m);
  });

  it('sets the client address itself: a client cannot pick its own X-Real-IP / X-Forwarded-For for the /status limit', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < STATUS_LIMIT + 5; i++) {
      const spoofed = `203.0.113.${i + 1}`;
      const answer = await https({ port: httpsPort, ca, path: '/status', headers: { 'x-real-ip': spoofed, 'x-forwarded-for': spoofed } });
      statuses.push(answer.status);
    }
    // Every request counts against 127.0.0.1 (nginx's $remote_addr), so the limit is reached.
    expect(statuses).toContain(429);
    expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(STATUS_LIMIT);
  });

  it('writes an access log with no token in it', async () => {
    // A token where one never belongs, in a query string: the log format leaves query strings out.
    const leaked = board.tokens['w3']!;
    await https({ port: httpsPort, ca, path: `/status?token=${leaked}` });
    const access = readFileSync(join(nginx.logs, 'roundtable.access.log'), 'utf8');
    expect(access).toContain('"POST /api/v1/tools/whoami HTTP/1.1" 200');
    expect(access).toContain('"POST /mcp HTTP/1.1" 200');
    expect(access).toContain('"GET /status HTTP/1.1"');
    const errors = existsSync(join(nginx.logs, 'roundtable.error.log')) ? readFileSync(join(nginx.logs, 'roundtable.error.log'), 'utf8') : '';
    for (const text of [access, errors, readFileSync(join(nginx.logs, 'error.log'), 'utf8')]) {
      for (const token of Object.values(board.tokens)) expect(text).not.toContain(token);
      expect(text).not.toMatch(/bearer/i);
    }
  });
});
