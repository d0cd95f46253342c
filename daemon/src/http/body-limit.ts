// The request body limit, without building a web Request for a body whose size the client declared, and its refusal
// in the protocol of the route: the board's error body on the JSON API, a JSON-RPC error on /mcp.
import type { IncomingMessage } from 'node:http';
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit as streamingBodyLimit } from 'hono/body-limit';
import { InvalidInput } from '../errors.js';
import { lingerOnClose } from './lingering-close.js';

/** JSON-RPC 2.0 "Invalid Request": the body was never read, so the request's id is unknown and answered as null. */
const JSON_RPC_INVALID_REQUEST = -32600;

export interface BodyLimitOptions {
  readonly maxSize: number;
  /** How the refusal is spoken: the board's error body (default), or a JSON-RPC error for an MCP client. */
  readonly answer?: 'board' | 'json-rpc';
}

/**
 * Hono's bodyLimit reads `c.req.raw.body`, which makes @hono/node-server build a whole web Request (and its stream)
 * for every call, about 80 µs (issue 15), and then the JSON is read through it. A body within a declared
 * Content-Length is let through untouched, so the handler reads it straight from the socket; anything else (too
 * large, chunked, no length) goes to Hono's bodyLimit, which refuses or counts it as before.
 */
export function bodyLimit(options: BodyLimitOptions): MiddlewareHandler {
  const refuse = (c: Context) => tooLarge(c, options);
  const streaming = streamingBodyLimit({ maxSize: options.maxSize, onError: refuse });
  return async function bodyLimit(c, next) {
    const declared = c.req.header('content-length');
    if (declared !== undefined && c.req.header('transfer-encoding') === undefined && /^\d{1,15}$/.test(declared) && Number(declared) <= options.maxSize) {
      return next();
    }
    return streaming(c, next);
  };
}

/** A limit as people write it: "8 KB", "1 MB". */
export function sizeInWords(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KB`;
  return `${bytes} bytes`;
}

function tooLarge(c: Context, options: BodyLimitOptions): Response {
  const refusal = new InvalidInput(`the request body is too large; the limit is ${sizeInWords(options.maxSize)}`);
  // The rest of the body is still unread and the connection closes after this answer: say so, so that a keep-alive
  // client opens a new connection for its next request, and let the answer reach the client before the close.
  c.header('Connection', 'close');
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (incoming?.socket) lingerOnClose(incoming.socket, incoming);
  // 413 as HTTP says on both faces; the JSON-RPC code, or the board's error code, is what a client reads.
  if (options.answer === 'json-rpc') {
    return c.json({ jsonrpc: '2.0', id: null, error: { code: JSON_RPC_INVALID_REQUEST, message: refusal.message } }, 413);
  }
  return c.json(refusal.toBody(), 413);
}
