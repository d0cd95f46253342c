// Web sessions and what a page hears: expiry, a removed or rotated token ending its sessions, room events filtered.
import { createHash } from 'node:crypto';
import { expect, it, vi } from 'vitest';
import { parseCatalog } from '../../daemon/src/agents/catalog.js';
import type { AgentDirectory } from '../../daemon/src/agents/directory.js';
import { LocalEventBus } from '../../daemon/src/events.js';
import { eventForPage, LiveStreams } from '../../daemon/src/web/event-stream.js';
import { sessionDigest } from '../../daemon/src/store/shared-sessions.js';
import { SessionStore } from '../../daemon/src/web/sessions.js';

const hash = (token: string) => createHash('sha256').update(token).digest('hex');

function directory(tokens: Record<string, string>): AgentDirectory {
  const agents = Object.entries(tokens).map(([name, token]) => ({ name, role: name === 'lead' ? 'leader' : 'observer', skills: [], token_sha256: hash(token) }));
  return parseCatalog(JSON.stringify({ agents }), 'agents.json').project('default')!.directory;
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

it('a session signed out elsewhere is forgotten by its digest, never its id; a page never hears of it', () => {
  const agents = directory({ lead: 'lead-token-0123456789' });
  const sessions = new SessionStore({ agents: () => agents });
  const one = sessions.signIn('lead-token-0123456789')!;
  const two = sessions.signIn('lead-token-0123456789')!;
  const digest = sessionDigest(one.id);
  expect(digest).toMatch(/^[0-9a-f]{64}$/);
  expect(digest).not.toContain(one.id);
  expect(sessions.forget(sessionDigest('x'.repeat(43)))).toBeUndefined();
  expect(sessions.forget(digest)).toBe(one.id);
  expect(sessions.agentOf(one.id)).toBeUndefined();
  expect(sessions.agentOf(two.id)?.name).toBe('lead');
  expect(sessions.forget(digest)).toBeUndefined();
  expect(eventForPage({ type: 'session_ended', session_sha256: digest }, 'lead')).toBeUndefined();
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

/** A stand-in for Node's ServerResponse, with what LiveStreams uses of it. */
function fakeResponse() {
  const closeListeners: Array<() => void> = [];
  const response = {
    written: [] as string[],
    head: undefined as undefined | { status: number; headers: Record<string, string> },
    writableLength: 0,
    writableEnded: false,
    destroyed: false,
    writeHead(status: number, headers: Record<string, string>) {
      response.head = { status, headers };
    },
    write(chunk: string) {
      response.written.push(chunk);
      return true;
    },
    end() {
      response.writableEnded = true;
      for (const listener of closeListeners.splice(0)) listener();
    },
    destroy() {
      response.destroyed = true;
      for (const listener of closeListeners.splice(0)) listener();
    },
    once(_event: 'close', listener: () => void) {
      closeListeners.push(listener);
    },
  };
  return response;
}

it('open streams share one subscription, hear events after the publishing call, and leave nothing behind', async () => {
  const agents = directory({ lead: 'lead-token-0123456789', eye: 'eye-token-0123456789ab' });
  const sessions = new SessionStore({ agents: () => agents });
  const bus = new LocalEventBus();
  const live = new LiveStreams({ events: bus, sessions, maxStreams: 10, coalesceMs: 0 });
  const signed = sessions.signIn('eye-token-0123456789ab')!;
  expect(bus.size).toBe(0);
  const first = fakeResponse();
  const second = fakeResponse();
  live.open(first, signed.agent, signed.id);
  live.open(second, signed.agent, signed.id);
  expect(bus.size).toBe(1);
  expect(live.size).toBe(2);
  expect(first.head?.status).toBe(200);
  expect(first.head?.headers['Content-Type']).toMatch(/^text\/event-stream/);
  expect(first.head?.headers['Content-Security-Policy']).toContain("default-src 'none'");
  expect(first.written).toEqual(['retry: 3000\nevent: ready\ndata: {}\n\n']);

  bus.publish({ type: 'task_message', task_id: 2, author: 'lead' });
  bus.publish({ type: 'room', message_id: 9, from: 'lead', to: ['someone-else'] });
  bus.publish({ type: 'room', message_id: 10, from: 'lead', to: ['eye'] });
  // Nothing written while the publisher is still running.
  expect(first.written).toHaveLength(1);
  await vi.waitFor(() => expect(first.written).toHaveLength(2));
  expect(first.written[1]).toBe('event: task_message\ndata: {"task_id":2,"author":"lead"}\n\nevent: room\ndata: {"message_id":10,"from":"lead","to":["eye"]}\n\n');
  await vi.waitFor(() => expect(second.written).toEqual(first.written));

  first.destroy();
  expect(live.size).toBe(1);
  expect(bus.size).toBe(1);
  // Signing out (or a rotated token) ends the rest.
  live.endSession(signed.id);
  expect(second.writableEnded).toBe(true);
  expect(live.size).toBe(0);
  expect(bus.size).toBe(0);
});

it('a sign-out heard while this daemon was reading the session row does not bring the session back', async () => {
  const agents = directory({ lead: 'lead-token-0123456789' });
  // The shared table as two daemons see it; B's read is held until the test lets it go, as a slow round trip would be.
  const rows = new Map<string, { tokenHash: Buffer; expiresAt: number }>();
  let releaseRead: () => void = () => {};
  const table = {
    save: async (id: string, tokenHash: Buffer, expiresAt: number) => void rows.set(id, { tokenHash, expiresAt }),
    remove: async (id: string) => void rows.delete(id),
  };
  const a = new SessionStore({ agents: () => agents, shared: { ...table, load: async (id) => rows.get(id) } });
  const b = new SessionStore({
    agents: () => agents,
    shared: {
      ...table,
      load: async (id) => {
        const row = rows.get(id);
        await new Promise<void>((resolve) => (releaseRead = resolve));
        return row;
      },
    },
  });
  const signed = (await a.establish('lead-token-0123456789'))!;
  const reading = b.lookUp(signed.id);
  // B has read the row; now the person signs out through A, and B hears of it before its read comes back.
  await a.end(signed.id);
  expect(b.forget(sessionDigest(signed.id))).toBeUndefined();
  releaseRead();
  expect(await reading).toBeUndefined();
  expect(b.agentOf(signed.id)).toBeUndefined();
});
