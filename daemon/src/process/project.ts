// One project's board, whole: its store, the board's parts over it, its webhook worker and its routes. A daemon runs
// one of these per project (process/projects.ts); nothing here is shared with another project but the catalog's
// answer of who may call, the daemon's sign-in sessions and its config.
import type { Hono } from 'hono';
import { projectPrefix } from 'roundtable-shared';
import { AgentDirectory } from '../agents/directory.js';
import type { Catalog } from '../agents/catalog.js';
import { Board } from '../board/board.js';
import { claimersChanged } from '../board/claimability.js';
import { ToolDispatcher } from '../board/dispatch.js';
import { Leases } from '../board/leases.js';
import { Presence } from '../board/presence.js';
import { PathReservations } from '../board/reservations.js';
import { Room } from '../board/room.js';
import { losersOfClaims } from '../board/rules.js';
import { LocalEventBus, type EventBus } from '../events.js';
import type { Config } from '../runtime/config.js';
import { log } from '../runtime/log.js';
import { RateLimiter } from '../runtime/rate-limit.js';
import { openStore, type OpenedStore } from '../store/open.js';
import type { SharedSessions } from '../store/shared-sessions.js';
import type { SessionStore } from '../web/sessions.js';
import { DEFAULT_RETRY } from '../webhooks/backoff.js';
import { cachedSecrets } from '../webhooks/secret-file.js';
import { projectPageUrl } from '../webhooks/payload.js';
import { DeliveryWorker } from '../webhooks/worker.js';
import { createApp, type BoardApp } from './app.js';
import { projectFiles } from './project-files.js';

/** Several daemons on one database: each reads the earliest lease expiry again at least this often. */
const SHARED_LEASE_RECHECK_MS = 5_000;
/** What a project no longer in the catalog is checked against until it is closed: nobody. */
const NOBODY = new AgentDirectory([], [], 'role');

export interface ProjectRuntime {
  readonly slug: string;
  readonly opened: OpenedStore;
  readonly events: EventBus;
  readonly leases: Leases;
  readonly presence: Presence;
  readonly board: Board;
  readonly room: Room;
  /** Its routes: /mcp, /api/v1, its page's reads and actions, and /status for `default`. */
  readonly app: Hono;
  readonly web: BoardApp['web'];
  /** The catalog changed: release what agents may no longer hold, and tell pages who may claim what now. */
  reloaded(previous: AgentDirectory, current: AgentDirectory): void;
  /** A reload removed or rotated these names' tokens: their parked waits end at once. */
  revoke(names: readonly string[]): void;
  /** Stops its timers and answers its parked waits and open streams at once (before the server closes); says how many. */
  quiesce(): { readonly waits: number; readonly streams: number };
  /** Stops its webhook worker, then closes its store (after quiesce, once the server has closed). */
  close(): Promise<void>;
}

export interface ProjectOptions {
  readonly config: Config;
  readonly slug: string;
  /** The catalog in force now (agents/registry.ts). */
  readonly catalog: () => Catalog;
  /** The daemon's sign-in sessions; the project sees them through its own directory. */
  readonly sessions: SessionStore;
  /** Several daemons on PostgreSQL: where those sessions are kept (the catalog's, shared by every project). */
  readonly sharedSessions?: SharedSessions | undefined;
}

export async function openProject(options: ProjectOptions): Promise<ProjectRuntime> {
  const { config, slug } = options;
  const files = projectFiles(config, slug);
  const agents = (): AgentDirectory => options.catalog().project(slug)?.directory ?? NOBODY;
  const opened = await openStore(config, { dbPath: files.dbPath, project: slug, webhookSecrets: cachedSecrets(files.secretsPath) });
  try {
    const { store } = opened;
    // One daemon: events stay in the process. Several on PostgreSQL: they also travel by LISTEN/NOTIFY.
    const events = opened.shared?.events ?? new LocalEventBus();
    // Several daemons: an event lost with a daemon that died must not leave a lease unswept for long (leases.ts).
    const leases = new Leases({ store, events, ttlMs: config.leaseTtlMs, ...(opened.shared && { recheckMs: SHARED_LEASE_RECHECK_MS }) });
    const boardName = () => titleOf(options.catalog(), slug, config.boardName);
    const deps = { store, agents, boardName, events, leases };
    // Several daemons: who waits where is shared through the database too (members through any daemon shows it).
    const presence = new Presence(deps, opened.shared?.waiting);
    const board = new Board(deps);
    const room = new Room(deps);
    const dispatcher = new ToolDispatcher({
      board,
      room,
      presence,
      store,
      leases,
      limiter: opened.shared?.toolCallLimit(config.rateLimitPerMinute) ?? new RateLimiter({ perMinute: config.rateLimitPerMinute }),
      reservations: new PathReservations(deps),
      callDeadlineMs: config.deadlines.callMs,
    });
    // Claims that lapsed while the daemon was down reopen before it listens; from here one timer follows the next expiry.
    await leases.start();
    const webhooks = new DeliveryWorker({
      outbox: opened.outbox,
      events,
      publicUrl: projectPageUrl(config.publicUrl, slug),
      retry: { ...DEFAULT_RETRY, baseMs: config.webhooks.retryBaseMs, maxAttempts: config.webhooks.maxAttempts },
      timeoutMs: config.webhooks.timeoutMs,
    });
    const { app, web } = createApp({
      config,
      boardName,
      prefix: projectPrefix(slug),
      store,
      agents,
      dispatcher,
      oauth: opened.oauth,
      leases,
      events,
      view: { board, room, presence },
      sessions: options.sessions,
      sharedSessions: options.sharedSessions,
    });
    return {
      slug,
      opened,
      events,
      leases,
      presence,
      board,
      room,
      app,
      web,
      reloaded(previous, current) {
        // Live pages read the state again when who may claim what changed (a task may have become claimable, or not).
        for (const name of claimersChanged(previous, current)) events.publish({ type: 'presence', agent: name });
        // The claims of an agent that is removed, or whose new role does not claim, go back to the pool.
        for (const { name, why } of losersOfClaims(previous, current)) {
          board.releaseHeldBy(name, why).then(
            (ids) => ids.length && log.info('released the tasks of an agent that may no longer hold them', { project: slug, agent: name, task_ids: ids }),
            (error: unknown) => log.error('releasing the tasks of an agent failed', { project: slug, agent: name, error: String(error) }),
          );
        }
      },
      revoke(names) {
        presence.waiters.revoke([...names]);
      },
      quiesce() {
        leases.close();
        const waits = presence.waiters.count;
        presence.waiters.close();
        return { waits, streams: web.close() };
      },
      async close() {
        await webhooks.close();
        await opened.close();
      },
    };
  } catch (error) {
    await opened.close();
    throw error;
  }
}

/** What the page and prompts call the board: the project's title, else the daemon's name for `default`, else its slug. */
export function titleOf(catalog: Catalog, slug: string, boardName: string): string {
  return catalog.project(slug)?.title ?? (slug === 'default' ? boardName : slug);
}
