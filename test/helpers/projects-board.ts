// A daemon serving several projects for tests: agents.json in the catalog's spelling (projects and people), each
// project's URL, and a read-only view of one project's stored board (every table, and its event log) on either store.
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { startBoard, token, type AgentSpec, type TestBoard } from './board.js';
import { connectTo, createTestDatabase } from './postgres.js';
import type { StoreKind } from './stores.js';

export interface ProjectSpec {
  readonly slug: string;
  readonly mode?: 'role' | 'peer';
  readonly agents: readonly AgentSpec[];
}

export interface PersonSpec {
  readonly name: string;
  readonly grants: Readonly<Record<string, 'owner' | 'observer'>>;
}

export interface ProjectsBoard extends TestBoard {
  readonly store: StoreKind;
  /** The board as seen at one project's prefix: pass it to api() or mcpClient() to call /p/SLUG/... */
  at(slug: string): TestBoard;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** agents.json's second spelling (agents/catalog.ts), every token stored as its hash. */
export function writeCatalogFile(path: string, projects: readonly ProjectSpec[], people: readonly PersonSpec[], tokens: Record<string, string>): void {
  const file = {
    projects: projects.map((p) => ({
      slug: p.slug,
      mode: p.mode ?? 'role',
      agents: p.agents.map((a) => ({ name: a.name, role: a.role, skills: a.skills ?? [], token_sha256: sha256(tokens[a.name]!) })),
    })),
    people: people.map((p) => ({ name: p.name, token_sha256: sha256(tokens[p.name]!), grants: p.grants })),
  };
  writeFileSync(path, JSON.stringify(file), { mode: 0o600 });
}

export function atProject(board: TestBoard, slug: string): TestBoard {
  return { ...board, url: `${board.url}/p/${slug}` };
}

/** Starts one daemon serving these projects; every agent and person gets a token of their own. */
export async function startProjectsBoard(options: { store: StoreKind; projects: readonly ProjectSpec[]; people: readonly PersonSpec[]; env?: Record<string, string> }): Promise<ProjectsBoard> {
  const dir = mkdtempSync(join(tmpdir(), 'roundtable-projects-'));
  const names = [...options.projects.flatMap((p) => p.agents.map((a) => a.name)), ...options.people.map((p) => p.name)];
  const tokens = Object.fromEntries(names.map((n) => [n, token()]));
  writeCatalogFile(join(dir, 'agents.json'), options.projects, options.people, tokens);
  const databaseUrl = options.store.name === 'postgres' ? await createTestDatabase('projects') : undefined;
  const board = await startBoard({ dir, tokens, store: options.store, databaseUrl, ...(options.env && { env: options.env }) });
  return { ...board, store: options.store, at: (slug) => atProject(board, slug) };
}

/** One table's fingerprint: how many rows, and a hash of them all (order-free: PostgreSQL promises no order). */
export interface TablePrint {
  readonly rows: number;
  readonly sha256: string;
}

/** A board's rows as the store keeps them, read beside the running daemon without changing anything. */
export interface StoredProject {
  /** Every table of the project, by name, but those `skip` names. */
  tables(skip?: ReadonlySet<string>): Promise<Record<string, TablePrint>>;
  /** Rows of one table, each as an object, in the order of `orderBy`. */
  rows(table: string, orderBy: string): Promise<Array<Record<string, unknown>>>;
  close(): Promise<void>;
}

function print(rows: unknown[][]): TablePrint {
  const lines = rows.map((row) => JSON.stringify(row, (_key, value: unknown) => (typeof value === 'bigint' ? String(value) : value instanceof Date ? value.toISOString() : value))).sort();
  return { rows: lines.length, sha256: sha256(lines.join('\n')) };
}

/** Where a SQLite project's file is (daemon/src/process/project-files.ts): `default` at the configured path, others beside it. */
export function sqlitePathOf(board: Pick<TestBoard, 'dbPath'>, slug: string): string {
  return slug === 'default' ? board.dbPath : join(dirname(board.dbPath), 'roundtable-projects', slug, 'board.db');
}

/**
 * The PostgreSQL schema of a project: `default` in public, any other in its own schema (the PostgreSQL helper's
 * design for issue 33: rt_ and the slug with "-" as "_").
 */
export function pgSchemaOf(slug: string): string {
  return slug === 'default' ? 'public' : `rt_${slug.replace(/-/g, '_')}`;
}

/** Tables of the daemon as a whole on PostgreSQL (the catalog and the sign-in sessions), not of any one project's board. */
const DAEMON_WIDE = /^(web_sessions|agents|agents_mode|schema_version|catalog_.*|projects|people|grants|person_grants)$/;

export function openStoredProject(board: ProjectsBoard | (TestBoard & { store: StoreKind }), slug: string): StoredProject {
  if (board.store.name === 'sqlite') {
    // The daemon writes in WAL mode, so a read-only connection sees every committed change.
    const db = new Database(sqlitePathOf(board, slug), { readonly: true, fileMustExist: true });
    return {
      async tables(skip = new Set()) {
        const names = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").pluck().all() as string[];
        const read = db.transaction(() => Object.fromEntries(names.filter((n) => !skip.has(n)).map((n) => [n, print(db.prepare(`SELECT * FROM "${n}"`).raw().all() as unknown[][])])));
        return read();
      },
      async rows(table, orderBy) {
        return db.prepare(`SELECT * FROM "${table}" ORDER BY ${orderBy}`).all() as Array<Record<string, unknown>>;
      },
      async close() {
        db.close();
      },
    };
  }
  const sql = connectTo(board.databaseUrl!);
  const schema = pgSchemaOf(slug);
  return {
    async tables(skip = new Set()) {
      const names = (await sql`SELECT table_name FROM information_schema.tables WHERE table_schema = ${schema} AND table_type = 'BASE TABLE' ORDER BY table_name`).map((r) => r['table_name'] as string);
      const out: Record<string, TablePrint> = {};
      await sql.begin(async (tx) => {
        await tx.unsafe('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
        for (const name of names) {
          if (skip.has(name) || (schema === 'public' && DAEMON_WIDE.test(name))) continue;
          const rows = await tx.unsafe(`SELECT * FROM "${schema}"."${name}"`);
          out[name] = print(rows.map((r: Record<string, unknown>) => Object.values(r)));
        }
      });
      return out;
    },
    async rows(table, orderBy) {
      return (await sql.unsafe(`SELECT * FROM "${schema}"."${table}" ORDER BY ${orderBy}`)) as Array<Record<string, unknown>>;
    },
    async close() {
      await sql.end({ timeout: 1 });
    },
  };
}
