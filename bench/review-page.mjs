#!/usr/bin/env node
// The review page's time to show a 5,000-line diff (issue 35; target <= 1 s): from the owner's click on the task's card
// to the frame after every diff line is in the page (each "show N more lines" clicked as soon as it is there), through
// the real daemon and headless Chromium: the read of the task with its patch, the parse, the drawing. Two shapes: one
// file of 5,000 lines (folded at 400) and 25 files of 200 lines; and the folded file's first screenful alone. Median
// and worst of ROUNDS.
//   npm run build && node bench/review-page.mjs          (ROUNDS=7 LINES=5000 by default)
import { fakeId, startReviewBoard } from './review-board.mjs';

const ROUNDS = Number(process.env.ROUNDS ?? 7);
/** LINES=15000 makes a patch just under the 1 MiB cap; a multiple of 1,250. */
const LINES = Number(process.env.LINES ?? 5000);

/** One file's diff of `lines` lines: hunks of 50 (a header, 10 context, 20 removed, 20 added). */
function fileDiff(path, lines) {
  const out = [`diff --git a/${path} b/${path}`, 'index 1111111..2222222 100644', `--- a/${path}`, `+++ b/${path}`];
  let oldNo = 1;
  let newNo = 1;
  for (let done = 0; done < lines; done += 50) {
    out.push(`@@ -${oldNo},30 +${newNo},30 @@ export function part${done}() {`);
    for (let i = 0; i < 10; i++) out.push(`   const keep${done + i} = compute(${done + i}, 'unchanged context line');`);
    for (let i = 0; i < 20; i++) out.push(`-  const value${done + i} = oldCompute(${done + i}); // the line as it was`);
    for (let i = 0; i < 20; i++) out.push(`+  const value${done + i} = newCompute(${done + i}, options); // the line as it is now`);
    oldNo += 30;
    newNo += 30;
  }
  return { text: out.join('\n'), file: { path, status: 'modified', added: (lines / 50) * 20, removed: (lines / 50) * 20 } };
}

function work(files) {
  const parts = files.map(([path, lines]) => fileDiff(path, lines));
  return {
    branch: 'rt/7-big-change',
    base: fakeId('base'),
    head: fakeId('head'),
    dirty: false,
    commits: [{ id: fakeId('c1'), subject: 'A big change', author_time: new Date().toISOString() }],
    files: parts.map((p) => p.file),
    patch: `${parts.map((p) => p.text).join('\n')}\n`,
  };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const board = await startReviewBoard('Review bench');
try {
  const shapes = [
    { name: `one file of ${LINES} lines`, work: work([['src/big.ts', LINES]]), expand: true },
    { name: `25 files of ${LINES / 25} lines`, work: work(Array.from({ length: 25 }, (_, i) => [`src/part${i}.ts`, LINES / 25])), expand: LINES / 25 > 400 },
  ];
  for (const shape of shapes) shape.id = await board.submitted({ title: shape.name, result: 'See the diff.', work: shape.work });
  const page = await board.ownerPage();
  console.log(`review page: time to show a ${LINES}-line diff (click on the card -> every line drawn), ${ROUNDS} rounds`);
  for (const shape of shapes) {
    const expected = shape.work.patch.split('\n').filter((l) => /^[-+ ]/.test(l) && !/^(---|\+\+\+) /.test(l)).length;
    const times = [];
    for (let round = 0; round < ROUNDS; round++) {
      const ms = await page.evaluate(
        async ({ id, expected, expand }) => {
          const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve()));
          const t0 = performance.now();
          document.querySelector(`.card[data-task-id="${id}"]`).click();
          for (;;) {
            await frame();
            if (expand) for (const more of document.querySelectorAll('#detail-body .show-more')) more.click();
            if (document.querySelectorAll('#detail-body .dl').length >= expected) break;
            if (performance.now() - t0 > 30_000) throw new Error('the diff was not drawn in 30 s');
          }
          await frame();
          return performance.now() - t0;
        },
        { id: shape.id, expected, expand: shape.expand },
      );
      times.push(ms);
      await page.locator('#detail-close').click();
      await page.locator('#detail').waitFor({ state: 'hidden' });
    }
    const bytes = Buffer.byteLength(shape.work.patch);
    console.log(`  ${shape.name} (${expected} lines, ${(bytes / 1024).toFixed(0)} KiB patch): median ${median(times).toFixed(0)} ms, worst ${Math.max(...times).toFixed(0)} ms`);
  }
  // The first screenful alone: the folded file's first 400 rows.
  const first = [];
  for (let round = 0; round < ROUNDS; round++) {
    first.push(
      await page.evaluate(async ({ id }) => {
        const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve()));
        const t0 = performance.now();
        document.querySelector(`.card[data-task-id="${id}"]`).click();
        while (!document.querySelector('#detail-body .show-more')) await frame();
        await frame();
        return performance.now() - t0;
      }, { id: shapes[0].id }),
    );
    await page.locator('#detail-close').click();
    await page.locator('#detail').waitFor({ state: 'hidden' });
  }
  console.log(`  one file of ${LINES} lines, first 400 rows (folded): median ${median(first).toFixed(0)} ms, worst ${Math.max(...first).toFixed(0)} ms`);
} catch (error) {
  process.stderr.write(board.log());
  throw error;
} finally {
  await board.stop();
}
