// The room on PostgreSQL: messages to all or to named members, receipts, per-agent cursors, and what waits for an agent.
import { postedRoomMessage, recipientsColumn, toRoomMessage, type RoomRow } from '../room-rows.js';
import type { PendingCounts, PendingQuery, ReceiptRow, ReviewNotice, StoredRoomMessage, NewRoomMessage, WaitingCounts, WriteExtras } from '../store.js';
import { COUNT_HELP_REQUESTS } from '../console-sql.js';
import { recordExtras } from './write-extras.js';
import type { Db, Tx } from './connection.js';

export async function postRoomMessage(tx: Tx, message: NewRoomMessage, extras: WriteExtras<StoredRoomMessage> | undefined): Promise<StoredRoomMessage> {
  const at = new Date().toISOString();
  const recipients = recipientsColumn(message);
  const [row] = await tx<Array<{ id: number }>>`INSERT INTO room_messages (author, recipients, text, created_at) VALUES (${message.author}, ${recipients}, ${message.text}, ${at}) RETURNING id`;
  const id = row!.id;
  if (message.recipients.length > 0) {
    await tx`INSERT INTO room_receipts (message_id, agent) SELECT ${id}, unnest(${[...message.recipients]}::text[]) ON CONFLICT DO NOTHING`;
  }
  return recordExtras(tx, extras, postedRoomMessage(message, id, at), null);
}

async function lockCursor(tx: Tx, agent: string): Promise<{ room_read_id: number; review_seen_id: number }> {
  await tx`INSERT INTO agent_cursors (agent) VALUES (${agent}) ON CONFLICT DO NOTHING`;
  const [row] = await tx<Array<{ room_read_id: number; review_seen_id: number }>>`SELECT room_read_id, review_seen_id FROM agent_cursors WHERE agent = ${agent} FOR UPDATE`;
  return row!;
}

export async function readUnread(
  tx: Tx,
  agent: string,
  limit: number,
  extras: WriteExtras<{ messages: StoredRoomMessage[]; more: boolean }> | undefined,
): Promise<{ messages: StoredRoomMessage[]; more: boolean }> {
  // The cursor row's lock: two reads by the same agent through two daemons hand out each message once.
  const after = (await lockCursor(tx, agent)).room_read_id;
  const rows = await tx<RoomRow[]>`SELECT m.id, m.author, m.recipients, m.text, m.created_at FROM room_messages m
    WHERE m.id > ${after} AND m.author != ${agent}
      AND (m.recipients = 'all' OR EXISTS (SELECT 1 FROM room_receipts r WHERE r.agent = ${agent} AND r.message_id = m.id))
    ORDER BY m.id LIMIT ${limit + 1}`;
  const more = rows.length > limit;
  const page = (more ? rows.slice(0, limit) : [...rows]).map(toRoomMessage);
  const last = page.at(-1)?.id;
  if (last !== undefined) {
    await tx`UPDATE agent_cursors SET room_read_id = ${last} WHERE agent = ${agent} AND room_read_id < ${last}`;
    await tx`UPDATE room_receipts SET read_at = ${new Date().toISOString()} WHERE agent = ${agent} AND message_id <= ${last} AND read_at IS NULL`;
  }
  return recordExtras(tx, extras, { messages: page, more }, null);
}

export async function readRoomLog(db: Db, agent: string, before: number | undefined, limit: number): Promise<StoredRoomMessage[]> {
  const rows = await db<RoomRow[]>`SELECT m.id, m.author, m.recipients, m.text, m.created_at FROM room_messages m
    WHERE m.id < ${before ?? 2_147_483_647}
      AND (m.recipients = 'all' OR m.author = ${agent} OR EXISTS (SELECT 1 FROM room_receipts r WHERE r.agent = ${agent} AND r.message_id = m.id))
    ORDER BY m.id DESC LIMIT ${limit}`;
  return rows.map(toRoomMessage);
}

export async function getRoomMessage(tx: Tx, id: number): Promise<{ message: StoredRoomMessage; receipts: ReceiptRow[] } | undefined> {
  const [row] = await tx<RoomRow[]>`SELECT id, author, recipients, text, created_at FROM room_messages WHERE id = ${id}`;
  if (!row) return undefined;
  const receipts = await tx<ReceiptRow[]>`SELECT agent, read_at FROM room_receipts WHERE message_id = ${id} ORDER BY agent`;
  return { message: toRoomMessage(row), receipts: [...receipts] };
}

/** One statement (one snapshot, one round trip): a woken waiter answers as soon as it can. */
export async function pendingFor(db: Db, query: PendingQuery): Promise<PendingCounts> {
  const stranded = query.stranded ?? 'none';
  const [row] = await db<Array<{ unread: number; claimable: number; to_review: number; stranded: number[]; reviews: ReviewNotice[] }>>`
    WITH c AS (
      SELECT COALESCE((SELECT room_read_id FROM agent_cursors WHERE agent = ${query.agent}), 0) AS room_after,
             COALESCE((SELECT review_seen_id FROM agent_cursors WHERE agent = ${query.agent}), 0) AS review_after
    )
    SELECT
      (SELECT COUNT(*) FROM room_messages m WHERE m.id > c.room_after AND m.author != ${query.agent}
        AND (m.recipients = 'all' OR EXISTS (SELECT 1 FROM room_receipts r WHERE r.agent = ${query.agent} AND r.message_id = m.id))) AS unread,
      CASE WHEN ${query.claims} THEN (SELECT COUNT(*) FROM tasks WHERE status = 'open' AND blocker_count = 0 AND (assignee IS NULL OR assignee = ${query.agent})
        AND NOT EXISTS (SELECT 1 FROM task_skills s WHERE s.task_id = tasks.id AND s.skill <> ALL(${[...query.skills]}::text[]))) ELSE 0 END AS claimable,
      CASE ${query.reviews}::text
        WHEN 'all' THEN (SELECT COUNT(*) FROM tasks WHERE status = 'submitted')
        WHEN 'others' THEN (SELECT COUNT(*) FROM tasks WHERE status = 'submitted' AND assignee != ${query.agent})
        ELSE 0 END AS to_review,
      ARRAY(SELECT id FROM tasks WHERE cancelled_blocker_count > 0 AND status NOT IN ('done', 'cancelled')
        AND (${stranded}::text = 'all' OR (${stranded}::text = 'created' AND created_by = ${query.agent})) ORDER BY id) AS stranded,
      COALESCE((SELECT json_agg(r ORDER BY r.id) FROM (SELECT id, task_id, verdict, reviewer, created_at FROM reviews
        WHERE submitter = ${query.agent} AND id > c.review_after) r), '[]'::json) AS reviews
    FROM c`;
  return {
    unreadMessages: Number(row!.unread),
    claimableTasks: Number(row!.claimable),
    strandedTasks: row!.stranded,
    toReview: Number(row!.to_review),
    reviews: row!.reviews,
  };
}

const WAITING_ON = `SELECT (${COUNT_HELP_REQUESTS}) AS help,
  (SELECT COUNT(*) FROM room_receipts r JOIN room_messages m ON m.id = r.message_id
    WHERE r.agent = $1 AND r.read_at IS NULL AND m.recipients != 'all') AS unread`;

/** One statement, one snapshot: help requests nobody answered on unfinished tasks, and messages to the agent by name unread. */
export async function waitingOn(db: Db, agent: string): Promise<WaitingCounts> {
  const [row] = await db.unsafe<Array<{ help: number; unread: number }>>(WAITING_ON, [agent], { prepare: true });
  return { helpRequests: Number(row!.help), messagesTo: Number(row!.unread) };
}

export async function markReviewsSeen(tx: Tx, agent: string, upToId: number): Promise<void> {
  await tx`INSERT INTO agent_cursors (agent) VALUES (${agent}) ON CONFLICT DO NOTHING`;
  await tx`UPDATE agent_cursors SET review_seen_id = ${upToId} WHERE agent = ${agent} AND review_seen_id < ${upToId}`;
}
