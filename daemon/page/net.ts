// Talking to the daemon: JSON reads, and an owner's actions (POST /actions/{tool}) with the session's CSRF token.
import { boardPath } from './base.js';

export interface Answer<T = unknown> {
  readonly status: number;
  readonly body: T | null;
}

export interface BoardErrorBody {
  readonly error?: { readonly code: string; readonly message: string; readonly retry_after_s?: number; readonly board_started_at?: string };
}

export async function request<T = unknown>(method: 'GET' | 'POST', path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer<T>> {
  const init: RequestInit = { method, credentials: 'same-origin', headers: { accept: 'application/json', ...headers }, cache: 'no-store' };
  if (body !== undefined) {
    init.headers = { ...init.headers, 'content-type': 'application/json' };
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  let json: T | null = null;
  try {
    json = (await response.json()) as T;
  } catch {
    // not JSON (an empty body, a proxy's page): the status says enough
  }
  return { status: response.status, body: json };
}

/** The session's CSRF token, from the latest /view/state. */
let csrfToken = '';
export function setCsrfToken(token: string): void {
  csrfToken = token;
}

/** An Idempotency-Key: random, from getRandomValues (randomUUID needs a secure context; a LAN board may be plain HTTP). */
export function freshKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `web-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/**
 * Runs one tool as a page action. The same key is sent again when the same action is retried after a failure to
 * reach the board, so a retry can never apply it twice.
 */
export function act<T = Record<string, unknown>>(tool: string, args: Record<string, unknown>, key: string): Promise<Answer<T & BoardErrorBody>> {
  return request<T & BoardErrorBody>('POST', boardPath(`/actions/${encodeURIComponent(tool)}`), args, { 'x-csrf-token': csrfToken, 'idempotency-key': key });
}
