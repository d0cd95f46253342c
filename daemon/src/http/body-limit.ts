// The request body limit, without building a web Request for a body whose size the client declared.
import type { MiddlewareHandler } from 'hono';
import { bodyLimit as streamingBodyLimit } from 'hono/body-limit';

/**
 * Hono's bodyLimit reads `c.req.raw.body`, which makes @hono/node-server build a whole web Request (and its stream)
 * for every call, about 80 µs (issue 15), and then the JSON is read through it. A body within a declared
 * Content-Length is let through untouched, so the handler reads it straight from the socket; anything else (too
 * large, chunked, no length) goes to Hono's bodyLimit, which refuses or counts it as before.
 */
export function bodyLimit(options: { maxSize: number }): MiddlewareHandler {
  const streaming = streamingBodyLimit(options);
  return async function bodyLimit(c, next) {
    const declared = c.req.header('content-length');
    if (declared !== undefined && c.req.header('transfer-encoding') === undefined && /^\d{1,15}$/.test(declared) && Number(declared) <= options.maxSize) {
      return next();
    }
    return streaming(c, next);
  };
}
