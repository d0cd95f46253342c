import { ScopeIndex } from '../daemon/dist/board/scope-index.js';
import { pathNames } from '../daemon/dist/board/overlap.js';
import { checkPaths } from '../shared/dist/index.js';
const rows = [];
const long = (i) => `${'n'.repeat(280)}${i}`;
const shapes = (i) => [`*${long(i)}`, `${long(i)}*`, `${'d/'.repeat(100)}${i}*`, `**/*${long(i)}`, `**/${long(i)}*`];
for (let i = 0; i < 10000; i++) rows.push({ id: i + 1, task_id: 1, claim_id: 1, agent: 'w' + (i % 20), scope: null, pattern: shapes(i)[i % 5], exclusive: i % 20 === 1, reason: null, created_at: 'x' });
const index = new ScopeIndex();
let t = performance.now();
index.apply({ scope: '', since: -1, version: 1, full: true, changed: [], rows });
console.log('build 10k', (performance.now() - t).toFixed(1), 'ms');
const paths = Array.from({ length: 500 }, (_, i) => `${'d/'.repeat(100)}${'n'.repeat(280)}${i}x`);
const body = JSON.stringify({ paths });
for (let k = 0; k < 5; k++) {
  t = performance.now(); const parsed = JSON.parse(body); const t1 = performance.now();
  const input = checkPaths.input.parse(parsed); const t2 = performance.now();
  const names = input.paths.map(pathNames); const t3 = performance.now();
  const out = names.map((n) => index.holders(n, 'w3')); const t4 = performance.now();
  const json = JSON.stringify({ paths: input.paths.map((p, i) => ({ path: p, held: out[i].length > 0, holders: out[i] })) }); const t5 = performance.now();
  console.log(`parse ${(t1-t).toFixed(2)} zod ${(t2-t1).toFixed(2)} fold ${(t3-t2).toFixed(2)} index ${(t4-t3).toFixed(2)} out ${(t5-t4).toFixed(2)} held ${out.filter(o=>o.length).length}`);
}
const small = Array.from({ length: 500 }, (_, i) => `src/module${i % 50}/file${i}.ts`);
for (let k = 0; k < 3; k++) {
  t = performance.now(); const input = checkPaths.input.parse({ paths: small }); const names = input.paths.map(pathNames); const out = names.map((n) => index.holders(n, 'w3'));
  console.log('500 ordinary', (performance.now() - t).toFixed(2));
}
