// The daemon's import graph (issue 32): no file imports itself back through others, and no folder imports a floor above it.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../daemon/src/', import.meta.url));

/**
 * The daemon's floors, top to bottom (docs/DECISIONS.md, "The daemon's folders (issue 32)"). A folder may import only
 * folders on a floor below its own; folders that share a floor do not import each other. The root of daemon/src holds
 * only the leaves every floor uses (the error family and the board's events), each a node of its own on the lowest floor;
 * a new root file or folder needs a floor here, so it is placed on purpose.
 */
const FLOORS: readonly (readonly string[])[] = [
  // The command line: one file per command, over the argument reader.
  ['cli/'],
  // `roundtable doctor`'s checks.
  ['doctor/'],
  // The running daemon: start and stop, the HTTP application composed once, its exposure and its files.
  ['process/'],
  // The OAuth authorization server and the resource server's token check: over the page's sign-in and the stores.
  ['oauth/'],
  // The live page and its routes, and the MCP face: both lean on the JSON API's guards and routes.
  ['web/', 'mcp/'],
  // The JSON API the bridge calls, and /status.
  ['http/'],
  // The board's rules, and the webhook delivery worker: neither knows of the other.
  ['board/', 'webhooks/'],
  // Who may use the board: agents.json or the agents table, and the directory in force.
  ['agents/'],
  // SQL, migrations, and the ports the store owns (the event log, the webhook outbox, shared waiting and sessions).
  ['store/'],
  // What every floor reads: config, the logger, the database lock, the version, rate limits, terminal text.
  ['runtime/'],
  // The leaves at the root: the error family, and board events with the in-process bus.
  ['errors.ts', 'events.ts'],
];

/** Folders inside a floor that stand side by side and never import each other: the two stores share only what sits above them in store/. */
const SIBLINGS: readonly (readonly [string, string])[] = [['store/sqlite/', 'store/postgres/']];

/** Every specifier a file imports: static imports and re-exports (type-only ones too), side-effect imports, dynamic import(). */
export function importedSpecifiers(source: string): string[] {
  const found: string[] = [];
  const patterns = [/\b(?:import|export)\s+(?:type\s+)?[^'";]*?\bfrom\s*['"]([^'"]+)['"]/g, /\bimport\s*['"]([^'"]+)['"]/g, /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g];
  for (const pattern of patterns) for (const match of source.matchAll(pattern)) found.push(match[1]!);
  return found;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Paths relative to daemon/src with forward slashes: `store/postgres/tasks.ts`. */
function rel(path: string): string {
  return relative(SRC, path).split(sep).join('/');
}

/** The file graph: each file to the files of daemon/src it imports (packages and node: modules are left out). */
function fileGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of sourceFiles(SRC)) {
    const targets = new Set<string>();
    for (const spec of importedSpecifiers(readFileSync(file, 'utf8'))) {
      if (!spec.startsWith('.')) continue;
      const target = normalize(join(dirname(file), spec)).replace(/\.js$/, '.ts');
      const path = rel(target.endsWith('.ts') ? target : join(target, 'index.ts'));
      if (!path.startsWith('..')) targets.add(path);
    }
    graph.set(rel(file), targets);
  }
  return graph;
}

/** A root file is its own node; a file in a folder belongs to the folder's node (`store/`). */
function nodeOf(path: string): string {
  const slash = path.indexOf('/');
  return slash < 0 ? path : path.slice(0, slash + 1);
}

/** The strongly connected parts with more than one member, or one that imports itself: each is an import circle. */
export function circles(graph: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  // Tarjan's algorithm, iterative so that a deep chain cannot overflow the stack.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: Array<{ node: string; edges: Iterator<string> }> = [];
    const enter = (node: string) => {
      index.set(node, next);
      low.set(node, next++);
      stack.push(node);
      onStack.add(node);
      work.push({ node, edges: (graph.get(node) ?? new Set<string>()).values() });
    };
    enter(start);
    while (work.length > 0) {
      const top = work[work.length - 1]!;
      const step = top.edges.next();
      if (!step.done) {
        const to = step.value;
        if (!index.has(to)) enter(to);
        else if (onStack.has(to)) low.set(top.node, Math.min(low.get(top.node)!, index.get(to)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(top.node)!));
      if (low.get(top.node) !== index.get(top.node)) continue;
      const part: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        part.push(member);
      } while (member !== top.node);
      if (part.length > 1 || graph.get(top.node)?.has(top.node)) found.push(part.sort());
    }
  }
  return found;
}

/** One line per circle, naming each member's imports inside it, so the failure says where to cut. */
function describeCircles(graph: ReadonlyMap<string, ReadonlySet<string>>, parts: string[][]): string[] {
  return parts.map((part) => part.map((member) => `${member} -> ${[...(graph.get(member) ?? [])].filter((to) => part.includes(to)).join(', ')}`).join('; '));
}

function floorOf(node: string): number | undefined {
  const floor = FLOORS.findIndex((folders) => folders.includes(node));
  return floor < 0 ? undefined : floor;
}

describe('the import graph of daemon/src', () => {
  const files = fileGraph();
  const nodes = new Map<string, Set<string>>();
  const edgeFiles = new Map<string, string[]>();
  for (const [file, targets] of files) {
    const from = nodeOf(file);
    if (!nodes.has(from)) nodes.set(from, new Set());
    for (const target of targets) {
      const to = nodeOf(target);
      if (to === from) continue;
      nodes.get(from)!.add(to);
      const key = `${from} -> ${to}`;
      edgeFiles.set(key, [...(edgeFiles.get(key) ?? []), file]);
    }
  }

  it('is read: the parser finds the arrows it must (a regex that matched nothing would pass every check below)', () => {
    expect(files.size).toBeGreaterThan(50);
    expect(nodes.get('board/')).toContain('store/');
    expect(nodes.get('http/')).toContain('board/');
    expect(nodes.get('cli/')).toContain('doctor/');
    expect(nodes.get('store/')).toContain('events.ts');
    // A type-only import counts, and so does a dynamic import().
    expect(files.get('board/board.ts')).toContain('store/store.ts');
    expect(files.get('store/open.ts')).toContain('store/postgres/index.ts');
  });

  it('no file imports itself back through others', () => {
    expect(describeCircles(files, circles(files))).toEqual([]);
  });

  it('no circle between folders and root files, each root file a node of its own', () => {
    expect(describeCircles(nodes, circles(nodes))).toEqual([]);
  });

  it('every folder and root file of daemon/src has a floor, so a new one is placed on purpose', () => {
    expect([...nodes.keys()].filter((node) => floorOf(node) === undefined)).toEqual([]);
  });

  it('no folder or root file imports one on its own floor or above it', () => {
    const upward: string[] = [];
    for (const [from, targets] of nodes) {
      const fromFloor = floorOf(from);
      if (fromFloor === undefined) continue;
      for (const to of targets) {
        const toFloor = floorOf(to);
        if (toFloor !== undefined && toFloor <= fromFloor) upward.push(`${from} -> ${to} (${edgeFiles.get(`${from} -> ${to}`)!.join(', ')})`);
      }
    }
    expect(upward).toEqual([]);
  });

  it('the SQLite and PostgreSQL stores do not import each other: what both use sits above them in store/', () => {
    const across: string[] = [];
    for (const [file, targets] of files) {
      for (const [a, b] of SIBLINGS) {
        for (const target of targets) {
          if ((file.startsWith(a) && target.startsWith(b)) || (file.startsWith(b) && target.startsWith(a))) across.push(`${file} -> ${target}`);
        }
      }
    }
    expect(across).toEqual([]);
  });
});

describe('the checks themselves', () => {
  it('find a circle of three and a file importing itself, and pass a chain', () => {
    const graph = new Map([
      ['a', new Set(['b'])],
      ['b', new Set(['c'])],
      ['c', new Set(['a', 'd'])],
      ['d', new Set<string>()],
      ['e', new Set(['e'])],
    ]);
    expect(circles(graph)).toEqual([['a', 'b', 'c'], ['e']]);
    expect(circles(new Map([['a', new Set(['b'])], ['b', new Set<string>()]]))).toEqual([]);
  });

  it('read type-only imports, re-exports, side-effect imports and dynamic imports', () => {
    const source = [
      "import type { A } from './a.js';",
      "import { b, type B } from '../b.js';",
      "export { c } from './c.js';",
      "export type { D } from './d.js';",
      "import './e.js';",
      "const f = await import('./f.js');",
      'import {\n  g,\n  h,\n} from "./g.js";',
    ].join('\n');
    expect(importedSpecifiers(source).sort()).toEqual(['../b.js', './a.js', './c.js', './d.js', './e.js', './f.js', './g.js']);
  });
});
