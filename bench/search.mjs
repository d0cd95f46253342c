// Bench for search (issue 36): 100,000 tasks and 1,000,000 task messages (and 10,000 review notes and room messages)
// seeded straight into a SQLite board with the daemon's own migrations, so the FTS5 index is filled by its triggers;
// then the store's own search (daemon/dist/store/sqlite/search.js) for a one-word and a three-word query, p50 and p99,
// beside a plain LIKE scan of the same texts for the same words, in the same run. With ROUNDTABLE_BENCH_PG_URL set, the
// same board is copied into a fresh PostgreSQL database (its migrations' generated columns and GIN indexes) and measured
// with the PostgreSQL store's search. Run: `npm run build && node bench/search.mjs` (BENCH_SEARCH_TASKS,
// BENCH_SEARCH_MESSAGES, BENCH_SEARCH_QUERIES scale it down).
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { cleanupSync, createBoardDb, envInt, makeTempDir, percentiles, prng } from './harness.mjs';

const TASKS = envInt('BENCH_SEARCH_TASKS', 100_000);
const MESSAGES = envInt('BENCH_SEARCH_MESSAGES', 1_000_000);
const SIDE_ROWS = 10_000; // review notes, and room messages
const QUERIES = envInt('BENCH_SEARCH_QUERIES', 200);
const LIKE_QUERIES = envInt('BENCH_SEARCH_LIKE_QUERIES', 20);
const VOCABULARY = 20_000;
const SOURCES_ALL = [1, 2, 3, 4, 5, 6];

const rand = prng(36);
const SYLLABLES = 'ka lo mi nu pe ra si to vu ze ba de fi go hu ja ke li mo ny'.split(' ');
/** VOCABULARY distinct pseudo-words; rank 1 is the most frequent (Zipf: frequency ∝ 1 / rank). */
const vocabulary = [];
{
  const seen = new Set();
  while (vocabulary.length < VOCABULARY) {
    let w = '';
    const n = 2 + Math.floor(rand() * 3);
    for (let i = 0; i < n; i++) w += SYLLABLES[Math.floor(rand() * SYLLABLES.length)];
    if (!seen.has(w)) seen.add(w), vocabulary.push(w);
  }
}
const cumulative = new Float64Array(VOCABULARY);
{
  let total = 0;
  for (let r = 0; r < VOCABULARY; r++) cumulative[r] = total += 1 / (r + 1);
  for (let r = 0; r < VOCABULARY; r++) cumulative[r] /= total;
}
function zipfWord() {
  const x = rand();
  let lo = 0;
  let hi = VOCABULARY - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cumulative[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return vocabulary[lo];
}
const sentence = (min, max) => Array.from({ length: min + Math.floor(rand() * (max - min + 1)) }, zipfWord).join(' ');

/** Texts of some seeded messages: three words of one of them make a three-word query that finds something. */
const sampled = [];

function seed(path) {
  const at = '2026-01-01T00:00:00.000Z';
  const started = performance.now();
  createBoardDb(path, ({ db }) => {
    const task = db.prepare(`INSERT INTO tasks (id, title, description, status, assignee, created_by, result, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 'lead', ?, ?, ?)`);
    const message = db.prepare(`INSERT INTO messages (task_id, author, kind, text, created_at) VALUES (?, 'w1', 'progress', ?, ?)`);
    const review = db.prepare(`INSERT INTO reviews (task_id, reviewer, verdict, note, created_at) VALUES (?, 'lead', 'approve', ?, ?)`);
    const room = db.prepare(`INSERT INTO room_messages (author, recipients, text, created_at) VALUES ('lead', 'all', ?, ?)`);
    for (let id = 1; id <= TASKS; id++) {
      const done = id % 10 < 7;
      task.run(id, sentence(4, 8), sentence(15, 40), done ? 'done' : 'open', done ? 'w1' : null, done ? sentence(8, 20) : null, at, at);
    }
    const every = Math.max(1, Math.floor(MESSAGES / QUERIES));
    for (let i = 0; i < MESSAGES; i++) {
      const text = sentence(6, 20);
      message.run(1 + (i % TASKS), text, at);
      if (i % every === 0) sampled.push(text);
    }
    for (let i = 0; i < SIDE_ROWS; i++) {
      review.run(1 + ((i * 7) % TASKS), sentence(5, 15), at);
      room.run(sentence(6, 20), at);
    }
  });
  return performance.now() - started;
}

/** Words of a rank in [from, to]: how often they occur is what a query costs. */
const wordOfRank = (from, to) => vocabulary[from - 1 + Math.floor(rand() * (to - from + 1))];
function queries(count, wordsEach) {
  if (wordsEach === 1) return Array.from({ length: count }, () => [wordOfRank(20, 5_000)]);
  return sampled.slice(0, count).map((text) => {
    const distinct = [...new Set(text.split(' '))];
    return Array.from({ length: Math.min(wordsEach, distinct.length) }, () => distinct.splice(Math.floor(rand() * distinct.length), 1)[0]);
  });
}

async function time(list, run) {
  for (const q of list.slice(0, 5)) await run(q); // warm-up
  const samples = [];
  let hits = 0;
  for (const q of list) {
    const t = performance.now();
    hits += (await run(q)).length;
    samples.push(performance.now() - t);
  }
  return { ...percentiles(samples), hits: hits / list.length };
}

/** A plain LIKE scan of the same texts (every word a substring), the first 20 rows, unranked. */
function likeStatementSqlite(db, words) {
  const cond = (col) => words.map(() => `${col} LIKE ?`).join(' AND ');
  const args = (n) => Array.from({ length: n }, () => words.map((w) => `%${w}%`)).flat();
  const stmt = db.prepare(`SELECT id FROM tasks WHERE ${cond('title')} UNION ALL SELECT id FROM tasks WHERE ${cond('description')}
    UNION ALL SELECT id FROM tasks WHERE ${cond('result')} UNION ALL SELECT id FROM messages WHERE ${cond('text')}
    UNION ALL SELECT id FROM reviews WHERE ${cond('note')} UNION ALL SELECT id FROM room_messages WHERE ${cond('text')} LIMIT 20`);
  return stmt.all(...args(6));
}

const fmtRow = (label, r) => `${label.padEnd(44)} p50 ${r.p50.toFixed(2).padStart(8)} ms   p99 ${r.p99.toFixed(2).padStart(8)} ms   hits/query ${r.hits.toFixed(1)}`;

async function benchSqlite(path) {
  const { SqliteSearch } = await import('../daemon/dist/store/sqlite/search.js');
  const db = new Database(path, { readonly: true });
  const finder = new SqliteSearch(db);
  const one = queries(QUERIES, 1);
  const three = queries(QUERIES, 3);
  const search = (words) => finder.search({ words, sources: SOURCES_ALL, reader: 'w1', offset: 0, limit: 21 });
  const rows = [
    ['SQLite FTS5 search, one word', await time(one, search)],
    ['SQLite FTS5 search, three words', await time(three, search)],
    ['SQLite FTS5 search, the most frequent word', await time(Array.from({ length: 20 }, () => [vocabulary[0]]), search)],
    ['SQLite LIKE scan, one word', await time(one.slice(0, LIKE_QUERIES), (w) => likeStatementSqlite(db, w))],
    ['SQLite LIKE scan, three words', await time(three.slice(0, LIKE_QUERIES), (w) => likeStatementSqlite(db, w))],
  ];
  db.close();
  return rows;
}

async function copyToPostgres(path, url) {
  const { openPool } = await import('../daemon/dist/store/postgres/connection.js');
  const { copyBoard } = await import('../daemon/dist/store/postgres/copy-board.js');
  const admin = openPool({ url, max: 1 });
  const name = `rt_bench_search_${randomBytes(4).toString('hex')}`;
  await admin.unsafe(`CREATE DATABASE ${name}`);
  await admin.end();
  const target = new URL(url);
  target.pathname = `/${name}`;
  const source = new Database(path, { readonly: true });
  const started = performance.now();
  await copyBoard(source, target.toString());
  source.close();
  return { url: target.toString(), ms: performance.now() - started, name };
}

async function benchPostgres(url) {
  const { openPool } = await import('../daemon/dist/store/postgres/connection.js');
  const { search } = await import('../daemon/dist/store/postgres/search.js');
  const sql = openPool({ url, max: 2 });
  await sql.unsafe('ANALYZE');
  const one = queries(QUERIES, 1);
  const three = queries(QUERIES, 3);
  const find = (words) => search(sql, { words, sources: SOURCES_ALL, reader: 'w1', offset: 0, limit: 21 });
  const like = async (words) => {
    const params = words.map((w) => `%${w}%`);
    const cond = (col) => words.map((_, i) => `${col} LIKE $${i + 1}`).join(' AND ');
    return sql.unsafe(`SELECT id FROM tasks WHERE ${cond('title')} UNION ALL SELECT id FROM tasks WHERE ${cond('description')}
      UNION ALL SELECT id FROM tasks WHERE ${cond('result')} UNION ALL SELECT id FROM messages WHERE ${cond('text')}
      UNION ALL SELECT id FROM reviews WHERE ${cond('note')} UNION ALL SELECT id FROM room_messages WHERE ${cond('text')} LIMIT 20`, params);
  };
  const rows = [
    ['PostgreSQL tsvector search, one word', await time(one, find)],
    ['PostgreSQL tsvector search, three words', await time(three, find)],
    ['PostgreSQL tsvector search, most frequent word', await time(Array.from({ length: 20 }, () => [vocabulary[0]]), find)],
    ['PostgreSQL LIKE scan, one word', await time(one.slice(0, LIKE_QUERIES), like)],
    ['PostgreSQL LIKE scan, three words', await time(three.slice(0, LIKE_QUERIES), like)],
  ];
  await sql.end();
  return rows;
}

try {
  const dir = makeTempDir();
  const path = join(dir, 'board.db');
  console.log(`seeding ${TASKS} tasks, ${MESSAGES} messages, ${SIDE_ROWS} review notes and ${SIDE_ROWS} room messages (${VOCABULARY} words, Zipf)...`);
  const seedMs = seed(path);
  console.log(`seeded in ${(seedMs / 1000).toFixed(1)} s (the FTS5 index filled by its triggers)`);
  for (const [label, r] of await benchSqlite(path)) console.log(fmtRow(label, r));
  const pgUrl = process.env['ROUNDTABLE_BENCH_PG_URL'];
  if (pgUrl) {
    const copy = await copyToPostgres(path, pgUrl);
    console.log(`copied into PostgreSQL (${copy.name}) in ${(copy.ms / 1000).toFixed(1)} s (tsvector columns generated, GIN indexes kept)`);
    try {
      for (const [label, r] of await benchPostgres(copy.url)) console.log(fmtRow(label, r));
    } finally {
      const { openPool } = await import('../daemon/dist/store/postgres/connection.js');
      const admin = openPool({ url: pgUrl, max: 1 });
      await admin.unsafe(`DROP DATABASE IF EXISTS ${copy.name}`);
      await admin.end();
    }
  }
  console.log(`queries: ${QUERIES} per search row (one word: a word of Zipf rank 20-5,000; three words: three words of one seeded message), ${LIKE_QUERIES} per LIKE row; each asks for 20 hits and one more`);
} finally {
  cleanupSync();
}
