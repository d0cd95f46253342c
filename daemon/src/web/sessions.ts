// Web sign-in sessions: a random id maps to the token's hash and an expiry, never to the token. Kept in memory; with
// several daemons on one PostgreSQL board they are also kept in the database, so a sign-in on one daemon works on all.
import { createHash, randomBytes } from 'node:crypto';
import type { Agent } from '../agents/directory.js';
import { sessionDigest, SESSIONS_PER_AGENT, type SharedSessions } from '../store/shared-sessions.js';

export const SESSION_TTL_MS = 12 * 60 * 60_000;
/** A bound on memory whatever happens (many agents); the oldest session goes first. */
const MAX_SESSIONS = 10_000;
/** How long a sign-out heard from another daemon is remembered: far longer than reading one session row takes. */
const ENDED_KEPT_MS = 60_000;
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

interface Session {
  readonly tokenHash: Buffer;
  /** sessionDigest of its id, computed once: a sign-out through another daemon names the session by it. */
  readonly digest: string;
  readonly expiresAt: number;
}

/** Who a token's hash stands for: a project's directory (its agents and people), or the daemon's whole catalog. */
export interface TokenResolver {
  findByTokenHash(presented: Buffer): Agent | undefined;
}

export interface SessionStoreOptions {
  readonly agents: () => TokenResolver;
  readonly shared?: SharedSessions | undefined;
  /**
   * Another store whose sessions this one sees through its own resolver: a project's view of the daemon's sign-ins
   * (one cookie for every project of a person). A view never ends a session its resolver does not know: the person
   * may simply hold no role in this project.
   */
  readonly viewOf?: SessionStore | undefined;
  readonly ttlMs?: number;
  /** Injected clock, for tests of expiry. */
  readonly now?: () => number;
}

export class SessionStore {
  private readonly sessions: Map<string, Session>;
  /** Digests of sessions signed out through other daemons lately, with when this daemon heard of it. */
  private readonly ended: Map<string, number>;
  /** The agent each session's hash matched in the resolver's answer; looked up again when agents.json is reloaded. */
  private readonly resolved = new WeakMap<Session, { readonly directory: TokenResolver; readonly agent: Agent | undefined }>();
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(private readonly options: SessionStoreOptions) {
    this.ttlMs = options.ttlMs ?? options.viewOf?.ttlMs ?? SESSION_TTL_MS;
    this.now = options.now ?? options.viewOf?.now ?? Date.now;
    this.sessions = options.viewOf?.sessions ?? new Map();
    this.ended = options.viewOf?.ended ?? new Map();
  }

  get maxAgeSeconds(): number {
    return Math.floor(this.ttlMs / 1000);
  }

  /** Checks the token; on success returns a new 256-bit session id and the agent, else undefined. */
  signIn(token: string): { id: string; agent: Agent } | undefined {
    const tokenHash = createHash('sha256').update(token, 'utf8').digest();
    const agent = this.options.agents().findByTokenHash(tokenHash);
    if (!agent) return undefined;
    this.sweep();
    this.makeRoomFor(tokenHash);
    const id = randomBytes(32).toString('base64url');
    this.sessions.set(id, { tokenHash, digest: sessionDigest(id), expiresAt: this.now() + this.ttlMs });
    return { id, agent };
  }

  /**
   * The agent a session id stands for now. The agent is looked up again by the token's hash whenever the directory
   * in force changes, so a removed agent or a rotated token ends its sessions at once; the event streams ask this
   * for every batch they write, so an unchanged directory answers from the session.
   */
  agentOf(id: string | undefined): Agent | undefined {
    if (id === undefined || !SESSION_ID.test(id)) return undefined;
    const session = this.sessions.get(id);
    if (!session) return undefined;
    if (session.expiresAt <= this.now()) {
      this.sessions.delete(id);
      return undefined;
    }
    const directory = this.options.agents();
    let resolved = this.resolved.get(session);
    if (resolved?.directory !== directory) this.resolved.set(session, (resolved = { directory, agent: directory.findByTokenHash(session.tokenHash) }));
    const agent = resolved.agent;
    if (!agent && !this.options.viewOf) this.sessions.delete(id);
    return agent;
  }

  signOut(id: string | undefined): void {
    if (id !== undefined) this.sessions.delete(id);
  }

  /** signIn, and with shared sessions the session saved before the answer: the next request may reach another daemon. */
  async establish(token: string): Promise<{ id: string; agent: Agent } | undefined> {
    const signedIn = this.signIn(token);
    if (signedIn && this.options.shared) await this.options.shared.save(signedIn.id, this.sessions.get(signedIn.id)!.tokenHash, this.sessions.get(signedIn.id)!.expiresAt);
    return signedIn;
  }

  /** agentOf, asking the shared store when there is one: the session may have been made, or ended, through another daemon. */
  async lookUp(id: string | undefined): Promise<Agent | undefined> {
    const shared = this.options.shared;
    if (!shared || id === undefined || !SESSION_ID.test(id)) return this.agentOf(id);
    const stored = await shared.load(id);
    const digest = sessionDigest(id);
    // Signed out through another daemon while the row was being read: the row was read just before its deletion.
    if (!stored || this.ended.has(digest)) {
      this.sessions.delete(id);
      return undefined;
    }
    if (!this.sessions.has(id)) this.sessions.set(id, { tokenHash: stored.tokenHash, digest, expiresAt: stored.expiresAt });
    return this.agentOf(id);
  }

  /** signOut, on every daemon when sessions are shared. */
  async end(id: string | undefined): Promise<void> {
    this.signOut(id);
    if (id !== undefined && this.options.shared) await this.options.shared.remove(id);
  }

  /**
   * Drops the session with this digest from memory (it was signed out through another daemon) and returns its id,
   * so its streams can be ended; undefined if this daemon does not hold it. Sign-outs are rare: a scan will do.
   */
  forget(digest: string): string | undefined {
    // Kept a while, so a lookUp that read the row just before it was deleted does not bring the session back.
    const now = this.now();
    for (const [old, at] of this.ended) if (now - at > ENDED_KEPT_MS) this.ended.delete(old);
    this.ended.set(digest, now);
    for (const [id, session] of this.sessions) {
      if (session.digest !== digest) continue;
      this.sessions.delete(id);
      return id;
    }
    return undefined;
  }

  /** The token hash a live session holds (for the catalog's lookup of who it is); undefined for none. */
  tokenHashOf(id: string): Buffer | undefined {
    return this.sessions.get(id)?.tokenHash;
  }

  get size(): number {
    return this.sessions.size;
  }

  /** Ends this token's oldest sessions until a new one fits within SESSIONS_PER_AGENT. */
  private makeRoomFor(tokenHash: Buffer): void {
    const own = [...this.sessions].filter(([, session]) => session.tokenHash.equals(tokenHash)).map(([id]) => id);
    // Map iteration is insertion order, so the first are the oldest.
    for (const id of own.slice(0, Math.max(0, own.length - SESSIONS_PER_AGENT + 1))) this.sessions.delete(id);
  }

  /** Drops expired sessions, and the oldest ones past the bound; runs on sign-in, so an idle board keeps no timer. */
  private sweep(): void {
    const now = this.now();
    for (const [id, session] of this.sessions) if (session.expiresAt <= now) this.sessions.delete(id);
    // Map iteration is insertion order, so the first keys are the oldest sessions.
    for (const id of this.sessions.keys()) {
      if (this.sessions.size < MAX_SESSIONS) break;
      this.sessions.delete(id);
    }
  }
}
