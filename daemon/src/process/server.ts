// Starting and stopping the board: lock and open the store, load agents, listen over HTTP or HTTPS,
// run the backup schedule, and shut down cleanly.
import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import type { Sql } from '../store/postgres/connection.js';
import { IDEMPOTENCY_KEY_TTL_MS } from 'roundtable-shared';
import type { AgentDirectory } from '../agents/directory.js';
import { AgentRegistry } from '../agents/registry.js';
import { createApp } from './app.js';
import { newestBackupAgeMs, takeBackup } from '../store/backup.js';
import { Board } from '../board/board.js';
import { Leases } from '../board/leases.js';
import { claimersChanged } from '../board/claimability.js';
import { losersOfClaims } from '../board/rules.js';
import { PathReservations } from '../board/reservations.js';
import { Presence } from '../board/presence.js';
import { Room } from '../board/room.js';
import { LocalEventBus } from '../events.js';
import { ToolDispatcher } from '../board/dispatch.js';
import type { Config } from '../runtime/config.js';
import { plainHttpExposure } from './exposure.js';
import { log } from '../runtime/log.js';
import { RateLimiter } from '../runtime/rate-limit.js';
import { describeDatabase, openStore } from '../store/open.js';
import { listenFailure } from './port-check.js';
import { recordLockAddress } from '../runtime/db-lock.js';
import { DeliveryWorker } from '../webhooks/worker.js';
import { excludeDaemonFiles } from './git-exclude.js';
import { DEFAULT_RETRY } from '../webhooks/backoff.js';
import { cachedSecrets, secretsPathBeside } from '../webhooks/secret-file.js';

/** Several daemons on one database: each reads the earliest lease expiry again at least this often. */
const SHARED_LEASE_RECHECK_MS = 5_000;

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
async function agentsFromDatabase(pg: Sql, agentsFile: string, onReloaded: (previous: AgentDirectory, current: AgentDirectory) => void): Promise<AgentRegistry> {
  const { agentsTableSource, prepareAgentsTable } = await import('../agents/table.js');
  await prepareAgentsTable(pg, agentsFile);
  return AgentRegistry.fromSource(agentsTableSource(pg), onReloaded);
}

export async function startBoard(config: Config): Promise<RunningBoard> {
  // The claims of an agent that is removed, or whose new role does not claim, go back to the pool: revoking strands no work.
  let releaseHeldBy: (name: string, why: string) => Promise<number[]> = async () => [];
  // Live pages read the state again when who may claim what changed (a task may have become claimable, or not).
  let announce: (agent: string) => void = () => undefined;
  const onReloaded = (previous: AgentDirectory, current: AgentDirectory) => {
    for (const name of claimersChanged(previous, current)) announce(name);
    for (const { name, why } of losersOfClaims(previous, current)) {
      releaseHeldBy(name, why).then(
        (ids) => ids.length && log.info('released the tasks of an agent that may no longer hold them', { agent: name, task_ids: ids }),
        (error: unknown) => log.error('releasing the tasks of an agent failed', { agent: name, error: String(error) }),
      );
    }
  };
  // SQLite: agents.json, checked before the database is opened. PostgreSQL: the agents table, once the database is open.
  const fileRegistry = config.databaseUrl ? undefined : AgentRegistry.fromFile(config.agentsConfigPath, onReloaded);
  const tls = config.tls ? { cert: readFileSync(config.tls.certPath), key: readFileSync(config.tls.keyPath) } : undefined;
  const opened = await openStore(config, { webhookSecrets: cachedSecrets(secretsPathBeside(config.agentsConfigPath)) });
  // The lock file now exists; the board's files are kept out of a repository they sit in (docs/DECISIONS.md, issue 31).
  const excluded = excludeDaemonFiles(config);
  if (excluded.length) log.info("added the board's own files to the git repository's info/exclude, so they are never committed", { patterns: excluded.length });
  let registry: AgentRegistry;
  try {
    registry = fileRegistry ?? (await agentsFromDatabase(opened.pg!, config.agentsConfigPath, onReloaded));
  } catch (error) {
    await opened.close();
    throw error;
  }
  for (const name of registry.directory().plaintextTokenAgents) {
    log.warn('agents.json holds a plaintext token; replace it with token_sha256 (roundtable agents rotate NAME)', { file: config.agentsConfigPath, agent: name });
  }
  const { store } = opened;
  // One daemon: events stay in the process. Several on PostgreSQL: they also travel by LISTEN/NOTIFY.
  const events = opened.shared?.events ?? new LocalEventBus();
  announce = (agent) => events.publish({ type: 'presence', agent });
  // Several daemons: an event lost with a daemon that died must not leave a lease unswept for long (leases.ts).
  const leases = new Leases({ store, events, ttlMs: config.leaseTtlMs, ...(opened.shared && { recheckMs: SHARED_LEASE_RECHECK_MS }) });
  const deps = { store, agents: registry.directory, boardName: config.boardName, events, leases };
  // Several daemons: who waits where is shared through the database too (members through any daemon shows it).
  const presence = new Presence(deps, opened.shared?.waiting);
  // A removed or rotated token ends its parked waits at once, with a 401, rather than answering counts later.
  registry.onRevoked((names) => presence.waiters.revoke(names));
  const board = new Board(deps);
  releaseHeldBy = (name, why) => board.releaseHeldBy(name, why);
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
    publicUrl: config.publicUrl,
    retry: { ...DEFAULT_RETRY, baseMs: config.webhooks.retryBaseMs, maxAttempts: config.webhooks.maxAttempts },
    timeoutMs: config.webhooks.timeoutMs,
  });
  const { app, web } = createApp({ config, store, agents: registry.directory, dispatcher, leases, events, view: { board, room, presence }, sharedSessions: opened.shared?.sessions });

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
      void webhooks.close(0).then(() => opened.close()).finally(() => reject(listenFailure(error, config.host, config.port)));
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
  if (opened.sqlite) recordLockAddress(config.dbPath, url);
  const exposure = plainHttpExposure(config);
  if (exposure) log.warn('listening beyond loopback without TLS: tokens cross the network in clear', { address: exposure.address, fix: exposure.fix });

  const timers: NodeJS.Timeout[] = [];
  // Idempotency keys are honoured for 24 hours; older responses are dropped hourly.
  timers.push(
    setInterval(() => {
      store.purgeResponses(new Date(Date.now() - IDEMPOTENCY_KEY_TTL_MS).toISOString()).catch((error: unknown) => log.error('purging idempotency keys failed', { error: String(error) }));
    }, 60 * 60_000),
  );
  let backupRunning = false;
  const backup = async () => {
    if (backupRunning) return;
    backupRunning = true;
    try {
      const outcome = await takeBackup(opened.sqlite!, config.backup);
      if (outcome.taken) log.info('backup taken', { file: outcome.file, bytes: outcome.bytes, pruned: outcome.pruned.length });
      else log.warn('backup skipped', { reason: outcome.reason });
    } catch (error) {
      log.error('backup failed', { error: (error as Error).message });
    } finally {
      backupRunning = false;
    }
  };
  // On PostgreSQL the database is backed up with PostgreSQL's own tools (pg_dump, base backups): see docs/DEPLOY.md.
  if (config.backup.intervalMs > 0 && opened.sqlite) {
    timers.push(setInterval(() => void backup(), config.backup.intervalMs));
    // A board whose newest backup is older than one interval (or that has none) gets one soon after start.
    if (newestBackupAgeMs(config.backup.dir) > config.backup.intervalMs) timers.push(setTimeout(() => void backup(), FIRST_BACKUP_DELAY_MS));
  }
  for (const timer of timers) timer.unref();

  return {
    url,
    port,
    reload() {
      void registry.reload('SIGHUP');
      if (config.tls) reloadCertificate(server, config.tls);
    },
    async close() {
      for (const timer of timers) clearInterval(timer);
      leases.close();
      const waits = presence.waiters.count;
      presence.waiters.close();
      const streams = web.close();
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
      await webhooks.close();
      await opened.close();
      return { streams, waits, requests, database: config.databaseUrl ? `PostgreSQL ${describeDatabase(config)}` : `SQLite ${config.dbPath}` };
    },
  };
}
