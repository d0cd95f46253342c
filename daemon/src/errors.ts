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

/** Any thrown value as a BoardError; unknown errors become Internal and keep no detail. */
export function asBoardError(error: unknown): BoardError {
  return error instanceof BoardError ? error : new Internal();
}
