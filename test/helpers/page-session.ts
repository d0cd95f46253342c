// A board page session without a browser: sign in as a page does, read the CSRF token, and post page actions with the
// headers a browser would send (Origin, Sec-Fetch-Site), each of which a test may leave out or forge.
import type { TestBoard } from './board.js';

export interface PageSession {
  readonly cookie: string;
  readonly csrf: string;
  readonly me: { name: string; role: string; acts: boolean };
}

export async function signInPage(board: TestBoard, agent: string): Promise<PageSession> {
  const response = await fetch(`${board.url}/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: board.url },
    body: JSON.stringify({ token: board.tokens[agent] ?? agent }),
  });
  if (response.status !== 200) throw new Error(`sign-in as ${agent}: ${response.status}`);
  const cookie = /rt_session=([^;]+)/.exec(response.headers.get('set-cookie') ?? '')?.[1];
  if (!cookie) throw new Error('sign-in set no cookie');
  const state = await fetch(`${board.url}/view/state`, { headers: { cookie: `rt_session=${cookie}` } });
  const body = (await state.json()) as { csrf_token: string; me: PageSession['me'] };
  return { cookie, csrf: body.csrf_token, me: body.me };
}

export interface PageActionOptions {
  /** The Origin header; null sends none. Default: the board's own. */
  readonly origin?: string | null;
  /** The CSRF header; null sends none. Default: the session's. */
  readonly csrf?: string | null;
  readonly headers?: Record<string, string>;
  /** The raw body, instead of JSON of the arguments. */
  readonly body?: string;
  readonly contentType?: string;
}

export interface PageActionAnswer {
  readonly status: number;
  readonly body: any;
  readonly headers: Headers;
}

/** POST /actions/{tool}, as the page sends it unless told otherwise. */
export async function pageAction(board: TestBoard, session: Pick<PageSession, 'cookie' | 'csrf'>, tool: string, args: unknown, options: PageActionOptions = {}): Promise<PageActionAnswer> {
  const headers: Record<string, string> = {
    cookie: `rt_session=${session.cookie}`,
    'content-type': options.contentType ?? 'application/json',
    'sec-fetch-site': 'same-origin',
    ...options.headers,
  };
  const origin = options.origin === undefined ? board.url : options.origin;
  if (origin !== null) headers['origin'] = origin;
  const csrf = options.csrf === undefined ? session.csrf : options.csrf;
  if (csrf !== null) headers['x-csrf-token'] = csrf;
  const response = await fetch(`${board.url}/actions/${tool}`, { method: 'POST', headers, body: options.body ?? JSON.stringify(args), redirect: 'manual' });
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: response.status, body, headers: response.headers };
}
