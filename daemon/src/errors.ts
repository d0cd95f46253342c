// The board's error family: each class carries the wire code and its HTTP status.
import { ERROR_STATUS, type ErrorBody, type ErrorCode } from 'roundtable-shared';

export abstract class BoardError extends Error {
  abstract readonly code: ErrorCode;
  get status(): number {
    return ERROR_STATUS[this.code];
  }
  toBody(): ErrorBody {
    return { error: { code: this.code, message: this.message } };
  }
}

export class Unauthorized extends BoardError {
  readonly code = 'unauthorized' as const;
}
export class Forbidden extends BoardError {
  readonly code = 'forbidden' as const;
}
export class NotFound extends BoardError {
  readonly code = 'not_found' as const;
}
export class Conflict extends BoardError {
  readonly code = 'conflict' as const;
}
/** Fencing: the caller's claim on a task is no longer current (it lapsed, or ended otherwise). */
export class StaleClaim extends Conflict {
  constructor(readonly taskId: number, readonly claimId: number | null, message: string) {
    super(message);
  }
}
export class InvalidInput extends BoardError {
  readonly code = 'invalid_input' as const;
}
export class Internal extends BoardError {
  readonly code = 'internal' as const;
  constructor() {
    super('the board hit an internal error; nothing more is disclosed. Retry, and tell the board owner if it persists');
  }
}

export class RateLimited extends BoardError {
  readonly code = 'rate_limited' as const;
  constructor(readonly retryAfterSeconds: number, what = 'tool calls') {
    super(`too many ${what}; retry in ${retryAfterSeconds} s`);
  }
  override toBody(): ErrorBody {
    return { error: { code: this.code, message: this.message, retry_after_s: this.retryAfterSeconds } };
  }
}

/** Why the store could not take a call: every one of them is worth a retry later. */
export type UnavailableReason = 'unreachable' | 'deadline' | 'disk_full';
/** Whether the call's change stands: `no` when it certainly does not, `unknown` when its commit was sent but not answered. */
export type AppliedState = 'no' | 'unknown';

const UNAVAILABLE_CAUSE: Readonly<Record<UnavailableReason, string>> = {
  unreachable: "the board's database is unreachable",
  deadline: "the board's database did not answer within its deadline",
  disk_full: "the board's disk is full",
};
const UNAVAILABLE_NEXT: Readonly<Record<UnavailableReason, string>> = {
  unreachable: 'retry in a few seconds',
  deadline: 'retry in a few seconds',
  disk_full: 'retry once the board owner has freed space',
};

/** The store cannot take the call now. The message names the cause in our words and whether the change stands. */
export class Unavailable extends BoardError {
  readonly code = 'unavailable' as const;
  constructor(
    readonly reason: UnavailableReason,
    readonly applied: AppliedState,
    /** What the driver said, for the operator's tools (doctor); never sent to a caller. */
    options?: { readonly cause?: unknown },
  ) {
    super(
      applied === 'no'
        ? `${UNAVAILABLE_CAUSE[reason]}; nothing was changed. Repeat the call: ${UNAVAILABLE_NEXT[reason]}`
        : `${UNAVAILABLE_CAUSE[reason]} while the change was being committed, so it may have been applied: check the board (get_task, list_tasks or read_log) before repeating it, and ${UNAVAILABLE_NEXT[reason]}`,
      options,
    );
  }

  /** The same cause for a call that certainly changed nothing (a read, or a failure before its change was sent). */
  unchanged(): Unavailable {
    return this.applied === 'no' ? this : new Unavailable(this.reason, 'no');
  }
}

/** Any thrown value as a BoardError; unknown errors become Internal and keep no detail. */
export function asBoardError(error: unknown): BoardError {
  return error instanceof BoardError ? error : new Internal();
}

/** A change cursor older than the event log keeps (wait_for_activity since): what came after it is gone. */
export class CursorExpired extends Conflict {}
/**
 * A change cursor past the newest row of the event log: this board gave it, so the board was restored from an older
 * copy and the changes it names are not here. A conflict too, so a client that starts over on `conflict` still does.
 */
export class CursorAhead extends Conflict {}
