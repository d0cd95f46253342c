// The in-memory index of a scope's reservations (board/scope-index.ts over board/path-index.ts): what it finds is
// exactly what comparing with every reservation would find, it keeps up with changes as a fresh build would, and a
// query over thousands of reservations is answered from the few it reaches.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Reservation } from 'roundtable-shared';
import { holdsPath, pathNames, patternsOverlap, shapeOf } from '../../daemon/src/board/overlap.js';
import { PrefixTree, reversed } from '../../daemon/src/board/prefix-tree.js';
import { ScopeIndex, ScopeIndexes } from '../../daemon/src/board/scope-index.js';
import type { ReservationChanges } from '../../daemon/src/store/store.js';
import { file, pattern } from '../helpers/patterns.js';

const AGENTS = ['w1', 'w2', 'w3'];

function row(id: number, pattern: string, agent: string, exclusive: boolean): Reservation {
  return { id, task_id: id, claim_id: id, agent, scope: null, pattern, exclusive, reason: null, created_at: '2025-01-01T00:00:00.000Z' };
}

function indexOf(rows: readonly Reservation[], version = 1): ScopeIndex {
  const index = new ScopeIndex();
  index.apply({ scope: '', since: -1, version, full: true, changed: [], rows });
  return index;
}

/**
 * Reservations as reserve_paths would let them stand: each is kept only if no other agent's clashes with it
 * (exclusive against any, shared against exclusive), so exclusive reservations of two agents never overlap.
 */
function granted(wanted: ReadonlyArray<{ pattern: string; agent: string; exclusive: boolean }>): Reservation[] {
  const kept: Reservation[] = [];
  for (const w of wanted) {
    const clash = kept.some((r) => r.agent !== w.agent && (w.exclusive || r.exclusive) && patternsOverlap(r.pattern, w.pattern));
    if (!clash) kept.push(row(kept.length + 1, w.pattern, w.agent, w.exclusive));
  }
  return kept;
}

const wanted = fc.array(fc.record({ pattern, agent: fc.constantFrom(...AGENTS), exclusive: fc.boolean() }), { maxLength: 40 });
const anyRows = fc.array(fc.record({ pattern, agent: fc.constantFrom(...AGENTS), exclusive: fc.boolean() }), { maxLength: 40 }).map((ws) => ws.map((w, i) => row(i + 1, w.pattern, w.agent, w.exclusive)));
const ids = (rs: ReadonlyArray<{ id: number }>) => rs.map((r) => r.id).sort((a, b) => a - b);

describe('the index finds what a comparison with every reservation finds (fast-check)', () => {
  it('overlapping a pattern', () => {
    fc.assert(
      fc.property(anyRows, pattern, (rows, query) => {
        const expected = rows.filter((r) => patternsOverlap(r.pattern, query)).map((r) => r.id);
        expect(ids(indexOf(rows).overlapping(shapeOf(query), 0, 1_000))).toEqual(expected);
      }),
      { numRuns: 3_000 },
    );
  });

  it('conflicts for a new reservation, exclusive or shared, never the caller\'s own', () => {
    fc.assert(
      fc.property(anyRows, pattern, fc.constantFrom(...AGENTS), fc.boolean(), (rows, query, agent, exclusive) => {
        const expected = rows.filter((r) => r.agent !== agent && (exclusive || r.exclusive) && patternsOverlap(r.pattern, query)).map((r) => r.id);
        expect(ids(indexOf(rows).conflicts(shapeOf(query), exclusive, agent, 1_000))).toEqual(expected);
      }),
      { numRuns: 3_000 },
    );
  });

  it('holders of a file: the other agents\' exclusive reservations holding it, up to the limit', () => {
    fc.assert(
      fc.property(wanted, file, fc.constantFrom(...AGENTS), (ws, f, caller) => {
        const rows = granted(ws);
        const expected = rows.filter((r) => r.exclusive && r.agent !== caller && holdsPath(r.pattern, f));
        const found = indexOf(rows).holders(pathNames(f), caller);
        expect(found).toEqual(expected.slice(0, 10).map((r) => ({ agent: r.agent, task_id: r.task_id, claim_id: r.claim_id, pattern: r.pattern })));
      }),
      { numRuns: 3_000 },
    );
  });

  it('changes applied one version at a time leave the index as a fresh build of the rows left', () => {
    const step = fc.oneof(
      fc.record({ add: pattern, agent: fc.constantFrom(...AGENTS), exclusive: fc.boolean() }),
      fc.record({ remove: fc.nat({ max: 30 }) }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), pattern, file, (steps, query, f) => {
        const index = indexOf([], 0);
        const live = new Map<number, Reservation>();
        let nextId = 1;
        steps.forEach((s, version) => {
          let changes: ReservationChanges;
          if ('add' in s) {
            const r = row(nextId++, s.add, s.agent, s.exclusive);
            live.set(r.id, r);
            changes = { scope: '', since: version, version: version + 1, full: false, changed: [r.id], rows: [r] };
          } else {
            live.delete(s.remove);
            changes = { scope: '', since: version, version: version + 1, full: false, changed: [s.remove], rows: [] };
          }
          index.apply(changes);
        });
        const fresh = indexOf([...live.values()], steps.length);
        expect(index.size).toBe(live.size);
        expect(ids(index.overlapping(shapeOf(query), 0, 1_000))).toEqual(ids(fresh.overlapping(shapeOf(query), 0, 1_000)));
        expect(index.page(0, 1_000)).toEqual(fresh.page(0, 1_000));
        for (const agent of AGENTS) expect(ids(index.conflicts(shapeOf(query), true, agent, 1_000))).toEqual(ids(fresh.conflicts(shapeOf(query), true, agent, 1_000)));
        expect(index.holders(pathNames(f), 'w1').length > 0).toBe(fresh.holders(pathNames(f), 'w1').length > 0);
      }),
      { numRuns: 1_000 },
    );
  });

  it('a change older than the index, or one that skips a version it has not seen, is not applied', () => {
    const index = indexOf([row(1, 'src/**', 'w1', true)], 5);
    index.apply({ scope: '', since: 3, version: 4, full: false, changed: [1], rows: [] });
    index.apply({ scope: '', since: 7, version: 8, full: false, changed: [1], rows: [] });
    index.apply({ scope: '', since: -1, version: 4, full: true, changed: [], rows: [] });
    expect(index.size).toBe(1);
    expect(index.version).toBe(5);
  });
});

describe('the indexes of the scopes in use', () => {
  it('calls arriving while a scope is read wait for that read, then ask only what changed after it', async () => {
    const rows = Array.from({ length: 100 }, (_, i) => row(i + 1, `src/f${i}.ts`, 'w1', true));
    const asked: number[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const store = {
      async reservationChanges(scope: string, since: number): Promise<ReservationChanges> {
        asked.push(since);
        if (since === -1) {
          await gate; // a slow first read of the whole scope
          return { scope, since, version: 7, full: true, changed: [], rows };
        }
        return { scope, since, version: 7, full: false, changed: [], rows: [] };
      },
    };
    const indexes = new ScopeIndexes(store);
    const calls = Array.from({ length: 10 }, () => indexes.fresh(''));
    release();
    const answered = await Promise.all(calls);
    expect(asked.filter((since) => since === -1)).toHaveLength(1);
    expect(asked.filter((since) => since === 7)).toHaveLength(9);
    for (const index of answered) expect(index.size).toBe(100);
  });
});

describe('a prefix tree finds the keys that start a string, and those a string starts', () => {
  it('agrees with comparing every key (fast-check)', () => {
    const key = fc.array(fc.constantFrom('a', 'b', 'c'), { maxLength: 6 }).map((cs) => cs.join(''));
    fc.assert(
      fc.property(fc.array(fc.tuple(key, fc.boolean()), { maxLength: 40 }), key, (ops, text) => {
        const tree = new PrefixTree<string>();
        const ends = new PrefixTree<string>(); // the same keys reversed, asked by what a string ends with
        const live = new Set<string>();
        for (const [k, add] of ops) {
          if (add) {
            tree.add(k, k);
            ends.add(reversed(k), k);
            live.add(k);
          } else {
            tree.delete(k, k);
            ends.delete(reversed(k), k);
            live.delete(k);
          }
        }
        const suffixes: string[] = [];
        ends.suffixesOf(text, (k) => void suffixes.push(k));
        expect(suffixes.sort()).toEqual([...live].filter((k) => text.endsWith(k)).sort());
        const prefixes: string[] = [];
        tree.prefixesOf(text, (k) => void prefixes.push(k));
        const starting: string[] = [];
        tree.startingWith(text, (k) => void starting.push(k));
        expect(prefixes.sort()).toEqual([...live].filter((k) => text.startsWith(k)).sort());
        expect(starting.sort()).toEqual([...live].filter((k) => k.startsWith(text)).sort());
        expect(tree.size).toBe(live.size);
      }),
      { numRuns: 3_000 },
    );
  });
});

describe('over thousands of reservations a query hands back exactly what the rule keeps (issue 22)', () => {
  // 10,000 reservations of 20 agents, shaped to be candidates of a wildcard-led or deep query if a lookup gathered
  // candidates by a key and then compared: names that start or end like the files asked, ** patterns, and deep
  // folders along the path asked for.
  const rows: Reservation[] = [];
  for (let i = 0; rows.length < 10_000; i++) {
    const agent = `a${i % 20}`;
    for (const p of [`**/*x${i}.ts`, `*.t${i}`, `src/x${i}*`, `src/${'d/'.repeat(20)}y${i}/**`, `**/z${i}`, `x${i}/*.md`]) rows.push(row(rows.length + 1, p, agent, true));
  }
  const live = rows.slice(0, 10_000);
  const index = indexOf(live);

  it.each(['src/*.ts', '*.ts', `src/${'d/'.repeat(20)}**`, '**/*.md', 'src/a*', 'x7/*.md'])('overlapping %s', (q) => {
    const found = index.overlapping(shapeOf(q), 0, 100_000);
    expect(found.map((r) => r.id)).toEqual(live.filter((r) => patternsOverlap(r.pattern, q)).map((r) => r.id));
  });

  it.each([
    ['src/*.ts', 0],
    ['src/*.ts', 6_000],
    ['*.ts', 9_990],
    [`src/${'d/'.repeat(20)}**`, 100],
  ])('a page of those overlapping %s after id %i, gathered or walked in id order when they are many', (q, afterId) => {
    const all = live.filter((r) => r.id > afterId && patternsOverlap(r.pattern, q)).map((r) => r.id);
    for (const limit of [1, 100, 500]) expect(index.overlapping(shapeOf(q), afterId, limit).map((r) => r.id)).toEqual(all.slice(0, limit));
  });

  // Exclusive reservations of two agents never overlap, so those that may hold one file are one agent's: here all.
  const oneHolder = indexOf(live.map((r) => ({ ...r, agent: 'a1' })));
  it.each([`src/${'d/'.repeat(20)}y/file.ts`, `src/${'d/'.repeat(20)}y7/file.ts`, 'a/b/c1x1.ts', 'z9', 'x3/readme.md'])('holding %s', (f) => {
    const expected = live.filter((r) => holdsPath(r.pattern, f)).slice(0, 10);
    expect(oneHolder.holders(pathNames(f), 'a0')).toEqual(expected.map((r) => ({ agent: 'a1', task_id: r.task_id, claim_id: r.claim_id, pattern: r.pattern })));
    expect(oneHolder.holders(pathNames(f), 'a1')).toEqual([]);
  });
});
