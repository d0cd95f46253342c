// agents.json: who may use the board, with which role and skills. Tokens are kept only as SHA-256 hashes.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { jsonErrorPlace } from './json-place.js';
import { BOARD_MODES, LIMITS, ROLES, SKILL_PATTERN, SKILL_RULE, TOOLSETS, type BoardMode, type Role, type Toolset } from 'roundtable-shared';

export interface Agent {
  readonly name: string;
  readonly role: Role;
  readonly skills: readonly string[];
  /** The toolsets its tool list is narrowed to; absent: every toolset. Only the list: what it may call is its role's. */
  readonly toolsets?: readonly Toolset[];
}

export interface AgentEntry extends Agent {
  readonly tokenHash: Buffer;
}

export const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
/** Reserved so a future room can address everyone as "all". */
export const RESERVED_NAMES = new Set(['all']);

export const entrySchema = z
  .strictObject({
    name: z
      .string({ error: 'must be a string' })
      .regex(NAME_PATTERN, { error: 'must be 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit' })
      .refine((n) => !RESERVED_NAMES.has(n.toLowerCase()), { error: 'is reserved; choose another name' }),
    role: z.enum(ROLES, { error: `must be one of ${ROLES.join(', ')}` }),
    skills: z
      .array(
        z
          .string({ error: `each skill must be ${SKILL_RULE}` })
          .max(LIMITS.skill, { error: (issue) => `each skill is at most ${LIMITS.skill} characters (this one has ${String((issue.input as string).length)})` })
          .regex(SKILL_PATTERN, { error: `each skill must be ${SKILL_RULE}` }),
        {
          error: `must be a list of skill names, each ${SKILL_RULE}`,
        },
      )
      .default([]),
    token_sha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/, { error: 'must be 64 lowercase hex characters (the SHA-256 of the token)' })
      .optional(),
    toolsets: z
      .array(z.enum(TOOLSETS, { error: `each toolset must be one of ${TOOLSETS.join(', ')}` }), {
        error: `must be a list of toolsets from ${TOOLSETS.join(', ')}, e.g. ["tasks"]; leave it out for all of them`,
      })
      .min(1, { error: `must name at least one of ${TOOLSETS.join(', ')}; leave it out for all of them` })
      .optional(),
    token: z.string().min(16, { error: 'must be at least 16 characters; generate one with `roundtable init`' }).optional(),
  })
  .refine((e) => (e.token === undefined) !== (e.token_sha256 === undefined), {
    error: 'needs exactly one of token_sha256 (preferred) or token',
    path: ['token_sha256'],
  });

export class AgentsFileError extends Error {}

/** How messages name the agents directory on PostgreSQL (agents/table.ts), where the file's path names agents.json. */
export const AGENTS_TABLE = 'the agents table';

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** A fresh 256-bit token; the prefix makes a leaked token easy to find and revoke. */
export function generateToken(): string {
  return `rt_${randomBytes(32).toString('base64url')}`;
}

/** How many presented tokens a directory remembers; past it the memory is emptied and refilled (a few per agent). */
const TOKEN_CACHE_PER_AGENT = 4;

export class AgentDirectory {
  private readonly entries: readonly AgentEntry[];
  private readonly byName: ReadonlyMap<string, AgentEntry>;
  /**
   * Tokens this directory has matched, with their agent: a hit skips the hash and the compare with every agent. Only a
   * token that matched is kept, so a guessed one never lands here; and the memory lives and dies with this directory,
   * which a reload replaces whole (agents/registry.ts), so a removed or rotated token fails from the reload on, as before.
   */
  private readonly matched = new Map<string, Agent>();

  constructor(
    entries: readonly AgentEntry[],
    readonly plaintextTokenAgents: readonly string[] = [],
    /** role: one leader and workers; peer: equal members, no leader. */
    readonly mode: BoardMode = 'role',
  ) {
    this.entries = entries;
    this.byName = new Map(entries.map((e) => [e.name, e]));
  }

  /**
   * A token matched before is answered from memory; any other's hash is compared with every agent's in constant time.
   * Never logs the token.
   */
  findByToken(token: string): Agent | undefined {
    const known = this.matched.get(token);
    if (known) return known;
    const agent = this.findByTokenHash(createHash('sha256').update(token, 'utf8').digest());
    if (agent) {
      if (this.matched.size >= this.entries.length * TOKEN_CACHE_PER_AGENT) this.matched.clear();
      this.matched.set(token, Object.freeze(agent));
    }
    return agent;
  }

  /** The same lookup from a stored hash (web sessions keep the hash, never the token). */
  findByTokenHash(presented: Buffer): Agent | undefined {
    let match: AgentEntry | undefined;
    for (const entry of this.entries) {
      if (timingSafeEqual(presented, entry.tokenHash)) match = entry;
    }
    return match ? publicAgent(match) : undefined;
  }

  find(name: string): Agent | undefined {
    const entry = this.byName.get(name);
    return entry ? publicAgent(entry) : undefined;
  }

  /** The agent's token hash (hex): an OAuth grant is bound to it, so rotating or removing the agent ends the grant. */
  tokenHashOf(name: string): string | undefined {
    return this.byName.get(name)?.tokenHash.toString('hex');
  }

  list(): Agent[] {
    return this.entries.map(publicAgent);
  }

  /** The names of `previous` whose token no longer names them here: removed, or given another token. */
  revokedSince(previous: AgentDirectory): string[] {
    return previous.entries.filter((old) => !this.byName.get(old.name)?.tokenHash.equals(old.tokenHash)).map((old) => old.name);
  }
}

export function publicAgent(entry: AgentEntry): Agent {
  return { name: entry.name, role: entry.role, skills: entry.skills, ...(entry.toolsets && { toolsets: entry.toolsets }) };
}
