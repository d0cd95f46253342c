// The room: the newest messages this member may see, oldest at the top; and for an owner, the form that posts to
// everyone or to one member.
import { LIMITS } from '../../shared/src/limits.js';
import { avatar, byId, h, plural, timeEl } from './dom.js';
import { perform } from './feedback.js';
import type { BoardState, RoomMessage } from './types.js';

export function renderRoom(messages: readonly RoomMessage[], me: string, firstRender: boolean): void {
  const room = byId('room');
  // The server sends the newest first; a chat reads oldest first, newest at the bottom.
  const ordered = [...messages].reverse();
  const stick = room.scrollHeight - room.scrollTop - room.clientHeight < 40;
  room.replaceChildren(
    ...ordered.map((m) => {
      const direct = m.to !== 'all';
      const to = m.to === 'all' ? 'everyone' : m.to.join(', ');
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
  byId('room-empty').hidden = messages.length > 0;
  byId('room-count').textContent = messages.length ? `latest ${plural(messages.length, 'message', 'messages')}` : '';
  if (stick || firstRender) room.scrollTop = room.scrollHeight;
}

/** The recipients an owner may pick: everyone, or one member other than itself. */
export function updateRoomForm(data: BoardState): void {
  const form = byId<HTMLFormElement>('room-form');
  form.hidden = !data.me.acts;
  if (!data.me.acts) return;
  const select = byId<HTMLSelectElement>('room-to');
  const chosen = select.value;
  const names = data.members.map((m) => m.name).filter((n) => n !== data.me.name).sort();
  const wanted = ['all', ...names];
  if (select.options.length !== wanted.length || wanted.some((v, i) => select.options[i]?.value !== v)) {
    select.replaceChildren(...wanted.map((name) => h('option', { value: name }, name === 'all' ? 'Everyone' : name)));
  }
  select.value = wanted.includes(chosen) ? chosen : 'all';
}

export function watchRoomForm(): void {
  const form = byId<HTMLFormElement>('room-form');
  const text = byId<HTMLTextAreaElement>('room-text');
  text.maxLength = LIMITS.message;
  // As in chat apps: Enter sends, Shift+Enter adds a line. Not while an input method is composing a word (its Enter
  // picks the word), and not with another modifier held.
  text.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter' || event.shiftKey || event.isComposing || event.altKey || event.ctrlKey || event.metaKey) return;
    event.preventDefault();
    // requestSubmit, not submit: the form's checks (a message is required) run, and its submit handler posts.
    form.requestSubmit();
  });
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const to = byId<HTMLSelectElement>('room-to').value;
    const posted = await perform<{ message: { id: number } }>({
      form,
      tool: 'post',
      args: { to, text: text.value },
      done: (body) => `Message ${body.message.id} sent to ${to === 'all' ? 'everyone' : to}.`,
      errorEl: byId('room-error'),
    });
    if (posted) text.value = '';
  });
}
