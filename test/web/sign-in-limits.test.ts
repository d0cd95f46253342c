// Who can sign whom out of the web page (issue 22, item 3): sessions are capped per agent, evicting that agent's oldest,
// and forwarded addresses are believed only from the configured proxy.
import { request, type IncomingHttpHeaders } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, daemonEnv, startBoard, type AgentSpec, type TestBoard } from '../helpers/board.js';
import { describeEachStore } from '../helpers/stores.js';

const AGENTS: AgentSpec[] = [
  { name: 'lead', role: 'leader' },
  { name: 'w1', role: 'worker' },
  { name: 'eye', role: 'observer' },
];
const HOST = 'board.example.com';
/** SESSIONS_PER_AGENT in daemon/src/web/sessions.ts: the number a person's devices need, stated in SPEC §13. */
const PER_AGENT = 16;

const boards: TestBoard[] = [];
afterEach(async () => {
  await Promise.all(boards.splice(0).map((b) => b.stop()));
});

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One request as a browser or a proxy sends it; `from` is the local address it leaves from (all of 127/8 is loopback). */
function send(board: TestBoard, options: { method: 'GET' | 'POST'; path: string; headers?: Record<string, string>; body?: string; from?: string }): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: board.port,
        method: options.method,
        path: options.path,
        agent: false,
        ...(options.from && { localAddress: options.from }),
        headers: { host: HOST, ...(options.body !== undefined && { 'content-type': 'application/json' }), ...options.headers },
      },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

function signIn(board: TestBoard, token: string, headers: Record<string, string> = {}, from?: string): Promise<Answer> {
  return send(board, { method: 'POST', path: '/session', headers, body: JSON.stringify({ token }), ...(from && { from }) });
}

function cookieOf(answer: Answer): string {
  expect(answer.status, answer.body).toBe(200);
  return /rt_session=([^;]+)/.exec(String(answer.headers['set-cookie']))![1]!;
}

async function pageStatus(board: TestBoard, cookie: string): Promise<number> {
  return (await send(board, { method: 'GET', path: '/view/state', headers: { cookie: `rt_session=${cookie}` } })).status;
}

describeEachStore((store) => {
  it(`one token signing in over and over ends only its own oldest sessions, past ${PER_AGENT}; the leader stays signed in`, async () => {
    // Behind a proxy (the test sends X-Real-IP from loopback), so the per-address sign-in limit does not stop the test.
    const env = { ROUNDTABLE_TRUST_PROXY: 'true', ROUNDTABLE_ALLOWED_HOSTS: HOST };
    const first = await startBoard({ agents: AGENTS, env, store });
    boards.push(first);
    // On PostgreSQL a second daemon on the same board: sign-ins alternate, and each session is checked through the
    // other daemon, so the cap must hold in the database, not only in each daemon's memory.
    const second = store.name === 'postgres' ? await startBoard({ agents: AGENTS, env, tokens: first.tokens, databaseUrl: first.databaseUrl }) : first;
    if (second !== first) boards.push(second);
    const through = (i: number) => (i % 2 === 0 ? first : second);
    const other = (i: number) => (i % 2 === 0 ? second : first);

    const lead = cookieOf(await signIn(first, first.tokens['lead']!, { 'x-real-ip': '10.9.9.9' }));
    const extra = 5;
    const eyes: string[] = [];
    for (let i = 0; i < PER_AGENT + extra; i++) eyes.push(cookieOf(await signIn(through(i), first.tokens['eye']!, { 'x-real-ip': `10.0.0.${i + 1}` })));

    expect(await pageStatus(first, lead)).toBe(200);
    expect(await pageStatus(second, lead)).toBe(200);
    for (const [i, cookie] of eyes.entries()) {
      expect(await pageStatus(other(i), cookie), `observer session ${i}`).toBe(i < extra ? 401 : 200);
    }
    // The leader signs in again and again too: its own oldest go, the observer's newest stay.
    const leads = [lead];
    for (let i = 0; i < PER_AGENT; i++) leads.push(cookieOf(await signIn(through(i), first.tokens['lead']!, { 'x-real-ip': `10.1.0.${i + 1}` })));
    expect(await pageStatus(second, leads[0]!)).toBe(401);
    expect(await pageStatus(second, leads.at(-1)!)).toBe(200);
    expect(await pageStatus(first, eyes.at(-1)!)).toBe(200);
  });
});

// The sign-in limit and the proxy headers are per daemon and read no store: one store is enough.
describe('forwarded headers are believed only from the configured proxy', () => {
  const PROXY = '127.0.0.3';

  it('a process that reaches the daemon directly cannot choose its address with X-Real-IP: its 11th wrong token gets 429', async () => {
    const board = await startBoard({ agents: AGENTS, env: { ROUNDTABLE_TRUST_PROXY: PROXY, ROUNDTABLE_ALLOWED_HOSTS: HOST } });
    boards.push(board);
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) statuses.push((await signIn(board, `rt_wrong_${i}_0123456789abcdef`, { 'x-real-ip': `203.0.113.${i}` }, '127.0.0.1')).status);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(statuses.slice(10)).toEqual(Array(20).fill(429));
    // X-Forwarded-Proto from it is not believed either: no Secure cookie over plain HTTP.
    expect(String((await signIn(board, board.tokens['w1']!, { 'x-forwarded-proto': 'https' }, '127.0.0.2')).headers['set-cookie'])).not.toMatch(/Secure/);
  });

  it("from the proxy's address the client's address is believed: 30 clients with one wrong token each get 401, none 429", async () => {
    const board = await startBoard({ agents: AGENTS, env: { ROUNDTABLE_TRUST_PROXY: `10.255.0.1, ${PROXY}`, ROUNDTABLE_ALLOWED_HOSTS: HOST } });
    boards.push(board);
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) statuses.push((await signIn(board, `rt_wrong_${i}_0123456789abcdef`, { 'x-real-ip': `203.0.113.${i}` }, PROXY)).status);
    expect(statuses).toEqual(Array(30).fill(401));
    expect(String((await signIn(board, board.tokens['w1']!, { 'x-forwarded-proto': 'https', 'x-real-ip': '203.0.113.99' }, PROXY)).headers['set-cookie'])).toMatch(/; Secure;/);
  });

  it('a value that is neither a flag nor IP addresses stops the start, naming the variable', async () => {
    const board = await startBoard({ agents: AGENTS });
    boards.push(board);
    const run = await runCli(['run'], daemonEnv(board.dir, { ROUNDTABLE_TRUST_PROXY: 'nginx.internal' }));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('ROUNDTABLE_TRUST_PROXY="nginx.internal": true (a proxy on this host), false, or the reverse proxy\'s own IP addresses');
  });
});

// The sign-in body limit is per daemon and reads no store: one store is enough.
describe('a sign-in body over its limit (issue 31, item 9)', () => {
  it.each([
    ['with Content-Length', false],
    ['chunked', true],
  ])('%s: 9 KB is refused with 413, naming the sign-in limit of 8 KB (not the API\'s 4 MB)', async (_label, chunked) => {
    const board = await startBoard({ agents: AGENTS, env: { ROUNDTABLE_ALLOWED_HOSTS: HOST } });
    boards.push(board);
    const body = JSON.stringify({ token: 'a'.repeat(9 * 1024) });
    const framing: Record<string, string> = chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(Buffer.byteLength(body)) };
    const answer = await send(board, { method: 'POST', path: '/session', headers: framing, body });
    expect(answer.status).toBe(413);
    expect(answer.headers['connection']).toBe('close');
    expect(JSON.parse(answer.body)).toEqual({ error: { code: 'invalid_input', message: 'the request body is too large; the limit is 8 KB' } });
  });
});
