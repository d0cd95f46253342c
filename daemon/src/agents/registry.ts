// The agents in force: loaded at start from agents.json (SQLite) or the agents table (PostgreSQL), and reloaded when
// the source changes or on SIGHUP. A version that fails validation is ignored (logged) and the last good one stays.
import { createHash } from 'node:crypto';
import { readFileSync, watch, watchFile, unwatchFile, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import { AgentsFileError } from './directory.js';
import { loadCatalog, parseCatalog, type Catalog } from './catalog.js';
import { log } from '../runtime/log.js';

const DEBOUNCE_MS = 150;
/** A slow poll as well as fs.watch: some file systems and editors defeat change events. */
const POLL_MS = 2_000;

/** Where the directory lives: its text (agents.json, or the agents table written out as the same JSON) and its changes. */
export interface AgentsSource {
  /** Names the source in messages and logs: the file's path, or "the agents table". */
  readonly label: string;
  /** What the log calls it ("agents file", "agents table"). */
  readonly kind: string;
  read(): string | Promise<string>;
  /** Calls `changed` whenever the source may have changed. */
  watch(changed: (reason: string) => void): void;
  close(): void | Promise<void>;
}

/** agents.json, watched through its folder (an atomic rename replaces the file itself) and polled as a fallback. */
export function agentsFileSource(path: string): AgentsSource {
  let watcher: FSWatcher | undefined;
  let debounce: NodeJS.Timeout | undefined;
  return {
    label: path,
    kind: 'agents file',
    read: () => readFileSync(path, 'utf8'),
    watch(changed) {
      const schedule = (reason: string) => {
        clearTimeout(debounce);
        debounce = setTimeout(() => changed(reason), DEBOUNCE_MS);
      };
      try {
        watcher = watch(dirname(path), (_event, file) => {
          if (file === null || file === basename(path)) schedule('file changed');
        });
        watcher.on('error', (error) => log.warn('watching the agents file failed; polling only', { error: String(error) }));
      } catch (error) {
        log.warn('cannot watch the agents file; polling only', { error: String(error) });
      }
      watchFile(path, { interval: POLL_MS }, () => schedule('file changed (poll)'));
    },
    close() {
      clearTimeout(debounce);
      watcher?.close();
      unwatchFile(path);
    },
  };
}

/** Names whose token a reload removed or rotated, by project. */
export type Revoked = ReadonlyMap<string, readonly string[]>;

export class AgentRegistry {
  private current: Catalog;
  private digest: string;
  /** Reloads run one after another, so an older read never replaces a newer one. */
  private reloading: Promise<boolean> = Promise.resolve(false);
  private readonly revokedListeners = new Set<(revoked: Revoked) => void>();

  private constructor(
    private readonly source: AgentsSource,
    text: string,
    /** Told of every reload that put a new version in force, so what agents may no longer hold can be let go. */
    private readonly onReloaded: (previous: Catalog, current: Catalog) => void,
  ) {
    this.current = parseCatalog(text, source.label);
    this.digest = digestOf(text);
  }

  /** agents.json: a missing or invalid file stops the start with a message naming the file and the fix. */
  static fromFile(path: string, onReloaded: (previous: Catalog, current: Catalog) => void = () => undefined): AgentRegistry {
    loadCatalog(path);
    return new AgentRegistry(agentsFileSource(path), readFileSync(path, 'utf8'), onReloaded);
  }

  /** Any source, read once now; an invalid directory stops the start. */
  static async fromSource(source: AgentsSource, onReloaded: (previous: Catalog, current: Catalog) => void = () => undefined): Promise<AgentRegistry> {
    return new AgentRegistry(source, await source.read(), onReloaded);
  }

  /** Tells `listener` the names whose token a reload removed or rotated (by project), so what they hold open can end at once. */
  onRevoked(listener: (revoked: Revoked) => void): () => void {
    this.revokedListeners.add(listener);
    return () => this.revokedListeners.delete(listener);
  }

  /** The catalog in force now; callers ask on every request, so a reload applies from the next one. */
  readonly catalog = (): Catalog => this.current;

  /** Re-reads the source; resolves true if a new, valid version was put in force. */
  reload(reason: string): Promise<boolean> {
    this.reloading = this.reloading.then(() => this.reloadNow(reason));
    return this.reloading;
  }

  private async reloadNow(reason: string): Promise<boolean> {
    const { label, kind } = this.source;
    let text: string;
    try {
      text = await this.source.read();
    } catch (error) {
      log.error(`${kind} cannot be read; keeping the agents in force`, { source: label, reason, code: (error as NodeJS.ErrnoException).code ?? String(error) });
      return false;
    }
    const digest = digestOf(text);
    if (digest === this.digest) return false;
    const previous = this.current;
    try {
      this.current = parseCatalog(text, label);
    } catch (error) {
      if (!(error instanceof AgentsFileError)) throw error;
      log.error(`${kind} is invalid; keeping the agents in force`, { source: label, reason, problem: error.message });
      this.digest = digest;
      return false;
    }
    this.digest = digest;
    const current = this.current;
    this.onReloaded(previous, current);
    const revoked = new Map<string, readonly string[]>();
    for (const before of previous.projects) {
      const after = current.project(before.slug);
      const names = after ? after.directory.revokedSince(before.directory) : before.directory.list().map((a) => a.name);
      if (names.length) revoked.set(before.slug, names);
    }
    if (revoked.size) for (const listener of this.revokedListeners) listener(revoked);
    const projects = current.projects;
    log.info('agents reloaded', { source: label, reason, projects: projects.length, agents: projects.reduce((n, p) => n + p.agentCount, 0), people: current.people.length });
    for (const name of current.plaintextTokens) log.warn('agents.json holds a plaintext token; prefer token_sha256', { agent: name });
    return true;
  }

  watch(): void {
    this.source.watch((reason) => void this.reload(reason).catch((error: unknown) => log.error('reloading the agents failed', { error: String(error) })));
  }

  async close(): Promise<void> {
    await this.source.close();
  }
}

function digestOf(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
