// Upgrading a board made by the release before projects (issue 33): today's daemon started on it serves it as the
// project `default` with every row as it was, every token working on the unprefixed URLs and on /p/default/..., its
// owner and observer as people with that role, and the cursors an agent held still resuming. SQLite here, from a board
// the 0.1.0 daemon made (test/fixtures/board-0.1.0/make.mjs); a PostgreSQL board's upgrade is tested with the
// PostgreSQL store's projects (it needs that store's catalog tables, which land with it).
import { copyFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, mcpClient, resultJson, startBoard, type TestBoard } from '../helpers/board.js';
import { atProject } from '../helpers/projects-board.js';

const FIXTURE = new URL('../fixtures/board-0.1.0/', import.meta.url).pathname;
const held = JSON.parse(readFileSync(join(FIXTURE, 'held.json'), 'utf8')) as { tokens: Record<string, string>; w1_wait_cursor: string };
const ROLES: Record<string, string> = { lead: 'leader', w1: 'worker', w2: 'worker', boss: 'owner', eye: 'observer' };
/** The board's history: rows a later call may add to, but never change or remove. */
const HISTORY = ['tasks', 'task_skills', 'task_dependencies', 'messages', 'reviews', 'claims', 'activity', 'audit_log', 'room_messages', 'reservations', 'event_log'];

type Rows = Record<string, unknown[][]>;

/** A table's rows with its lease expiry columns blanked; columns are read from the fixture's schema. */
function withoutLeases(rows: Rows, table: string): unknown[][] {
  const db = new Database(join(FIXTURE, 'board.db'), { readonly: true, fileMustExist: true });
  const columns = (db.prepare(`PRAGMA table_info("${table}")`).all() as Array<{ name: string }>).map((c) => c.name);
  db.close();
  const leases = columns.flatMap((name, i) => (/lease/.test(name) ? [i] : []));
  return rows[table]!.map((row) => row.map((value, i) => (leases.includes(i) ? '(lease)' : value)));
}

function readAll(path: string): Rows {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const names = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").pluck().all() as string[];
    // A whole-table scan reads in rowid order (primary-key order for a WITHOUT ROWID table): the order rows were added.
    // Stored columns only (PRAGMA table_info leaves out generated ones, such as the event log's actor and action that
    // issue 36 derives from each row): what 0.1.0 wrote, compared as it wrote it.
    const stored = (n: string) => (db.prepare(`PRAGMA table_info("${n}")`).all() as Array<{ name: string }>).map((c) => `"${c.name}"`).join(', ');
    return Object.fromEntries(names.map((n) => [n, db.prepare(`SELECT ${stored(n)} FROM "${n}"`).raw().all() as unknown[][]]));
  } finally {
    db.close();
  }
}

describe('a SQLite board made by 0.1.0, started by this daemon', () => {
  let board: TestBoard;
  let before: Rows;
  let agentsFileBefore: string;

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'roundtable-upgrade-'));
    for (const file of ['agents.json', 'board.db']) copyFileSync(join(FIXTURE, file), join(dir, file));
    before = readAll(join(dir, 'board.db'));
    agentsFileBefore = readFileSync(join(dir, 'agents.json'), 'utf8');
    board = await startBoard({ dir, tokens: held.tokens });
  });
  afterAll(async () => {
    await board?.stop();
  });

  it('starts with every row as it was: tasks, messages, history, the room, reservations, audit rows and the event log', () => {
    expect(before['tasks']!.length).toBe(4);
    expect(before['audit_log']!.length).toBeGreaterThan(10);
    // Before any call: every table 0.1.0 made is as it left it, row by row; later migrations only add their version
    // row and tables of their own, empty (issue 34's OAuth tables, say), except the search index (issue 36), which its
    // migration fills from the rows already there: it must then find them.
    const after = readAll(board.dbPath);
    for (const [table, rows] of Object.entries(before)) {
      if (table === 'schema_version') expect(after[table]!.slice(0, rows.length), table).toEqual(rows);
      else expect(after[table], table).toEqual(rows);
    }
    const searchTables = (t: string) => t === 'search_index' || t.startsWith('search_index_');
    for (const table of Object.keys(after).filter((t) => !(t in before) && !searchTables(t))) expect(after[table], table).toEqual([]);
    expect(after['search_index']!.length).toBeGreaterThanOrEqual(before['tasks']!.length);
    expect(readFileSync(join(board.dir, 'agents.json'), 'utf8')).toBe(agentsFileBefore);
  });

  it('serves every old token on /mcp and /api unprefixed and on /p/default/...; the owner and observer are people with their role', async () => {
    for (const [name, role] of Object.entries(ROLES)) {
      for (const at of [board, atProject(board, 'default')]) {
        const answer = await api(at, name, 'whoami');
        expect(answer.status, `${name} on ${at.url}/api`).toBe(200);
        expect([answer.body.name, answer.body.role]).toEqual([name, role]);
        const client = await mcpClient(at, name);
        const mcp = resultJson(await client.callTool({ name: 'whoami', arguments: {} }));
        await client.close();
        expect([mcp.name, mcp.role], `${name} on ${at.url}/mcp`).toEqual([name, role]);
      }
    }
    // The same tasks on both URLs, as 0.1.0 left them.
    const listed = (await api(board, 'eye', 'list_tasks')).body.tasks as Array<{ id: number; status: string }>;
    expect(listed.map((t) => [t.id, t.status])).toEqual([
      [1, 'done'],
      [2, 'claimed'],
      [3, 'open'],
      [4, 'open'],
    ]);
    expect((await api(atProject(board, 'default'), 'eye', 'list_tasks')).body.tasks).toEqual(listed);
    // The owner still acts (as owners did), the observer still only reads.
    expect((await api(board, 'boss', 'post', { to: 'all', text: 'after the upgrade' })).status).toBe(200);
    expect((await api(board, 'eye', 'create_task', { title: 'not mine to make' })).status).toBe(403);
  });

  it("resumes the cursors w1 held: its wait cursor answers what came after it, and its room cursor what it had not read", async () => {
    const waited = await api(board, 'w1', 'wait_for_activity', { timeout_s: 0, since: held.w1_wait_cursor });
    expect(waited.status).toBe(200);
    expect(waited.body.changes).toContain('task:4:created');
    expect(waited.body.changes).not.toContain('task:1:created');
    const unread = (await api(board, 'w1', 'read_unread')).body.messages as Array<{ text: string }>;
    expect(unread.map((m) => m.text)).toEqual(['after the cursor', 'after the upgrade']);
  });

  it('after those calls, every row 0.1.0 wrote is still there unchanged (calls only added rows)', () => {
    const after = readAll(board.dbPath);
    for (const table of HISTORY) {
      if (table === 'tasks' || table === 'reservations' || table === 'claims') {
        // Rows the calls above do not touch, but for a lease: a holder's call renews its claim's lease (as before).
        expect(withoutLeases(after, table), table).toEqual(withoutLeases(before, table));
        continue;
      }
      expect(after[table]!.slice(0, before[table]!.length), table).toEqual(before[table]);
    }
  });
});
