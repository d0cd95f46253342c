// Where this page's board is: served at /p/SLUG/ it reads and acts through that project's own URLs; served at / through
// the unprefixed ones, which the daemon answers from the caller's own project. Signing in is the daemon's, at /session.

const match = /^\/p\/([^/]+)\//.exec(location.pathname);

/** The project named in the address, or null at /. */
export const PROJECT: string | null = match ? decodeURIComponent(match[1]!) : null;

/** A board path (/view/state, /events, /actions/...) under this page's project prefix. */
export function boardPath(path: string): string {
  return PROJECT === null ? path : `/p/${encodeURIComponent(PROJECT)}${path}`;
}

/** The page of a project: where the list of projects and the switcher lead. */
export function projectPage(slug: string): string {
  return `/p/${encodeURIComponent(slug)}/`;
}
