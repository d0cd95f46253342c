// The agents in force: loaded from agents.json at start, reloaded when the file changes or on SIGHUP.
// A file that fails validation is ignored (logged) and the last good one stays in force.
import { createHash } from 'node:crypto';
import { readFileSync, watch, watchFile, unwatchFile, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import { AgentsFileError, loadAgentsFile, parseAgentsFile, type AgentDirectory } from './agents.js';
import { log } from './log.js';

const DEBOUNCE_MS = 150;
/** A slow poll as well as fs.watch: some file systems and editors defeat change events. */
const POLL_MS = 2_000;

export class AgentRegistry {
  private current: AgentDirectory;
  private digest: string;
  private watcher: FSWatcher | undefined;
  private debounce: NodeJS.Timeout | undefined;
  private readonly revokedListeners = new Set<(names: string[]) => void>();

  constructor(
    private readonly path: string,
    /** Told of every reload that put a new version in force, so what agents may no longer hold can be let go. */
    private readonly onReloaded: (previous: AgentDirectory, current: AgentDirectory) => void = () => undefined,
  ) {
    this.current = loadAgentsFile(path);
    this.digest = digestOf(readFileSync(path, 'utf8'));
  }

  /** Tells `listener` the names whose token a reload removed or rotated, so what they hold open can end at once. */
  onRevoked(listener: (names: string[]) => void): () => void {
    this.revokedListeners.add(listener);
    return () => this.revokedListeners.delete(listener);
  }

  /** The directory in force now; callers ask on every request, so a reload applies from the next one. */
  readonly directory = (): AgentDirectory => this.current;

  /** Re-reads the file; returns true if a new, valid version was put in force. */
  reload(reason: string): boolean {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (error) {
      log.error('agents file cannot be read; keeping the agents in force', { file: this.path, reason, code: (error as NodeJS.ErrnoException).code });
      return false;
    }
    const digest = digestOf(text);
    if (digest === this.digest) return false;
    const previous = this.current;
    try {
      this.current = parseAgentsFile(text, this.path);
    } catch (error) {
      if (!(error instanceof AgentsFileError)) throw error;
      log.error('agents file is invalid; keeping the agents in force', { file: this.path, reason, problem: error.message });
      this.digest = digest;
      return false;
    }
    this.digest = digest;
    const agents = this.current.list();
    this.onReloaded(previous, this.current);
    const revoked = this.current.revokedSince(previous);
    if (revoked.length) for (const listener of this.revokedListeners) listener(revoked);
    log.info('agents reloaded', { file: this.path, reason, agents: agents.length, names: agents.map((a) => a.name) });
    for (const name of this.current.plaintextTokenAgents) log.warn('agents.json holds a plaintext token; prefer token_sha256', { agent: name });
    return true;
  }

  /** Watches the file's folder (an atomic rename replaces the file itself) and polls as a fallback. */
  watch(): void {
    const schedule = (reason: string) => {
      clearTimeout(this.debounce);
      this.debounce = setTimeout(() => this.reload(reason), DEBOUNCE_MS);
    };
    try {
      this.watcher = watch(dirname(this.path), (_event, file) => {
        if (file === null || file === basename(this.path)) schedule('file changed');
      });
      this.watcher.on('error', (error) => log.warn('watching the agents file failed; polling only', { error: String(error) }));
    } catch (error) {
      log.warn('cannot watch the agents file; polling only', { error: String(error) });
    }
    watchFile(this.path, { interval: POLL_MS }, () => schedule('file changed (poll)'));
  }

  close(): void {
    clearTimeout(this.debounce);
    this.watcher?.close();
    unwatchFile(this.path);
  }
}

function digestOf(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
