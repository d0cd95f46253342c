// The shared room: post to all or to named members, read what is new, page back, and delivery receipts.
import {
  LIMITS,
  type ToolInput,
  type ToolOutput,
  type deliveryStatus,
  type post,
  type readLog,
  type readUnread,
} from 'roundtable-shared';
import type { Agent, AgentDirectory } from '../agents/directory.js';
import { InvalidInput, NotFound } from '../errors.js';
import { log } from '../runtime/log.js';
import type { StoredRoomMessage } from '../store/store.js';
import { callerOf, warning, writeExtras, type BoardDeps, type CallContext } from './context.js';
import { requireNotObserver } from './rules.js';

/**
 * The owners a message names as recipients (never for "all"): a direct message to a person, the case that should
 * reach them away from the page too (webhooks to owners, issue 26, hang off this). Names from the directory only.
 */
export function ownersAddressed(to: 'all' | readonly string[], directory: AgentDirectory): string[] {
  if (to === 'all') return [];
  return to.filter((name) => directory.find(name)?.role === 'owner');
}

/** Who may see a message: everyone for "all", else its author and its recipients. */
function visibleTo(message: StoredRoomMessage, name: string): boolean {
  return message.to === 'all' || message.from === name || message.to.includes(name);
}

export class Room {
  constructor(private readonly deps: BoardDeps) {}

  async post(agent: Agent, input: ToolInput<typeof post>, ctx: CallContext = {}): Promise<ToolOutput<typeof post>> {
    requireNotObserver(callerOf(this.deps, agent), 'post in the room');
    const directory = this.deps.agents();
    let to: 'all' | string[];
    let recipients: string[];
    if (input.to === 'all') {
      to = 'all';
      recipients = directory.list().map((a) => a.name).filter((name) => name !== agent.name);
    } else {
      const names = [...new Set(typeof input.to === 'string' ? [input.to] : input.to)];
      const unknown = names.filter((name) => !directory.find(name));
      if (unknown.length) throw new InvalidInput(`to: no member is called ${unknown.map((n) => `"${n}"`).join(', ')}; members lists the names`);
      to = names;
      recipients = names.filter((name) => name !== agent.name);
      if (recipients.length === 0) throw new InvalidInput('to: name at least one member other than yourself, or "all"');
    }
    const render = (message: StoredRoomMessage) => ({ message, recipients, ...warning });
    const owners = ownersAddressed(to, directory).filter((name) => name !== agent.name);
    const message = await this.deps.store.postRoomMessage({ author: agent.name, to, recipients, text: input.text, owners }, writeExtras(ctx, render));
    this.deps.events.publish({ type: 'room', message_id: message.id, from: agent.name, to });
    if (owners.length > 0) log.info('direct message to an owner', { message_id: message.id, from: agent.name, owners });
    return render(message);
  }

  async readUnread(agent: Agent, _input: ToolInput<typeof readUnread>, ctx: CallContext = {}): Promise<ToolOutput<typeof readUnread>> {
    const render = (page: { messages: StoredRoomMessage[]; more: boolean }) => ({ ...page, ...warning });
    const page = await this.deps.store.readUnread(agent.name, LIMITS.roomPage, writeExtras(ctx, render));
    if (page.messages.length) this.deps.events.publish({ type: 'presence', agent: agent.name });
    return render(page);
  }

  async readLog(agent: Agent, input: ToolInput<typeof readLog>): Promise<ToolOutput<typeof readLog>> {
    const messages = await this.deps.store.readRoomLog(agent.name, input.before, input.limit ?? 50);
    return { messages, ...warning };
  }

  async deliveryStatus(agent: Agent, input: ToolInput<typeof deliveryStatus>): Promise<ToolOutput<typeof deliveryStatus>> {
    const found = await this.deps.store.getRoomMessage(input.message_id);
    if (!found || !visibleTo(found.message, agent.name)) {
      throw new NotFound(`room message ${input.message_id} does not exist or was not sent to you; read_log shows the messages you can see`);
    }
    return {
      message_id: found.message.id,
      recipients: found.receipts.map((r) => ({ name: r.agent, status: r.read_at ? ('read' as const) : ('unread' as const), read_at: r.read_at })),
    };
  }
}
