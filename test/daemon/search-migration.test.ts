// The migration that adds search (SQLite 016_search, PostgreSQL 015_search) indexes the text a board already holds:
// a board written before it is migrated, then every kind of text in it is found, the room under read_log's rule.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect, it } from 'vitest';
import { readMigrations } from '../../daemon/src/store/migration-files.js';
import { migratePostgres } from '../../daemon/src/store/postgres/migrate.js';
import { search as postgresSearch } from '../../daemon/src/store/postgres/search.js';
import { sourcesOf } from '../../daemon/src/store/search-rows.js';
import { migrate } from '../../daemon/src/store/sqlite/migrate.js';
import { SqliteSearch } from '../../daemon/src/store/sqlite/search.js';
import { connectTo, createTestDatabase } from '../helpers/postgres.js';
import { describeEachStore } from '../helpers/stores.js';

const AT = '2026-01-01T00:00:00.000Z';
/** The rows of a board from before search, one of each kind of text, as SQL both stores take. */
const OLD_ROWS = [
  `INSERT INTO tasks (id, title, description, status, assignee, created_by, result, created_at, updated_at) VALUES (1, 'Old heron task', 'the ibis description', 'done', 'w1', 'lead', 'a lemur result', '${AT}', '${AT}')`,
  `INSERT INTO messages (task_id, author, kind, text, created_at) VALUES (1, 'w1', 'progress', 'an old marten message', '${AT}')`,
  `INSERT INTO reviews (task_id, reviewer, verdict, note, created_at) VALUES (1, 'lead', 'approve', 'a gecko note', '${AT}')`,
  `INSERT INTO room_messages (author, recipients, text, created_at) VALUES ('lead', 'all', 'old bison news', '${AT}')`,
  `INSERT INTO room_messages (author, recipients, text, created_at) VALUES ('lead', '["w2"]', 'old walrus secret', '${AT}')`,
  `INSERT INTO room_receipts (message_id, agent) VALUES (2, 'w2')`,
];
const WORDS = { heron: 'title', ibis: 'description', lemur: 'result', marten: 'text', gecko: 'note', bison: 'text' };

describeEachStore((store) => {
  it('a board written before search is indexed by the migration', async () => {
    const find = async (words: string[], reader: string) => {
      const query = { words, sources: sourcesOf(['tasks', 'messages', 'reviews', 'room']), reader, offset: 0, limit: 10 };
      if (store.name === 'sqlite') return new SqliteSearch(db!).search(query);
      return postgresSearch(sql!, query);
    };
    let db: Database.Database | undefined;
    let sql: ReturnType<typeof connectTo> | undefined;
    const dir = mkdtempSync(join(tmpdir(), 'rt-search-migration-'));
    try {
      if (store.name === 'sqlite') {
        db = new Database(join(dir, 'board.db'));
        db.exec('CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)');
        for (const m of readMigrations('migrations').filter((m) => m.version < 16)) {
          db.exec(m.sql);
          db.prepare('INSERT INTO schema_version (version, applied_at) VALUES (?, ?)').run(m.version, AT);
        }
        for (const row of OLD_ROWS) db.exec(row);
        expect(migrate(db)).toBeGreaterThanOrEqual(16);
      } else {
        sql = connectTo(await createTestDatabase('search_migration'));
        await sql.unsafe('CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)');
        for (const m of readMigrations('migrations-pg').filter((m) => m.version < 15)) {
          await sql.unsafe(m.sql);
          await sql.unsafe(`INSERT INTO schema_version (version, applied_at) VALUES (${m.version}, '${AT}')`);
        }
        for (const row of OLD_ROWS) await sql.unsafe(row);
        expect(await migratePostgres(sql)).toBeGreaterThanOrEqual(15);
      }
      for (const [word, field] of Object.entries(WORDS)) {
        const hits = await find([word], 'w1');
        expect(hits.map((h) => h.field), word).toEqual([field]);
      }
      expect(await find(['walrus'], 'w1')).toEqual([]);
      expect((await find(['walrus'], 'w2')).map((h) => h.kind)).toEqual(['room']);
      expect((await find(['walrus'], 'lead')).map((h) => h.kind)).toEqual(['room']);
    } finally {
      db?.close();
      await sql?.end();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
