// Bench section for path reservations: reserve_paths and check_paths on a board with 10,000 live reservations,
// against the same calls on the same daemon with none yet, and get_task as a plain call for scale.
// It uses run.mjs's helpers, passed in, so the report, process hygiene and daemon start-up stay in one place.
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { LIMITS } from '../shared/dist/index.js';
import { postTool, prng, sha256 } from './harness.mjs';

/**
 * agents.json with a leader, the asking worker and as many holding workers as the board's limit of reservations an
 * agent needs to hold `total` (each holds its share over several claims).
 */
function writeHolderAgents(dir, total) {
  const holders = Math.ceil(total / LIMITS.reservationsPerAgent);
  const names = ['lead', 'reader', ...Array.from({ length: holders }, (_, k) => `holder${k}`)];
  const tokens = Object.fromEntries(names.map((n) => [n, `rt_${randomBytes(32).toString('base64url')}`]));
  const agents = names.map((name) => ({ name, role: name === 'lead' ? 'leader' : 'worker', skills: ['typescript'], token_sha256: sha256(tokens[name]) }));
  const path = join(dir, 'holder-agents.json');
  writeFileSync(path, JSON.stringify({ agents }));
  return { path, tokens, holders: names.slice(2) };
}


/**
 * `holders` tasks claimed by one worker, each with `perTask` reservations spread like a monorepo's (folders and single
 * files in pkgN/...), so `holders * perTask` are live. Another worker then reserves one path and releases it, and
 * checks 10 staged-file paths (half of them held), `rounds` times each, first on the empty board, then on the full one.
 */
export async function benchReservations(h, { holders, perTask, rounds }) {
  const dir = h.makeTempDir();
  const { path: agentsPath, tokens, holders: holderNames } = writeHolderAgents(dir, holders * perTask);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  const lead = tokens.lead;
  const asker = tokens.reader;
  const perHolder = Math.floor(LIMITS.reservationsPerAgent / perTask); // claims each holding worker takes
  const daemon = await h.startDaemon(join(dir, 'reservations.db'), agentsPath, undefined, { env: { ROUNDTABLE_LEASE_TTL: '1h' } });
  const call = (token, tool, args) => postTool(agent, daemon.port, token, tool, args);
  try {
    const mine = (await call(lead, 'create_task', { title: 'the asker' })).task.id;
    await call(asker, 'claim_task', { task_id: mine });
    const rand = prng(12);
    const measure = async (label) => {
      const s = { reserve_paths: [], check_paths: [], get_task: [] };
      for (let i = 0; i < rounds; i++) {
        const pkg = Math.floor(rand() * holders);
        const paths = Array.from({ length: 10 }, (_, j) => (j % 2 ? `pkg${pkg}/src/mod${Math.floor(rand() * perTask)}/file${j}.ts` : `free/${i}/file${j}.ts`));
        let t0 = performance.now();
        await call(asker, 'reserve_paths', { task_id: mine, paths: [`free/${label}/${i}/**`] });
        s.reserve_paths.push(performance.now() - t0);
        await call(asker, 'release_paths', { task_id: mine });
        t0 = performance.now();
        await call(asker, 'check_paths', { paths });
        s.check_paths.push(performance.now() - t0);
        t0 = performance.now();
        await call(asker, 'get_task', { task_id: mine });
        s.get_task.push(performance.now() - t0);
      }
      return s;
    };
    await measure('warm-up'); // JIT and SQLite caches warm, so the empty board is not measured cold
    const empty = await measure('empty');
    for (let t = 0; t < holders; t++) {
      const holder = tokens[holderNames[Math.floor(t / perHolder)]];
      const id = (await call(lead, 'create_task', { title: `holder ${t}` })).task.id;
      await call(holder, 'claim_task', { task_id: id });
      const paths = Array.from({ length: perTask }, (_, j) => (j % 5 === 0 ? `pkg${t}/docs/page${j}.md` : `pkg${t}/src/mod${j}/**`));
      for (let at = 0; at < paths.length; at += 50) await call(holder, 'reserve_paths', { task_id: id, paths: paths.slice(at, at + 50) });
    }
    const live = (await call(lead, 'list_reservations', { limit: 1 })).reservations.length;
    if (live !== 1) throw new Error('no reservations were made');
    const full = await measure('full');
    const total = holders * perTask;
    h.report.table('reservations', `Path reservations: p50 / p99 ms per call, ${rounds} calls each, on an empty board and with ${total.toLocaleString('en-US')} live reservations (${holders} claims x ${perTask}, ${holderNames.length} workers)`, [
      'call',
      'no reservations',
      `${total.toLocaleString('en-US')} reservations`,
    ]);
    const cell = (samples) => {
      const p = h.percentiles(samples);
      return `${h.fmt.ms(p.p50)} / ${h.fmt.ms(p.p99)}`;
    };
    for (const tool of ['reserve_paths', 'check_paths', 'get_task']) {
      const what = tool === 'check_paths' ? 'check_paths (10 paths, 5 held)' : tool === 'reserve_paths' ? 'reserve_paths (1 pattern)' : 'get_task (for scale)';
      h.report.row('reservations', [what, cell(empty[tool]), cell(full[tool])]);
    }
    const reserveP50 = h.percentiles(full.reserve_paths).p50;
    const checkP50 = h.percentiles(full.check_paths).p50;
    h.report.target(`reserve_paths p50 < 5 ms with ${total.toLocaleString('en-US')} live reservations`, `${h.fmt.ms(reserveP50)} ms`, reserveP50 < 5);
    h.report.target(`check_paths p50 < 5 ms with ${total.toLocaleString('en-US')} live reservations`, `${h.fmt.ms(checkP50)} ms`, checkP50 < 5);
    await h.stopServer(daemon);
    await inProcess(h, { dbPath: join(dir, 'reservations.db'), taskId: mine, holders, perTask, rounds, total });
  } finally {
    agent.destroy();
    await h.stopServer(daemon);
  }
}

/**
 * The same two calls without HTTP, auth and the audit row, on the database the daemon left (its 10,000 reservations
 * live): the store's transaction and the rule, as the board runs them. On a shared, loaded machine this shows the
 * work that grows with the reservations apart from the noise of the round trip.
 */
async function inProcess(h, { dbPath, taskId, holders, perTask, rounds, total }) {
  const { SqliteStore } = await import('../daemon/dist/store/sqlite/index.js');
  const { decideReleasePaths, decideReserve } = await import('../daemon/dist/board/reservation-rules.js');
  const { pathNames } = await import('../daemon/dist/board/overlap.js');
  const { ScopeIndex, viewWith } = await import('../daemon/dist/board/scope-index.js');
  const store = new SqliteStore({ path: dbPath });
  const caller = { agent: { name: 'reader', role: 'worker', skills: ['typescript'] }, mode: 'role' };
  const rand = prng(34);
  const s = { reserve: [], check: [] };
  const index = new ScopeIndex();
  index.apply(await store.reservationChanges('', -1)); // the daemon's first read of the scope, not measured
  try {
    for (let i = 0; i < rounds + 50; i++) {
      const pattern = `free/in-process/${i}/**`;
      const call = { patterns: [pattern], exclusive: true, reason: null, scope: '', now: Date.now() };
      let t0 = performance.now();
      index.apply(await store.reservationChanges('', index.version));
      await store.changeReservations(taskId, { scope: '', since: index.version, agent: 'reader' }, (t, own, sight) =>
        decideReserve(t, caller, call, own, { view: viewWith(index, sight.changes), agentHolds: sight.agentHolds }),
      );
      const reserveMs = performance.now() - t0;
      await store.changeReservations(taskId, undefined, (t, own) => decideReleasePaths(t, caller, { patterns: undefined, scope: undefined, now: Date.now() }, own));
      const pkg = Math.floor(rand() * holders);
      const paths = Array.from({ length: 10 }, (_, j) => (j % 2 ? `pkg${pkg}/src/mod${Math.floor(rand() * perTask)}/file${j}.ts` : `free/${i}/file${j}.ts`));
      t0 = performance.now();
      index.apply(await store.reservationChanges('', index.version));
      const held = paths.map((p) => index.holders(pathNames(p), 'reader'));
      const checkMs = performance.now() - t0;
      if (held.length !== 10) throw new Error('check_paths in-process went wrong');
      if (i >= 50) {
        s.reserve.push(reserveMs);
        s.check.push(checkMs);
      }
    }
  } finally {
    await store.close();
  }
  const cell = (samples) => {
    const p = h.percentiles(samples);
    return `${h.fmt.ms(p.p50)} / ${h.fmt.ms(p.p99)}`;
  };
  h.report.row('reservations', ['in-process: catch up the index, reserve_paths transaction + rule (one fsync)', '', cell(s.reserve)]);
  h.report.row('reservations', ['in-process: catch up the index, check_paths from it (10 paths)', '', cell(s.check)]);
}
