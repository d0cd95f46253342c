// The suite's own machinery: which stores a run covers, the order files start in, and the slowest-files table.
import { describe, expect, it } from 'vitest';
import { storeSelection } from '../helpers/store-selection.js';
import { HEAVY_FILES, heavyFirst } from '../runner/heavy-first.js';
import { slowestLines } from '../runner/slowest-files.js';

describe('store selection (ROUNDTABLE_STORES)', () => {
  const pg = { ROUNDTABLE_TEST_PG_URL: 'postgres://127.0.0.1:1/x' };

  it('covers both stores when unset or empty, and PostgreSQL runs when a cluster is given', () => {
    expect(storeSelection(pg)).toEqual({ stores: ['sqlite', 'postgres'], postgresSkip: undefined });
    expect(storeSelection({ ...pg, ROUNDTABLE_STORES: ' ' }).stores).toEqual(['sqlite', 'postgres']);
    expect(storeSelection({}).postgresSkip).toMatch(/ROUNDTABLE_TEST_PG_URL is unset/);
  });

  it('sqlite alone (npm run test:quick) skips PostgreSQL with a reason that names the variable, even with a cluster', () => {
    const quick = storeSelection({ ...pg, ROUNDTABLE_STORES: 'sqlite' });
    expect(quick.stores).toEqual(['sqlite']);
    expect(quick.postgresSkip).toMatch(/ROUNDTABLE_STORES leaves PostgreSQL out/);
  });

  it('refuses an unknown store name, and a selection without PostgreSQL when CI requires it', () => {
    expect(() => storeSelection({ ROUNDTABLE_STORES: 'sqlite,mysql' })).toThrow(/ROUNDTABLE_STORES names 1 store\(s\) other than sqlite and postgres/);
    expect(() => storeSelection({ ...pg, ROUNDTABLE_STORES: 'sqlite', ROUNDTABLE_REQUIRE_POSTGRES: '1' })).toThrow(/ROUNDTABLE_REQUIRE_POSTGRES=1, but ROUNDTABLE_STORES leaves PostgreSQL out/);
    expect(() => storeSelection({ ROUNDTABLE_REQUIRE_POSTGRES: '1' })).toThrow(/ROUNDTABLE_TEST_PG_URL is unset/);
    expect(storeSelection({ ...pg, ROUNDTABLE_REQUIRE_POSTGRES: '1' }).postgresSkip).toBeUndefined();
  });
});

describe('file order', () => {
  it('starts the heavy files first, in their listed order, and keeps the incoming order of the rest', () => {
    const incoming = ['test/unit/a.test.ts', HEAVY_FILES[2]!, 'test/daemon/b.test.ts', HEAVY_FILES[0]!, 'test/unit/c.test.ts'];
    expect(heavyFirst(incoming, (f) => f)).toEqual([HEAVY_FILES[0], HEAVY_FILES[2], 'test/unit/a.test.ts', 'test/daemon/b.test.ts', 'test/unit/c.test.ts']);
  });
});

describe('the slowest files', () => {
  it('lists at most the given number, longest first, in seconds', () => {
    const times = Array.from({ length: 12 }, (_, i) => ({ file: `test/f${i}.test.ts`, ms: i * 1000 + 100 }));
    const lines = slowestLines(times, 10);
    expect(lines).toHaveLength(11);
    expect(lines[0]).toBe('Slowest 10 test files:');
    expect(lines[1]).toBe('   11.1 s  test/f11.test.ts');
    expect(lines[10]).toBe('    2.1 s  test/f2.test.ts');
    expect(slowestLines([], 10)).toEqual([]);
  });
});
