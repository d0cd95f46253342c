// Who is on the board: presence, skills, and each claim held with its lease time left and reserved paths.
import { avatar, byId, h, leaseEl } from './dom.js';
import { pathChips } from './board-view.js';
import { hooks } from './state.js';
import type { Member } from './types.js';

const ORDER: Record<Member['state'], number> = { active: 0, idle: 1, gone: 2 };

export function renderMembers(members: readonly Member[]): void {
  const sorted = [...members].sort((a, b) => ORDER[a.state] - ORDER[b.state] || a.name.localeCompare(b.name));
  const active = members.filter((m) => m.state === 'active').length;
  byId('members-count').textContent = `${active} of ${members.length} active`;
  byId('members').replaceChildren(
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
        link.addEventListener('click', () => hooks.openDetail(held.id, link));
        main.append(h('div', { class: 'holding' }, 'holds ', link, held.lease_expires_at ? leaseEl(held.lease_expires_at) : null));
        const paths = pathChips(held.reservations);
        if (paths) {
          paths.className = 'holding-paths';
          main.append(paths);
        }
      }
      return h('li', { class: 'member', 'data-state': m.state }, h('span', { class: 'member-avatar' }, avatar(m.name), h('span', { class: `presence ${m.state}`, title: m.state })), main);
    }),
  );
}
