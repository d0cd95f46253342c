// Charts of our own, as SVG built node by node (no library, no markup strings): lines over days, bars per day, and
// bars per agent. Colours come from CSS classes, so light and dark follow the page's variables.

const NS = 'http://www.w3.org/2000/svg';

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>, ...children: Array<SVGElement | string>): SVGElementTagNameMap[K] {
  const el = document.createElementNS(NS, tag);
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, String(value));
  for (const child of children) el.append(typeof child === 'string' ? document.createTextNode(child) : child);
  return el;
}

const W = 600;
const H = 180;
const PAD = { left: 34, right: 8, top: 8, bottom: 20 };

/** A rounded-up top for the value axis: 1, 2 or 5 times a power of ten. */
function niceMax(max: number): number {
  if (max <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  return ([1, 2, 5, 10].find((m) => m * power >= max) ?? 10) * power;
}

function frame(label: string, max: number, firstLabel: string, lastLabel: string): SVGSVGElement {
  const top = niceMax(max);
  const root = svg('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart', role: 'img', 'aria-label': label });
  for (const f of [0, 0.5, 1]) {
    const y = PAD.top + (1 - f) * (H - PAD.top - PAD.bottom);
    root.append(svg('line', { x1: PAD.left, x2: W - PAD.right, y1: y, y2: y, class: 'grid' }), svg('text', { x: PAD.left - 4, y: y + 4, class: 'axis', 'text-anchor': 'end' }, String(Math.round(top * f * 10) / 10)));
  }
  root.append(
    svg('text', { x: PAD.left, y: H - 4, class: 'axis' }, firstLabel),
    svg('text', { x: W - PAD.right, y: H - 4, class: 'axis', 'text-anchor': 'end' }, lastLabel),
  );
  root.dataset['top'] = String(top);
  return root;
}

const xAt = (i: number, n: number) => PAD.left + (n <= 1 ? 0 : (i / (n - 1)) * (W - PAD.left - PAD.right));
const yAt = (v: number, top: number) => PAD.top + (1 - v / top) * (H - PAD.top - PAD.bottom);

/** Lines over the same x labels (days), each with its CSS class. */
export function lineChart(label: string, labels: readonly string[], series: ReadonlyArray<{ cls: string; values: readonly number[] }>): SVGSVGElement {
  const root = frame(label, Math.max(0, ...series.flatMap((s) => s.values)), labels[0] ?? '', labels.at(-1) ?? '');
  const top = Number(root.dataset['top']);
  for (const s of series) {
    const points = s.values.map((v, i) => `${xAt(i, s.values.length).toFixed(1)},${yAt(v, top).toFixed(1)}`).join(' ');
    root.append(svg('polyline', { points, class: `series ${s.cls}` }));
  }
  return root;
}

/** One bar per x label. */
export function barChart(label: string, labels: readonly string[], values: readonly number[], cls: string): SVGSVGElement {
  const root = frame(label, Math.max(0, ...values), labels[0] ?? '', labels.at(-1) ?? '');
  const top = Number(root.dataset['top']);
  const step = (W - PAD.left - PAD.right) / Math.max(1, values.length);
  values.forEach((v, i) => {
    const y = yAt(v, top);
    root.append(svg('rect', { x: (PAD.left + i * step + step * 0.15).toFixed(1), y: y.toFixed(1), width: (step * 0.7).toFixed(1), height: (H - PAD.bottom - y).toFixed(1), class: `bar ${cls}` }));
  });
  return root;
}

/** Horizontal bars, one group per row (an agent), one bar per value with its class. Names are text nodes. */
export function rowChart(label: string, rows: ReadonlyArray<{ name: string; values: ReadonlyArray<{ cls: string; value: number }> }>): SVGSVGElement {
  const rowH = 30;
  const height = Math.max(1, rows.length) * rowH + 8;
  const left = 120;
  const max = niceMax(Math.max(0, ...rows.flatMap((r) => r.values.map((v) => v.value))));
  const root = svg('svg', { viewBox: `0 0 ${W} ${height}`, class: 'chart', role: 'img', 'aria-label': label });
  rows.forEach((row, i) => {
    const y = 4 + i * rowH;
    root.append(svg('text', { x: left - 6, y: y + 14, class: 'axis name', 'text-anchor': 'end' }, row.name.length > 18 ? `${row.name.slice(0, 17)}…` : row.name));
    const barH = (rowH - 6) / Math.max(1, row.values.length);
    row.values.forEach((v, j) => {
      const width = ((W - left - 40) * v.value) / max;
      root.append(
        svg('rect', { x: left, y: (y + j * barH).toFixed(1), width: width.toFixed(1), height: (barH - 1).toFixed(1), class: `bar ${v.cls}` }),
        svg('text', { x: (left + width + 4).toFixed(1), y: (y + j * barH + barH - 2).toFixed(1), class: 'axis' }, String(v.value)),
      );
    });
  });
  return root;
}
