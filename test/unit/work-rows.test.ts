// The project's patch total (SPEC §22) and the usage sums, as pure rules both stores call.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { foldUsage, makeRoomForPatch } from '../../daemon/src/store/work-rows.js';

describe('makeRoomForPatch', () => {
  it('keeps a patch that fits, dropping nothing', () => {
    expect(makeRoomForPatch(60, 40, [{ id: 1, bytes: 50 }], 100)).toEqual({ drop: [], keep: true });
  });
  it('drops the oldest finished patches first, as few as make room', () => {
    expect(makeRoomForPatch(90, 30, [{ id: 1, bytes: 10 }, { id: 2, bytes: 15 }, { id: 3, bytes: 40 }], 100)).toEqual({ drop: [1, 2], keep: true });
  });
  it('keeps no new patch, and drops nothing, when dropping every finished one is not enough', () => {
    expect(makeRoomForPatch(90, 30, [{ id: 1, bytes: 5 }], 100)).toEqual({ drop: [], keep: false });
  });
  it('an empty patch always fits', () => {
    expect(makeRoomForPatch(100, 0, [], 100)).toEqual({ drop: [], keep: true });
  });
  it('never goes past the cap, and drops only what it must (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 50 }), { maxLength: 20 }), fc.integer({ min: 0, max: 80 }), fc.integer({ min: 0, max: 60 }), (sizes, live, incoming) => {
        const droppable = sizes.map((bytes, i) => ({ id: i + 1, bytes }));
        const kept = live + sizes.reduce((a, b) => a + b, 0);
        const cap = 200;
        const { drop, keep } = makeRoomForPatch(kept, incoming, droppable, cap);
        const freed = droppable.filter((d) => drop.includes(d.id)).reduce((a, d) => a + d.bytes, 0);
        if (keep) {
          if (incoming > 0) expect(kept - freed + incoming).toBeLessThanOrEqual(cap);
          // Dropping one fewer would not have been enough.
          if (drop.length > 0) {
            const lastFreed = droppable.find((d) => d.id === drop.at(-1))!.bytes;
            expect(kept - (freed - lastFreed) + incoming).toBeGreaterThan(cap);
          }
        } else {
          expect(drop).toEqual([]);
          expect(live + incoming).toBeGreaterThan(cap);
        }
      }),
    );
  });
});

describe('foldUsage', () => {
  it('sums per key over models, naming each model once, sorted', () => {
    const folded = foldUsage([
      { key: 'w1', model: 'b', reports: 1, input_tokens: 10, output_tokens: 2, cached_tokens: 0, cost_usd: 0.1 },
      { key: 'w1', model: 'a', reports: '2', input_tokens: '5', output_tokens: '1', cached_tokens: '3', cost_usd: '0.2' },
      { key: 'w1', model: null, reports: 1, input_tokens: 1, output_tokens: 0, cached_tokens: 0, cost_usd: 0 },
      { key: 'w2', model: 'a', reports: 1, input_tokens: 7, output_tokens: 7, cached_tokens: 7, cost_usd: 0 },
    ]);
    expect(folded.get('w1')).toEqual({ reports: 4, input_tokens: 16, output_tokens: 3, cached_tokens: 3, cost_usd: 0.3, models: ['a', 'b'] });
    expect(folded.get('w2')).toEqual({ reports: 1, input_tokens: 7, output_tokens: 7, cached_tokens: 7, cost_usd: 0, models: ['a'] });
  });
});
