// The PostgreSQL connection pool (node-postgres) and the only ways the store reaches the database: one query, or one
// BEGIN ... COMMIT; each with a deadline, each retried when that is safe, every failure of the connection an Unavailable.
import pg from 'pg';
import { Unavailable } from '../../errors.js';
import { callDeadline, usesCallDeadlines } from '../call-deadline.js';
import { log } from '../../runtime/log.js';
import { connectionFailure, cutConnection, isRetryable, isReadOnly, statementCancelled, type ConnectionFailure } from './failures.js';
import { Listener, type ListenHandle } from './listener.js';

export type Row = Record<string, unknown>;
/** Rows as an array, with the number of rows the statement touched (an UPDATE's or DELETE's count). */
export type Rows<T> = T[] & { readonly count: number };

/**
 * What the store's concerns query through, the pool or a transaction alike: a tagged template (each value a parameter,
 * the statement prepared once per connection) or `unsafe` for text built in code (with its own parameters).
 */
export interface Db {
  <T extends readonly object[] = Row[]>(strings: TemplateStringsArray, ...values: readonly unknown[]): Promise<Rows<T[number]>>;
  unsafe<T extends readonly object[] = Row[]>(text: string, params?: readonly unknown[], options?: { readonly prepare?: boolean }): Promise<Rows<T[number]>>;
}
export type Tx = Db;

/** How long the store may wait for PostgreSQL (config.ts: ROUNDTABLE_DB_*). */
export interface Deadlines {
  /** One store call (a query or a whole transaction, waiting for a connection included). */
  readonly requestMs: number;
  /** PostgreSQL's statement_timeout: the server cancels a statement running longer. */
  readonly statementMs: number;
  /** Waiting for a pooled connection, or for a new one to be made. */
  readonly poolWaitMs: number;
}

export const DEFAULT_DEADLINES: Deadlines = { requestMs: 10_000, statementMs: 5_000, poolWaitMs: 5_000 };
/** Migrations and `roundtable migrate` copy whole tables: no statement timeout, a day for the transaction. */
export const MAINTENANCE_DEADLINES: Deadlines = { requestMs: 24 * 3_600_000, statementMs: 0, poolWaitMs: 30_000 };

/**
 * A project's schema (issue 33): every statement of a scoped Sql runs with `search_path` set to it alone; undefined is
 * the database's own path (the public schema: the catalog and the project `default`).
 */
export type Schema = string | undefined;

/** An identifier in double quotes, for text built in code (schema and channel names). */
export const quoteIdent = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/**
 * A NOTIFY channel of one project: the public schema keeps today's names; another project's are prefixed with its
 * schema, so one project's events never wake another's listeners.
 */
export function channelIn(schema: Schema, base: string): string {
  return schema === undefined ? base : `${schema}.${base.replace(/^roundtable_/, '')}`;
}

export interface PoolOptions {
  readonly url: string;
  /** Connections in the pool; LISTEN takes one more of its own. */
  readonly max?: number;
  readonly deadlines?: Deadlines;
}

/** How long a transaction may wait for its daemon before PostgreSQL ends it (and frees its locks). */
export const IDLE_IN_TRANSACTION_MS = 30_000;
/** A call whose connection broke before its commit was sent runs again on a fresh one, this many times at most. */
const ATTEMPTS = 4;
/** How long closing waits for connections to say goodbye before it cuts them (a stalled network never answers). */
const END_GRACE_MS = 1_000;

/** COUNT(*) and other bigints arrive as numbers: every count and id on a board fits in 2^53. */
const INT8 = 20;
const INT8_ARRAY = 1016;
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8) return (value: string) => Number(value);
    if (oid === INT8_ARRAY) return (value: string) => (pg.types.getTypeParser(INT8_ARRAY as never, 'text')(value) as string[]).map(Number);
    return pg.types.getTypeParser(oid, format ?? 'text');
  },
};

/** Each tagged template's text, by its strings (one array per call site), with `$n` for each value. */
const templates = new WeakMap<TemplateStringsArray, string>();
function textOf(strings: TemplateStringsArray): string {
  let text = templates.get(strings);
  if (text === undefined) {
    text = strings.reduce((joined, part, i) => `${joined}$${i}${part}`);
    templates.set(strings, text);
  }
  return text;
}

/** Prepared statements are named by their text, the same name on every connection of this process. */
const statementNames = new Map<string, string>();
function statementName(text: string): string {
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `rt${statementNames.size + 1}`;
    statementNames.set(text, name);
  }
  return name;
}

function rowsOf(result: pg.QueryResult | pg.QueryResult[]): Rows<Row> {
  // Text with several statements (a migration file) answers with one result per statement: the last one counts.
  const last = Array.isArray(result) ? result[result.length - 1] : result;
  return Object.assign(last?.rows ?? [], { count: last?.rowCount ?? 0 });
}

function makeDb(run: (text: string, params: readonly unknown[], prepare: boolean) => Promise<Rows<Row>>): Db {
  const db = ((strings: TemplateStringsArray, ...values: readonly unknown[]) => run(textOf(strings), values, true)) as Db;
  db.unsafe = ((text: string, params: readonly unknown[] = [], options?: { readonly prepare?: boolean }) => run(text, params, options?.prepare ?? false)) as Db['unsafe'];
  return db;
}

/** A connection's search_path while a change of it is unanswered (no schema has this name). */
const UNKNOWN_PATH = '\0';

/** A connection from the pool, lent to one store call until its deadline: past it, the connection is cut. */
class Lease {
  private timer: NodeJS.Timeout;
  private timedOut = false;
  private broken = false;
  private readonly onBroken = () => (this.broken = true);
  /** The `search_path` change sent ahead of the first statement, answered with it. */
  private pathSet: Promise<unknown> | undefined;

  constructor(
    readonly client: pg.PoolClient,
    deadline: number,
    paths: WeakMap<pg.PoolClient, string>,
    schema: Schema,
  ) {
    client.on('error', this.onBroken);
    client.on('end', this.onBroken);
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.cut();
    }, Math.max(0, deadline - Date.now()));
    // One pool serves every project of the daemon: a connection last used by another project gets this one's path
    // first, sent with the first statement (no round trip of its own). Statements are prepared by text on each
    // connection, and PostgreSQL plans a prepared statement again when the path it was planned under changes.
    const path = schema ?? '';
    if ((paths.get(client) ?? '') !== path) {
      // Until it is answered, the path is unknown: a failed change is sent again by the next lease, whatever its schema.
      paths.set(client, UNKNOWN_PATH);
      this.pathSet = client.query(schema === undefined ? 'RESET search_path' : `SET search_path TO ${quoteIdent(schema)}`).then(() => paths.set(client, path));
    }
  }

  query(text: string, params: readonly unknown[], prepare: boolean): Promise<Rows<Row>> {
    const config: pg.QueryConfig = { text, values: params as unknown[] };
    if (prepare) config.name = statementName(text);
    const rows = this.client.query(config).then(rowsOf);
    const pathSet = this.pathSet;
    if (pathSet === undefined) return rows;
    this.pathSet = undefined;
    // A path that could not be set fails the call: its statement may have run where it does not belong.
    return Promise.all([pathSet, rows]).then(([, r]) => r);
  }

  /** Why `error` came, when it was the connection rather than the statement. */
  failure(error: unknown): ConnectionFailure | undefined {
    if (this.timedOut) return 'deadline';
    if (this.broken) return 'unreachable';
    return connectionFailure(error);
  }

  /** Back to the pool, or closed for good when it failed (a connection in an unknown state is never reused). */
  release(failed: boolean): void {
    clearTimeout(this.timer);
    this.client.off('error', this.onBroken);
    this.client.off('end', this.onBroken);
    if (failed) this.cut();
    this.client.release(failed ? new Error('connection failed') : undefined);
  }

  private cut(): void {
    cutConnection(this.client);
  }
}

export class Pool {
  readonly db: Db;
  private readonly pool: pg.Pool;
  /** The search_path each connection was last given ('' or none: the database's own). */
  private readonly paths = new WeakMap<pg.PoolClient, string>();
  private readonly clients = new Set<pg.Client>();
  private listener: Listener | undefined;

  constructor(
    private readonly options: PoolOptions,
    readonly deadlines: Deadlines = options.deadlines ?? DEFAULT_DEADLINES,
  ) {
    usesCallDeadlines();
    this.pool = new pg.Pool({
      connectionString: options.url,
      max: options.max ?? 10,
      connectionTimeoutMillis: deadlines.poolWaitMs,
      application_name: 'roundtable',
      statement_timeout: deadlines.statementMs,
      // A daemon never leaves a transaction waiting on itself; one whose machine vanished mid-transaction (no reset sent)
      // would otherwise hold its row locks until TCP keepalive notices, hours later. PostgreSQL ends it after this.
      idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_MS,
      keepAlive: true,
      // The statements of one transaction go out together (one round trip for BEGIN and the first statement, for a
      // write's audit row and idempotency record), each still answered on its own.
      pipeline: true,
      types,
    } as pg.PoolConfig);
    // node-postgres reports a broken idle connection as an 'error' on the pool, and one that is lent out as an 'error'
    // on the client: unheard, either would end the process. The pool has already dropped the connection; the call
    // using it gets its own error.
    this.pool.on('error', (error) => log.warn('a pooled database connection failed; it is replaced', { error: error.message }));
    this.pool.on('connect', (client) => {
      this.clients.add(client);
      client.on('error', () => {});
      client.once('end', () => this.clients.delete(client));
    });
    this.db = this.dbIn(undefined);
  }

  /** A Db whose every statement runs in `schema`. */
  dbIn(schema: Schema): Db {
    return makeDb((text, params, prepare) => this.query(text, params, prepare, schema));
  }

  /** When a store operation starting now must be over: its own bound, or its call's if that comes first. */
  private deadline(): number {
    return Math.min(Date.now() + this.deadlines.requestMs, callDeadline() ?? Number.POSITIVE_INFINITY);
  }

  /** Lends a connection until `deadline`; Unavailable (nothing was sent) when none comes in time. */
  private async lease(deadline: number, schema: Schema): Promise<Lease> {
    if (Date.now() >= deadline) throw new Unavailable('deadline', 'no');
    const connecting = this.pool.connect();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), Math.max(0, deadline - Date.now()))));
    try {
      const client = await Promise.race([connecting, late]);
      if (client === 'late') {
        // It may still come: then it goes straight back.
        connecting.then((c) => c.release(), () => {});
        throw new Unavailable('deadline', 'no');
      }
      return new Lease(client, deadline, this.paths, schema);
    } catch (error) {
      if (error instanceof Unavailable) throw error;
      throw new Unavailable('unreachable', 'no', { cause: error });
    } finally {
      clearTimeout(timer);
    }
  }

  /** One statement on its own (autocommit). A read whose connection broke runs again; a write's outcome is then unknown. */
  private async query(text: string, params: readonly unknown[], prepare: boolean, schema: Schema): Promise<Rows<Row>> {
    const deadline = this.deadline();
    for (let attempt = 1; ; attempt++) {
      const lease = await this.lease(deadline, schema);
      try {
        const rows = await lease.query(text, params, prepare);
        lease.release(false);
        return rows;
      } catch (error) {
        const failure = lease.failure(error);
        lease.release(failure !== undefined);
        if (failure === undefined) {
          if (statementCancelled(error)) throw new Unavailable('deadline', 'no');
          throw error;
        }
        const read = isReadOnly(text);
        if (read && failure === 'unreachable' && attempt < ATTEMPTS && Date.now() < deadline) continue;
        throw new Unavailable(failure, read ? 'no' : 'unknown');
      }
    }
  }

  /**
   * Runs `body` in one transaction (`mode`: e.g. 'ISOLATION LEVEL REPEATABLE READ READ ONLY'). The body may run more
   * than once: after a deadlock between daemons, or when the connection broke before COMMIT was sent (nothing of it
   * stands then); so it must be a pure function of what it reads inside the transaction, as the board's rules are.
   */
  begin<T>(modeOrBody: string | ((tx: Tx) => Promise<T>), maybeBody?: (tx: Tx) => Promise<T>): Promise<T> {
    return this.beginIn(undefined, modeOrBody, maybeBody);
  }

  /** `begin` in `schema`. */
  async beginIn<T>(schema: Schema, modeOrBody: string | ((tx: Tx) => Promise<T>), maybeBody?: (tx: Tx) => Promise<T>): Promise<T> {
    const mode = typeof modeOrBody === 'string' ? modeOrBody : '';
    const body = typeof modeOrBody === 'string' ? maybeBody! : modeOrBody;
    const deadline = this.deadline();
    for (let attempt = 1; ; attempt++) {
      const lease = await this.lease(deadline, schema);
      const tx = makeDb((text, params, prepare) => lease.query(text, params, prepare));
      let committing = false;
      try {
        // Not awaited alone: BEGIN goes out with the body's first statement.
        const begun = lease.query(mode ? `BEGIN ${mode}` : 'BEGIN', [], false);
        begun.catch(() => {});
        const result = await body(tx);
        await begun;
        committing = true;
        await lease.query('COMMIT', [], false);
        lease.release(false);
        return result;
      } catch (error) {
        const failure = lease.failure(error);
        if (failure !== undefined) {
          lease.release(true);
          if (failure === 'unreachable' && !committing && attempt < ATTEMPTS && Date.now() < deadline) continue;
          throw new Unavailable(failure, committing ? 'unknown' : 'no');
        }
        // The statement (or the rule) refused: roll back and hand the connection back, or drop it if even that fails.
        const rolledBack = await lease.query('ROLLBACK', [], false).then(() => true, () => false);
        lease.release(!rolledBack);
        if (isRetryable(error) && attempt < ATTEMPTS + 1 && Date.now() < deadline) continue;
        if (statementCancelled(error)) throw new Unavailable('deadline', 'no');
        throw error;
      }
    }
  }

  /** Calls `onNotify` for each NOTIFY on `channel`; `onListen` each time the listening connection (re)connects. */
  listen(channel: string, onNotify: (payload: string) => void, onListen?: () => void): Promise<ListenHandle> {
    this.listener ??= new Listener({ url: this.options.url, connectMs: this.deadlines.poolWaitMs, types });
    return this.listener.listen(channel, onNotify, onListen);
  }

  async notify(channel: string, payload: string): Promise<void> {
    await this.db`SELECT pg_notify(${channel}, ${payload})`;
  }

  /** Closes every connection: gracefully within `timeout` seconds, then by cutting whatever is left. */
  async end(options: { readonly timeout?: number } = {}): Promise<void> {
    const graceMs = (options.timeout ?? END_GRACE_MS / 1000) * 1000;
    await this.listener?.close();
    let timer: NodeJS.Timeout | undefined;
    const ended = this.pool.end().catch(() => {});
    await Promise.race([ended, new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
    for (const client of this.clients) cutConnection(client);
    await ended;
  }
}

/**
 * The pool and its Db: `sql\`...\``, `sql.unsafe(...)`, `sql.begin(...)`, as the store's concerns call them; scoped to one
 * project's schema (`schema`; undefined: the public one), with that project's NOTIFY channels (`channel`).
 */
export type Sql = Db & {
  readonly pool: Pool;
  readonly schema: Schema;
  begin: Pool['begin'];
  listen: Pool['listen'];
  notify: Pool['notify'];
  end: Pool['end'];
  /** This project's name for a NOTIFY channel. */
  channel(base: string): string;
  /** The same pool scoped to another schema (its connections shared). */
  scoped(schema: Schema): Sql;
};

function sqlOf(pool: Pool, schema: Schema): Sql {
  return Object.assign(pool.dbIn(schema), {
    pool,
    schema,
    begin: ((modeOrBody: string | ((tx: Tx) => Promise<unknown>), maybeBody?: (tx: Tx) => Promise<unknown>) => pool.beginIn(schema, modeOrBody, maybeBody)) as Pool['begin'],
    listen: pool.listen.bind(pool),
    notify: pool.notify.bind(pool),
    end: pool.end.bind(pool),
    channel: (base: string) => channelIn(schema, base),
    scoped: (other: Schema) => sqlOf(pool, other),
  });
}

export function openPool(options: PoolOptions & { readonly schema?: Schema }): Sql {
  return sqlOf(new Pool(options), options.schema);
}

/** Runs `body` in one transaction, retried as Pool.begin says. */
export function transaction<T>(sql: Sql, body: (tx: Tx) => Promise<T>): Promise<T> {
  return sql.begin(body);
}

/** A number from a row (ids and counts arrive as numbers or, for bigint, as strings). */
export const num = (value: unknown): number => Number(value);
