// Web sessions and what a page hears: expiry, a removed or rotated token ending its sessions, room events filtered.
import { createHash } from 'node:crypto';
import { expect, it } from 'vitest';
import { parseAgentsFile, type AgentDirectory } from '../../daemon/src/agents.js';
import { LocalEventBus } from '../../daemon/src/events.js';
import { eventForPage, LiveStreams } from '../../daemon/src/web/event-stream.js';
import { SessionStore } from '../../daemon/src/web/sessions.js';

const hash = (token: string) => createHash('sha256').update(token).digest('hex');

function directory(tokens: Record<string, string>): AgentDirectory {
  const agents = Object.entries(tokens).map(([name, token]) => ({ name, role: name === 'lead' ? 'leader' : 'observer', skills: [], token_sha256: hash(token) }));
  return parseAgentsFile(JSON.stringify({ agents }), 'agents.json');
}

it('a session stands for its agent until it expires; the id is 256 random bits', () => {
  let now = 0;
  const agents = directory({ lead: 'lead-token-0123456789', eye: 'eye-token-0123456789ab' });
  const sessions = new SessionStore({ agents: () => agents, ttlMs: 1000, now: () => now });
  expect(sessions.signIn('not-a-token-at-all-xx')).toBeUndefined();
  const signed = sessions.signIn('eye-token-0123456789ab')!;
  expect(signed.agent).toMatchObject({ name: 'eye', role: 'observer' });
  expect(Buffer.from(signed.id, 'base64url')).toHaveLength(32);
  expect(sessions.agentOf(signed.id)?.name).toBe('eye');
  expect(sessions.agentOf(undefined)).toBeUndefined();
  expect(sessions.agentOf('x'.repeat(43))).toBeUndefined();
  now = 999;
  expect(sessions.agentOf(signed.id)?.name).toBe('eye');
  now = 1000;
  expect(sessions.agentOf(signed.id)).toBeUndefined();
  expect(sessions.size).toBe(0);
});

it('a rotated or removed token ends its sessions at once; signing out ends one session', () => {
  let agents = directory({ lead: 'lead-token-0123456789', eye: 'eye-token-0123456789ab' });
  const sessions = new SessionStore({ agents: () => agents });
  const eye = sessions.signIn('eye-token-0123456789ab')!;
  const lead = sessions.signIn('lead-token-0123456789')!;
  const lead2 = sessions.signIn('lead-token-0123456789')!;
  agents = directory({ lead: 'lead-token-0123456789', eye: 'eye-rotated-0123456789' });
  expect(sessions.agentOf(eye.id)).toBeUndefined();
  expect(sessions.agentOf(lead.id)?.name).toBe('lead');
  sessions.signOut(lead.id);
  expect(sessions.agentOf(lead.id)).toBeUndefined();
  expect(sessions.agentOf(lead2.id)?.name).toBe('lead');
  agents = directory({ eye: 'eye-rotated-0123456789', lead: 'lead-token-0123456789' });
  expect(sessions.agentOf(lead2.id)?.name).toBe('lead');
});

it('a page hears ids, names and states, and only room messages its member may see', () => {
  const task = { type: 'task', action: 'claimed', actor: 'w1', task: { id: 7, status: 'claimed', assignee: 'w1', required_skills: ['python'] } } as const;
  expect(eventForPage(task, 'eye')).toEqual({ type: 'task', data: { action: 'claimed', actor: 'w1', task_id: 7, status: 'claimed', assignee: 'w1' } });
  const direct = { type: 'room', message_id: 3, from: 'lead', to: ['w1'] } as const;
  expect(eventForPage(direct, 'eye')).toBeUndefined();
  expect(eventForPage(direct, 'w1')?.type).toBe('room');
  expect(eventForPage(direct, 'lead')?.type).toBe('room');
  expect(eventForPage({ type: 'room', message_id: 4, from: 'lead', to: 'all' }, 'eye')?.data).toEqual({ message_id: 4, from: 'lead', to: 'all' });
});

it('an open stream subscribes once, hears events, and leaves nothing behind when it ends', async () => {
  const agents = directory({ lead: 'lead-token-0123456789', eye: 'eye-token-0123456789ab' });
  const sessions = new SessionStore({ agents: () => agents });
  const bus = new LocalEventBus();
  const live = new LiveStreams(bus, sessions);
  const signed = sessions.signIn('eye-token-0123456789ab')!;
  const written: string[] = [];
  const abortListeners: Array<() => void> = [];
  const stream = {
    write: async (text: string) => void written.push(text),
    onAbort: (listener: () => void) => void abortListeners.push(listener),
  };
  const controller = new AbortController();
  const served = live.serve(stream as never, signed.agent, signed.id, controller.signal);
  expect(bus.size).toBe(1);
  expect(live.size).toBe(1);
  bus.publish({ type: 'task_message', task_id: 2, author: 'lead' });
  bus.publish({ type: 'room', message_id: 9, from: 'lead', to: ['someone-else'] });
  expect(written.join('')).toContain('event: ready');
  expect(written.join('')).toContain('event: task_message\ndata: {"task_id":2,"author":"lead"}\n\n');
  expect(written.join('')).not.toContain('"message_id":9');
  controller.abort();
  await served;
  expect(bus.size).toBe(0);
  expect(live.size).toBe(0);

  // Signing out (or a rotated token) ends a stream too.
  const again = live.serve(stream as never, signed.agent, signed.id, new AbortController().signal);
  live.endSession(signed.id);
  await again;
  expect(bus.size).toBe(0);
});
