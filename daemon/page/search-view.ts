// The Find box's search of the whole board (issue 36): the words typed are sent to /view/search (the search tool
// under this person's role) and the hits listed under the filter; a hit opens its task, or shows its room message.
import { boardPath } from './base.js';
import { byId, h, plural } from './dom.js';
import { request } from './net.js';
import { hooks } from './state.js';

interface Hit {
  readonly kind: 'task' | 'message' | 'review' | 'room';
  readonly task_id: number | null;
  readonly message_id: number | null;
  readonly field: string;
  readonly excerpt: string;
}

/** The marks the board puts around each matched word (shared/src/tools/search.ts SEARCH_MARK). */
const MARK_START = '[[';
const MARK_END = ']]';
const DEBOUNCE_MS = 250;
/** How long an opened task's panel is watched for the message a hit named. */
const FIND_MESSAGE_MS = 5_000;

let timer: ReturnType<typeof setTimeout> | null = null;
/** Each search's number: an answer to an older one is dropped. */
let asked = 0;

/** The excerpt as text nodes, each marked word in a <mark>: board text never becomes markup. */
function excerptNodes(excerpt: string): Array<Node | string> {
  const nodes: Array<Node | string> = [];
  let rest = excerpt;
  for (;;) {
    const start = rest.indexOf(MARK_START);
    const end = start < 0 ? -1 : rest.indexOf(MARK_END, start + MARK_START.length);
    if (end < 0) break;
    nodes.push(rest.slice(0, start), h('mark', null, rest.slice(start + MARK_START.length, end)));
    rest = rest.slice(end + MARK_END.length);
  }
  nodes.push(rest);
  return nodes;
}

function where(hit: Hit): string {
  if (hit.kind === 'room') return 'Room message';
  if (hit.kind === 'message') return `Message on #${hit.task_id}`;
  if (hit.kind === 'review') return `Review of #${hit.task_id}`;
  return `#${hit.task_id} ${hit.field}`;
}

/** Brings the element into view and marks it for a moment. */
function reveal(el: Element): void {
  el.scrollIntoView({ block: 'center' });
  el.classList.add('found');
  setTimeout(() => el.classList.remove('found'), 2_000);
}

/** A task message: its task's panel opens, and the message is shown once the panel holds it. */
function openMessage(taskId: number, messageId: number, from: HTMLElement): void {
  hooks.openDetail(taskId, from);
  const body = byId('detail-body');
  const selector = `[data-message-id="${messageId}"]`;
  const seen = body.querySelector(selector);
  if (seen) return reveal(seen);
  const watcher = new MutationObserver(() => {
    const el = body.querySelector(selector);
    if (!el) return;
    watcher.disconnect();
    reveal(el);
  });
  watcher.observe(body, { childList: true, subtree: true });
  setTimeout(() => watcher.disconnect(), FIND_MESSAGE_MS);
}

function open(hit: Hit, from: HTMLElement): void {
  if (hit.kind === 'room') {
    const el = byId('room').querySelector(`[data-message-id="${hit.message_id}"]`);
    if (el) reveal(el);
    else note('That room message is older than the room shows; its words are in the excerpt.');
    return;
  }
  if (hit.kind === 'message' && hit.message_id !== null) return openMessage(hit.task_id!, hit.message_id, from);
  hooks.openDetail(hit.task_id!, from);
}

function note(text: string): void {
  byId('search-note').textContent = text;
}

function show(hits: readonly Hit[], query: string): void {
  byId('search-results').hidden = false;
  note(hits.length ? `${plural(hits.length, 'match', 'matches')} in the board for “${query}”` : `Nothing in the board holds “${query}”`);
  byId('search-hits').replaceChildren(
    ...hits.map((hit) => {
      const button = h('button', { type: 'button', class: 'hit' }, h('span', { class: 'hit-where' }, where(hit)), h('span', { class: 'hit-excerpt' }, excerptNodes(hit.excerpt)));
      button.addEventListener('click', () => open(hit, button));
      return h('li', null, button);
    }),
  );
}

function clear(): void {
  asked++;
  byId('search-results').hidden = true;
  byId('search-hits').replaceChildren();
}

async function run(query: string): Promise<void> {
  const mine = ++asked;
  let answer;
  try {
    answer = await request<{ hits: Hit[] }>('GET', boardPath(`/view/search?q=${encodeURIComponent(query)}`));
  } catch {
    answer = null;
  }
  if (mine !== asked) return;
  if (answer?.status === 200 && answer.body) return show(answer.body.hits, query);
  byId('search-results').hidden = false;
  byId('search-hits').replaceChildren();
  note('The search did not answer; the columns are still filtered by title, #id and assignee.');
}

/** Searches as the Find box's text changes: words (not a bare #id) of two characters or more, after a pause. */
export function searchAsTyped(text: string): void {
  if (timer) clearTimeout(timer);
  timer = null;
  const query = text.trim();
  if (query.length < 2 || /^#?\d+$/.test(query)) return clear();
  timer = setTimeout(() => {
    timer = null;
    void run(query);
  }, DEBOUNCE_MS);
}
