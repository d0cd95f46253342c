// Whom the bridge lists tools for: the role and toolsets whoami last reported, kept per board and profile in the
// state directory, so the first tools/list of a later start can list by role without asking the board.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isToolset, ROLES, type ListAudience, type Role, type Toolset } from 'roundtable-shared';
import { stateDir } from './platform.js';
import { log } from './log.js';

export interface KnownAudience {
  readonly role: Role;
  readonly toolsets: readonly Toolset[] | null;
}

/** The audience whoami's answer describes, or undefined if it is not a whoami answer this bridge understands. */
export function audienceOf(whoami: Record<string, unknown>): KnownAudience | undefined {
  const { role, toolsets } = whoami;
  if (typeof role !== 'string' || !(ROLES as readonly string[]).includes(role)) return undefined;
  if (toolsets !== null && toolsets !== undefined && !(Array.isArray(toolsets) && toolsets.every((t) => typeof t === 'string' && isToolset(t)))) return undefined;
  return { role: role as Role, toolsets: (toolsets as Toolset[] | null | undefined) ?? null };
}

export function sameAudience(a: ListAudience, b: ListAudience): boolean {
  return a.role === b.role && JSON.stringify(a.toolsets ?? null) === JSON.stringify(b.toolsets ?? null);
}

export class AudienceCache {
  private readonly file: string;

  /** One file per board URL and keychain account (the profile): two agents on one machine keep theirs apart. */
  constructor(options: { baseUrl: string; account: string; dir?: string }) {
    this.file = join(options.dir ?? stateDir(), 'tool-lists', `${fnv1a64(`${options.baseUrl}\n${options.account}`)}.json`);
  }

  /** Read synchronously at start (one small file): tools/list must not wait for the board or the keychain. */
  read(): KnownAudience | undefined {
    try {
      return audienceOf(JSON.parse(readFileSync(this.file, 'utf8')) as Record<string, unknown>);
    } catch {
      // Missing or damaged: list every tool until whoami tells the role again.
      return undefined;
    }
  }

  write(audience: KnownAudience): void {
    try {
      mkdirSync(join(this.file, '..'), { recursive: true, mode: 0o700 });
      const temp = `${this.file}.${process.pid}.tmp`;
      writeFileSync(temp, JSON.stringify({ role: audience.role, toolsets: audience.toolsets }), { mode: 0o600 });
      renameSync(temp, this.file);
    } catch (error) {
      // Losing it costs only a longer list at the next start.
      log.debug('could not keep the role for the next tool list', { error: String((error as Error)?.message ?? error) });
    }
  }
}

/**
 * A file name for a board and profile: FNV-1a, 64 bits, in hex. It only names a cache file (a collision would cost a
 * wrong first list until whoami answers), so it needs no cryptographic hash, and loading node:crypto for one would add
 * to every start (docs/BENCHMARKS.md).
 */
function fnv1a64(text: string): string {
  let hash = 0xcbf29ce484222325n;
  for (const byte of Buffer.from(text, 'utf8')) hash = ((hash ^ BigInt(byte)) * 0x100000001b3n) & 0xffffffffffffffffn;
  return hash.toString(16).padStart(16, '0');
}
