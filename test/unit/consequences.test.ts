// What a board change causes (issue 32): the event rows and the webhook events both come from consequencesOf, and
// only the stores' change() writes them, so no write path can write one and forget the other.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Task, TaskSummary } from 'roundtable-shared';
import { consequencesOf } from '../../daemon/src/store/consequences.js';

const AT = '2026-01-02T03:04:05.000Z';

function task(overrides: Partial<Task> = {}): Task {
  return {
    id: 7, title: 'Fix the parser', description: 'd', required_skills: [], status: 'open', assignee: null, created_by: 'lead', result: null,
    claim_id: null, lease_expires_at: null, created_at: AT, updated_at: AT, priority: 'normal', depends_on: [], blocked_by: [], blocked_by_cancelled: [],
    ...overrides,
  };
}

function summary(overrides: Partial<Task>): TaskSummary {
  const { description: _d, result: _r, ...rest } = task(overrides);
  return rest;
}

describe('consequencesOf', () => {
  it('a submission: its task event, and a submitted webhook stamped with the write time', () => {
    const before = task({ status: 'claimed', assignee: 'w1', updated_at: '2026-01-01T00:00:00.000Z' });
    const after = task({ status: 'submitted', assignee: 'w1' });
    const { events, webhooks } = consequencesOf({ kind: 'transition', before, task: after, change: { actor: 'w1', status: 'submitted', assignee: 'w1', action: 'submitted' }, dependents: [] });
    expect(events).toEqual([expect.objectContaining({ type: 'task', action: 'submitted', actor: 'w1', task: expect.objectContaining({ id: 7, status: 'submitted' }) })]);
    expect(webhooks).toEqual([expect.objectContaining({ type: 'submitted', at: AT, actor: 'w1', task: { id: 7, title: 'Fix the parser', status: 'submitted', assignee: 'w1' } })]);
  });

  it('a cancel: the task event, then each unfinished dependent stranded, in the log and in the outbox alike', () => {
    const before = task({ status: 'open' });
    const after = task({ status: 'cancelled' });
    const dependents = [summary({ id: 8, title: 'a', blocked_by: [7] }), summary({ id: 9, title: 'b', status: 'claimed', assignee: 'w2', blocked_by: [7] })];
    const { events, webhooks } = consequencesOf({ kind: 'transition', before, task: after, change: { actor: 'lead', status: 'cancelled', assignee: null, action: 'cancelled' }, dependents });
    expect(events.map((e) => (e.type === 'task' ? [e.task.id, e.action] : e.type))).toEqual([[7, 'cancelled'], [8, 'blocker_cancelled'], [9, 'blocker_cancelled']]);
    expect(webhooks.map((w) => [w.type, w.task?.id, w.blockerId, w.at])).toEqual([
      ['blocker_cancelled', 8, 7, AT],
      ['blocker_cancelled', 9, 7, AT],
    ]);
  });

  it('a claim is logged and tells no one', () => {
    const { events, webhooks } = consequencesOf({ kind: 'transition', before: task(), task: task({ status: 'claimed', assignee: 'w1' }), change: { actor: 'w1', status: 'claimed', assignee: 'w1', action: 'claimed' }, dependents: [] });
    expect(events).toHaveLength(1);
    expect(webhooks).toEqual([]);
  });

  it('a help request and a note: both logged, only the help request tells people', () => {
    const message = (kind: 'help_request' | 'note') => ({ id: 3, task_id: 7, author: 'w1', kind, text: 'board text', created_at: AT });
    const help = consequencesOf({ kind: 'message', task: task(), message: message('help_request') });
    expect(help.events).toEqual([{ type: 'task_message', task_id: 7, author: 'w1' }]);
    expect(help.webhooks).toEqual([expect.objectContaining({ type: 'help_request', messageId: 3, at: AT })]);
    expect(JSON.stringify(help)).not.toContain('board text');
    expect(consequencesOf({ kind: 'message', task: task(), message: message('note') }).webhooks).toEqual([]);
  });

  it('a room message: logged; an owner_message webhook only when it names owners other than its author', () => {
    const posted = { id: 4, from: 'w1', to: ['alice'], text: 'hi', created_at: AT };
    const toOwner = consequencesOf({ kind: 'room', message: posted, author: 'w1', to: ['alice'], owners: ['alice'] });
    expect(toOwner.events).toEqual([{ type: 'room', message_id: 4, from: 'w1', to: ['alice'] }]);
    expect(toOwner.webhooks).toEqual([expect.objectContaining({ type: 'owner_message', owners: ['alice'], messageId: 4 })]);
    expect(consequencesOf({ kind: 'room', message: { ...posted, to: 'all' }, author: 'w1', to: 'all' }).webhooks).toEqual([]);
  });

  it('lapses: one task event and one lease_expired webhook each, naming the holder', () => {
    const expired = [8, 9].map((id) => ({ task: task({ id }), holder: `w${id}`, claimId: id, expiredAt: AT }));
    const { events, webhooks } = consequencesOf({ kind: 'lapses', expired });
    expect(events.map((e) => e.type === 'task' && [e.task.id, e.action])).toEqual([[8, 'lease_expired'], [9, 'lease_expired']]);
    expect(webhooks.map((w) => [w.type, w.task?.id, w.agent])).toEqual([['lease_expired', 8, 'w8'], ['lease_expired', 9, 'w9']]);
  });

  it('creation, edits and reservations are logged and tell no one', () => {
    expect(consequencesOf({ kind: 'created', task: task(), actor: 'lead' })).toEqual({ events: [expect.objectContaining({ action: 'created' })], webhooks: [] });
    expect(consequencesOf({ kind: 'edit', task: task(), edit: null })).toEqual({ events: [], webhooks: [] });
    const change = { actor: 'w1', claimId: 1, scope: '', add: [{ pattern: 'src/**', prefix: 'src/', exclusive: true, reason: null }], remove: [], action: 'paths_reserved', note: 'n' };
    expect(consequencesOf({ kind: 'reservations', task: task(), change }).webhooks).toEqual([]);
  });
});

describe('one place writes them', () => {
  const STORE = fileURLToPath(new URL('../../daemon/src/store/', import.meta.url));

  it.each(['sqlite', 'postgres'])('on %s only the store\'s index.ts (its change()) enqueues webhook deliveries or appends to the event log', (store) => {
    const callers = readdirSync(`${STORE}${store}`)
      .filter((name) => name.endsWith('.ts'))
      // A call, not the definition: `.enqueueDeliveries(`, `await enqueueDeliveries(`, `eventLog.appendEvents(`, `this.eventLog.append(`.
      .filter((name) => /(?:\.|await\s+)(?:enqueueDeliveries|appendEvents)\(|\beventLog\.append\(/.test(readFileSync(`${STORE}${store}/${name}`, 'utf8')));
    expect(callers.filter((name) => name !== 'index.ts')).toEqual([]);
  });
});
