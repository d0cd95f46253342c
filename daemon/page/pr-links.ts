// Links to a pull or merge request: work.pr_url, and PR-shaped URLs found in a result's text. https only, checked
// again here whatever the board accepted (dom.ts externalLink shows one as text, with no referrer).

/** github .../OWNER/REPO/pull/N, gitlab .../-/merge_requests/N, bitbucket .../pull-requests/N. */
const PR_PATH = /\/[^/]+\/[^/]+\/pull\/\d+\/?$|\/-\/merge_requests\/\d+\/?$|\/[^/]+\/[^/]+\/pull-requests\/\d+\/?$/;
const CANDIDATE = /https:\/\/[^\s<>"'`()[\]{}]+/g;

/** The URL as a safe link target, or null: https, a host, no user name or password. */
export function safeHttpsUrl(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' || url.hostname === '' || url.username !== '' || url.password !== '') return null;
  return url.href;
}

/** PR and merge-request URLs in agent-written text, each once, in order; trailing punctuation is not part of one. */
export function prUrlsIn(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(CANDIDATE)) {
    const candidate = match[0].replace(/[.,;:!?]+$/, '');
    const safe = safeHttpsUrl(candidate);
    if (!safe) continue;
    const path = new URL(safe).pathname;
    if (PR_PATH.test(path) && !found.includes(safe)) found.push(safe);
  }
  return found;
}
