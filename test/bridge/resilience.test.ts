// The bridge when things go wrong: daemon down or restarting, lost responses, 429, timeouts, TLS.
import { describe, expect, it } from 'vitest';
import { api, startBoard, token } from '../helpers/board.js';
import { body, bridgeEnv, startBridge } from '../helpers/bridge.js';
import { answerLosingProxy, freePort, readBody, standInServer } from '../helpers/net.js';
import { makeTestPki, tlsEnv } from '../helpers/tls.js';

describe('daemon unreachable or restarting (over HTTPS with a test CA)', () => {
  it('answers an error within the timeout, and the same bridge serves again once the daemon is up', async () => {
    const port = await freePort();
    const pki = makeTestPki();
    const tokens = { lead: token(), w1: token(), w2: token(), w3: token() };
    const env = { ROUNDTABLE_PORT: String(port), ...tlsEnv(pki) };
    const bridge = await startBridge({
      args: ['--url', `https://127.0.0.1:${port}`, '--ca', pki.caCert, '--timeout', '10'],
      env: bridgeEnv({ ROUNDTABLE_TOKEN: tokens.w1 }),
    });
    try {
      const started = Date.now();
      const down = await bridge.client.callTool({ name: 'whoami', arguments: {} });
      const elapsed = Date.now() - started;
      expect(down.isError).toBe(true);
      expect(body(down).error).toMatchObject({ code: 'daemon_unreachable', source: 'bridge' });
      expect(body(down).error.message).toMatch(/cannot be reached \(ECONNREFUSED\).*roundtable-bridge status/);
      expect(elapsed).toBeLessThan(10_000);

      const board = await startBoard({ tokens, env });
      try {
        const up = await bridge.client.callTool({ name: 'whoami', arguments: {} });
        expect(body(up).name).toBe('w1');
        // Killed mid-session: the next call is an error result within the timeout, not a hang.
        await board.stop('SIGKILL');
        const killedAt = Date.now();
        const whileDown = await bridge.client.callTool({ name: 'whoami', arguments: {} });
        expect(body(whileDown).error.code).toBe('daemon_unreachable');
        expect(Date.now() - killedAt).toBeLessThan(10_000);
        // Restarted: the next call in the same bridge session succeeds.
        const restarted = await startBoard({ dir: board.dir, tokens, env });
        try {
          expect(body(await bridge.client.callTool({ name: 'whoami', arguments: {} })).name).toBe('w1');
        } finally {
          await restarted.stop();
        }
        // A call made while the daemon restarts succeeds once it is back within the reconnect window.
        const during = bridge.client.callTool({ name: 'list_tasks', arguments: {} });
        const again = await startBoard({ dir: board.dir, tokens, env });
        try {
          const result = await during;
          expect(result.isError, JSON.stringify(result)).toBeFalsy();
          expect(body(result).tasks).toEqual([]);
        } finally {
          await again.stop();
        }
      } finally {
        await board.stop();
      }
    } finally {
      await bridge.close();
    }
    expect(bridge.stderr()).not.toContain(tokens.w1);
  });
});

describe('retries without duplicates', () => {
  it('a create_task whose response is lost is retried with the same key and makes one task', async () => {
    const board = await startBoard();
    const seenKeys: string[] = [];
    let dropped = 0;
    // A loopback proxy that loses the first create_task response after the daemon has applied it.
    const proxy = await answerLosingProxy(board.url, (req) => {
      if (!req.url?.endsWith('/create_task')) return false;
      seenKeys.push(String(req.headers['idempotency-key']));
      if (dropped > 0) return false;
      dropped++;
      return true;
    });
    const bridge = await startBridge({ args: ['--url', proxy.url], env: bridgeEnv({ ROUNDTABLE_TOKEN: board.tokens['lead']! }) });
    try {
      const result = await bridge.client.callTool({ name: 'create_task', arguments: { title: 'exactly once' } });
      expect(result.isError, JSON.stringify(result)).toBeFalsy();
      expect(dropped).toBe(1);
      expect(seenKeys).toHaveLength(2);
      expect(seenKeys[0]).toBe(seenKeys[1]);
      expect(seenKeys[0]).toMatch(/^[0-9a-f-]{36}$/);
      const tasks = (await api(board, 'lead', 'list_tasks', { limit: 100 })).body.tasks.filter((t: { title: string }) => t.title === 'exactly once');
      expect(tasks).toHaveLength(1);
      expect(body(result).task.id).toBe(tasks[0].id);
    } finally {
      await bridge.close();
      await proxy.close();
      await board.stop();
    }
  });

  it('read-only calls carry no idempotency key', async () => {
    const keys: Array<string | undefined> = [];
    const standIn = await standInServer((req, res) => {
      if (req.url?.startsWith('/api/v1/tools/')) keys.push(req.headers['idempotency-key'] as string | undefined);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ name: 'x', role: 'worker', skills: [], board: 'b' }));
    });
    const bridge = await startBridge({ args: ['--url', standIn.url], env: bridgeEnv({ ROUNDTABLE_TOKEN: token() }) });
    try {
      await bridge.client.callTool({ name: 'whoami', arguments: {} });
      expect(keys).toEqual([undefined]);
    } finally {
      await bridge.close();
      await standIn.close();
    }
  });
});

describe('a wait cut off by a dying daemon', () => {
  it('is retried for what is left of its timeout_s, not for all of it again', async () => {
    const asked: number[] = [];
    // The first wait is held, then answered 502, as nginx answers when the daemon under it dies; the retry is answered at once.
    const standIn = await standInServer(async (req, res) => {
      const text = await readBody(req);
      if (!req.url?.endsWith('/wait_for_activity')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{}');
        return;
      }
      asked.push(JSON.parse(text).timeout_s);
      if (asked.length === 1) {
        setTimeout(() => {
          res.writeHead(502, { 'content-type': 'text/html' });
          res.end('<html><head><title>502 Bad Gateway</title></head></html>');
        }, 1500);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ reason: 'timeout', unread_messages: 0, claimable_tasks: 0, to_review: 0, reviews: [], waited_ms: 0, stranded_tasks: [] }));
    });
    const bridge = await startBridge({ args: ['--url', standIn.url], env: bridgeEnv({ ROUNDTABLE_TOKEN: token() }) });
    try {
      const result = await bridge.client.callTool({ name: 'wait_for_activity', arguments: { timeout_s: 10 } });
      expect(result.isError, JSON.stringify(result)).toBeFalsy();
      expect(asked).toHaveLength(2);
      expect(asked[0]).toBe(10);
      // 10 s less the 1.5 s the first attempt was held and the pause before the retry.
      expect(asked[1]).toBeGreaterThan(0);
      expect(asked[1]).toBeLessThanOrEqual(8.5);
    } finally {
      await bridge.close();
      await standIn.close();
    }
  });
});

describe('rate limits and timeouts (stand-in servers on loopback)', () => {
  it('429 is retried once after Retry-After, then reported', async () => {
    const times: number[] = [];
    let limitEveryCall = false;
    const standIn = await standInServer((req, res) => {
      // The bridge's heartbeat (after its first call) is not a tool call: answered, not counted.
      if (req.url === '/api/v1/heartbeat') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ leases: [], lease_ttl_s: 600, heartbeat_interval_s: 200 }));
        return;
      }
      times.push(Date.now());
      if (times.length === 1 || limitEveryCall) {
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
        res.end(JSON.stringify({ error: { code: 'rate_limited', message: 'too many tool calls; retry in 1 s', retry_after_s: 1 } }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ name: 'x', role: 'worker', skills: [], board: 'b' }));
    });
    const bridge = await startBridge({ args: ['--url', standIn.url], env: bridgeEnv({ ROUNDTABLE_TOKEN: token() }) });
    try {
      const ok = await bridge.client.callTool({ name: 'whoami', arguments: {} });
      expect(ok.isError).toBeFalsy();
      expect(times).toHaveLength(2);
      expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(950);
      limitEveryCall = true;
      times.length = 0;
      const limited = await bridge.client.callTool({ name: 'whoami', arguments: {} });
      expect(limited.isError).toBe(true);
      expect(body(limited).error.code).toBe('rate_limited');
      expect(times).toHaveLength(2);
    } finally {
      await bridge.close();
      await standIn.close();
    }
  });

  it('a board that never answers gives a timeout error within --timeout', async () => {
    const standIn = await standInServer(() => {
      /* never answers */
    });
    const bridge = await startBridge({ args: ['--url', standIn.url, '--timeout', '1'], env: bridgeEnv({ ROUNDTABLE_TOKEN: token() }) });
    try {
      const started = Date.now();
      const result = await bridge.client.callTool({ name: 'create_task', arguments: { title: 't' } });
      // --timeout 1, not the 30 s default; the rest is slack for a loaded machine.
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(body(result).error).toMatchObject({ code: 'timeout', source: 'bridge' });
      expect(body(result).error.message).toContain('within 1 s');
    } finally {
      await bridge.close();
      await standIn.close();
    }
  });

  it('a proxy whose daemons are all down (502 page after every retry) is reported as unreachable, naming the proxy', async () => {
    let asked = 0;
    const standIn = await standInServer((_req, res) => {
      asked++;
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html><center><h1>502 Bad Gateway</h1></center></html>');
    });
    const bridge = await startBridge({ args: ['--url', standIn.url], env: bridgeEnv({ ROUNDTABLE_TOKEN: token() }) });
    try {
      const result = await bridge.client.callTool({ name: 'whoami', arguments: {} });
      expect(body(result).error).toMatchObject({ code: 'daemon_unreachable', source: 'bridge' });
      expect(body(result).error.message).toContain('the proxy in front of it answered HTTP 502');
      expect(asked).toBe(4);
    } finally {
      await bridge.close();
      await standIn.close();
    }
  });

  it('a proxy error page is reported as a bad response, not as a board error', async () => {
    const standIn = await standInServer((_req, res) => {
      res.writeHead(500, { 'content-type': 'text/html' });
      res.end('<html>oops</html>');
    });
    const bridge = await startBridge({ args: ['--url', standIn.url], env: bridgeEnv({ ROUNDTABLE_TOKEN: token() }) });
    try {
      const result = await bridge.client.callTool({ name: 'whoami', arguments: {} });
      expect(body(result).error).toMatchObject({ code: 'bad_response', source: 'bridge' });
    } finally {
      await bridge.close();
      await standIn.close();
    }
  });
});

describe('HTTPS', () => {
  it('verifies certificates: a private CA works with --ca or NODE_EXTRA_CA_CERTS, and is refused without', async () => {
    const pki = makeTestPki();
    const cert = pki.caCert;
    const board = await startBoard({ env: tlsEnv(pki) });
    expect(board.url).toMatch(/^https:\/\//);
    try {
      const withCa = await startBridge({ args: ['--url', board.url, '--ca', cert], env: bridgeEnv({ ROUNDTABLE_TOKEN: board.tokens['w1']! }) });
      expect(body(await withCa.client.callTool({ name: 'whoami', arguments: {} })).name).toBe('w1');
      await withCa.close();

      const withEnv = await startBridge({ args: ['--url', board.url], env: bridgeEnv({ ROUNDTABLE_TOKEN: board.tokens['w1']!, NODE_EXTRA_CA_CERTS: cert }) });
      expect(body(await withEnv.client.callTool({ name: 'whoami', arguments: {} })).name).toBe('w1');
      await withEnv.close();

      const wrongCa = makeTestPki('Some other CA');
      const wrong = await startBridge({ args: ['--url', board.url, '--ca', wrongCa.caCert], env: bridgeEnv({ ROUNDTABLE_TOKEN: board.tokens['w1']! }) });
      const refusedWrong = await wrong.client.callTool({ name: 'whoami', arguments: {} });
      expect(body(refusedWrong).error).toMatchObject({ code: 'tls_untrusted', source: 'bridge' });
      expect(body(refusedWrong).error.message).toMatch(/certificate could not be verified \(\w+/);
      await wrong.close();

      const without = await startBridge({ args: ['--url', board.url, '--timeout', '5'], env: bridgeEnv({ ROUNDTABLE_TOKEN: board.tokens['w1']! }) });
      const refused = await without.client.callTool({ name: 'whoami', arguments: {} });
      expect(refused.isError).toBe(true);
      expect(body(refused).error.message).toMatch(/SELF_SIGNED|CERT|certificate/i);
      expect(body(refused).error).toMatchObject({ code: 'tls_untrusted', source: 'bridge' });
      expect(body(refused).error.message).toContain('--ca FILE');
      await without.close();
    } finally {
      await board.stop();
    }
  });
});
