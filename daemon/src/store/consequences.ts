// What a board change causes, decided in one place: the event-log rows and the webhook outbox rows are both derived
// here from what the write did, and each store's change() writes both in the change's own transaction (issue 32), so a
// new write path names what it did once and cannot forget either.
import type { Message, Task, TaskSummary } from 'roundtable-shared';
import { taskEvent, type LoggedEvent } from '../events.js';
import type { ReservationChange, TaskChange, TaskEdit } from './changes.js';
import { editEvents, reservationEvents, summaryOf, transitionEvents } from './event-log.js';
import type { ExpiredLease, StoredRoomMessage } from './store.js';
import { blockerCancelledEvent, eventOfChange, eventOfMessage, eventOfRoomMessage, leaseExpiredEvent, type WebhookEvent } from './webhook-events.js';

/** What one write did, as the write path tells its store's change(); each kind carries what its consequences read. */
export type BoardChange =
  | { readonly kind: 'created'; readonly task: Task; readonly actor: string }
  | {
      readonly kind: 'transition';
      /** The task as the rule saw it, before the change. */
      readonly before: Task;
      readonly task: Task;
      readonly change: TaskChange;
      /** The unfinished tasks waiting on it, read after the write when it reached done or cancelled (else empty). */
      readonly dependents: readonly TaskSummary[];
    }
  | { readonly kind: 'message'; readonly task: Task; readonly message: Message }
  | { readonly kind: 'edit'; readonly task: Task; readonly edit: TaskEdit | null }
  | { readonly kind: 'reservations'; readonly task: Task; readonly change: ReservationChange }
  | { readonly kind: 'room'; readonly message: StoredRoomMessage; readonly author: string; readonly to: 'all' | readonly string[]; readonly owners?: readonly string[] | undefined }
  | { readonly kind: 'lapses'; readonly expired: readonly ExpiredLease[] };

export interface Consequences {
  /** Rows for the event log, in order. */
  readonly events: readonly LoggedEvent[];
  /** Events for the webhook outbox, in order: one row per webhook listening to each. */
  readonly webhooks: readonly WebhookEvent[];
}

/** Every consequence of a change. The webhooks' time is the write's own (the row's updated_at or created_at). */
export function consequencesOf(change: BoardChange): Consequences {
  switch (change.kind) {
    case 'created':
      return { events: [taskEvent(change.task, { actor: change.actor, action: 'created' })], webhooks: [] };
    case 'transition': {
      const { before, task, dependents } = change;
      const at = task.updated_at;
      const stranded = task.status === 'cancelled' ? dependents.map((d) => blockerCancelledEvent(d, task.id, at)) : [];
      return {
        events: transitionEvents(summaryOf(task), change.change, dependents),
        webhooks: [...present(eventOfChange(before, change.change, at)), ...stranded],
      };
    }
    case 'message': {
      const { task, message } = change;
      return {
        events: [{ type: 'task_message', task_id: task.id, author: message.author }],
        webhooks: present(eventOfMessage(task, message, message.created_at)),
      };
    }
    case 'edit':
      return { events: editEvents(summaryOf(change.task), change.edit), webhooks: [] };
    case 'reservations':
      return { events: reservationEvents(summaryOf(change.task), change.change), webhooks: [] };
    case 'room': {
      const { message } = change;
      return {
        events: [{ type: 'room', message_id: message.id, from: change.author, to: change.to }],
        webhooks: present(eventOfRoomMessage({ id: message.id, author: change.author, owners: change.owners }, message.created_at)),
      };
    }
    case 'lapses':
      return {
        events: change.expired.map((lapse) => taskEvent(lapse.task, { actor: 'roundtable', action: 'lease_expired' })),
        webhooks: change.expired.map((lapse) => leaseExpiredEvent(lapse.task, lapse.holder, lapse.task.updated_at)),
      };
  }
}

function present(event: WebhookEvent | null): WebhookEvent[] {
  return event ? [event] : [];
}
