// The audit log records every call, failures too, and refuses change; the per-token rate limit holds.
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, mcpClient, startBoard, type TestBoard } from '../helpers/board.js';

interface AuditRow {
  id: number;
  at: string;
  agent: string | null;
  tool: string;
  task_id: number | null;
  outcome: string;
}

describe('audit log', () => {
  let board: TestBoard;
  beforeAll(async () => {
    board = await startBoard();
  });
  afterAll(async () => {
    await board.stop();
  });

  const rows = () => {
    const db = new Database(board.dbPath, { readonly: true });
    try {
      return db.prepare('SELECT * FROM audit_log ORDER BY id').all() as AuditRow[];
    } finally {
      db.close();
    }
  };

  it('one row per tool call, failures included, with no content and no token', async () => {
    const before = rows().length;
    const id = (await api(board, 'lead', 'create_task', { title: 'SECRET-TITLE-TEXT' })).body.task.id;
    await api(board, 'w1', 'create_task', { title: 'no' });
    await api(board, 'w1', 'claim_task', { task_id: id });
    await api(board, 'w1', 'post_message', { task_id: id, kind: 'note', text: 'SECRET-MESSAGE-TEXT' });
    await api(board, 'w1', 'list_tasks', { limit: 0 });
    await api(board, 'w2', 'get_task', { task_id: 424242 });
    const client = await mcpClient(board, 'w2');
    await client.callTool({ name: 'get_task', arguments: { task_id: id } });
    await client.close();
    // Every row is committed before its call is answered, reads and refusals included: they are all there now.
    const added = rows().slice(before);
    expect(added.map((r) => [r.agent, r.tool, r.task_id, r.outcome])).toEqual([
      ['lead', 'create_task', id, 'ok'],
      ['w1', 'create_task', null, 'forbidden'],
      ['w1', 'claim_task', id, 'ok'],
      ['w1', 'post_message', id, 'ok'],
      ['w1', 'list_tasks', null, 'invalid_input'],
      ['w2', 'get_task', 424242, 'not_found'],
      ['w2', 'get_task', id, 'ok'],
    ]);
    const dump = JSON.stringify(rows());
    expect(dump).not.toContain('SECRET-');
    for (const token of Object.values(board.tokens)) expect(dump).not.toContain(token);
  });

  it('UPDATE and DELETE on the audit log are refused', () => {
    const db = new Database(board.dbPath);
    try {
      expect(() => db.prepare("UPDATE audit_log SET outcome = 'ok'").run()).toThrow(/append-only/);
      expect(() => db.prepare('DELETE FROM audit_log').run()).toThrow(/append-only/);
    } finally {
      db.close();
    }
    expect(rows().length).toBeGreaterThan(0);
  });

  it('a 401 is not processed and names no agent', async () => {
    const before = rows().length;
    const answer = await api(board, 'not-a-real-token', 'create_task', { title: 'sneaky' });
    expect(answer.status).toBe(401);
    expect(rows().length).toBe(before);
  });
});

describe('rate limit', () => {
  let board: TestBoard;
  beforeAll(async () => {
    board = await startBoard({ env: { ROUNDTABLE_RATE_LIMIT_PER_MINUTE: '60' } });
  });
  afterAll(async () => {
    await board.stop();
  });

  it('the 61st call in a minute gets rate_limited with a retry time; handshakes and tools/list do not count; other tokens are unaffected', async () => {
    const client = await mcpClient(board, 'w1');
    for (let i = 0; i < 5; i++) await client.listTools();
    // The bucket holds 60 and refills one a second: call until refused, then check the count against the time taken,
    // so a slow machine (the calls spread over several seconds) cannot fail the test.
    const started = Date.now();
    let allowed = 0;
    let limited = await api(board, 'w1', 'whoami');
    while (limited.status === 200 && allowed < 1000) {
      allowed++;
      limited = await api(board, 'w1', 'whoami');
    }
    const refilled = Math.ceil((Date.now() - started) / 1000);
    expect(allowed).toBeGreaterThanOrEqual(60);
    expect(allowed).toBeLessThanOrEqual(60 + refilled);
    expect(limited.status).toBe(429);
    expect(limited.body.error!.code).toBe('rate_limited');
    expect(limited.body.error!.retry_after_s).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const viaMcp = await client.callTool({ name: 'whoami', arguments: {} });
    expect(viaMcp.isError).toBe(true);
    expect(JSON.parse((viaMcp.content as Array<{ text: string }>)[0]!.text).error.code).toBe('rate_limited');
    expect((await api(board, 'w2', 'whoami')).status).toBe(200);
    await client.close();
  });
});
