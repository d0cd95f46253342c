// Live updates: the /events stream (ids and states, never board text) tells the page what to read again.
import { boardPath } from './base.js';
import { byId } from './dom.js';
import { hooks, view } from './state.js';

const RECONNECT_DELAYS_MS = [1000, 2000, 5000, 10000, 20000];

let events: EventSource | null = null;
let reconnectTimer: ReturnType<typeof setTimeout> | null = null;
let reconnectAttempt = 0;
/** Reads /view/state now (session.ts); a reconnect reads it first, which also finds out whether the session stands. */
let loadState: () => Promise<void> = async () => undefined;

export function useStateLoader(load: () => Promise<void>): void {
  loadState = load;
}

export function setConnection(state: 'connecting' | 'reconnecting' | 'live' | 'offline', label: string): void {
  byId('conn').dataset['state'] = state;
  byId('conn-label').textContent = label;
}

export function connect(): void {
  disconnect();
  setConnection(reconnectAttempt ? 'reconnecting' : 'connecting', reconnectAttempt ? 'Reconnecting…' : 'Connecting…');
  const stream = new EventSource(boardPath('/events'));
  events = stream;
  stream.addEventListener('ready', () => {
    reconnectAttempt = 0;
    setConnection('live', 'Live');
    // Whatever happened while the stream was down: read it now.
    hooks.refreshState();
    hooks.refreshDetail();
  });
  const onBoardEvent = (event: MessageEvent<string>) => {
    hooks.refreshState();
    hooks.boardChanged();
    if (view.openTaskId === null) return;
    try {
      const data = JSON.parse(event.data) as { task_id?: unknown };
      if (data.task_id === view.openTaskId) hooks.refreshDetail();
    } catch {
      // an event without data only refreshes the state
    }
  };
  stream.addEventListener('task', onBoardEvent);
  stream.addEventListener('task_message', onBoardEvent);
  stream.addEventListener('room', () => {
    hooks.refreshState();
    hooks.boardChanged();
  });
  stream.addEventListener('presence', () => hooks.refreshState());
  // The daemon may have missed events (its database listener reconnected): read everything again.
  stream.addEventListener('resync', () => {
    hooks.refreshState();
    hooks.refreshDetail();
  });
  stream.addEventListener('error', () => {
    if (events !== stream) return;
    if (stream.readyState === EventSource.CONNECTING) {
      setConnection('reconnecting', 'Reconnecting…');
      return;
    }
    // Closed for good (the server refused it, e.g. the session ended): find out why, then try again later.
    stream.close();
    events = null;
    scheduleReconnect();
  });
}

/** After a failure: wait, read the state (which finds out whether the session still stands), then connect again. */
export function scheduleReconnect(): void {
  if (reconnectTimer || !view.signedIn) return;
  const delay = RECONNECT_DELAYS_MS[Math.min(reconnectAttempt, RECONNECT_DELAYS_MS.length - 1)];
  reconnectAttempt++;
  setConnection('offline', 'Offline — retrying');
  reconnectTimer = setTimeout(async () => {
    reconnectTimer = null;
    await loadState();
    if (view.signedIn && !events) connect();
  }, delay);
}

export function disconnect(): void {
  if (reconnectTimer) clearTimeout(reconnectTimer);
  reconnectTimer = null;
  events?.close();
  events = null;
}

export function resetReconnects(): void {
  reconnectAttempt = 0;
}

/** Back online, or the tab shown again: reconnect now rather than at the next retry. */
export function reconnectNow(): void {
  if (!view.signedIn || events) return;
  if (reconnectTimer) clearTimeout(reconnectTimer);
  reconnectTimer = null;
  void loadState().then(() => {
    if (view.signedIn && !events) connect();
  });
}
