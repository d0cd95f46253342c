// The progress figures (issue 36) as pure functions: nearest-rank percentiles, the window's days, the burn-up from
// counts before the window and per day, and cycle times grouped per agent.
import { describe, expect, it } from 'vitest';
import { firstDay, percentile, progressFrom } from '../../daemon/src/board/progress.js';

describe('progress', () => {
  it('takes percentiles by nearest rank', () => {
    expect(percentile([], 50)).toBeNull();
    expect(percentile([7], 90)).toBe(7);
    expect(percentile([1, 2, 3, 4], 50)).toBe(2);
    expect(percentile([1, 2, 3, 4], 90)).toBe(4);
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 90)).toBe(9);
  });

  it('fills every day of the window, carries the totals and groups cycle times per agent', () => {
    const now = Date.parse('2026-03-10T12:00:00.000Z');
    expect(firstDay(now, 3)).toBe('2026-03-08');
    const progress = progressFrom(
      {
        before: { created: 10, cancelled: 1, done: 4 },
        days: [
          { day: '2026-03-08', created: 2, cancelled: 0, done: 1 },
          { day: '2026-03-10', created: 0, cancelled: 1, done: 2 },
        ],
        cycles: [
          { task_id: 1, agent: 'b', claimed_at: '2026-03-08T00:00:00.000Z', done_at: '2026-03-08T03:00:00.000Z' },
          { task_id: 2, agent: 'a', claimed_at: '2026-03-09T00:00:00.000Z', done_at: '2026-03-10T00:00:00.000Z' },
          { task_id: 3, agent: 'a', claimed_at: '2026-03-10T00:00:00.000Z', done_at: '2026-03-10T01:30:00.000Z' },
          { task_id: 4, agent: 'a', claimed_at: null, done_at: '2026-03-10T02:00:00.000Z' },
        ],
        wip: [{ agent: 'a', claimed: 2 }],
      },
      now,
      3,
    );
    expect(progress.from).toBe('2026-03-08');
    expect(progress.to).toBe('2026-03-10');
    expect(progress.days).toEqual([
      { day: '2026-03-08', total: 11, done_total: 5, done: 1 },
      { day: '2026-03-09', total: 11, done_total: 5, done: 0 },
      { day: '2026-03-10', total: 10, done_total: 7, done: 2 },
    ]);
    expect(progress.cycle_time.overall).toEqual({ tasks: 3, median_hours: 3, p90_hours: 24 });
    expect(progress.cycle_time.per_agent).toEqual([
      { agent: 'a', tasks: 2, median_hours: 1.5, p90_hours: 24 },
      { agent: 'b', tasks: 1, median_hours: 3, p90_hours: 3 },
    ]);
    expect(progress.wip).toEqual([{ agent: 'a', claimed: 2 }]);
  });
});
