// The one place that turns thrown errors into HTTP responses.
import type { ErrorHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { BoardError, InvalidInput, Internal, RateLimited } from '../errors.js';
import { log } from '../runtime/log.js';

export const onError: ErrorHandler = (error, c) => {
  let boardError: BoardError;
  if (error instanceof BoardError) boardError = error;
  else if (error instanceof HTTPException && error.status === 413) {
    boardError = new InvalidInput('the request body is too large; the limit is 1 MB');
    // The rest of the body is still unread and the server drops the socket after answering: say so, so that a
    // keep-alive client opens a new connection for its next request instead of failing on this one.
    c.header('Connection', 'close');
  }
  else {
    log.error('request failed unexpectedly', { path: c.req.path, error: String(error.stack ?? error) });
    boardError = new Internal();
  }
  if (boardError instanceof RateLimited) c.header('Retry-After', String(boardError.retryAfterSeconds));
  return c.json(boardError.toBody(), boardError.status as ContentfulStatusCode);
};
