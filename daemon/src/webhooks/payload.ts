// What a receiver is sent, per format: JSON with ids, states and names; Slack, Discord and ntfy with a line for people,
// the task title escaped for the target's markup, marked as written by an agent and cut to TITLE_LIMIT characters.
import { DEFAULT_PROJECT, projectPrefix } from 'roundtable-shared';
import type { WebhookEvent, WebhookEventType } from '../store/webhook-events.js';
import type { WebhookFormat } from '../store/webhooks-port.js';

/** The most characters of a task title a chat message carries; a longer one is cut and ends with an ellipsis. */
export const TITLE_LIMIT = 120;

export interface RenderedBody {
  readonly body: string;
  readonly contentType: string;
  /** Extra headers the target reads (ntfy's Title); fixed words only, never board text. */
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * The page of one project under the daemon's public URL (issue 33): `default` keeps the bare URL, whose links worked
 * before projects; any other project's page is at /p/SLUG/, so its task links open its own board.
 */
export function projectPageUrl(publicUrl: string | undefined, slug: string): string | undefined {
  if (!publicUrl || slug === DEFAULT_PROJECT) return publicUrl;
  return `${publicUrl.replace(/\/+$/, '')}${projectPrefix(slug)}`;
}

/** The link to a task on the live page, or undefined when no public URL is configured. */
export function taskLink(publicUrl: string | undefined, taskId: number): string | undefined {
  if (!publicUrl) return undefined;
  return `${publicUrl.replace(/\/+$/, '')}/#task-${taskId}`;
}

/**
 * What a chat message must not carry from board text: every Unicode control (Cc: C0, DEL, C1 such as U+0085 and
 * U+009B), the line and paragraph separators (U+2028, U+2029) and the bidirectional controls (U+061C, U+200E/F,
 * U+202A-U+202E, U+2066-U+2069) that can reorder what a reader sees. Joiners (U+200C/D) stay: emoji and scripts need them.
 */
const UNSAFE_IN_CHAT = /[\p{Cc}\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]+/gu;

/** Board text fit for one chat line: each run of unsafe characters becomes one space. */
export function plainLine(text: string): string {
  return text.replace(UNSAFE_IN_CHAT, ' ');
}

/** Cut by code points, so a cut never splits a surrogate pair. */
export function cutTitle(title: string, limit = TITLE_LIMIT): string {
  const points = [...plainLine(title)];
  return points.length <= limit ? points.join('') : `${points.slice(0, limit - 1).join('')}…`;
}

/** Slack's mrkdwn: &, < and > are its only control characters; escaped, `<!channel>` or `<@U1>` is plain text. */
export function escapeSlack(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * Discord's markdown: every markup character backslash-escaped, and @ followed by a zero-width space so that
 * @everyone, @here and <@id> are no mention even where allowed_mentions is ignored (the body also sets parse: []).
 */
export function escapeDiscord(text: string): string {
  return text.replace(/[\\*_~`|>#\-[\]()<:]/g, (c) => `\\${c}`).replace(/@/g, '@\u200b');
}

const HEADLINES: Record<WebhookEventType, string> = {
  submitted: 'is waiting for review',
  help_request: 'has a help request',
  lease_expired: 'was reopened: its claim lapsed',
  blocker_cancelled: 'is stranded: a task it depends on was cancelled',
  rejected: 'was rejected and reopened',
  owner_message: '',
  test: '',
};

/** The line for people, in plain words; `escape` is applied to every piece of agent-written or agent-chosen text. */
function describe(event: WebhookEvent, publicUrl: string | undefined, escapeForTarget: (text: string) => string): string {
  const escape = (text: string) => escapeForTarget(plainLine(text));
  if (event.type === 'test') return 'Roundtable test delivery: this webhook works.';
  if (event.type === 'owner_message') {
    return `Roundtable: ${escape(event.actor)} sent a direct message to ${escape((event.owners ?? []).join(', '))} in the room.`;
  }
  const task = event.task!;
  const by = event.actor === 'roundtable' ? '' : ` (by ${escape(event.actor)})`;
  const link = taskLink(publicUrl, task.id);
  return `Roundtable: task ${task.id} ${HEADLINES[event.type]}${by}. Title, written by an agent: "${escape(cutTitle(task.title))}"${link ? ` ${link}` : ''}`;
}

/** The JSON format: ids, states and names, and the link; no title, no board text. */
export function jsonBody(event: WebhookEvent, publicUrl: string | undefined): Record<string, unknown> {
  const data: Record<string, unknown> = { actor: event.actor };
  if (event.task) {
    const link = taskLink(publicUrl, event.task.id);
    data['task'] = { id: event.task.id, status: event.task.status, assignee: event.task.assignee, ...(link && { url: link }) };
  }
  if (event.blockerId !== undefined) data['blocker_id'] = event.blockerId;
  if (event.messageId !== undefined) data['message_id'] = event.messageId;
  if (event.owners) data['owners'] = event.owners;
  if (event.agent !== undefined) data['agent'] = event.agent;
  return { type: event.type, timestamp: event.at, data };
}

export function renderBody(event: WebhookEvent, format: WebhookFormat, publicUrl: string | undefined): RenderedBody {
  switch (format) {
    case 'json':
      return { body: JSON.stringify(jsonBody(event, publicUrl)), contentType: 'application/json', headers: {} };
    case 'slack':
      return { body: JSON.stringify({ text: describe(event, publicUrl, escapeSlack) }), contentType: 'application/json', headers: {} };
    case 'discord':
      return { body: JSON.stringify({ content: describe(event, publicUrl, escapeDiscord), allowed_mentions: { parse: [] } }), contentType: 'application/json', headers: {} };
    case 'ntfy':
      // ntfy shows the body as plain text (markdown only when asked for); the title header is fixed words.
      return { body: describe(event, publicUrl, (text) => text), contentType: 'text/plain; charset=utf-8', headers: { Title: `Roundtable: ${event.type}` } };
  }
}
