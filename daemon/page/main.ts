// The live board page: signs in, reads /view/state and follows /events, and for an owner offers the board's actions.
// At / someone holding several projects sees the list of them instead; a project's board is at /p/SLUG/ (base.ts).
// Board text only ever becomes text nodes (dom.ts h); the script and styles are files, as the CSP requires.
import { activityChanged, watchActivity } from './activity-view.js';
import { clearApps, refreshApps } from './apps-view.js';
import { watchAudit } from './audit-view.js';
import { boardPath, PROJECT } from './base.js';
import { clearCards, markSelected, renderColumns } from './board-view.js';
import { watchCost } from './cost-view.js';
import { closeDetail, loadDetail, openDetail, rerenderDetail } from './detail-view.js';
import { byId, hueOf, initials, startClocks } from './dom.js';
import { currentFilter, updateFilterChoices, watchFilter } from './filter.js';
import { connect, disconnect, reconnectNow, resetReconnects, setConnection, useStateLoader } from './live.js';
import { renderMembers } from './members-view.js';
import { clearNeeds, refreshNeeds, titleWithCount } from './needs-view.js';
import { watchNotifyButton } from './notify.js';
import { updatePhoneControls, watchPhoneControls } from './phone.js';
import { watchProgress } from './progress-view.js';
import { request, setCsrfToken } from './net.js';
import { hideOverview, readOverview, renderSwitcher, showOverview, watchSwitcher } from './projects-view.js';
import { renderRoom, updateRoomForm, watchRoomForm } from './room-view.js';
import { searchAsTyped } from './search-view.js';
import { sessionEndedMessage } from './session-end.js';
import { showSignInForm, watchSignIn } from './signin.js';
import { hooks, view } from './state.js';
import { openTaskForm, setUpTaskForm } from './task-form.js';
import type { BoardState } from './types.js';

const REFRESH_DEBOUNCE_MS = 100;
/** The header's views, each a dialog with its own Escape. */
const DIALOGS = ['cost-dialog', 'progress-dialog', 'activity-dialog', 'audit-dialog'];
const PRESENCE_REFRESH_MS = 60_000;

let stateTimer: ReturnType<typeof setTimeout> | null = null;
let stateLoading = false;
let stateAgain = false;
let detailTimer: ReturnType<typeof setTimeout> | null = null;
/** Whether the last state read let this session act, so the task panel is redrawn only when that changes. */
let actedBefore = false;
/** The list of projects is on screen (at /, for someone holding several) in place of a board. */
let overviewShown = false;

function signedOut(message: string): void {
  view.signedIn = false;
  view.data = null;
  resetReconnects();
  disconnect();
  closeDetail();
  const dialog = byId<HTMLDialogElement>('task-dialog');
  if (dialog.open) dialog.close();
  for (const id of DIALOGS) {
    const open = byId<HTMLDialogElement>(id);
    if (open.open) open.close();
  }
  clearCards();
  byId('room').replaceChildren();
  byId('members').replaceChildren();
  clearApps();
  byId('board-name').textContent = '';
  byId('me-name').textContent = '';
  clearNeeds();
  view.firstRender = true;
  overviewShown = false;
  hideOverview();
  renderSwitcher(null);
  showSignInForm(message);
}

/**
 * After the boot or a sign-in: at / someone holding several projects gets the list of them (the unprefixed board reads
 * serve one home project, which they do not have); anyone else, and every project's page, gets the board.
 */
async function enter(options: { boot?: boolean }): Promise<void> {
  if (PROJECT === null) {
    try {
      const answer = await readOverview();
      if (answer.status === 401) {
        signedOut('');
        return;
      }
      if (answer.status === 200 && answer.body && answer.body.projects.length > 1) {
        overviewShown = true;
        showOverview(answer.body);
        return;
      }
    } catch {
      // the board's own read below says whether it can be reached
    }
  }
  await loadState(options.boot ? { boot: true } : { initial: true });
}

/** The header's switcher lists the principal's projects; read once per sign-in (the catalog rarely changes). */
async function loadSwitcher(): Promise<void> {
  try {
    const answer = await readOverview();
    renderSwitcher(answer.status === 200 ? answer.body : null);
  } catch {
    renderSwitcher(null);
  }
}

async function refreshOverview(): Promise<void> {
  const answer = await readOverview().catch(() => null);
  if (!overviewShown || !answer) return;
  if (answer.status === 401) signedOut(sessionEndedMessage(answer.body));
  else if (answer.status === 200 && answer.body) showOverview(answer.body);
}

/** Fetches /view/state; 401 shows the sign-in form. Calls during a fetch are folded into one more fetch. */
async function loadState(options: { initial?: boolean; boot?: boolean } = {}): Promise<void> {
  if (stateLoading) {
    stateAgain = true;
    return;
  }
  stateLoading = true;
  try {
    const answer = await request<BoardState>('GET', boardPath('/view/state'));
    if (answer.status === 401) {
      signedOut(view.signedIn ? sessionEndedMessage(answer.body) : '');
      return;
    }
    if (answer.status === 403 && PROJECT !== null) {
      // Signed in, but with no role in the project this address names.
      signedOut(`This sign-in holds no role in the project "${PROJECT}". The board's first page, /, lists your projects; or sign in with another token.`);
      return;
    }
    if (answer.status !== 200 || !answer.body) throw new Error(`state: ${answer.status}`);
    const first = !view.signedIn;
    view.signedIn = true;
    view.data = answer.body;
    setCsrfToken(answer.body.csrf_token);
    byId('signin').hidden = true;
    byId('app').hidden = false;
    render(answer.body);
    void refreshApps(answer.body.me);
    void refreshNeeds();
    if (first || options.initial) {
      connect();
      void loadSwitcher();
    }
  } catch {
    if (view.signedIn) setConnection('offline', 'Offline — retrying');
    else if (options.boot) showSignInForm('');
  } finally {
    stateLoading = false;
    if (stateAgain) {
      stateAgain = false;
      scheduleState();
    }
  }
}

function scheduleState(): void {
  if (stateTimer) return;
  stateTimer = setTimeout(() => {
    stateTimer = null;
    void loadState();
  }, REFRESH_DEBOUNCE_MS);
}

function scheduleDetail(): void {
  if (detailTimer || view.openTaskId === null) return;
  detailTimer = setTimeout(() => {
    detailTimer = null;
    void loadDetail();
  }, REFRESH_DEBOUNCE_MS);
}

function render(data: BoardState): void {
  document.title = titleWithCount(data.board);
  byId('board-name').textContent = data.board;
  byId('board-mode').textContent = data.mode === 'peer' ? 'peer mode' : 'role mode';
  const avatarEl = byId('me-avatar');
  avatarEl.className = `avatar ${hueOf(data.me.name)}`;
  avatarEl.textContent = initials(data.me.name);
  byId('me-name').textContent = data.me.name;
  byId('me-role').textContent = data.me.role;
  // Controls only for a session that may act (an owner's); an observer's page has none.
  byId('new-task').hidden = !data.me.acts;
  // The audit log is the owners' (the endpoint refuses anyone else).
  byId('audit-open').hidden = data.me.role !== 'owner';
  const note = byId('untrusted-note');
  note.textContent = data.me.acts
    ? 'You act as an owner: every change goes through the board\'s rules and its audit log. Board text is written by agents and shown as plain text, never run.'
    : // Issue 31: a leader's token on the page showed no way to act; the owner's token is what lets a person act.
      'Read-only view: only an owner can act here. Sign in with the owner\'s token that `npx roundtable init` printed first, or make one on the board\'s machine: `npx roundtable agents add NAME --role owner` prints it. Board text is written by agents and shown as plain text, never run.';
  note.title = data.untrusted_content_warning;
  updateFilterChoices(data);
  renderColumns(data, currentFilter());
  updatePhoneControls(currentFilter());
  renderMembers(data.members);
  // The form first: it takes room from the messages, which then scroll to the newest.
  updateRoomForm(data);
  renderRoom(data.room, data.me.name, view.firstRender);
  // The panel's controls follow the role too (a reload of agents.json may have changed it).
  if (view.detailLatest && data.me.acts !== actedBefore) rerenderDetail();
  actedBefore = data.me.acts;
  if (view.firstRender) openLinkedTask();
  view.firstRender = false;
}

/** A link from a webhook (issue 26), `/#task-ID`: that task's panel opens once the board is shown. */
function openLinkedTask(): void {
  const match = /^#task-(\d{1,15})$/.exec(location.hash);
  if (match) hooks.openDetail(Number(match[1]), null);
}

hooks.refreshState = scheduleState;
hooks.refreshDetail = scheduleDetail;
hooks.signedOut = signedOut;
hooks.openDetail = (taskId, from) => {
  openDetail(taskId, from);
  markSelected(taskId);
};
hooks.editTask = (taskId, from) => {
  const task = taskId === null ? null : view.detailLatest?.task.id === taskId ? view.detailLatest.task : null;
  if (taskId !== null && task === null) return;
  openTaskForm(task, from);
};
useStateLoader(() => loadState());

watchSignIn(() => enter({}), () => signedOut(''));
watchSwitcher();
watchFilter(() => {
  const filter = currentFilter();
  if (view.data) renderColumns(view.data, filter);
  updatePhoneControls(filter);
  searchAsTyped(filter.text);
});
watchPhoneControls();
watchNotifyButton();
watchProgress();
watchRoomForm();
setUpTaskForm();
watchCost();
watchActivity();
watchAudit();
hooks.boardChanged = activityChanged;
byId('new-task').addEventListener('click', (event) => hooks.editTask(null, event.currentTarget as HTMLElement));
byId('detail-close').addEventListener('click', () => {
  closeDetail();
  markSelected(null);
});
byId('scrim').addEventListener('click', () => {
  closeDetail();
  markSelected(null);
});
document.addEventListener('keydown', (event) => {
  // A dialog handles its own Escape; otherwise Escape closes the task panel.
  if (event.key === 'Escape' && !['task-dialog', ...DIALOGS].some((id) => byId<HTMLDialogElement>(id).open)) {
    closeDetail();
    markSelected(null);
  }
});
window.addEventListener('online', () => reconnectNow());
window.addEventListener('hashchange', () => {
  if (view.data) openLinkedTask();
});
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'visible') reconnectNow();
});
startClocks();
// Presence fades with time alone (active → idle → gone), which no event announces: look again now and then.
setInterval(() => {
  if (document.visibilityState !== 'visible') return;
  if (view.signedIn) scheduleState();
  else if (overviewShown) void refreshOverview();
}, PRESENCE_REFRESH_MS);

void enter({ boot: true });
