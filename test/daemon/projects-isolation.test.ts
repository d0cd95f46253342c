// Two projects on one daemon, property-based (issue 33): random, seeded sequences of the board's tools by the agents
// and people of both, through both faces (the MCP SDK client and the JSON API), on each project's URL and the unprefixed
// one, with tokens swapped between URLs. Afterwards nothing of one project was read or changed by a caller of the other
// alone; each project numbers its own ids, its event log replays on its own to its state, and its waits, webhooks and
// page stream hear nothing of the other.
import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import fc from 'fast-check';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { api, daemonEnv, mcpClient, resultJson, runCli, type AgentSpec, type TestBoard, type TestClient } from '../helpers/board.js';
import { eventually } from '../helpers/eventually.js';
import { openStoredProject, sqlitePathOf, startProjectsBoard, type PersonSpec, type ProjectSpec, type ProjectsBoard, type StoredProject } from '../helpers/projects-board.js';
import { describeEachStore, type StoreKind } from '../helpers/stores.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { dirname } from 'node:path';

/** Set ROUNDTABLE_ISOLATION_SEED to replay a run; each failure names its seed. */
const SEED = Number(process.env['ROUNDTABLE_ISOLATION_SEED'] ?? 33_2025);
/** Each run starts a daemon (most of a run's time); 3 runs of 40-60 actions stay near a minute on a loaded 2-core machine. */
const RUNS = 3;
const MIN_ACTIONS = 40;
const MAX_ACTIONS = 60;

/** What the runs did, printed at the end: how many calls were refused at the door, answered ok, or refused by a rule. */
const tally = { refused: 0, ok: 0, ruled: 0, foreignCursors: 0, okByTool: {} as Record<string, number> };

const A = 'alpha';
const B = 'beta';
const PROJECTS: ProjectSpec[] = [
  { slug: 'default', agents: [{ name: 'd-lead', role: 'leader' }] },
  {
    slug: A,
    agents: [
      { name: 'a-lead', role: 'leader' },
      { name: 'a-w1', role: 'worker', skills: ['python'] },
      { name: 'a-w2', role: 'worker' },
    ],
  },
  {
    slug: B,
    mode: 'peer',
    agents: [
      { name: 'b-p1', role: 'peer' },
      { name: 'b-p2', role: 'peer' },
    ],
  },
];
/** pat is an owner in both; bea an owner in B alone; neither holds `default`. */
const PEOPLE: PersonSpec[] = [
  { name: 'pat', grants: { [A]: 'owner', [B]: 'owner' } },
  { name: 'bea', grants: { [B]: 'owner' } },
];
const HOLDS: Record<string, readonly string[]> = {
  'a-lead': [A],
  'a-w1': [A],
  'a-w2': [A],
  'b-p1': [B],
  'b-p2': [B],
  pat: [A, B],
  bea: [B],
};
const CALLERS = Object.keys(HOLDS);
const MEMBERS: Record<string, readonly string[]> = { [A]: ['a-lead', 'a-w1', 'a-w2', 'pat'], [B]: ['b-p1', 'b-p2', 'pat', 'bea'] };
/** The unprefixed URL: an agent's own project; a person's only one (pat holds two and no `default`: refused). */
const HOME: Record<string, string | undefined> = { 'a-lead': A, 'a-w1': A, 'a-w2': A, 'b-p1': B, 'b-p2': B, pat: undefined, bea: B };
const other = (slug: string) => (slug === A ? B : A);

type Where = 'A' | 'B' | 'home';
type CursorFrom = 'own' | 'other' | 'none';
interface Action {
  readonly caller: string;
  readonly where: Where;
  readonly face: 'api' | 'mcp';
  readonly tool: string;
  readonly args: Record<string, unknown>;
  /** wait_for_activity only: which project's last cursor goes in `since`. */
  readonly cursor?: CursorFrom;
}

const taskId = fc.integer({ min: 1, max: 5 });
const text = fc.constantFrom('on it', 'see the log', 'done, please look');
const toolCall: fc.Arbitrary<Pick<Action, 'tool' | 'args' | 'cursor'>> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ tool: fc.constant('create_task'), args: fc.record({ title: text, priority: fc.constantFrom('low', 'normal', 'high') }) }) },
  { weight: 4, arbitrary: fc.record({ tool: fc.constant('claim_task'), args: fc.record({ task_id: taskId }) }) },
  { weight: 1, arbitrary: fc.record({ tool: fc.constant('release_task'), args: fc.record({ task_id: taskId }) }) },
  { weight: 2, arbitrary: fc.record({ tool: fc.constant('post_message'), args: fc.record({ task_id: taskId, kind: fc.constantFrom('progress', 'help_request', 'note'), text }) }) },
  { weight: 3, arbitrary: fc.record({ tool: fc.constant('submit_result'), args: fc.record({ task_id: taskId, result: text }) }) },
  { weight: 2, arbitrary: fc.record({ tool: fc.constant('review_task'), args: fc.record({ task_id: taskId, verdict: fc.constantFrom('approve', 'reject'), note: text }) }) },
  { weight: 2, arbitrary: fc.record({ tool: fc.constant('post'), args: fc.record({ to: fc.constantFrom<unknown>('all', 'pat', 'bea', 'a-lead', 'b-p1'), text }) }) },
  { weight: 1, arbitrary: fc.record({ tool: fc.constant('read_unread'), args: fc.constant({}) }) },
  { weight: 1, arbitrary: fc.record({ tool: fc.constant('read_log'), args: fc.constant({}) }) },
  { weight: 2, arbitrary: fc.record({ tool: fc.constant('reserve_paths'), args: fc.record({ task_id: taskId, paths: fc.constantFrom(['src/auth/**'], ['docs/a.md'], ['src/**']) }) }) },
  { weight: 1, arbitrary: fc.record({ tool: fc.constant('release_paths'), args: fc.record({ task_id: taskId }) }) },
  { weight: 1, arbitrary: fc.record({ tool: fc.constant('list_reservations'), args: fc.constant({}) }) },
  { weight: 1, arbitrary: fc.record({ tool: fc.constant('check_paths'), args: fc.constant({ paths: ['src/auth/login.ts'] }) }) },
  { weight: 2, arbitrary: fc.record({ tool: fc.constant('wait_for_activity'), args: fc.constant({ timeout_s: 0 }), cursor: fc.constantFrom<CursorFrom>('own', 'other', 'none') }) },
  { weight: 1, arbitrary: fc.record({ tool: fc.constant('list_tasks'), args: fc.constant({}) }) },
  { weight: 2, arbitrary: fc.record({ tool: fc.constant('get_task'), args: fc.record({ task_id: taskId }) }) },
  { weight: 1, arbitrary: fc.record({ tool: fc.constant('members'), args: fc.constant({}) }) },
  { weight: 1, arbitrary: fc.record({ tool: fc.constant('whoami'), args: fc.constant({}) }) },
);
/** Where a caller calls: mostly a URL that opens its project (so sequences build state), else a swapped one. */
const whereFor = (caller: string): fc.Arbitrary<Where> => {
  const held: Where[] = (['A', 'B', 'home'] as const).filter((w) => (w === 'home' ? HOME[caller] !== undefined : HOLDS[caller]!.includes(w === 'A' ? A : B)));
  return fc.oneof({ weight: 2, arbitrary: fc.constantFrom(...held) }, { weight: 1, arbitrary: fc.constantFrom<Where>('A', 'B', 'home') });
};
const action: fc.Arbitrary<Action> = fc
  .constantFrom(...CALLERS)
  .chain((caller) => fc.record({ caller: fc.constant(caller), where: whereFor(caller), face: fc.constantFrom<'api' | 'mcp'>('api', 'mcp'), call: toolCall }))
  .map(({ call, ...rest }) => ({ ...rest, ...call }));

/**
 * Each run opens with a task's whole life in both projects (through both faces), so the random part that follows finds
 * tasks claimed, submitted and reviewed, reservations held, and webhooks with something to send.
 */
const step = (caller: string, where: Where, face: 'api' | 'mcp', tool: string, args: Record<string, unknown>): Action => ({ caller, where, face, tool, args });
const PREAMBLE: Action[] = [
  ...[1, 2, 3].map((i) => step('a-lead', 'A', 'api', 'create_task', { title: `A's ${i}` })),
  ...[1, 2, 3].map((i) => step('b-p1', 'home', 'mcp', 'create_task', { title: `B's ${i}` })),
  step('a-w1', 'home', 'mcp', 'claim_task', { task_id: 1 }),
  step('a-w1', 'A', 'api', 'reserve_paths', { task_id: 1, paths: ['src/auth/**'] }),
  step('a-w1', 'A', 'api', 'post_message', { task_id: 1, kind: 'help_request', text: 'which tone?' }),
  step('a-w1', 'A', 'mcp', 'submit_result', { task_id: 1, result: 'done' }),
  step('a-lead', 'home', 'mcp', 'review_task', { task_id: 1, verdict: 'reject', note: 'again' }),
  step('a-w2', 'A', 'api', 'claim_task', { task_id: 2 }),
  step('b-p2', 'B', 'api', 'claim_task', { task_id: 1 }),
  step('b-p2', 'B', 'mcp', 'reserve_paths', { task_id: 1, paths: ['src/auth/**'] }),
  step('b-p2', 'home', 'api', 'submit_result', { task_id: 1, result: 'done' }),
  step('b-p1', 'B', 'api', 'review_task', { task_id: 1, verdict: 'approve', note: 'good' }),
  step('b-p1', 'B', 'mcp', 'claim_task', { task_id: 2 }),
];

/** A call's answer as either face gives it: the HTTP status of a refusal at the door, else the tool's JSON. */
interface Answer {
  /** 403/401 when the router refused the request; 200 when the project's app answered (the tool may still have refused). */
  readonly door: number;
  readonly body: any;
  readonly ok: boolean;
}

const ROUTER_REFUSAL = /^forbidden: this token does not open the project named in the URL|^this sign-in holds a role in several projects/;

/** One run's daemon, its clients and what the run saw. */
class Run {
  readonly clients = new Map<string, TestClient>();
  /** Per project: the last wait_for_activity cursor it gave. */
  readonly cursors = new Map<string, string>();
  /** Per project: the ids its successful create_task and post calls were given, in order. */
  readonly taskIds: Record<string, number[]> = { [A]: [], [B]: [] };
  readonly roomIds: Record<string, number[]> = { [A]: [], [B]: [] };
  readonly stored: Record<string, StoredProject>;

  constructor(readonly board: ProjectsBoard) {
    this.stored = { [A]: openStoredProject(board, A), [B]: openStoredProject(board, B) };
  }

  urlOf(where: Where): TestBoard {
    return where === 'A' ? this.board.at(A) : where === 'B' ? this.board.at(B) : this.board;
  }

  async call(a: Pick<Action, 'caller' | 'where' | 'face' | 'tool' | 'args'>): Promise<Answer> {
    const at = this.urlOf(a.where);
    if (a.face === 'api') {
      const answer = await api(at, a.caller, a.tool, a.args);
      if (answer.status === 401 || (answer.status === 403 && ROUTER_REFUSAL.test(answer.body.error?.message ?? ''))) return { door: answer.status, body: answer.body, ok: false };
      return { door: 200, body: answer.body, ok: answer.status === 200 };
    }
    // MCP: the SDK client for a project the caller holds; a raw JSON-RPC post (as any client could send) otherwise,
    // since the SDK cannot even connect through a door that refuses it.
    const key = `${a.caller}@${a.where}`;
    const holds = this.targetOf(a.caller, a.where) !== undefined;
    if (!holds) {
      const response = await fetch(`${at.url}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${at.tokens[a.caller]}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: a.tool, arguments: a.args } }),
      });
      const body = (await response.json().catch(() => undefined)) as any;
      return { door: response.status, body, ok: false };
    }
    let client = this.clients.get(key);
    if (!client) {
      client = await mcpClient(at, a.caller);
      this.clients.set(key, client);
    }
    const result = (await client.callTool({ name: a.tool, arguments: a.args })) as { isError?: boolean };
    return { door: 200, body: resultJson(result), ok: result.isError !== true };
  }

  /** The project a caller reaches at this URL, or undefined when it holds no role there. */
  targetOf(caller: string, where: Where): string | undefined {
    const slug = where === 'A' ? A : where === 'B' ? B : HOME[caller];
    return slug !== undefined && HOLDS[caller]!.includes(slug) ? slug : undefined;
  }

  async close(): Promise<void> {
    await Promise.all([...this.clients.values()].map((c) => c.close().catch(() => undefined)));
    await Promise.all(Object.values(this.stored).map((s) => s.close()));
  }
}

/** Every table of both projects; webhook_deliveries is left out: a project's own worker records its deliveries as they go. */
async function bothProjects(run: Run) {
  const skip = new Set(['webhook_deliveries']);
  return { [A]: await run.stored[A]!.tables(skip), [B]: await run.stored[B]!.tables(skip) };
}

interface SseEvent {
  readonly type: string;
  readonly data: any;
}

/** The page's event stream (GET /events) of a signed-in session, at a URL; events collected as they come. */
function openStream(board: TestBoard, path: string, cookie: string): Promise<{ status: number; events: SseEvent[]; close(): void }> {
  return new Promise((resolve, reject) => {
    const req: ClientRequest = request({ host: '127.0.0.1', port: board.port, path, headers: { cookie: `rt_session=${cookie}` }, agent: false }, (res: IncomingMessage) => {
      const events: SseEvent[] = [];
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        buffer += d;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const type = /^event: (.*)$/m.exec(block)?.[1];
          if (type !== undefined) events.push({ type, data: JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? '{}') });
        }
      });
      res.on('error', () => undefined);
      resolve({ status: res.statusCode!, events, close: () => req.destroy() });
    });
    req.on('error', (error) => {
      if (!req.destroyed) reject(error);
    });
    req.end();
  });
}

async function signIn(board: TestBoard, name: string): Promise<string> {
  const response = await fetch(`${board.url}/session`, { method: 'POST', headers: { 'content-type': 'application/json', origin: board.url }, body: JSON.stringify({ token: board.tokens[name] }) });
  expect(response.status).toBe(200);
  return /rt_session=([^;]+)/.exec(response.headers.get('set-cookie') ?? '')![1]!;
}

/**
 * Subscribes a webhook in one project. On SQLite the CLI is pointed at the project's own files (its database and the
 * secrets file beside it), which is what `roundtable webhooks add --project SLUG` opens (the CLI helper adds that flag).
 */
async function addWebhook(board: ProjectsBoard, slug: string, url: string): Promise<void> {
  const folder = dirname(sqlitePathOf(board, slug));
  const env = board.databaseUrl
    ? daemonEnv(board.dir, { ROUNDTABLE_DATABASE_URL: board.databaseUrl })
    : daemonEnv(board.dir, { ROUNDTABLE_DB_PATH: sqlitePathOf(board, slug), ROUNDTABLE_AGENTS_CONFIG: `${folder}/agents.json` });
  const args = ['webhooks', 'add', url, '--events', 'submitted,help_request,rejected,owner_message', '--allow-http-loopback', '--json', ...(board.databaseUrl ? ['--project', slug] : [])];
  const added = await runCli(args, env);
  expect(added.stderr, 'webhooks add').toBe('');
  expect(added.code).toBe(0);
}

interface LoggedTaskEvent {
  readonly type: string;
  readonly action?: string;
  readonly actor?: string;
  readonly author?: string;
  readonly from?: string;
  readonly task?: { id: number; status: string; assignee: string | null };
  readonly task_id?: number;
  readonly message_id?: number;
}

async function eventLog(run: Run, slug: string): Promise<LoggedTaskEvent[]> {
  const rows = await run.stored[slug]!.rows('event_log', 'id');
  return rows.map((r) => (typeof r['event'] === 'string' ? JSON.parse(r['event']) : r['event']) as LoggedTaskEvent);
}

/** Every task of a project as list_tasks pages them, by a caller who holds it. */
async function allTasks(board: TestBoard, caller: string): Promise<Array<{ id: number; status: string; assignee: string | null }>> {
  const tasks: Array<{ id: number; status: string; assignee: string | null }> = [];
  let cursor: string | undefined;
  do {
    const page = await api(board, caller, 'list_tasks', { limit: 100, ...(cursor && { cursor }) });
    expect(page.status).toBe(200);
    tasks.push(...page.body.tasks);
    cursor = page.body.next_cursor ?? undefined;
  } while (cursor);
  return tasks;
}

async function runSequence(store: StoreKind, actions: readonly Action[]): Promise<void> {
  const board = await startProjectsBoard({ store, projects: PROJECTS, people: PEOPLE, env: { ROUNDTABLE_WEBHOOK_RETRY_BASE: '0.3s', ROUNDTABLE_WEBHOOK_TIMEOUT: '2s' } });
  const receivers = { [A]: await WebhookReceiver.start(), [B]: await WebhookReceiver.start() };
  const run = new Run(board);
  const streams: Array<{ close(): void }> = [];
  try {
    await addWebhook(board, A, receivers[A]!.url());
    await addWebhook(board, B, receivers[B]!.url());
    // B's page, signed in once at the daemon: bea (B alone) on the unprefixed stream, pat (both) on B's own URL.
    const beaStream = await openStream(board, '/events', await signIn(board, 'bea'));
    const patStream = await openStream(board, `/p/${B}/events`, await signIn(board, 'pat'));
    streams.push(beaStream, patStream);
    expect([beaStream.status, patStream.status]).toEqual([200, 200]);
    await eventually('both streams ready', () => beaStream.events[0]?.type === 'ready' && patStream.events[0]?.type === 'ready');

    for (const [index, a] of actions.entries()) {
      const where = `action ${index} (${a.caller} ${a.tool} via ${a.face} on ${a.where})`;
      const target = run.targetOf(a.caller, a.where);
      const args = { ...a.args };
      if (a.tool === 'wait_for_activity' && target && a.cursor !== 'none') {
        const cursor = run.cursors.get(a.cursor === 'own' ? target : other(target));
        if (cursor) args['since'] = cursor;
      }
      if (!target) {
        const before = await bothProjects(run);
        const answer = await run.call({ ...a, args });
        expect(answer.door, where).toBe(403);
        expect(answer.body?.error?.code, where).toBe('forbidden');
        // Refused at the door: neither project changed, not even by an audit row.
        expect(await bothProjects(run), where).toEqual(before);
        tally.refused++;
        continue;
      }
      const answer = await run.call({ ...a, args });
      expect(answer.door, `${where}: ${JSON.stringify(answer.body)}`).toBe(200);
      if (answer.ok) tally.okByTool[a.tool] = (tally.okByTool[a.tool] ?? 0) + 1;
      tally[answer.ok ? 'ok' : 'ruled']++;
      if (a.tool === 'wait_for_activity') {
        const foreign = args['since'] !== undefined && a.cursor === 'other';
        // Another project's cursor is not this board's: refused by name, never read as a position here.
        if (foreign) tally.foreignCursors++;
        if (foreign) expect(answer.body?.error?.code, where).toBe('invalid_input');
        else expect(answer.ok, `${where}: ${JSON.stringify(answer.body)}`).toBe(true);
        if (answer.ok) run.cursors.set(target, answer.body.cursor as string);
      }
      if (a.tool === 'create_task' && answer.ok) run.taskIds[target]!.push(answer.body.task.id as number);
      if (a.tool === 'post' && answer.ok) run.roomIds[target]!.push(answer.body.message.id as number);
      if (['list_tasks', 'read_log', 'members', 'whoami', 'list_reservations', 'check_paths', 'read_unread'].includes(a.tool)) {
        expect(answer.ok, `${where}: ${JSON.stringify(answer.body)}`).toBe(true);
      }
      if (a.tool === 'whoami') expect(answer.body.name, where).toBe(a.caller);
      if (a.tool === 'members') {
        // A project's members are its own: nobody of the other project alone appears.
        const names = (answer.body.members as Array<{ name: string }>).map((m) => m.name);
        expect(names.every((n) => MEMBERS[target]!.includes(n)), `${where}: ${names.join(',')}`).toBe(true);
      }
    }

    for (const slug of [A, B]) {
      // Each project numbers its own: its first task is its #1, whatever the other made.
      expect(run.taskIds[slug], `${slug}'s task ids`).toEqual(run.taskIds[slug]!.map((_, i) => i + 1));
      expect(run.roomIds[slug], `${slug}'s room ids`).toEqual(run.roomIds[slug]!.map((_, i) => i + 1));
      const caller = slug === A ? 'a-lead' : 'b-p1';
      const tasks = await allTasks(board.at(slug), caller);
      expect(tasks.map((t) => t.id), `${slug}'s tasks`).toEqual(run.taskIds[slug]);
      // Its event log, replayed alone, gives its tasks as they stand; every actor is one of its own members.
      const log = await eventLog(run, slug);
      const replayed = new Map<number, { id: number; status: string; assignee: string | null }>();
      for (const event of log) {
        if (event.type === 'task') replayed.set(event.task!.id, { id: event.task!.id, status: event.task!.status, assignee: event.task!.assignee });
        const who = event.actor ?? event.author ?? event.from;
        if (who !== 'roundtable') expect(MEMBERS[slug], `${slug}'s event log names ${who}`).toContain(who);
      }
      expect([...replayed.values()].sort((x, y) => x.id - y.id), `${slug}'s log replayed`).toEqual(tasks.map((t) => ({ id: t.id, status: t.status, assignee: t.assignee })));
      expect(log.filter((e) => e.type === 'room').map((e) => e.message_id), `${slug}'s room in its log`).toEqual(run.roomIds[slug]);
    }

    // A wait parked in B is not woken by changes in A, and is by one in B.
    const parkedCursor = (await api(board.at(B), 'b-p2', 'wait_for_activity', { timeout_s: 0 })).body.cursor as string;
    const parked = api(board.at(B), 'b-p2', 'wait_for_activity', { timeout_s: 2, since: parkedCursor });
    expect((await api(board.at(A), 'a-lead', 'create_task', { title: 'in A only' })).status).toBe(200);
    expect((await api(board.at(A), 'pat', 'post', { to: 'all', text: 'A only' })).status).toBe(200);
    const slept = await parked;
    expect(slept.body.reason, 'a wait in B after changes in A').toBe('timeout');
    expect(slept.body.changes ?? []).toEqual([]);
    const woken = api(board.at(B), 'b-p2', 'wait_for_activity', { timeout_s: 20, since: slept.body.cursor });
    const made = await api(board.at(B), 'b-p1', 'create_task', { title: 'in B' });
    expect((await woken).body.reason, 'a wait in B after a change in B').toBe('activity');

    // B's page stream carries exactly B's logged changes, in log order (pat's changes in A included: none of them).
    const bLog = (await eventLog(run, B)).filter((e) => e.type === 'task');
    const expected = bLog.map((e) => ({ action: e.action, actor: e.actor, task_id: e.task!.id, status: e.task!.status }));
    const seen = (stream: { events: SseEvent[] }) => stream.events.filter((e) => e.type === 'task').map((e) => ({ action: e.data.action, actor: e.data.actor, task_id: e.data.task_id, status: e.data.status }));
    expect(expected.at(-1)?.task_id).toBe(made.body.task.id);
    for (const [name, stream] of [['bea', beaStream], ['pat', patStream]] as const) {
      await eventually(`${name}'s stream of B has B's last change`, () => seen(stream).length >= expected.length);
      expect(seen(stream), `${name}'s stream of B`).toEqual(expected);
    }

    // B's webhook hears B's events only: every delivery names a member of B (or the board) and a task of B.
    const deliveries = (r: WebhookReceiver) => r.received.map((d) => JSON.parse(d.body) as { type: string; data: { actor: string; task?: { id: number } } });
    const bSubmits = (await eventLog(run, B)).filter((e) => e.type === 'task' && e.action === 'submitted').length;
    const aSubmits = (await eventLog(run, A)).filter((e) => e.type === 'task' && e.action === 'submitted').length;
    await eventually("B's submissions delivered to B's webhook", () => deliveries(receivers[B]!).filter((d) => d.type === 'submitted').length >= bSubmits);
    await eventually("A's submissions delivered to A's webhook", () => deliveries(receivers[A]!).filter((d) => d.type === 'submitted').length >= aSubmits);
    const submitted = (events: LoggedTaskEvent[]) => events.filter((e) => e.type === 'task' && e.action === 'submitted').map((e) => e.task!.id).sort();
    expect(deliveries(receivers[B]!).filter((d) => d.type === 'submitted').map((d) => d.data.task!.id).sort(), "B's webhook's submissions").toEqual(submitted(await eventLog(run, B)));
    for (const d of deliveries(receivers[B]!)) {
      expect(['roundtable', ...MEMBERS[B]!], `B's webhook got ${d.type} by ${d.data.actor}`).toContain(d.data.actor);
      if (d.data.task) expect(run.taskIds[B]!.concat(made.body.task.id), `B's webhook got task ${d.data.task.id}`).toContain(d.data.task.id);
    }
  } finally {
    for (const s of streams) s.close();
    await run.close();
    await board.stop();
    await Promise.all(Object.values(receivers).map((r) => r.down()));
  }
}

let store: StoreKind;

describeEachStore((kind) => {
  beforeAll(() => {
    store = kind;
  });

  it('random sequences of every tool by callers of two projects, tokens swapped between URLs, touch only the project they hold', { timeout: 240_000 }, async () => {
    const started = Date.now();
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: MIN_ACTIONS, maxLength: MAX_ACTIONS }), async (actions) => {
        await runSequence(store, [...PREAMBLE, ...actions]);
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    console.log(`projects-isolation on ${store.name}: ${RUNS} runs in ${Date.now() - started} ms (seed ${SEED}): ${JSON.stringify(tally)}`);
  });

  describe('the unprefixed URLs for a person', () => {
    const boards: ProjectsBoard[] = [];
    afterEach(async () => {
      await Promise.all(boards.splice(0).map((b) => b.stop()));
    });

    it('a person granted two projects but not default is refused on /mcp and /api, told to name the project; one granted only B is served B', async () => {
        const board = await startProjectsBoard({ store, projects: PROJECTS, people: PEOPLE });
      boards.push(board);
      // pat holds A and B, not default: the unprefixed URL cannot guess which.
      const refused = await api(board, 'pat', 'whoami');
      expect(refused.status).toBe(403);
      expect(refused.body.error?.code).toBe('forbidden');
      expect(refused.body.error?.message).toMatch(/name the project in the URL, \/p\/SLUG\//);
      await expect(mcpClient(board, 'pat')).rejects.toThrow(/403/);
      // On each project's own URL pat is that project's owner.
      const inA = await mcpClient(board.at(A), 'pat');
      expect(resultJson(await inA.callTool({ name: 'whoami', arguments: {} })).role).toBe('owner');
      await inA.close();
      // bea holds B alone: /mcp serves B, and what she makes there is B's, not A's or default's.
      const bea = await mcpClient(board, 'bea');
      const made = resultJson(await bea.callTool({ name: 'create_task', arguments: { title: 'made on the unprefixed URL' } }));
      await bea.close();
      expect(made.task.id).toBe(1);
      expect((await allTasks(board.at(B), 'b-p1')).map((t) => t.id)).toEqual([1]);
      expect(await allTasks(board.at(A), 'a-lead')).toEqual([]);
      expect(await allTasks(board, 'd-lead')).toEqual([]);
    });

    it('a project that does not exist is refused as one the caller holds no role in: the same 403, the same words; so is a signed-in page', async () => {
        const board = await startProjectsBoard({ store, projects: PROJECTS, people: PEOPLE });
      boards.push(board);
      const elsewhere = await api(board.at(B), 'a-w1', 'list_tasks');
      const nowhere = await api(board.at('no-such-project'), 'a-w1', 'list_tasks');
      expect([elsewhere.status, nowhere.status]).toEqual([403, 403]);
      expect(nowhere.body).toEqual(elsewhere.body);
      // bea's page session (B alone) opens no stream or view of A.
      const cookie = await signIn(board, 'bea');
      const stream = await openStream(board, `/p/${A}/events`, cookie);
      stream.close();
      expect(stream.status).toBe(403);
      const view = await fetch(`${board.url}/p/${A}/view/state`, { headers: { cookie: `rt_session=${cookie}` } });
      expect(view.status).toBe(403);
    });
  });
});
