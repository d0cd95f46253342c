#!/usr/bin/env node
// Renders docs/screenshot-review.png: a submission's diff under review on the board page (desktop width), with two line
// comments written and the review note begun. A throwaway board (bench/review-board.mjs); npm run build first.
//   node scripts/screenshot-review.mjs        SCREENSHOT_OUT=/tmp/r.png SCREENSHOT_SCHEME=dark node scripts/screenshot-review.mjs
import { join } from 'node:path';
import { fakeId, startReviewBoard } from '../bench/review-board.mjs';

const ROOT = new URL('../', import.meta.url).pathname;
const OUT = process.env.SCREENSHOT_OUT ?? join(ROOT, 'docs/screenshot-review.png');
const SCHEME = process.env.SCREENSHOT_SCHEME === 'dark' ? 'dark' : 'light';

const PATCH = `diff --git a/src/export/csv.ts b/src/export/csv.ts
new file mode 100644
index 0000000..8c1f2a4
--- /dev/null
+++ b/src/export/csv.ts
@@ -0,0 +1,14 @@
+// Rows as CSV (RFC 4180): fields with a comma, quote or line break are quoted.
+import type { Row } from '../rows.js';
+
+const NEEDS_QUOTES = /[",\\r\\n]/;
+
+function field(value: string): string {
+  return NEEDS_QUOTES.test(value) ? \`"\${value.replace(/"/g, '""')}"\` : value;
+}
+
+export function toCsv(header: string[], rows: Row[]): string {
+  const lines = [header, ...rows.map((r) => r.cells)].map((cells) => cells.map(field).join(','));
+  return lines.join('\\r\\n') + '\\r\\n';
+}
+
diff --git a/src/export/index.ts b/src/export/index.ts
index 3b18e51..c4d2f07 100644
--- a/src/export/index.ts
+++ b/src/export/index.ts
@@ -1,9 +1,12 @@
 import { toJson } from './json.js';
+import { toCsv } from './csv.js';
 
-export type Format = 'json';
+export type Format = 'json' | 'csv';
 
 export function exportRows(format: Format, header: string[], rows: Row[]): string {
-  return toJson(header, rows);
+  switch (format) {
+    case 'csv': return toCsv(header, rows);
+    default: return toJson(header, rows);
+  }
 }
diff --git a/test/export.test.ts b/test/export.test.ts
index 77a0c11..9e4b3d2 100644
--- a/test/export.test.ts
+++ b/test/export.test.ts
@@ -12,3 +12,8 @@ describe('exportRows', () => {
   it('writes JSON', () => {
     expect(exportRows('json', ['a'], [row('1')])).toBe('[{"a":"1"}]');
   });
+
+  it('quotes a field with a comma', () => {
+    expect(exportRows('csv', ['a', 'b'], [row('x,y', 'z')])).toBe('a,b\\r\\n"x,y",z\\r\\n');
+  });
 });
`;

const board = await startReviewBoard();
try {
  const id = await board.submitted({
    title: 'Export rows as CSV',
    result: 'CSV export in src/export/csv.ts, wired into exportRows, with a test for quoting. PR: https://github.com/acme/platform/pull/128',
    work: {
      branch: 'rt/12-export-rows-as-csv',
      base: fakeId('base'),
      head: fakeId('head'),
      dirty: false,
      commits: [
        { id: fakeId('c1'), subject: 'Add a CSV writer for exported rows', author_time: new Date(Date.now() - 50 * 60_000).toISOString() },
        { id: fakeId('c2'), subject: 'exportRows takes a format: json or csv', author_time: new Date(Date.now() - 20 * 60_000).toISOString() },
      ],
      files: [
        { path: 'src/export/csv.ts', status: 'added', added: 14, removed: 0 },
        { path: 'src/export/index.ts', status: 'modified', added: 5, removed: 2 },
        { path: 'test/export.test.ts', status: 'modified', added: 5, removed: 0 },
      ],
      patch: PATCH,
      pr_url: 'https://github.com/acme/platform/pull/128',
    },
    usage: { input_tokens: 48210, output_tokens: 6120, cached_tokens: 31000, cost_usd: 0.214, model: 'claude-sonnet-4' },
  });
  const page = await board.ownerPage({ width: 1440, height: 1000, scheme: SCHEME });
  await page.locator(`.card[data-task-id="${id}"]`).click();
  await page.locator('#detail-body .work .diff').first().waitFor();
  const comment = async (file, line, text) => {
    await page.getByRole('button', { name: `Comment on ${file} line ${line}`, exact: true }).click();
    await page.getByRole('textbox', { name: `Comment on ${file}:${line}` }).fill(text);
    await page.getByRole('form', { name: `Comment on ${file}:${line}` }).getByRole('button', { name: 'Add comment' }).click();
  };
  await comment('src/export/csv.ts', 4, 'A lone \\r needs quotes too? Add a test for it.');
  await comment('src/export/index.ts', 9, 'An unknown format should be an error, not JSON.');
  await page.getByLabel('Review note').fill('Close: two small things, then it is ready.');
  // The diff in view: the work section's commits and first file.
  await page.locator('#detail-body .work h4').first().evaluate((el) => el.scrollIntoView({ block: 'start' }));
  await page.waitForTimeout(400);
  await page.screenshot({ path: OUT });
  console.log(`wrote ${OUT} (1440x1000, ${SCHEME})`);
} catch (error) {
  process.stderr.write(board.log());
  throw error;
} finally {
  await board.stop();
}
