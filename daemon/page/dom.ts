// Building the page from data, as text only: strings become text nodes, never markup; plus the small formatting helpers.

type Attrs = Record<string, string | number | boolean | null | undefined>;
export type Child = Node | string | number | null | undefined | false | readonly Child[];

/** h('div', {class: 'x', title: 'y'}, 'text', child): attributes are set one by one, children appended as nodes. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Attrs | null, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [name, value] of Object.entries(attrs)) {
      if (value === undefined || value === null || value === false) continue;
      if (name === 'class') el.className = String(value);
      else el.setAttribute(name, value === true ? '' : String(value));
    }
  }
  append(el, children);
  return el;
}

function append(el: Element, children: readonly Child[]): void {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`the page has no #${id}`);
  return el as T;
}

let nextId = 0;
/** A fresh element id, for tying a label to a control built on the fly. */
export function uniqueId(prefix: string): string {
  nextId += 1;
  return `${prefix}-${nextId}`;
}

export function hueOf(name: string): string {
  let hash = 0;
  for (const ch of name) hash = (hash * 31 + (ch.codePointAt(0) ?? 0)) >>> 0;
  return `hue-${hash % 8}`;
}

export function initials(name: string): string {
  const parts = name.split(/[\s._-]+/).filter(Boolean);
  const letters = parts.length > 1 ? (parts[0]?.[0] ?? '') + (parts[1]?.[0] ?? '') : name.slice(0, 2);
  return letters.toUpperCase();
}

export function avatar(name: string, small = false): HTMLSpanElement {
  return h('span', { class: `avatar ${hueOf(name)}${small ? ' small' : ''}`, 'aria-hidden': 'true' }, initials(name));
}

export function relativeTime(iso: string | null): string {
  if (!iso) return '';
  const seconds = Math.round((Date.now() - Date.parse(iso)) / 1000);
  if (!Number.isFinite(seconds)) return '';
  if (seconds < 45) return 'just now';
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.round(hours / 24);
  if (days < 7) return `${days} d ago`;
  return new Date(iso).toLocaleDateString();
}

/** A time element whose words are kept fresh by the minute tick (see startClocks). */
export function timeEl(iso: string | null, className?: string): HTMLTimeElement {
  const el = h('time', { class: className, datetime: iso, title: iso ? new Date(iso).toLocaleString() : undefined }, relativeTime(iso));
  el.dataset['relative'] = '1';
  return el;
}

/** A claim's time left until its lease lapses, unless its holder renews it. */
export function leaseLeft(iso: string): string {
  const seconds = Math.round((Date.parse(iso) - Date.now()) / 1000);
  if (!Number.isFinite(seconds)) return '';
  if (seconds <= 0) return 'lease lapsing';
  if (seconds < 90) return `lease ${seconds} s left`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 90) return `lease ${minutes} min left`;
  return `lease ${Math.round(minutes / 60)} h left`;
}

export function leaseEl(iso: string): HTMLTimeElement {
  const el = h('time', { class: 'lease', datetime: iso, title: `lapses at ${new Date(iso).toLocaleString()} unless renewed` }, leaseLeft(iso));
  el.dataset['lease'] = '1';
  return el;
}

/** Relative times ("3 min ago") and a claim's time left move on by themselves. */
export function startClocks(): void {
  setInterval(() => {
    for (const el of document.querySelectorAll<HTMLTimeElement>('time[data-relative]')) el.textContent = relativeTime(el.getAttribute('datetime'));
  }, 30_000);
  setInterval(() => {
    for (const el of document.querySelectorAll<HTMLTimeElement>('time[data-lease]')) el.textContent = leaseLeft(el.getAttribute('datetime') ?? '');
  }, 5_000);
}

export function statusLabel(status: string): string {
  return status.charAt(0).toUpperCase() + status.slice(1);
}

export function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

export const ids = (list: readonly number[]): string => list.map((id) => `#${id}`).join(', ');

/** A link that leaves the board (an https URL checked by pr-links.ts): its words are the URL as text; no referrer, no opener. */
export function externalLink(href: string): HTMLAnchorElement {
  return h('a', { class: 'pr-link', href, rel: 'noopener noreferrer', target: '_blank', referrerpolicy: 'no-referrer' }, href);
}

/** Control characters and bidirectional overrides, which would hide or reorder text in a review (Trojan Source). */
const HIDDEN_CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** Agent text for review with each such character shown as [U+XXXX] instead of acting on the text around it. */
export function shownControls(text: string): string {
  return text.replace(HIDDEN_CONTROLS, (ch) => `[U+${ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}]`);
}
