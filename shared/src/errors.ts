// Error codes that cross the wire, with the HTTP status each one travels as.

export const ERROR_STATUS = {
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  invalid_input: 400,
  rate_limited: 429,
  internal: 500,
  /** The board's store cannot take the call now (database unreachable or past its deadline, disk full): retry later. */
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

/** The JSON body of every error, on the HTTP API and inside an MCP error result. */
export interface ErrorBody {
  error: { code: ErrorCode; message: string; retry_after_s?: number };
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_STATUS, value);
}
