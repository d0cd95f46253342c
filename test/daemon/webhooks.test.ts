// Webhooks end to end, on both stores: a real daemon, the real `roundtable webhooks` CLI, a receiver on loopback.
// Signed deliveries (verified with the standardwebhooks package), retries with the same webhook-id, the dead-letter
// list, a SIGKILL between the commit and the delivery, escaped chat formats, and the address policy.
import { afterEach, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { readFileSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { api, daemonEnv, runCli, startBoard, startDaemons, type AgentSpec, type TestBoard } from '../helpers/board.js';
import { eventually, sleep } from '../helpers/eventually.js';
import { describeEachStore, type StoreKind } from '../helpers/stores.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { PG_SKIP_REASON, connectTo } from '../helpers/postgres.js';

const AGENTS: AgentSpec[] = [
  { name: 'lead', role: 'leader' },
  { name: 'w1', role: 'worker' },
  { name: 'boss', role: 'owner' },
];

/** Quick retries for tests; the defaults are 5 s and 10 attempts. */
const FAST = { ROUNDTABLE_WEBHOOK_RETRY_BASE: '0.3s', ROUNDTABLE_WEBHOOK_TIMEOUT: '2s', ROUNDTABLE_PUBLIC_URL: 'https://board.example.com' };

const boards: TestBoard[] = [];
const receivers: WebhookReceiver[] = [];
afterEach(async () => {
  await Promise.all(boards.splice(0).map((b) => b.stop()));
  await Promise.all(receivers.splice(0).map((r) => r.down()));
});

async function board(store: StoreKind, env: Record<string, string> = {}, reuse?: TestBoard): Promise<TestBoard> {
  const started = await startBoard({
    store,
    agents: AGENTS,
    env: { ...FAST, ...env },
    ...(reuse && { dir: reuse.dir, tokens: reuse.tokens, databaseUrl: reuse.databaseUrl }),
  });
  boards.push(started);
  return started;
}

async function receiver(): Promise<WebhookReceiver> {
  const r = await WebhookReceiver.start();
  receivers.push(r);
  return r;
}

function cliEnv(b: TestBoard): Record<string, string> {
  return daemonEnv(b.dir, b.databaseUrl ? { ROUNDTABLE_DATABASE_URL: b.databaseUrl } : {});
}

async function cli(b: TestBoard, args: string[]) {
  return runCli(args, cliEnv(b));
}

async function addHook(b: TestBoard, url: string, events: string, extra: string[] = []): Promise<{ id: string; secret: string }> {
  const added = await cli(b, ['webhooks', 'add', url, '--events', events, '--allow-http-loopback', '--json', ...extra]);
  expect(added.stderr).toBe('');
  expect(added.code).toBe(0);
  return JSON.parse(added.stdout) as { id: string; secret: string };
}

async function status(b: TestBoard): Promise<{ pending: number; delivered: number; deadTotal: number; dead: Array<{ id: string; attempts: number; lastError: string | null; event: string }> }> {
  const run = await cli(b, ['webhooks', 'status', '--json']);
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout);
}

/** Creates a task and has w1 claim and submit it; returns its id and when submit_result was answered. */
async function submitOne(b: TestBoard, title = 'webhook work'): Promise<{ id: number; answeredAt: number }> {
  const created = await api(b, 'lead', 'create_task', { title });
  expect(created.status).toBe(200);
  const id = created.body['task'].id as number;
  const claimed = await api(b, 'w1', 'claim_task', { task_id: id });
  expect(claimed.status).toBe(200);
  const submitted = await api(b, 'w1', 'submit_result', { task_id: id, result: 'done', claim_id: claimed.body['task'].claim_id });
  expect(submitted.status).toBe(200);
  return { id, answeredAt: Date.now() };
}

function verify(secret: string, r: { headers: Record<string, unknown>; body: string }): any {
  const headers = Object.fromEntries(['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((h) => [h, String(r.headers[h])]));
  return new Webhook(secret).verify(r.body, headers);
}

/** The secret is in none of what the daemon and the CLI print, nor in the audit rows. */
async function expectSecretHidden(b: TestBoard, secret: string, cliOutputs: string[] = []): Promise<void> {
  const key = secret.slice('whsec_'.length);
  const { stdout, stderr } = b.output();
  for (const text of [stdout, stderr, ...cliOutputs]) {
    expect(text).not.toContain(key);
  }
  if (b.databaseUrl) {
    const sql = connectTo(b.databaseUrl);
    try {
      const rows = await sql.unsafe<Array<{ t: string }>>('SELECT row_to_json(a)::text AS t FROM audit_log a');
      for (const row of rows) expect(row.t).not.toContain(key);
    } finally {
      await sql.end({ timeout: 1 });
    }
  } else {
    // On SQLite the secret is in webhook-secrets.json only (mode 600), never in the database file.
    expect(readFileSync(b.dbPath).includes(Buffer.from(key))).toBe(false);
    expect(statSync(join(b.dir, 'webhook-secrets.json')).mode & 0o777).toBe(0o600);
  }
}

/** The last error of the one pending delivery, read from the database. */
async function pendingError(b: TestBoard): Promise<string | null> {
  if (b.databaseUrl) {
    const sql = connectTo(b.databaseUrl);
    try {
      const [row] = await sql<Array<{ last_error: string | null }>>`SELECT last_error FROM webhook_deliveries WHERE state = 'pending'`;
      return row?.last_error ?? null;
    } finally {
      await sql.end({ timeout: 1 });
    }
  }
  const db = new Database(b.dbPath, { readonly: true });
  try {
    return (db.prepare("SELECT last_error FROM webhook_deliveries WHERE state = 'pending'").pluck().get() as string | null) ?? null;
  } finally {
    db.close();
  }
}

/** Clears a webhook's loopback flag in the database, as a webhook added before add resolved names would be. */
async function setAllowLoopback(b: TestBoard, id: string, allow: boolean): Promise<void> {
  if (b.databaseUrl) {
    const sql = connectTo(b.databaseUrl);
    try {
      await sql`UPDATE webhooks SET allow_loopback = ${allow} WHERE id = ${id}`;
    } finally {
      await sql.end({ timeout: 1 });
    }
    return;
  }
  const db = new Database(b.dbPath);
  try {
    db.prepare('UPDATE webhooks SET allow_loopback = ? WHERE id = ?').run(allow ? 1 : 0, id);
  } finally {
    db.close();
  }
}

describeEachStore((store) => {
  describe('webhooks', () => {
    it('a submit_result reaches the receiver signed (standardwebhooks verifies it), soon after the answer', async () => {
      const b = await board(store);
      const r = await receiver();
      const { id: hookId, secret } = await addHook(b, r.url(), 'submitted');
      const { id, answeredAt } = await submitOne(b);
      const [got] = await eventually('the delivery arrives', () => (r.received.length > 0 ? r.received : undefined));
      // 1 s in the issue; a generous bound here, as CI is loaded. The bench measures the latency.
      expect(got!.at - answeredAt).toBeLessThan(5_000);
      const payload = verify(secret, got!);
      expect(payload).toEqual({
        type: 'submitted',
        timestamp: expect.any(String),
        data: { actor: 'w1', task: { id, status: 'submitted', assignee: 'w1', url: `https://board.example.com/#task-${id}` } },
      });
      expect(got!.headers['webhook-id']).toMatch(new RegExp(`^msg_[0-9a-f]+_${hookId}$`));
      await eventually('it is recorded delivered', async () => (await status(b)).delivered === 1);
      const listed = await cli(b, ['webhooks', 'list']);
      expect(listed.stdout).toContain(hookId);
      await expectSecretHidden(b, secret, [listed.stdout, listed.stderr]);
    });

    it('receiver down, then up: retried, and it arrives once with the same webhook-id', async () => {
      const b = await board(store);
      const r = await receiver();
      const { secret } = await addHook(b, r.url(), 'submitted');
      await r.down();
      await submitOne(b);
      const failed = await eventually('an attempt failed', async () => {
        const s = await status(b);
        return s.pending === 1 ? s : undefined;
      });
      expect(failed.deadTotal).toBe(0);
      await r.up();
      const [got] = await eventually('the retry arrives', () => (r.received.length > 0 ? r.received : undefined));
      verify(secret, got!);
      await eventually('recorded delivered', async () => (await status(b)).delivered === 1);
      await sleep(1_000);
      expect(r.received).toHaveLength(1);
      expect(r.byId(String(got!.headers['webhook-id']))).toHaveLength(1);
    });

    it('after the last attempt the delivery is in the dead-letter list, with the reason and no receiver text', async () => {
      const b = await board(store, { ROUNDTABLE_WEBHOOK_MAX_ATTEMPTS: '3' });
      const r = await receiver();
      r.status = 500;
      await addHook(b, r.url(), 'submitted');
      await submitOne(b);
      const s = await eventually('dead-lettered', async () => {
        const now = await status(b);
        return now.deadTotal === 1 ? now : undefined;
      });
      expect(s.pending).toBe(0);
      expect(s.dead[0]).toMatchObject({ event: 'submitted', attempts: 3, lastError: 'http_500' });
      expect(r.received).toHaveLength(3);
      expect(new Set(r.received.map((x) => x.headers['webhook-id'])).size).toBe(1);
      const text = await cli(b, ['webhooks', 'status']);
      expect(text.stdout).toContain('Dead-lettered: 1');
      expect(text.stdout).toContain(s.dead[0]!.id);
    });

    it('SIGKILL between the commit and the delivery: delivered after the restart, once', async () => {
      const first = await board(store);
      const r = await receiver();
      const { secret } = await addHook(first, r.url(), 'submitted');
      await r.down();
      await submitOne(first);
      // Committed, not delivered (the receiver is down); the daemon dies without a chance to tidy up.
      await eventually('an attempt failed', async () => (await status(first)).pending === 1);
      await first.stop('SIGKILL');
      boards.splice(boards.indexOf(first), 1);
      await r.up();
      const second = await board(store, {}, first);
      // A lease the killed daemon held (PostgreSQL) runs out within the attempt timeout plus 10 s.
      const [got] = await eventually('delivered after the restart', () => (r.received.length > 0 ? r.received : undefined), { timeoutMs: 60_000 });
      verify(secret, got!);
      await eventually('recorded delivered', async () => (await status(second)).delivered === 1);
      await sleep(500);
      expect(r.received).toHaveLength(1);
    }, 90_000);

    it('a receiver that never answers does not hold up shutdown; the delivery is made after the restart', async () => {
      const first = await board(store, { ROUNDTABLE_WEBHOOK_TIMEOUT: '30s' });
      const r = await receiver();
      r.stall = true;
      const { secret } = await addHook(first, r.url(), 'submitted');
      await submitOne(first);
      await eventually('the attempt reached the hanging receiver', () => r.received.length === 1);
      const stopping = Date.now();
      expect(await first.stop('SIGTERM')).toBe(0);
      // The worker gives attempts 3 s, then cuts them off; far less than the 30 s attempt timeout.
      expect(Date.now() - stopping).toBeLessThan(20_000);
      boards.splice(boards.indexOf(first), 1);
      r.stall = false;
      const second = await board(store, { ROUNDTABLE_WEBHOOK_TIMEOUT: '2s' }, first);
      // The cut-off attempt let go of its lease at shutdown (PostgreSQL), so it does not wait 40 s for it.
      await eventually('delivered after the restart', () => r.received.length === 2, { timeoutMs: 30_000 });
      expect(r.received[1]!.headers['webhook-id']).toBe(r.received[0]!.headers['webhook-id']);
      verify(secret, r.received[1]!);
      await eventually('recorded delivered', async () => (await status(second)).delivered === 1);
    }, 120_000);

    it('Slack and Discord get the title escaped: no <!channel>, no @everyone, marked as an agent\'s', async () => {
      const b = await board(store);
      const r = await receiver();
      await addHook(b, r.url('/slack'), 'submitted', ['--format', 'slack']);
      await addHook(b, r.url('/discord'), 'submitted', ['--format', 'discord']);
      await addHook(b, r.url('/ntfy'), 'submitted', ['--format', 'ntfy']);
      await submitOne(b, 'ship it <!channel> @everyone @here <@U123> **now** & <https://evil.example|click>');
      await eventually('three deliveries', () => r.received.length === 3);
      const slack = JSON.parse(r.received.find((x) => x.path === '/slack')!.body);
      expect(slack.text).toContain('&lt;!channel&gt;');
      expect(slack.text).not.toMatch(/<[!@h]/);
      expect(slack.text).toContain('written by an agent');
      const discord = JSON.parse(r.received.find((x) => x.path === '/discord')!.body);
      expect(discord.allowed_mentions).toEqual({ parse: [] });
      expect(discord.content).not.toMatch(/@(everyone|here)/);
      expect(discord.content).not.toContain('<@U123>');
      expect(discord.content).toContain('\\*\\*now\\*\\*');
      const ntfy = r.received.find((x) => x.path === '/ntfy')!;
      expect(ntfy.headers['title']).toBe('Roundtable: submitted');
      expect(ntfy.body).toContain('written by an agent');
    });

    it('rejections, help requests, lapsed claims, cancelled blockers and direct messages to an owner each tell their webhook', async () => {
      const b = await board(store, { ROUNDTABLE_LEASE_TTL: '3s' });
      const r = await receiver();
      const { secret } = await addHook(b, r.url(), 'help_request,lease_expired,blocker_cancelled,rejected,owner_message');
      const a = (await api(b, 'lead', 'create_task', { title: 'blocker' })).body['task'].id as number;
      const dependent = (await api(b, 'lead', 'create_task', { title: 'waits', depends_on: [a] })).body['task'].id as number;
      expect((await api(b, 'lead', 'cancel_task', { task_id: a })).status).toBe(200);
      const { id: judged } = await submitOne(b, 'to be rejected');
      expect((await api(b, 'lead', 'review_task', { task_id: judged, verdict: 'reject', note: 'redo' })).status).toBe(200);
      const c = (await api(b, 'lead', 'create_task', { title: 'needs help' })).body['task'].id as number;
      const claim = await api(b, 'w1', 'claim_task', { task_id: c });
      expect((await api(b, 'w1', 'post_message', { task_id: c, kind: 'help_request', text: 'stuck', claim_id: claim.body['task'].claim_id })).status).toBe(200);
      expect((await api(b, 'w1', 'post', { to: 'boss', text: 'please look' })).status).toBe(200);
      expect((await api(b, 'w1', 'post', { to: 'lead', text: 'not an owner' })).status).toBe(200);
      // w1 falls silent: its claim lapses within about 3 s.
      const types = await eventually('every event arrived', () => {
        const seen = r.received.map((x) => verify(secret, x));
        const names = seen.map((p) => p.type).sort();
        return names.length >= 5 ? seen : undefined;
      }, { timeoutMs: 30_000 });
      const byType = Object.fromEntries(types.map((p: any) => [p.type, p.data]));
      expect(Object.keys(byType).sort()).toEqual(['blocker_cancelled', 'help_request', 'lease_expired', 'owner_message', 'rejected']);
      expect(byType['rejected']).toMatchObject({ actor: 'lead', task: { id: judged, status: 'open', assignee: null }, agent: 'w1' });
      expect(byType['blocker_cancelled']).toMatchObject({ task: { id: dependent }, blocker_id: a });
      expect(byType['help_request']).toMatchObject({ actor: 'w1', task: { id: c }, message_id: expect.any(Number) });
      expect(byType['lease_expired']).toMatchObject({ task: { id: c, status: 'open' }, agent: 'w1' });
      expect(byType['owner_message']).toMatchObject({ actor: 'w1', owners: ['boss'] });
      expect(JSON.stringify(types)).not.toContain('please look');
      await sleep(500);
      expect(r.received).toHaveLength(5);
    });

    it('refuses plain http, private addresses, and a name that resolves to one (nothing is sent)', async () => {
      const b = await board(store);
      const r = await receiver();
      const http = await cli(b, ['webhooks', 'add', 'http://hooks.example.com/x', '--events', 'submitted']);
      expect(http.code).toBe(1);
      expect(http.stderr).toContain('only https');
      const literal = await cli(b, ['webhooks', 'add', 'https://10.1.2.3/x', '--events', 'submitted']);
      expect(literal.code).toBe(1);
      expect(literal.stderr).toContain('private address');
      const unknownEvent = await cli(b, ['webhooks', 'add', 'https://hooks.example.com/x', '--events', 'submitted,everything']);
      expect(unknownEvent.code).toBe(1);
      expect(unknownEvent.stderr).toContain('unknown event');
      expect(JSON.parse((await cli(b, ['webhooks', 'list', '--json'])).stdout).webhooks).toEqual([]);
      // Issue 31: localhost over https was taken here, then never delivered. Its name is resolved at add now, and the
      // refusal names the rule and the flag.
      const named = await cli(b, ['webhooks', 'add', `https://localhost:${r.port}/hook`, '--events', 'submitted', '--json']);
      expect(named.code).toBe(1);
      expect(named.stderr).toContain('loopback address (allowed only with --allow-http-loopback)');
      expect(JSON.parse((await cli(b, ['webhooks', 'list', '--json'])).stdout).webhooks).toEqual([]);
      // A row that reached the table with a refused address (an older board's) is still refused at delivery, by rule.
      const insecure = await addHook(b, `https://localhost:${r.port}/hook`, 'submitted');
      await setAllowLoopback(b, insecure.id, false);
      await submitOne(b);
      const s = await eventually('the attempt was refused', async () => {
        const now = await status(b);
        return now.pending === 1 && (await pendingError(b)) === 'address_refused:loopback' ? now : undefined;
      });
      expect(s.delivered).toBe(0);
      await sleep(500);
      expect(r.connections).toBe(0);
    });

    it('`webhooks test` arrives within 2 s: the CLI\'s row wakes the delivery worker at once', async () => {
      const b = await board(store);
      const r = await receiver();
      const { id, secret } = await addHook(b, r.url(), 'test');
      // Round 0 is untimed: once it has arrived the worker has made its first look and gone idle (its next timed look
      // is 30 s away), so only the wake-up can bring the timed rounds in time.
      for (let round = 0; round < 3; round++) {
        const queued = await cli(b, ['webhooks', 'test', id]);
        expect(queued.code).toBe(0);
        const queuedAt = Date.now();
        const got = await eventually('the test delivery arrives', () => r.received[round], { timeoutMs: 10_000 });
        if (round > 0) expect(got.at - queuedAt).toBeLessThan(2_000);
        expect(verify(secret, got).type).toBe('test');
      }
    });

    it('a receiver answering 500, one that is down and one that never answers: each reason in `webhooks status` and a warn line without the path', async () => {
      const b = await board(store, { ROUNDTABLE_WEBHOOK_TIMEOUT: '1s', ROUNDTABLE_WEBHOOK_RETRY_BASE: '30s' });
      const failing = await receiver();
      failing.status = 500;
      const down = await receiver();
      await down.down();
      const silent = await receiver();
      silent.stall = true;
      const path = '/services/T000/B000/XSECRETPATH?token=QSECRET';
      const hooks = {
        http_500: (await addHook(b, failing.url(path), 'submitted')).id,
        connect_refused: (await addHook(b, down.url(path), 'submitted')).id,
        response_timeout: (await addHook(b, silent.url(path), 'submitted')).id,
      };
      await submitOne(b);
      const s = await eventually('each webhook shows its failed attempt', async () => {
        const run = await cli(b, ['webhooks', 'status', '--json']);
        const now = JSON.parse(run.stdout) as { webhooks: Array<{ id: string; url: string; pending: number; lastOutcome: string; lastError: string; lastAttemptAt: string; nextAttemptAt: string }> };
        return now.webhooks.length === 3 && now.webhooks.every((h) => h.lastOutcome === 'failed') ? now : undefined;
      }, { timeoutMs: 15_000 });
      for (const [reason, hookId] of Object.entries(hooks)) {
        const h = s.webhooks.find((x) => x.id === hookId)!;
        expect(h).toMatchObject({ pending: 1, lastOutcome: 'failed', lastError: reason });
        expect(Date.parse(h.nextAttemptAt)).toBeGreaterThan(Date.parse(h.lastAttemptAt));
        expect(h.url).not.toContain('SECRET');
      }
      const text = await cli(b, ['webhooks', 'status']);
      expect(text.stdout).toMatch(new RegExp(`${hooks.http_500}  http://127\\.0\\.0\\.1:\\d+/…  pending 1; last attempt \\S+: failed, http_500 \\(the receiver answered HTTP 500\\); next attempt \\S+Z`));
      expect(text.stdout).toContain('failed, connect_refused (the receiver refused the connection');
      expect(text.stdout).toContain('failed, response_timeout (no whole answer within ROUNDTABLE_WEBHOOK_TIMEOUT)');
      expect(text.stdout).not.toContain('SECRET');
      const warns = b
        .output()
        .stderr.split('\n')
        .filter((line) => line.includes('webhook delivery failed'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      for (const [reason, hookId] of Object.entries(hooks)) {
        const line = warns.find((w) => w['webhook'] === hookId);
        expect(line, reason).toMatchObject({ level: 40, error: reason, delivery: expect.stringMatching(new RegExp(`_${hookId}$`)), receiver: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/) });
      }
      expect(b.output().stdout + b.output().stderr).not.toContain('SECRET');
    });

    it('remove stops deliveries; test queues a signed test event', async () => {
      const b = await board(store);
      const r = await receiver();
      const { id, secret } = await addHook(b, r.url(), 'submitted,test');
      const queued = await cli(b, ['webhooks', 'test', id]);
      expect(queued.code).toBe(0);
      await submitOne(b);
      await eventually('both arrive', () => r.received.length === 2);
      expect(r.received.map((x) => verify(secret, x).type).sort()).toEqual(['submitted', 'test']);
      expect((await cli(b, ['webhooks', 'remove', id])).code).toBe(0);
      await submitOne(b);
      await sleep(1_000);
      expect(r.received).toHaveLength(2);
      expect((await cli(b, ['webhooks', 'remove', id])).code).toBe(1);
    });
  });
});

describe.skipIf(PG_SKIP_REASON !== undefined)('webhooks with three daemons on PostgreSQL (several daemons exist only there)', () => {
  it('100 events give 100 deliveries, each webhook-id exactly once', async () => {
    const daemons = await startDaemons(3, { agents: AGENTS, env: FAST, label: 'webhooks' });
    boards.push(...daemons);
    const r = await receiver();
    const { secret } = await addHook(daemons[0]!, r.url(), 'help_request');
    const task = (await api(daemons[0]!, 'lead', 'create_task', { title: 'chatty' })).body['task'].id as number;
    const posts = Array.from({ length: 100 }, (_, i) => api(daemons[i % 3]!, 'lead', 'post_message', { task_id: task, kind: 'help_request', text: `help ${i}` }));
    for (const answer of await Promise.all(posts)) expect(answer.status).toBe(200);
    await eventually('100 deliveries', () => r.received.length >= 100, { timeoutMs: 60_000 });
    await sleep(1_500);
    const ids = r.received.map((x) => String(x.headers['webhook-id']));
    expect(ids).toHaveLength(100);
    expect(new Set(ids).size).toBe(100);
    for (const got of r.received) verify(secret, got);
    const messageIds = new Set(r.received.map((x) => JSON.parse(x.body).data.message_id));
    expect(messageIds.size).toBe(100);
  }, 120_000);
});
