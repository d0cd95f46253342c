// Which board change tells people what: the webhook events' names, their facts as the outbox keeps them, and the pure
// mapping from a change to them. The facts are ids, states and names, plus the task title for the chat formats (escaped
// there, never in JSON). It lives in the store, which writes the outbox rows in the change's transaction (issue 32).
import { randomBytes } from 'node:crypto';
import type { Task, TaskStatus } from 'roundtable-shared';
import type { TaskChange } from './changes.js';

export const WEBHOOK_EVENTS = ['submitted', 'help_request', 'lease_expired', 'blocker_cancelled', 'rejected', 'owner_message', 'test'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number];

export interface WebhookTaskFacts {
  readonly id: number;
  readonly title: string;
  readonly status: TaskStatus;
  readonly assignee: string | null;
}

/** One event as the outbox keeps it: the same facts, and the same id, on every attempt. */
export interface WebhookEvent {
  /** The Standard Webhooks message id's stem; each webhook's delivery adds its own id to it. */
  readonly id: string;
  readonly type: WebhookEventType;
  /** When the change committed (ISO). */
  readonly at: string;
  /** Who made the change: an agent's name, or "roundtable" for the board's own (a lapse, a strand). */
  readonly actor: string;
  readonly task?: WebhookTaskFacts;
  /** blocker_cancelled: the cancelled task this one waits on. */
  readonly blockerId?: number;
  /** help_request: the task message's id. owner_message: the room message's id. */
  readonly messageId?: number;
  /** owner_message: the owners it was sent to. */
  readonly owners?: readonly string[];
  /** rejected: whose submission it was. lease_expired: who held the claim. */
  readonly agent?: string | null;
}

export function newEventId(): string {
  return `msg_${randomBytes(12).toString('hex')}`;
}

function taskFacts(task: Pick<Task, 'id' | 'title' | 'status' | 'assignee'>): WebhookTaskFacts {
  return { id: task.id, title: task.title, status: task.status, assignee: task.assignee };
}

/** A task transition: submitted (waiting for review) or rejected; null for every other change (a claim costs nothing). */
export function eventOfChange(before: Task, change: TaskChange, at: string): WebhookEvent | null {
  if (change.review?.verdict === 'reject') {
    return { id: newEventId(), type: 'rejected', at, actor: change.actor, task: taskFacts({ ...before, status: change.status, assignee: change.assignee }), agent: change.review.submitter };
  }
  if (change.status === 'submitted' && before.status !== 'submitted') {
    return { id: newEventId(), type: 'submitted', at, actor: change.actor, task: taskFacts({ ...before, status: change.status, assignee: change.assignee }) };
  }
  return null;
}

/** A task message: only a help request tells people. */
export function eventOfMessage(task: Task, message: { readonly id: number; readonly author: string; readonly kind: string }, at: string): WebhookEvent | null {
  if (message.kind !== 'help_request') return null;
  return { id: newEventId(), type: 'help_request', at, actor: message.author, task: taskFacts(task), messageId: message.id };
}

/** A room message naming owners (a person) as recipients; null for any other. */
export function eventOfRoomMessage(message: { readonly id: number; readonly author: string; readonly owners?: readonly string[] | undefined }, at: string): WebhookEvent | null {
  const owners = (message.owners ?? []).filter((name) => name !== message.author);
  if (owners.length === 0) return null;
  return { id: newEventId(), type: 'owner_message', at, actor: message.author, messageId: message.id, owners };
}

export function leaseExpiredEvent(task: { readonly id: number; readonly title: string }, holder: string, at: string): WebhookEvent {
  return { id: newEventId(), type: 'lease_expired', at, actor: 'roundtable', task: { id: task.id, title: task.title, status: 'open', assignee: null }, agent: holder };
}

export function blockerCancelledEvent(task: Pick<Task, 'id' | 'title' | 'status' | 'assignee'>, blockerId: number, at: string): WebhookEvent {
  return { id: newEventId(), type: 'blocker_cancelled', at, actor: 'roundtable', task: taskFacts(task), blockerId };
}

export function testEvent(at: string): WebhookEvent {
  return { id: newEventId(), type: 'test', at, actor: 'roundtable' };
}

/** The events a webhook listens to, as stored: one text with every name between commas, so one LIKE-free match finds it. */
export function eventsColumn(events: readonly WebhookEventType[]): string {
  return `,${[...new Set(events)].join(',')},`;
}

export function eventsOfColumn(column: string): WebhookEventType[] {
  return column.split(',').filter((name): name is WebhookEventType => (WEBHOOK_EVENTS as readonly string[]).includes(name));
}
