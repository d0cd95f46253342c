// Starting and stopping the board: lock and open the store, load agents, listen over HTTP or HTTPS,
// run the backup schedule, and shut down cleanly.
import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import type { Sql } from '../store/postgres/connection.js';
import { IDEMPOTENCY_KEY_TTL_MS } from 'roundtable-shared';
import { DEFAULT_PROJECT } from 'roundtable-shared';
import type { Catalog } from '../agents/catalog.js';
import { AgentRegistry } from '../agents/registry.js';
import { newestBackupAgeMs, takeBackup } from '../store/backup.js';
import { openCatalogPool } from '../store/postgres/catalog-pool.js';
import { SessionStore, type TokenResolver } from '../web/sessions.js';
import { projectFiles } from './project-files.js';
import type { ProjectRuntime } from './project.js';
import { Projects } from './projects.js';
import { addAgent, agentsFileTarget } from '../agents/editing.js';
import { hashToken } from '../agents/directory.js';
import { ClientDirectory } from '../oauth/clients.js';
import { AccessTokens } from '../oauth/resource.js';
import { oauthRoutes } from '../oauth/routes.js';
import { RateLimiter } from '../runtime/rate-limit.js';
import { SIGN_IN_ATTEMPTS_PER_MINUTE } from '../web/index.js';
import { createRouter, principalAsAgent } from './router.js';
import type { Config } from '../runtime/config.js';
import { plainHttpExposure } from './exposure.js';
import { log } from '../runtime/log.js';
import { describeDatabase } from '../store/open.js';
import { listenFailure } from './port-check.js';
import { recordLockAddress } from '../runtime/db-lock.js';
import { excludeDaemonFiles } from './git-exclude.js';

const FIRST_BACKUP_DELAY_MS = 10_000;
const KEEP_ALIVE_MS = 75_000;

export interface RunningBoard {
  readonly url: string;
  readonly port: number;
  /** SIGHUP: re-reads agents.json, and the TLS certificate and key when serving HTTPS. */
  reload(): void;
  /** Stops everything, the database last; answers what was stopped (a rejection: the database did not close cleanly). */
  close(): Promise<ShutdownSummary>;
}

/** What closing the board ended, for the line that says so. */
export interface ShutdownSummary {
  /** The page's event streams that were open. */
  readonly streams: number;
  /** Agents' parked waits (wait_for_activity), answered at once. */
  readonly waits: number;
  /** Requests that were still being answered and were finished first. */
  readonly requests: number;
  /** "SQLite /path/roundtable.db" or "PostgreSQL postgres://db.internal/roundtable" (never a password). */
  readonly database: string;
}

/** A renewed certificate applies to new connections without a restart; a broken pair is logged and the old one kept. */
function reloadCertificate(server: ServerType, tls: NonNullable<Config['tls']>): void {
  try {
    const context = { cert: readFileSync(tls.certPath), key: readFileSync(tls.keyPath) };
    (server as unknown as { setSecureContext(options: typeof context): void }).setSecureContext(context);
    log.info('TLS certificate reloaded', { cert: tls.certPath });
  } catch (error) {
    log.error('TLS certificate reload failed; keeping the one in use', { cert: tls.certPath, problem: (error as Error).message });
  }
}

/** Counts requests still being answered, so shutdown knows when the connections left are only idle or abandoned ones. */
function trackInFlight(server: ServerType): { readonly count: number; drained(): Promise<void> } {
  let count = 0;
  const waiting: Array<() => void> = [];
  server.on('request', (_req: IncomingMessage, res: ServerResponse) => {
    count++;
    res.once('close', () => {
      count--;
      if (count === 0) for (const resolve of waiting.splice(0)) resolve();
    });
  });
  return {
    get count() {
      return count;
    },
    drained: () => (count === 0 ? Promise.resolve() : new Promise<void>((resolve) => waiting.push(resolve))),
  };
}

/** The agents table as the registry's source, filled from agents.json first if it is empty (docs/DECISIONS.md). */
async function agentsFromDatabase(pg: Sql, agentsFile: string, onReloaded: (previous: Catalog, current: Catalog) => void): Promise<AgentRegistry> {
  const { agentsTableSource, prepareAgentsTable } = await import('../agents/table.js');
  await prepareAgentsTable(pg, agentsFile);
  return AgentRegistry.fromSource(agentsTableSource(pg), onReloaded);
}

/** The daemon's sign-in resolves any token of the catalog; one resolver per catalog, so sessions re-resolve on reload. */
function catalogResolver(catalog: () => Catalog): () => TokenResolver {
  const resolvers = new WeakMap<Catalog, TokenResolver>();
  return () => {
    const current = catalog();
    let resolver = resolvers.get(current);
    if (!resolver) {
      resolver = {
        findByTokenHash(hash) {
          const principal = current.findByTokenHash(hash);
          return principal && principalAsAgent(current, principal);
        },
      };
      resolvers.set(current, resolver);
    }
    return resolver;
  };
}

/** Dynamic client registrations per client address and minute (opencode registers twice per sign-in). */
const REGISTRATIONS_PER_MINUTE = 20;

export async function startBoard(config: Config): Promise<RunningBoard> {
  let projects: Projects | undefined;
  const onReloaded = (previous: Catalog, current: Catalog) => projects?.reloaded(previous, current);
  // SQLite: agents.json, checked before the database is opened. PostgreSQL: the agents table, once the database is open.
  const fileRegistry = config.databaseUrl ? undefined : AgentRegistry.fromFile(config.agentsConfigPath, onReloaded);
  const tls = config.tls ? { cert: readFileSync(config.tls.certPath), key: readFileSync(config.tls.keyPath) } : undefined;
  // PostgreSQL: the catalog lives in the database, read through a pool of its own before any project opens.
  const catalogPool = config.databaseUrl ? await openCatalogPool(config.databaseUrl, { requestMs: config.deadlines.callMs, statementMs: config.deadlines.statementMs, poolWaitMs: config.deadlines.poolWaitMs }) : undefined;
  let registry: AgentRegistry;
  try {
    registry = fileRegistry ?? (await agentsFromDatabase(catalogPool!.sql, config.agentsConfigPath, onReloaded));
  } catch (error) {
    await catalogPool?.close();
    throw error;
  }
  for (const name of registry.catalog().plaintextTokens) {
    log.warn('agents.json holds a plaintext token; replace it with token_sha256 (roundtable agents rotate NAME)', { file: config.agentsConfigPath, agent: name });
  }
  const sessions = new SessionStore({ agents: catalogResolver(registry.catalog), shared: catalogPool?.sessions });
  projects = new Projects({ config, catalog: registry.catalog, sessions, sharedSessions: catalogPool?.sessions });
  try {
    await projects.start();
  } catch (error) {
    await registry.close();
    await catalogPool?.close();
    throw error;
  }
  const opened = projects.get(DEFAULT_PROJECT)?.opened;
  // The lock file now exists; the board's files are kept out of a repository they sit in (docs/DECISIONS.md, issue 31).
  const excluded = excludeDaemonFiles(config);
  if (excluded.length) log.info("added the board's own files to the git repository's info/exclude, so they are never committed", { patterns: excluded.length });
  // A removed or rotated token ends its parked waits at once, with a 401, rather than answering counts later.
  registry.onRevoked((revoked) => projects!.revoke(revoked));
  const running = projects;
  const oauth = oauthRoutes({
    config,
    project: (slug) => {
      const runtime = running.get(slug);
      return runtime && { oauth: runtime.opened.oauth, store: runtime.opened.store, events: runtime.events };
    },
    catalog: registry.catalog,
    sessions,
    clients: new ClientDirectory(config.oauth.allowLoopback),
    addAgent: async (slug, name, role) => {
      const target = catalogPool ? (await import('../agents/table.js')).agentsTableOn(catalogPool.sql) : agentsFileTarget(config.agentsConfigPath);
      // The token is never shown: the app acts through its grant; `roundtable agents rotate` would give it one.
      const token = await addAgent(target, { name, role, skills: [], project: slug });
      await registry.reload('an app was granted access as a new agent');
      return hashToken(token);
    },
    limiter: new RateLimiter({ perMinute: SIGN_IN_ATTEMPTS_PER_MINUTE }),
    registrations: new RateLimiter({ perMinute: REGISTRATIONS_PER_MINUTE }),
  });
  const app = createRouter({ config, projects, catalog: registry.catalog, sessions, sharedSessions: catalogPool !== undefined, oauth, accessTokens: new AccessTokens() });

  const server: ServerType = await new Promise((resolve, reject) => {
    const s = serve(
      {
        fetch: app.fetch,
        hostname: config.host,
        port: config.port,
        ...(tls && { createServer: createHttpsServer, serverOptions: tls }),
      },
      () => resolve(s),
    );
    s.once('error', (error: NodeJS.ErrnoException) => {
      // Taken since `start` checked it (or never checked, by `run`): the message names the port all the same.
      void projects!.close().then(() => catalogPool?.close()).finally(() => reject(listenFailure(error, config.host, config.port)));
    });
  });
  const inFlight = trackInFlight(server);
  // Idle keep-alive connections stay open longer than a reverse proxy keeps its own (nginx: 60 s), so the proxy never
  // reuses a connection the daemon has just closed (a 502 for a POST it will not retry). Clients that keep sockets
  // shorter than the server advertises (fetch: 4 s by default) also race it less on a loaded machine.
  const http = server as unknown as { keepAliveTimeout: number; headersTimeout: number };
  http.keepAliveTimeout = KEEP_ALIVE_MS;
  http.headersTimeout = KEEP_ALIVE_MS + 1000;
  const port = (server.address() as AddressInfo).port;
  const shownHost = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `${tls ? 'https' : 'http'}://${shownHost}:${port}`;
  registry.watch();
  // `roundtable status` finds the board of this folder's database by its lock (PostgreSQL boards have none: DECISIONS, issue 31).
  if (!config.databaseUrl) recordLockAddress(config.dbPath, url);
  const exposure = plainHttpExposure(config);
  if (exposure) log.warn('listening beyond loopback without TLS: tokens cross the network in clear', { address: exposure.address, fix: exposure.fix });

  const timers: NodeJS.Timeout[] = [];
  // Idempotency keys are honoured for 24 hours; older responses are dropped hourly, in every project.
  timers.push(
    setInterval(() => {
      const before = new Date(Date.now() - IDEMPOTENCY_KEY_TTL_MS).toISOString();
      for (const runtime of projects!.all) {
        runtime.opened.store.purgeResponses(before).catch((error: unknown) => log.error('purging idempotency keys failed', { project: runtime.slug, error: String(error) }));
      }
    }, 60 * 60_000),
  );
  // On PostgreSQL the database is backed up with PostgreSQL's own tools (pg_dump, base backups): see docs/DEPLOY.md.
  if (config.backup.intervalMs > 0 && !config.databaseUrl) timers.push(...scheduleBackups(config, projects));
  for (const timer of timers) timer.unref();

  return {
    url,
    port,
    reload() {
      void registry.reload('SIGHUP');
      if (config.tls) reloadCertificate(server, config.tls);
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      const { waits, streams } = projects!.quiesce();
      // Counted after the waits and streams are answered: what is left was mid-way through its work.
      const requests = Math.max(0, inFlight.count - waits - streams);
      await registry.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Idle keep-alive connections would hold close() open; in-flight requests still finish. Once none is left,
        // close every connection: a client that gave up on a request mid-way can leave its socket open for seconds.
        (server as unknown as { closeIdleConnections?: () => void }).closeIdleConnections?.();
        void inFlight.drained().then(() => (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.());
      });
      try {
        await projects!.close();
      } finally {
        await catalogPool?.close();
      }
      return { streams, waits, requests, database: config.databaseUrl ? `PostgreSQL ${describeDatabase(config)}` : `SQLite ${config.dbPath}` };
    },
  };
}

/** Each project's SQLite file backed up on the interval, in its own folder; one soon after start where none is recent. */
function scheduleBackups(config: Config, projects: Projects): NodeJS.Timeout[] {
  const running = new Set<string>();
  const backup = async (runtime: ProjectRuntime) => {
    if (running.has(runtime.slug) || !runtime.opened.sqlite) return;
    running.add(runtime.slug);
    try {
      const outcome = await takeBackup(runtime.opened.sqlite, projectFiles(config, runtime.slug).backup);
      if (outcome.taken) log.info('backup taken', { project: runtime.slug, file: outcome.file, bytes: outcome.bytes, pruned: outcome.pruned.length });
      else log.warn('backup skipped', { project: runtime.slug, reason: outcome.reason });
    } catch (error) {
      log.error('backup failed', { project: runtime.slug, error: (error as Error).message });
    } finally {
      running.delete(runtime.slug);
    }
  };
  const all = () => {
    for (const runtime of projects.all) void backup(runtime);
  };
  const timers = [setInterval(all, config.backup.intervalMs)];
  // A board whose newest backup is older than one interval (or that has none) gets one soon after start.
  const stale = projects.all.filter((runtime) => newestBackupAgeMs(projectFiles(config, runtime.slug).backup.dir) > config.backup.intervalMs);
  if (stale.length) timers.push(setTimeout(() => stale.forEach((runtime) => void backup(runtime)), FIRST_BACKUP_DELAY_MS));
  return timers;
}
