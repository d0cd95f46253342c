// The projects a daemon serves: one runtime per project in the catalog, opened at start and as `projects add` adds
// them, closed when `projects remove` takes them out; each told of catalog changes that touch its own members.
import type { Catalog } from '../agents/catalog.js';
import type { Revoked } from '../agents/registry.js';
import type { Config } from '../runtime/config.js';
import { log } from '../runtime/log.js';
import type { SharedSessions } from '../store/shared-sessions.js';
import type { SessionStore } from '../web/sessions.js';
import { openProject, type ProjectRuntime } from './project.js';

export interface ProjectsOptions {
  readonly config: Config;
  readonly catalog: () => Catalog;
  readonly sessions: SessionStore;
  readonly sharedSessions?: SharedSessions | undefined;
}

export class Projects {
  private readonly open = new Map<string, ProjectRuntime>();
  /** Opening and closing runs one change at a time, in the order the catalog changed. */
  private syncing: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(private readonly options: ProjectsOptions) {}

  /** Opens every project of the catalog; a project that cannot open stops the start (its error names it). */
  async start(): Promise<void> {
    for (const { slug } of this.options.catalog().projects) {
      try {
        this.open.set(slug, await openProject({ ...this.options, slug }));
      } catch (error) {
        await this.close();
        throw error;
      }
    }
  }

  /** The runtime of a project being served now; undefined for one that is not (or not yet) open. */
  get(slug: string): ProjectRuntime | undefined {
    return this.open.get(slug);
  }

  get all(): ProjectRuntime[] {
    return [...this.open.values()];
  }

  /** A new catalog is in force: each project is told of its own members' changes, then projects open or close to match. */
  reloaded(previous: Catalog, current: Catalog): void {
    for (const runtime of this.open.values()) {
      const before = previous.project(runtime.slug);
      const after = current.project(runtime.slug);
      if (before && after) runtime.reloaded(before.directory, after.directory);
    }
    this.syncing = this.syncing.then(() => this.sync()).catch((error: unknown) => log.error('opening or closing projects failed', { error: String(error) }));
  }

  revoke(revoked: Revoked): void {
    for (const [slug, names] of revoked) this.open.get(slug)?.revoke(names);
  }

  /** Opens the projects the catalog added and closes the ones it removed. */
  private async sync(): Promise<void> {
    if (this.closed) return;
    const catalog = this.options.catalog();
    for (const [slug, runtime] of this.open) {
      if (catalog.project(slug)) continue;
      this.open.delete(slug);
      const { waits, streams } = runtime.quiesce();
      await runtime.close();
      log.info('project closed: it is no longer in the catalog', { project: slug, waits, streams });
    }
    for (const { slug } of catalog.projects) {
      if (this.open.has(slug) || this.closed) continue;
      try {
        this.open.set(slug, await openProject({ ...this.options, slug }));
        log.info('project opened', { project: slug });
      } catch (error) {
        log.error('a project in the catalog cannot be opened; its URLs answer 403 until it can', { project: slug, error: (error as Error).message });
      }
    }
  }

  /** Answers every parked wait and open stream at once (before the server closes); says how many. */
  quiesce(): { waits: number; streams: number } {
    let waits = 0;
    let streams = 0;
    for (const runtime of this.open.values()) {
      const ended = runtime.quiesce();
      waits += ended.waits;
      streams += ended.streams;
    }
    return { waits, streams };
  }

  /** Closes every project's worker and store (after the server has closed). */
  async close(): Promise<void> {
    this.closed = true;
    await this.syncing;
    const closing = [...this.open.values()].map((runtime) => runtime.close());
    this.open.clear();
    const results = await Promise.allSettled(closing);
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  }
}
