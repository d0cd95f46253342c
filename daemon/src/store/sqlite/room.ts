// The room on SQLite: messages to all or to named members, receipts, per-agent cursors, and what waits for an agent.
import type Database from 'better-sqlite3';
import { COUNT_HELP_REQUESTS } from '../console-sql.js';
import { postedRoomMessage, recipientsColumn, toRoomMessage, type RoomRow } from '../room-rows.js';
import type { NewRoomMessage, PendingCounts, PendingQuery, ReceiptRow, ReviewNotice, StoredRoomMessage, WaitingCounts, WriteExtras } from '../store.js';
import type { SqliteAudit } from './audit.js';
import type { SqliteDependencies } from './dependencies.js';

const now = () => new Date().toISOString();

export class SqliteRoom {
  private readonly stmt;

  constructor(
    db: Database.Database,
    private readonly audit: SqliteAudit,
    private readonly graph: SqliteDependencies,
  ) {
    this.stmt = {
      insertRoomMessage: db.prepare('INSERT INTO room_messages (author, recipients, text, created_at) VALUES (?, ?, ?, ?)'),
      insertReceipt: db.prepare('INSERT OR IGNORE INTO room_receipts (message_id, agent) VALUES (?, ?)'),
      ensureCursor: db.prepare('INSERT OR IGNORE INTO agent_cursors (agent) VALUES (?)'),
      roomCursor: db.prepare('SELECT room_read_id FROM agent_cursors WHERE agent = ?').pluck(),
      setRoomCursor: db.prepare('UPDATE agent_cursors SET room_read_id = ? WHERE agent = ? AND room_read_id < ?'),
      reviewCursor: db.prepare('SELECT review_seen_id FROM agent_cursors WHERE agent = ?').pluck(),
      setReviewCursor: db.prepare('UPDATE agent_cursors SET review_seen_id = ? WHERE agent = ? AND review_seen_id < ?'),
      // Visible to an agent: sent to all by someone else, or addressed to it (a receipt row exists).
      unread: db.prepare(
        `SELECT m.id, m.author, m.recipients, m.text, m.created_at FROM room_messages m
         WHERE m.id > @after AND m.author != @agent
           AND (m.recipients = 'all' OR EXISTS (SELECT 1 FROM room_receipts r WHERE r.agent = @agent AND r.message_id = m.id))
         ORDER BY m.id LIMIT @limit`,
      ),
      countUnread: db.prepare(
        `SELECT COUNT(*) FROM room_messages m
         WHERE m.id > @after AND m.author != @agent
           AND (m.recipients = 'all' OR EXISTS (SELECT 1 FROM room_receipts r WHERE r.agent = @agent AND r.message_id = m.id))`,
      ).pluck(),
      markRead: db.prepare('UPDATE room_receipts SET read_at = ? WHERE agent = ? AND message_id <= ? AND read_at IS NULL'),
      roomLog: db.prepare(
        `SELECT m.id, m.author, m.recipients, m.text, m.created_at FROM room_messages m
         WHERE m.id < @before
           AND (m.recipients = 'all' OR m.author = @agent OR EXISTS (SELECT 1 FROM room_receipts r WHERE r.agent = @agent AND r.message_id = m.id))
         ORDER BY m.id DESC LIMIT @limit`,
      ),
      roomMessage: db.prepare('SELECT id, author, recipients, text, created_at FROM room_messages WHERE id = ?'),
      receiptsOf: db.prepare('SELECT agent, read_at FROM room_receipts WHERE message_id = ? ORDER BY agent'),
      // A sum over the ready set's distinct (required skills, assignee) rows (migration 008), not over its tasks.
      countClaimable: db.prepare(
        `SELECT COALESCE(SUM(n), 0) FROM ready_skill_sets r WHERE (r.assignee = '' OR r.assignee = @agent)
           AND NOT EXISTS (SELECT 1 FROM json_each(r.skills) s WHERE s.value NOT IN (SELECT value FROM json_each(@skills)))`,
      ).pluck(),
      // The counters of migration 008, kept by triggers: reading them costs the same at a million tasks as at ten.
      boardCount: db.prepare('SELECT n FROM board_counts WHERE name = ?').pluck(),
      countSubmittedOwn: db.prepare("SELECT COUNT(*) FROM tasks WHERE assignee = ? AND status = 'submitted'").pluck(),
      reviewsFor: db.prepare('SELECT id, task_id, verdict, reviewer, created_at FROM reviews WHERE submitter = ? AND id > ? ORDER BY id'),
      // A help request nobody answered yet: the newest message of its unfinished task (console-sql.ts).
      countHelpRequests: db.prepare(COUNT_HELP_REQUESTS).pluck(),
      countUnreadTo: db.prepare(
        "SELECT COUNT(*) FROM room_receipts r JOIN room_messages m ON m.id = r.message_id WHERE r.agent = ? AND r.read_at IS NULL AND m.recipients != 'all'",
      ).pluck(),
    };
  }

  postRoomMessage(message: NewRoomMessage, extras: WriteExtras<StoredRoomMessage> | undefined): StoredRoomMessage {
    const at = now();
    const recipients = recipientsColumn(message);
    const id = Number(this.stmt.insertRoomMessage.run(message.author, recipients, message.text, at).lastInsertRowid);
    for (const agent of message.recipients) this.stmt.insertReceipt.run(id, agent);
    return this.audit.recordExtras(extras, postedRoomMessage(message, id, at), null);
  }

  readUnread(agent: string, limit: number, extras: WriteExtras<{ messages: StoredRoomMessage[]; more: boolean }> | undefined): { messages: StoredRoomMessage[]; more: boolean } {
    this.stmt.ensureCursor.run(agent);
    const after = this.stmt.roomCursor.get(agent) as number;
    const rows = this.stmt.unread.all({ after, agent, limit: limit + 1 }) as RoomRow[];
    const more = rows.length > limit;
    const page = (more ? rows.slice(0, limit) : rows).map(toRoomMessage);
    const last = page.at(-1)?.id;
    if (last !== undefined) {
      this.stmt.setRoomCursor.run(last, agent, last);
      this.stmt.markRead.run(now(), agent, last);
    }
    return this.audit.recordExtras(extras, { messages: page, more }, null);
  }

  readRoomLog(agent: string, before: number | undefined, limit: number): StoredRoomMessage[] {
    return (this.stmt.roomLog.all({ agent, before: before ?? Number.MAX_SAFE_INTEGER, limit }) as RoomRow[]).map(toRoomMessage);
  }

  getRoomMessage(id: number): { message: StoredRoomMessage; receipts: ReceiptRow[] } | undefined {
    const row = this.stmt.roomMessage.get(id) as RoomRow | undefined;
    if (!row) return undefined;
    return { message: toRoomMessage(row), receipts: this.stmt.receiptsOf.all(id) as ReceiptRow[] };
  }

  /** Inside one read transaction, so the counts are one snapshot. */
  pendingFor(query: PendingQuery): PendingCounts {
    const after = (this.stmt.roomCursor.get(query.agent) as number | undefined) ?? 0;
    const reviewAfter = (this.stmt.reviewCursor.get(query.agent) as number | undefined) ?? 0;
    return {
      unreadMessages: this.stmt.countUnread.get({ after, agent: query.agent }) as number,
      claimableTasks: query.claims ? (this.stmt.countClaimable.get({ agent: query.agent, skills: JSON.stringify(query.skills) }) as number) : 0,
      strandedTasks: this.graph.stranded(query.stranded ?? 'none', query.agent),
      toReview:
        query.reviews === 'all'
          ? this.submittedCount()
          : query.reviews === 'others'
            ? this.submittedCount() - (this.stmt.countSubmittedOwn.get(query.agent) as number)
            : 0,
      reviews: this.stmt.reviewsFor.all(query.agent, reviewAfter) as ReviewNotice[],
    };
  }

  /** Inside one read transaction, so the counts are one snapshot. */
  waitingOn(agent: string): WaitingCounts {
    return { helpRequests: this.stmt.countHelpRequests.get() as number, messagesTo: this.stmt.countUnreadTo.get(agent) as number };
  }

  markReviewsSeen(agent: string, upToId: number): void {
    this.stmt.ensureCursor.run(agent);
    this.stmt.setReviewCursor.run(upToId, agent, upToId);
  }

  private submittedCount(): number {
    return this.stmt.boardCount.get('submitted') as number;
  }
}
