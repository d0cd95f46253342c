// Opt-in browser notifications for new "Needs me" items while the page is open (issue 36). Permission is asked only
// from a click; the text is fixed words with kinds, ids and counts, never board text (a title could say anything).
// The choice lives in this page only (the page keeps nothing in storage): a reload starts with them off.
import { byId } from './dom.js';

let chosen = false;

function supported(): boolean {
  return typeof Notification !== 'undefined';
}

/** On: the person asked for them here, and the browser grants them. */
export function notificationsOn(): boolean {
  return chosen && supported() && Notification.permission === 'granted';
}

export function updateNotifyButton(): void {
  const button = byId<HTMLButtonElement>('needs-notify');
  button.hidden = !supported() || Notification.permission === 'denied';
  const on = notificationsOn();
  button.textContent = on ? 'Notifications on' : 'Notify me';
  button.setAttribute('aria-pressed', String(on));
}

export function watchNotifyButton(): void {
  const button = byId<HTMLButtonElement>('needs-notify');
  button.addEventListener('click', async () => {
    if (notificationsOn()) chosen = false;
    else chosen = (Notification.permission === 'granted' ? 'granted' : await Notification.requestPermission()) === 'granted';
    updateNotifyButton();
  });
  updateNotifyButton();
}

/** One notification for what arrived since the last read, e.g. "2 new: review #12, message #40". */
export function notifyNew(labels: readonly string[]): void {
  if (labels.length === 0 || !notificationsOn()) return;
  const shown = labels.slice(0, 5).join(', ') + (labels.length > 5 ? ', …' : '');
  new Notification('Roundtable: needs you', { body: `${labels.length} new: ${shown}`, tag: 'roundtable-needs' });
}
