// The live board page: signs in, reads /view/state and follows /events; board text only ever becomes text nodes.

const STATUSES = ['open', 'claimed', 'submitted', 'done', 'cancelled'];
const REFRESH_DEBOUNCE_MS = 100;
const RECONNECT_DELAYS_MS = [1000, 2000, 5000, 10000, 20000];
const PRESENCE_REFRESH_MS = 60_000;

const $ = (id) => document.getElementById(id);

const ui = {
  signin: $('signin'),
  form: $('signin-form'),
  token: $('token'),
  signinError: $('signin-error'),
  signinButton: $('signin-button'),
  app: $('app'),
  boardName: $('board-name'),
  boardMode: $('board-mode'),
  conn: $('conn'),
  connLabel: $('conn-label'),
  meAvatar: $('me-avatar'),
  meName: $('me-name'),
  meRole: $('me-role'),
  signout: $('signout'),
  columns: $('columns'),
  room: $('room'),
  roomEmpty: $('room-empty'),
  roomCount: $('room-count'),
  members: $('members'),
  membersCount: $('members-count'),
  untrusted: $('untrusted-note'),
  scrim: $('scrim'),
  detail: $('detail'),
  detailId: $('detail-id'),
  detailStatus: $('detail-status'),
  detailClose: $('detail-close'),
  detailBody: $('detail-body'),
};

const view = {
  signedIn: false,
  data: null,
  /** task id → { el, sig } so unchanged cards are kept, and changed ones can be marked. */
  cards: new Map(),
  firstRender: true,
  openTaskId: null,
  // The open task's newest page (as last loaded) and the older pages loaded on request, per list.
  detailLatest: null,
  older: null,
  openedFrom: null,
  events: null,
  reconnectTimer: null,
  reconnectAttempt: 0,
  stateTimer: null,
  stateLoading: false,
  stateAgain: false,
  detailTimer: null,
};

// ---------- small DOM helpers (text only) ----------

/** h('div', {class: 'x', title: 'y'}, 'text', child): strings become text nodes, never markup. */
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [name, value] of Object.entries(attrs)) {
      if (value === undefined || value === null || value === false) continue;
      if (name === 'class') el.className = value;
      else if (name === 'text') el.textContent = String(value);
      else el.setAttribute(name, value === true ? '' : String(value));
    }
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

function hueOf(name) {
  let hash = 0;
  for (const ch of String(name)) hash = (hash * 31 + ch.codePointAt(0)) >>> 0;
  return `hue-${hash % 8}`;
}

function initials(name) {
  const parts = String(name).split(/[\s._-]+/).filter(Boolean);
  const letters = parts.length > 1 ? parts[0][0] + parts[1][0] : String(name).slice(0, 2);
  return letters.toUpperCase();
}

function avatar(name, small) {
  return h('span', { class: `avatar ${hueOf(name)}${small ? ' small' : ''}`, 'aria-hidden': 'true' }, initials(name));
}

function relativeTime(iso) {
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

/** A time element whose words are kept fresh by the minute tick. */
function timeEl(iso, className) {
  const el = h('time', { class: className, datetime: iso, title: iso ? new Date(iso).toLocaleString() : undefined }, relativeTime(iso));
  el.dataset.relative = '1';
  return el;
}

/** A claim's time left until its lease lapses, unless its holder renews it. */
function leaseLeft(iso) {
  const seconds = Math.round((Date.parse(iso) - Date.now()) / 1000);
  if (!Number.isFinite(seconds)) return '';
  if (seconds <= 0) return 'lease lapsing';
  if (seconds < 90) return `lease ${seconds} s left`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 90) return `lease ${minutes} min left`;
  return `lease ${Math.round(minutes / 60)} h left`;
}

/** A lease element whose words are kept fresh by the lease tick. */
function leaseEl(iso) {
  const el = h('time', { class: 'lease', datetime: iso, title: `lapses at ${new Date(iso).toLocaleString()} unless renewed` }, leaseLeft(iso));
  el.dataset.lease = '1';
  return el;
}

function statusLabel(status) {
  return status.charAt(0).toUpperCase() + status.slice(1);
}

function plural(n, one, many) {
  return `${n} ${n === 1 ? one : many}`;
}

// ---------- talking to the board ----------

async function request(method, path, body) {
  const init = { method, credentials: 'same-origin', headers: { accept: 'application/json' }, cache: 'no-store' };
  if (body !== undefined) {
    init.headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  let json = null;
  try {
    json = await response.json();
  } catch {
    // not JSON (an empty body, a proxy's page): the status says enough
  }
  return { status: response.status, body: json };
}

// ---------- signing in and out ----------

function showSignIn(message) {
  view.signedIn = false;
  view.data = null;
  view.reconnectAttempt = 0;
  disconnect();
  closeDetail();
  clearBoard();
  ui.app.hidden = true;
  ui.signin.hidden = false;
  document.title = 'Roundtable';
  showSignInError(message);
  ui.token.focus();
}

function showSignInError(message) {
  ui.signinError.textContent = message || '';
  ui.signinError.hidden = !message;
}

function clearBoard() {
  for (const column of ui.columns.querySelectorAll('.cards')) column.replaceChildren();
  view.cards.clear();
  view.firstRender = true;
  ui.room.replaceChildren();
  ui.members.replaceChildren();
  ui.boardName.textContent = '';
  ui.meName.textContent = '';
}

ui.form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const token = ui.token.value.trim();
  if (!token) return;
  ui.signinButton.disabled = true;
  showSignInError('');
  try {
    const answer = await request('POST', '/session', { token });
    if (answer.status === 200) {
      ui.token.value = '';
      await loadState({ initial: true });
      return;
    }
    if (answer.status === 401) showSignInError('That token is not valid for this board.');
    else if (answer.status === 429) showSignInError(`Too many attempts. Try again in ${answer.body?.error?.retry_after_s ?? 60} s.`);
    else if (answer.status === 403) showSignInError('This address is not allowed to sign in; the board owner can add it to ROUNDTABLE_ALLOWED_HOSTS.');
    else showSignInError('Signing in failed. Try again.');
    ui.token.select();
  } catch {
    showSignInError('The board cannot be reached.');
  } finally {
    ui.signinButton.disabled = false;
  }
});

ui.signout.addEventListener('click', async () => {
  disconnect();
  try {
    await request('POST', '/session/logout');
  } catch {
    // signed out locally either way
  }
  showSignIn('');
});

// ---------- the board's state ----------

/** Fetches /view/state; 401 shows the sign-in form. Calls during a fetch are folded into one more fetch. */
async function loadState(options = {}) {
  if (view.stateLoading) {
    view.stateAgain = true;
    return;
  }
  view.stateLoading = true;
  try {
    const answer = await request('GET', '/view/state');
    if (answer.status === 401) {
      showSignIn(view.signedIn ? 'Your session ended. Sign in again.' : '');
      return;
    }
    if (answer.status !== 200 || !answer.body) throw new Error(`state: ${answer.status}`);
    const first = !view.signedIn;
    view.signedIn = true;
    view.data = answer.body;
    ui.signin.hidden = true;
    ui.app.hidden = false;
    render(answer.body);
    if (first || options.initial) connect();
  } catch {
    if (view.signedIn) setConnection('offline', 'Offline — retrying');
    else if (options.boot) showSignIn('');
  } finally {
    view.stateLoading = false;
    if (view.stateAgain) {
      view.stateAgain = false;
      scheduleState();
    }
  }
}

function scheduleState() {
  if (view.stateTimer) return;
  view.stateTimer = setTimeout(() => {
    view.stateTimer = null;
    void loadState();
  }, REFRESH_DEBOUNCE_MS);
}

function render(data) {
  document.title = `${data.board} · Roundtable`;
  ui.boardName.textContent = data.board;
  ui.boardMode.textContent = data.mode === 'peer' ? 'peer mode' : 'role mode';
  ui.meAvatar.className = `avatar ${hueOf(data.me.name)}`;
  ui.meAvatar.textContent = initials(data.me.name);
  ui.meName.textContent = data.me.name;
  ui.meRole.textContent = data.me.role;
  ui.untrusted.textContent = `Read-only view. Board text is written by agents and shown as plain text, never run.`;
  ui.untrusted.title = data.untrusted_content_warning;
  renderColumns(data.tasks, data.counts || {});
  renderMembers(data.members);
  renderRoom(data.room, data.me.name);
  view.firstRender = false;
}

function cardSignature(task) {
  return JSON.stringify([task.title, task.status, task.assignee, task.required_skills, task.updated_at, task.lease_expires_at, task.priority, task.blocked_by, task.blocked_by_cancelled]);
}

const ids = (list) => list.map((id) => `#${id}`).join(', ');

/** Priority (when not normal) and, for an open task, what it waits on; a cancelled blocker is called out. */
function planChips(task) {
  const chips = [];
  if (task.priority && task.priority !== 'normal') chips.push(h('span', { class: `chip priority priority-${task.priority}`, title: 'priority' }, task.priority));
  const blockers = task.blocked_by || [];
  if (blockers.length) chips.push(h('span', { class: 'chip blocked', title: 'cannot be claimed until these are done' }, `blocked by ${ids(blockers)}`));
  const cancelled = task.blocked_by_cancelled || [];
  if (cancelled.length) chips.push(h('span', { class: 'chip stranded', title: 'a blocker was cancelled: the leader must edit its dependencies' }, `cancelled blocker ${ids(cancelled)}`));
  return chips;
}

function buildCard(task) {
  const meta = h('span', { class: 'card-meta' });
  meta.append(
    task.assignee
      ? h('span', { class: 'who' }, avatar(task.assignee, true), task.assignee)
      : h('span', { class: 'who nobody' }, task.status === 'open' ? 'unclaimed' : 'nobody'),
  );
  for (const skill of task.required_skills || []) meta.append(h('span', { class: 'chip' }, skill));
  meta.append(...planChips(task));
  if (task.status === 'claimed' && task.lease_expires_at) meta.append(leaseEl(task.lease_expires_at));
  const card = h(
    'button',
    { class: 'card', type: 'button', 'data-status': task.status, 'data-task-id': task.id, 'data-blocked': (task.blocked_by || []).length ? 'true' : undefined, 'aria-label': `Task ${task.id}: ${task.title}` },
    h('span', { class: 'card-top' }, h('span', { class: 'task-id' }, `#${task.id}`), timeEl(task.updated_at, 'card-time')),
    h('span', { class: 'card-title' }, task.title),
    meta,
  );
  card.addEventListener('click', () => openDetail(task.id, card));
  return card;
}

function renderColumns(tasks, counts) {
  const byStatus = Object.fromEntries(STATUSES.map((s) => [s, []]));
  for (const task of tasks) byStatus[task.status]?.push(task);
  const seen = new Set();
  for (const status of STATUSES) {
    const column = ui.columns.querySelector(`.column[data-status="${status}"]`);
    const list = column.querySelector('.cards');
    // The task that moved last is on top.
    const sorted = byStatus[status].sort((a, b) => (a.updated_at < b.updated_at ? 1 : a.updated_at > b.updated_at ? -1 : b.id - a.id));
    const items = sorted.map((task) => {
      seen.add(task.id);
      const sig = cardSignature(task);
      let entry = view.cards.get(task.id);
      if (!entry || entry.sig !== sig) {
        const el = buildCard(task);
        if (!view.firstRender) el.classList.add('changed');
        if (task.id === view.openTaskId) el.classList.add('selected');
        entry = { el: h('li', null, el), card: el, sig };
        view.cards.set(task.id, entry);
      }
      return entry.el;
    });
    list.replaceChildren(...items);
    column.querySelector('.empty').hidden = items.length > 0;
    const total = counts[status] ?? items.length;
    column.querySelector('.column-count').textContent = total > items.length ? `${items.length} of ${total}` : String(total);
  }
  for (const id of view.cards.keys()) if (!seen.has(id)) view.cards.delete(id);
}

function renderMembers(members) {
  const order = { active: 0, idle: 1, gone: 2 };
  const sorted = [...members].sort((a, b) => order[a.state] - order[b.state] || a.name.localeCompare(b.name));
  const active = members.filter((m) => m.state === 'active').length;
  ui.membersCount.textContent = `${active} of ${members.length} active`;
  ui.members.replaceChildren(
    ...sorted.map((m) => {
      const line = h(
        'span',
        { class: 'member-line' },
        h('span', { class: 'member-name' }, m.name),
        h('span', { class: 'member-role' }, m.role),
        m.waiting ? h('span', { class: 'chip waiting', title: 'waiting for activity' }, 'waiting') : null,
        h('span', { class: `member-state ${m.state}`, title: m.last_seen ? `last seen ${new Date(m.last_seen).toLocaleString()}` : 'never seen' }, m.state),
      );
      const main = h('div', { class: 'member-main' }, line);
      if (m.skills.length) main.append(h('span', { class: 'card-meta' }, m.skills.map((s) => h('span', { class: 'chip' }, s))));
      for (const held of m.holding) {
        const link = h('button', { class: 'holding-link', type: 'button', title: held.title }, h('span', { class: 'task-id' }, `#${held.id}`), held.title);
        link.addEventListener('click', () => openDetail(held.id, link));
        main.append(h('div', { class: 'holding' }, 'holds ', link, held.lease_expires_at ? leaseEl(held.lease_expires_at) : null));
        // The paths this claim reserves (reserve_paths), beside it; patterns are agents' text, so textContent only.
        if (held.reservations?.length) {
          main.append(
            h(
              'div',
              { class: 'holding-paths', title: 'paths reserved by this claim' },
              held.reservations.map((r) =>
                h('span', { class: `chip path${r.exclusive ? ' exclusive' : ''}`, title: `${r.exclusive ? 'exclusive' : 'shared'}${r.scope ? ` in ${r.scope}` : ''}` }, r.pattern),
              ),
            ),
          );
        }
      }
      return h(
        'li',
        { class: 'member', 'data-state': m.state },
        h('span', { class: 'member-avatar' }, avatar(m.name), h('span', { class: `presence ${m.state}`, title: m.state })),
        main,
      );
    }),
  );
}

function renderRoom(messages, me) {
  // The server sends the newest first; a chat reads oldest first, newest at the bottom.
  const ordered = [...messages].reverse();
  const stick = ui.room.scrollHeight - ui.room.scrollTop - ui.room.clientHeight < 40;
  ui.room.replaceChildren(
    ...ordered.map((m) => {
      const direct = m.to !== 'all';
      const to = direct ? m.to.join(', ') : 'everyone';
      return h(
        'li',
        { class: 'msg', 'data-message-id': m.id },
        avatar(m.from),
        h(
          'div',
          { class: 'msg-main' },
          h(
            'div',
            { class: 'msg-head' },
            h('span', { class: 'msg-from' }, m.from === me ? `${m.from} (you)` : m.from),
            h('span', { class: 'msg-to' }, `→ ${to}`),
            direct ? h('span', { class: 'chip private' }, 'direct') : null,
            timeEl(m.created_at, 'msg-time'),
          ),
          h('div', { class: 'msg-text' }, m.text),
        ),
      );
    }),
  );
  ui.roomEmpty.hidden = messages.length > 0;
  ui.roomCount.textContent = messages.length ? `latest ${plural(messages.length, 'message', 'messages')}` : '';
  if (stick || view.firstRender) ui.room.scrollTop = ui.room.scrollHeight;
}

// ---------- one task in full ----------

function emptyOlder() {
  return { messages: { rows: [], loaded: false, cursor: null }, history: { rows: [], loaded: false, cursor: null } };
}

function openDetail(taskId, from) {
  view.openTaskId = taskId;
  view.detailLatest = null;
  view.older = emptyOlder();
  view.openedFrom = from || null;
  for (const entry of view.cards.values()) entry.card.classList.toggle('selected', entry.card.dataset.taskId === String(taskId));
  ui.detailId.textContent = `#${taskId}`;
  ui.detailStatus.textContent = '';
  ui.detailStatus.removeAttribute('data-status');
  ui.detailBody.replaceChildren(h('p', { class: 'detail-missing' }, 'Loading…'));
  ui.detail.hidden = false;
  ui.scrim.hidden = false;
  ui.detailClose.focus();
  void loadDetail();
}

function closeDetail() {
  if (ui.detail.hidden) return;
  ui.detail.hidden = true;
  ui.scrim.hidden = true;
  view.openTaskId = null;
  for (const entry of view.cards.values()) entry.card.classList.remove('selected');
  if (view.openedFrom && document.contains(view.openedFrom)) view.openedFrom.focus();
  view.openedFrom = null;
}

ui.detailClose.addEventListener('click', closeDetail);
ui.scrim.addEventListener('click', closeDetail);
document.addEventListener('keydown', (event) => {
  if (event.key === 'Escape') closeDetail();
});

function scheduleDetail() {
  if (view.detailTimer) return;
  view.detailTimer = setTimeout(() => {
    view.detailTimer = null;
    void loadDetail();
  }, REFRESH_DEBOUNCE_MS);
}

async function loadDetail() {
  const id = view.openTaskId;
  if (id === null) return;
  let answer;
  try {
    answer = await request('GET', `/view/tasks/${encodeURIComponent(id)}`);
  } catch {
    return;
  }
  if (view.openTaskId !== id) return;
  if (answer.status === 401) return showSignIn('Your session ended. Sign in again.');
  if (answer.status === 404) {
    ui.detailBody.replaceChildren(h('p', { class: 'detail-missing' }, 'This task does not exist.'));
    return;
  }
  if (answer.status !== 200 || !answer.body) return;
  view.detailLatest = answer.body;
  rerenderDetail();
}

function rerenderDetail() {
  if (!view.detailLatest) return;
  const scroll = ui.detailBody.scrollTop;
  renderDetail(view.detailLatest);
  ui.detailBody.scrollTop = scroll;
}

/** Loads the next older page of a task's messages or history (get_task pages them, newest first). */
async function loadOlder(list, cursor) {
  const id = view.openTaskId;
  let answer;
  try {
    answer = await request('GET', `/view/tasks/${encodeURIComponent(id)}?${list}_cursor=${encodeURIComponent(cursor)}`);
  } catch {
    return;
  }
  if (view.openTaskId !== id || answer.status !== 200 || !answer.body) return;
  const older = view.older[list];
  older.rows.push(...answer.body[list]);
  older.loaded = true;
  older.cursor = answer.body[`${list}_next_cursor`];
  rerenderDetail();
}

/** The newest page and the older pages loaded so far, oldest first, and the button for the page before them. */
function pagedList(detail, list, label) {
  const older = view.older[list];
  const byId = new Map();
  for (const row of [...detail[list], ...older.rows]) byId.set(row.id, row);
  const rows = [...byId.values()].sort((a, b) => a.id - b.id);
  const cursor = older.loaded ? older.cursor : detail[`${list}_next_cursor`];
  if (!cursor) return { rows, more: null };
  const more = h('button', { type: 'button', class: 'load-older', 'data-list': list }, `Show earlier ${label} (${detail[`${list}_total`] - rows.length} more)`);
  more.addEventListener('click', () => void loadOlder(list, cursor));
  return { rows, more };
}

function section(title, ...content) {
  return h('section', { class: 'section' }, h('h3', null, title), ...content);
}

function renderDetail(detail) {
  const { task, reviews } = detail;
  const pagedMessages = pagedList(detail, 'messages', 'messages');
  const pagedHistory = pagedList(detail, 'history', 'history');
  const messages = pagedMessages.rows;
  const history = pagedHistory.rows;
  const dependents = detail.dependents || [];
  ui.detailId.textContent = `#${task.id}`;
  ui.detailStatus.textContent = statusLabel(task.status);
  ui.detailStatus.dataset.status = task.status;

  const skills = task.required_skills.length ? task.required_skills.map((s) => h('span', { class: 'chip' }, s)) : [h('span', { class: 'empty' }, 'none')];
  const facts = h(
    'dl',
    { class: 'facts' },
    h('dt', null, 'Assignee'),
    h('dd', null, task.assignee ? [avatar(task.assignee, true), task.assignee] : h('span', { class: 'empty' }, 'nobody')),
    h('dt', null, 'Created by'),
    h('dd', null, avatar(task.created_by, true), task.created_by),
    h('dt', null, 'Skills'),
    h('dd', null, skills),
    h('dt', null, 'Priority'),
    h('dd', null, h('span', { class: `chip priority priority-${task.priority}` }, task.priority)),
    h('dt', null, 'Depends on'),
    h('dd', { class: 'depends-on' }, (task.depends_on || []).length ? [ids(task.depends_on), ...planChips({ blocked_by: task.blocked_by, blocked_by_cancelled: task.blocked_by_cancelled })] : h('span', { class: 'empty' }, 'nothing')),
    h('dt', null, 'Dependents'),
    h('dd', { class: 'dependents' }, dependents.length ? ids(dependents) : h('span', { class: 'empty' }, 'none')),
    h('dt', null, 'Created'),
    h('dd', null, timeEl(task.created_at)),
    h('dt', null, 'Updated'),
    h('dd', null, timeEl(task.updated_at)),
  );

  const parts = [h('h2', { id: 'detail-title', class: 'detail-title' }, task.title), facts];
  parts.push(section('Description', task.description ? h('div', { class: 'prose' }, task.description) : h('p', { class: 'empty' }, 'No description.')));
  if (task.result !== null && task.result !== undefined) parts.push(section('Result', h('div', { class: 'prose boxed' }, task.result)));

  if (reviews.length) {
    parts.push(
      section(
        'Reviews',
        h(
          'div',
          { class: 'thread' },
          reviews.map((r) =>
            h(
              'div',
              { class: 'entry' },
              h(
                'div',
                { class: 'entry-head' },
                h('span', { class: `pill verdict-${r.verdict}` }, r.verdict === 'approve' ? 'Approved' : 'Rejected'),
                h('span', null, 'by ', h('strong', null, r.reviewer)),
                timeEl(r.created_at, 'when'),
              ),
              r.note ? h('div', { class: 'prose' }, r.note) : null,
            ),
          ),
        ),
      ),
    );
  }

  parts.push(
    section(
      `Messages (${detail.messages_total})`,
      pagedMessages.more,
      messages.length
        ? h(
            'div',
            { class: 'thread' },
            messages.map((m) =>
              h(
                'div',
                { class: 'entry' },
                h('div', { class: 'entry-head' }, avatar(m.author, true), h('strong', null, m.author), h('span', { class: 'chip' }, m.kind.replace('_', ' ')), timeEl(m.created_at, 'when')),
                h('div', { class: 'prose boxed' }, m.text),
              ),
            ),
          )
        : h('p', { class: 'empty' }, 'No messages.'),
    ),
  );

  parts.push(
    section(
      'History',
      pagedHistory.more,
      h(
        'ol',
        { class: 'timeline' },
        history.map((a) =>
          h(
            'li',
            { class: 'step', 'data-status': a.to_status || undefined },
            h(
              'div',
              { class: 'step-line' },
              h('strong', null, a.agent || 'someone'),
              h('span', null, a.action.replace(/_/g, ' ')),
              a.from_status && a.to_status && a.from_status !== a.to_status ? h('span', { class: 'task-id' }, `${a.from_status} → ${a.to_status}`) : null,
              timeEl(a.created_at, 'when'),
            ),
            a.note ? h('div', { class: 'note' }, a.note) : null,
            a.edit ? editEl(a.edit) : null,
          ),
        ),
      ),
    ),
  );
  ui.detailBody.replaceChildren(...parts);
}

/** An edit's history row: each field it changed with the value it replaced, as text. */
function editEl(edit) {
  const shown = (value) => (value === null ? 'none' : Array.isArray(value) ? (value.length ? value.join(', ') : 'none') : String(value));
  return h(
    'dl',
    { class: 'edit' },
    edit.fields.flatMap((field) => [h('dt', null, `${field.replace(/_/g, ' ')} was`), h('dd', null, shown(edit.old[field]))]),
  );
}

// ---------- live updates ----------

function setConnection(state, label) {
  ui.conn.dataset.state = state;
  ui.connLabel.textContent = label;
}

function connect() {
  disconnect();
  setConnection(view.reconnectAttempt ? 'reconnecting' : 'connecting', view.reconnectAttempt ? 'Reconnecting…' : 'Connecting…');
  const events = new EventSource('/events');
  view.events = events;
  events.addEventListener('ready', () => {
    view.reconnectAttempt = 0;
    setConnection('live', 'Live');
    // Whatever happened while the stream was down: read it now.
    scheduleState();
    if (view.openTaskId !== null) scheduleDetail();
  });
  const onBoardEvent = (event) => {
    scheduleState();
    if (view.openTaskId === null) return;
    try {
      const data = JSON.parse(event.data);
      if (data.task_id === view.openTaskId) scheduleDetail();
    } catch {
      // an event without data only refreshes the state
    }
  };
  events.addEventListener('task', onBoardEvent);
  events.addEventListener('task_message', onBoardEvent);
  events.addEventListener('room', () => scheduleState());
  events.addEventListener('presence', () => scheduleState());
  // The daemon may have missed events (its database listener reconnected): read everything again.
  events.addEventListener('resync', () => {
    scheduleState();
    if (view.openTaskId !== null) scheduleDetail();
  });
  events.addEventListener('error', () => {
    if (view.events !== events) return;
    if (events.readyState === EventSource.CONNECTING) {
      setConnection('reconnecting', 'Reconnecting…');
      return;
    }
    // Closed for good (the server refused it, e.g. the session ended): find out why, then try again later.
    events.close();
    view.events = null;
    scheduleReconnect();
  });
}

function scheduleReconnect() {
  if (view.reconnectTimer || !view.signedIn) return;
  const delay = RECONNECT_DELAYS_MS[Math.min(view.reconnectAttempt, RECONNECT_DELAYS_MS.length - 1)];
  view.reconnectAttempt++;
  setConnection('offline', 'Offline — retrying');
  view.reconnectTimer = setTimeout(async () => {
    view.reconnectTimer = null;
    await loadState();
    if (view.signedIn && !view.events) connect();
  }, delay);
}

function disconnect() {
  if (view.reconnectTimer) clearTimeout(view.reconnectTimer);
  view.reconnectTimer = null;
  if (view.events) view.events.close();
  view.events = null;
}

function reconnectNow() {
  if (!view.signedIn || view.events) return;
  if (view.reconnectTimer) clearTimeout(view.reconnectTimer);
  view.reconnectTimer = null;
  void loadState().then(() => {
    if (view.signedIn && !view.events) connect();
  });
}

window.addEventListener('online', reconnectNow);
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'visible') reconnectNow();
});

// Relative times ("3 min ago") move on by themselves.
setInterval(() => {
  for (const el of document.querySelectorAll('time[data-relative]')) el.textContent = relativeTime(el.getAttribute('datetime'));
}, 30_000);

// A claim's time left counts down between events.
setInterval(() => {
  for (const el of document.querySelectorAll('time[data-lease]')) el.textContent = leaseLeft(el.getAttribute('datetime'));
}, 5_000);

// Presence fades with time alone (active → idle → gone), which no event announces: look again now and then.
setInterval(() => {
  if (view.signedIn && document.visibilityState === 'visible') scheduleState();
}, PRESENCE_REFRESH_MS);

void loadState({ boot: true });
