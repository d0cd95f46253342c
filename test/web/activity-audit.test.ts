// The Activity timeline and the owners' audit log (issue 36) through their endpoints, on both stores: the page's
// (/view/..., a session) and the JSON API's (/api/v1/..., a token) give the same answers. Activity is newest first,
// filtered by agent, kind and time, paged, resumable from its head, and leaves out room messages the viewer may not
// see; the audit log is for owners only (403 naming the rule for an observer and a worker), filtered, paged, and
// downloads as CSV and JSON lines whose rows are the JSON API's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csvCell } from '../../daemon/src/web/audit-export.js';
import { api, startBoard, type TestBoard } from '../helpers/board.js';
import { signInPage, type PageSession } from '../helpers/page-session.js';
import { eventually } from '../helpers/eventually.js';
import { describeEachStore } from '../helpers/stores.js';

/** How long a row may wait for an older transaction elsewhere in the cluster to end (PostgreSQL's idle-in-transaction limit is 30 s). */
const VISIBLE_WITHIN_MS = 40_000;

const AGENTS = [
  { name: 'lead', role: 'leader' as const },
  { name: 'w1', role: 'worker' as const },
  { name: 'w2', role: 'worker' as const },
  { name: 'olive', role: 'owner' as const },
  { name: 'oscar', role: 'observer' as const },
];

interface Item {
  cursor: string;
  at: string;
  kind: string;
  action: string;
  actor: string;
  task_id: number | null;
  status?: string;
  to?: unknown;
}
interface ActivityPage {
  items: Item[];
  next: string | null;
  head: string | null;
  more?: boolean;
  resync?: boolean;
}
interface AuditEntry {
  id: number;
  at: string;
  agent: string | null;
  tool: string;
  task_id: number | null;
  outcome: string;
  face: string | null;
}

describe('CSV cells', () => {
  it('neutralises a cell a spreadsheet would read as a formula, and quotes commas, quotes and line breaks', () => {
    for (const start of ['=', '+', '-', '@', '\t', '\r']) expect(csvCell(`${start}1+1`).replace(/^"/, '').startsWith(`'${start}`)).toBe(true);
    expect(csvCell('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('line\nbreak')).toBe('"line\nbreak"');
    expect(csvCell('claim_task')).toBe('claim_task');
    expect(csvCell(null)).toBe('');
    expect(csvCell(-1)).toBe('-1');
  });
});

describeEachStore((store) => {
  let board: TestBoard;
  const sessions = new Map<string, PageSession>();
  let taskA: number;
  let taskB: number;

  beforeAll(async () => {
    board = await startBoard({ store, agents: AGENTS });
    for (const name of ['olive', 'oscar', 'w1']) sessions.set(name, await signInPage(board, name));
    taskA = (await api(board, 'lead', 'create_task', { title: 'first' })).body.task.id as number;
    taskB = (await api(board, 'lead', 'create_task', { title: 'second' })).body.task.id as number;
    expect((await api(board, 'w1', 'claim_task', { task_id: taskA })).status).toBe(200);
    // A refused call: its audit row has the error's code as outcome.
    expect((await api(board, 'w2', 'claim_task', { task_id: taskA })).status).toBe(409);
    expect((await api(board, 'w1', 'post_message', { task_id: taskA, kind: 'note', text: '<img src=x onerror=alert(1)>' })).status).toBe(200);
    expect((await api(board, 'lead', 'post', { to: ['w1'], text: 'between us' })).status).toBe(200);
    expect((await api(board, 'lead', 'post', { to: 'all', text: 'to everyone' })).status).toBe(200);
    // On PostgreSQL the log is read below the oldest transaction still running in the cluster (DECISIONS, issue 24):
    // while another suite's transaction is open (a stalled connection is ended after 30 s), the newest rows wait.
    await eventually('the five rows on the Activity view', async () => (await activity('olive')).items.length >= 5, { timeoutMs: VISIBLE_WITHIN_MS, intervalMs: 200 });
  }, VISIBLE_WITHIN_MS + 20_000);
  afterAll(async () => {
    await board?.stop();
  });

  /** GET through the page (a person's session) or the JSON API (a token). */
  async function get(who: string, path: string, face: 'view' | 'api' = 'view'): Promise<{ status: number; text: string; json: any; headers: Headers }> {
    const headers: Record<string, string> =
      face === 'view' ? { cookie: `rt_session=${sessions.get(who)!.cookie}` } : { authorization: `Bearer ${board.tokens[who]}` };
    const response = await fetch(`${board.url}/${face === 'view' ? 'view' : 'api/v1'}/${path}`, { headers });
    const text = await response.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, text, json, headers: response.headers };
  }
  const activity = async (who: string, query = '', face: 'view' | 'api' = 'view') => {
    const answer = await get(who, `activity${query}`, face);
    expect(answer.status, answer.text).toBe(200);
    return answer.json as ActivityPage;
  };

  describe('activity', () => {
    it('is newest first: who did what, when, on which task', async () => {
      const page = await activity('olive');
      const shown = page.items.map((i) => `${i.actor}:${i.action}:${i.task_id ?? '-'}`);
      expect(shown).toEqual(['lead:room:-', `w1:task_message:${taskA}`, `w1:claimed:${taskA}`, `lead:created:${taskB}`, `lead:created:${taskA}`]);
      expect(page.items.every((i) => !Number.isNaN(Date.parse(i.at)))).toBe(true);
      expect(page.next).toBeNull();
      expect(page.head).toEqual(expect.any(String));
      // The log holds no board text: the message's text is nowhere in the answer.
      expect(JSON.stringify(page)).not.toContain('onerror');
      expect(JSON.stringify(page)).not.toContain('between us');
    });

    it('shows a room message to named agents only to its sender and them, as the event stream does', async () => {
      const w1 = await activity('w1', '', 'api');
      expect(w1.items.filter((i) => i.kind === 'room')).toHaveLength(2);
      const lead = await activity('lead', '', 'api');
      expect(lead.items.filter((i) => i.kind === 'room')).toHaveLength(2);
      const w2 = await activity('w2', '', 'api');
      expect(w2.items.filter((i) => i.kind === 'room')).toHaveLength(1);
      // An observer sees the board as the columns show it.
      expect((await activity('oscar')).items).toHaveLength(5);
    });

    it('filters by agent, by kind and by time', async () => {
      expect((await activity('olive', '?agent=w1')).items.map((i) => i.action)).toEqual(['task_message', 'claimed']);
      expect((await activity('olive', '?kind=claimed')).items.map((i) => i.actor)).toEqual(['w1']);
      expect((await activity('olive', '?kind=created,room')).items.map((i) => i.action)).toEqual(['room', 'created', 'created']);
      expect((await activity('olive', '?agent=lead&kind=created')).items).toHaveLength(2);
      expect((await activity('olive', '?agent=nobody')).items).toEqual([]);
      const all = (await activity('olive')).items;
      const newest = all[0]!.at;
      expect((await activity('olive', `?since=${encodeURIComponent(newest)}`)).items.map((i) => i.at).every((at) => at >= newest)).toBe(true);
      expect((await activity('olive', '?until=2000-01-01T00:00:00Z')).items).toEqual([]);
      expect((await activity('olive', '?since=2999-01-01')).items).toEqual([]);
      expect((await activity('olive', `?until=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).items).toHaveLength(5);
    });

    it('pages back with next, each row once', async () => {
      const all = (await activity('olive')).items.map((i) => i.cursor);
      const seen: string[] = [];
      let query = '?limit=2';
      for (let pages = 0; pages < 5; pages++) {
        const page = await activity('olive', query);
        seen.push(...page.items.map((i) => i.cursor));
        if (!page.next) break;
        query = `?limit=2&before=${encodeURIComponent(page.next)}`;
      }
      expect(seen).toEqual(all);
    });

    it('resumes after its head: what was done since, and nothing twice', { timeout: VISIBLE_WITHIN_MS + 20_000 }, async () => {
      const first = await activity('olive');
      expect((await activity('olive', `?after=${encodeURIComponent(first.head!)}`)).items).toEqual([]);
      expect((await api(board, 'w2', 'claim_task', { task_id: taskB })).status).toBe(200);
      let newer: ActivityPage | undefined;
      await expect
        .poll(
          async () => {
            newer = await activity('olive', `?after=${encodeURIComponent(first.head!)}`);
            return newer.items.map((i) => `${i.actor}:${i.action}:${i.task_id}`);
          },
          { timeout: VISIBLE_WITHIN_MS, interval: 200 },
        )
        .toEqual([`w2:claimed:${taskB}`]);
      expect((await activity('olive', `?after=${encodeURIComponent(newer!.head!)}`)).items).toEqual([]);
      // The same cursors as the first page's rows: a row's cursor resumes too.
      expect((await activity('olive', `?after=${encodeURIComponent(first.items[0]!.cursor)}`)).items).toHaveLength(1);
      // A filter applies to what is newer as well.
      expect((await activity('olive', `?agent=w1&after=${encodeURIComponent(first.head!)}`)).items).toEqual([]);
    });

    it('refuses a bad query naming the field, never echoing it', async () => {
      for (const [query, field] of [
        ['?before=<script>', 'before:'],
        ['?after=abc.def', 'after:'],
        ['?limit=0', 'limit:'],
        ['?limit=201', 'limit:'],
        ['?kind=<b>', 'kind:'],
        ['?since=yesterday<b>', 'since:'],
        ['?before=x&after=y', 'before, after:'],
      ] as const) {
        const answer = await get('olive', `activity${query}`);
        expect(answer.status, query).toBe(400);
        expect(answer.json.error.message.startsWith(field), answer.text).toBe(true);
        expect(answer.text).not.toContain('<');
      }
    });

    it('needs a session or a token', async () => {
      expect((await fetch(`${board.url}/view/activity`)).status).toBe(401);
      expect((await fetch(`${board.url}/api/v1/activity`)).status).toBe(401);
    });
  });

  describe('audit', () => {
    const audit = async (query = '', who = 'olive', face: 'view' | 'api' = 'view') => {
      const answer = await get(who, `audit${query}`, face);
      expect(answer.status, answer.text).toBe(200);
      return answer.json as { entries: AuditEntry[]; next: string | null };
    };

    it('shows an owner every call, newest first, with who, the tool, the task, the outcome and the face', async () => {
      const { entries } = await audit('?limit=200');
      expect(entries.map((e) => e.id)).toEqual([...entries.map((e) => e.id)].sort((a, b) => b - a));
      expect(entries).toContainEqual(expect.objectContaining({ agent: 'w1', tool: 'claim_task', task_id: taskA, outcome: 'ok', face: 'api' }));
      expect(entries).toContainEqual(expect.objectContaining({ agent: 'w2', tool: 'claim_task', task_id: taskA, outcome: 'conflict' }));
      expect(JSON.stringify(entries)).not.toContain('onerror');
      // The JSON API gives the owner the same.
      expect((await audit('?limit=200', 'olive', 'api')).entries.filter((e) => e.tool !== 'claim_task' || e.agent !== 'w2')).toEqual(
        expect.arrayContaining(entries.filter((e) => e.tool === 'create_task')),
      );
    });

    it('filters by agent, tool, outcome, face and time', async () => {
      expect((await audit('?agent=w1')).entries.every((e) => e.agent === 'w1')).toBe(true);
      expect((await audit('?agent=w1')).entries.map((e) => e.tool)).toEqual(expect.arrayContaining(['claim_task', 'post_message']));
      expect((await audit('?tool=create_task')).entries.map((e) => e.agent)).toEqual(['lead', 'lead']);
      expect((await audit('?outcome=conflict')).entries.map((e) => e.agent)).toEqual(['w2']);
      expect((await audit('?face=api&agent=lead')).entries.length).toBeGreaterThanOrEqual(4);
      expect((await audit('?face=mcp')).entries).toEqual([]);
      expect((await audit('?until=2000-01-01')).entries).toEqual([]);
      expect((await audit('?since=2000-01-01&tool=create_task')).entries).toHaveLength(2);
    });

    it('pages back with next', async () => {
      const all = (await audit('?limit=200')).entries.map((e) => e.id);
      const seen: number[] = [];
      let query = '?limit=3';
      for (let pages = 0; pages < 50; pages++) {
        const page = await audit(query);
        seen.push(...page.entries.map((e) => e.id));
        if (!page.next) break;
        query = `?limit=3&before=${page.next}`;
      }
      expect(seen.slice(0, all.length)).toEqual(all.filter((id) => id <= seen[0]!));
    });

    it('downloads as CSV and JSON lines whose rows are the JSON API rows', async () => {
      const json = (await audit('?agent=w1&limit=200', 'olive', 'api')).entries;
      const csv = await get('olive', 'audit.csv?agent=w1');
      expect(csv.status).toBe(200);
      expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
      expect(csv.headers.get('content-disposition')).toMatch(/^attachment; filename="roundtable-audit\.csv"$/);
      const lines = csv.text.trimEnd().split('\r\n');
      expect(lines[0]).toBe('id,at,agent,tool,task_id,outcome,face');
      expect(lines.slice(1)).toEqual(json.map((e) => [e.id, e.at, e.agent, e.tool, e.task_id ?? '', e.outcome, e.face ?? ''].join(',')));
      const jsonl = await get('olive', 'audit.jsonl?agent=w1', 'api');
      expect(jsonl.status).toBe(200);
      expect(jsonl.text.trimEnd().split('\n').map((line) => JSON.parse(line))).toEqual(json);
    });

    it('is refused to anyone but an owner, naming the rule', async () => {
      for (const [who, face] of [
        ['oscar', 'view'],
        ['w1', 'view'],
        ['oscar', 'api'],
        ['lead', 'api'],
      ] as const) {
        for (const path of ['audit', 'audit.csv', 'audit.jsonl']) {
          const answer = await get(who, path, face);
          expect(answer.status, `${who} ${path}`).toBe(403);
          expect(answer.json.error.message).toContain("the audit log is shown to the project's owners only");
        }
      }
    });

    it('refuses a bad filter naming the field', async () => {
      for (const [query, field] of [
        ['?face=email', 'face:'],
        ['?before=-1', 'before:'],
        ['?since=soon', 'since:'],
        ['?limit=abc', 'limit:'],
      ] as const) {
        const answer = await get('olive', `audit${query}`);
        expect(answer.status, query).toBe(400);
        expect(answer.json.error.message.startsWith(field)).toBe(true);
      }
    });
  });
});
