// An in-memory index of path reservations by the names their patterns fix: a tree of folders from the root, with
// each folder's wildcard names in prefix trees by their literal start and end, and the patterns that start with **
// apart. A query walks the names it is given once, so its cost is linear in their length plus what it finds, however
// many reservations the scope holds: it never compares with each one (issue 22).
import { nameMatches, type NamePattern, type PathShape } from './overlap.js';
import { PrefixTree, reversed, type Visit } from './prefix-tree.js';

/** What the index holds: anything with an id and an agent, indexed under a shape. */
export interface Indexed {
  readonly id: number;
  readonly agent: string;
  readonly shape: PathShape;
}

/** Wildcard names at one place (a folder's last names, or the names after a leading **), each kind found apart. */
class NameSet<T> {
  readonly any = new Set<T>();
  readonly starts = new PrefixTree<T>();
  readonly ends = new PrefixTree<T>();
  readonly literals = new Map<string, Set<T>>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  add(name: NamePattern, item: T): void {
    this.count++;
    if (name.kind === 'any') this.any.add(item);
    else if (name.kind === 'prefix') this.starts.add(name.text, item);
    else if (name.kind === 'suffix') this.ends.add(reversed(name.text), item);
    else {
      const set = this.literals.get(name.text) ?? new Set<T>();
      set.add(item);
      this.literals.set(name.text, set);
    }
  }

  delete(name: NamePattern, item: T): void {
    this.count--;
    if (name.kind === 'any') this.any.delete(item);
    else if (name.kind === 'prefix') this.starts.delete(name.text, item);
    else if (name.kind === 'suffix') this.ends.delete(reversed(name.text), item);
    else {
      const set = this.literals.get(name.text);
      set?.delete(item);
      if (set?.size === 0) this.literals.delete(name.text);
    }
  }

  /** The items whose name pattern matches `name`. */
  matching(name: string, visit: Visit<T>): boolean {
    if (this.count === 0) return true;
    for (const item of this.any) if (visit(item) === false) return false;
    const literal = this.literals.get(name);
    if (literal) for (const item of literal) if (visit(item) === false) return false;
    if (this.starts.size > 0 && !this.starts.prefixesOf(name, visit)) return false;
    return this.ends.size === 0 || this.ends.suffixesOf(name, visit);
  }

  /** The items whose name pattern meets `pattern` (some name matches both); `pattern` is a wildcard here. */
  meeting(pattern: NamePattern, visit: Visit<T>): boolean {
    if (this.count === 0) return true;
    if (pattern.kind === 'literal') return this.matching(pattern.text, visit);
    for (const item of this.any) if (visit(item) === false) return false;
    for (const [text, set] of this.literals) if (nameMatches(pattern, text)) for (const item of set) if (visit(item) === false) return false;
    if (pattern.kind === 'any') return this.starts.startingWith('', visit) && this.ends.startingWith('', visit);
    // A* meets every *B, and the B* whose B starts A or is started by it; the other way round for *B.
    const [same, other, key] = pattern.kind === 'prefix' ? [this.starts, this.ends, pattern.text] : [this.ends, this.starts, reversed(pattern.text)];
    return other.startingWith('', visit) && same.prefixesOf(key, visit, true) && same.startingWith(key, visit);
  }

  every(visit: Visit<T>): boolean {
    return this.meeting({ kind: 'any' }, visit);
  }
}

/** One folder of anchored patterns: those naming it, those naming a wildcard name in it, and its subfolders. */
class Folder<T extends Indexed> {
  readonly children = new Map<string, Folder<T>>();
  /** The children by name, and by reversed name, for a wildcard name asked at this folder: built when first asked. */
  private byStart: PrefixTree<Folder<T>> | undefined;
  private byEnd: PrefixTree<Folder<T>> | undefined;
  readonly here = new Set<T>();
  readonly names = new NameSet<T>();
  /** Items in this folder and below, in all and by agent (a subtree of one agent only is skipped for that agent). */
  count = 0;
  readonly agents = new Map<string, number>();

  constructor(readonly name: string) {}

  child(name: string): Folder<T> {
    let child = this.children.get(name);
    if (!child) {
      child = new Folder<T>(name);
      this.children.set(name, child);
      this.byStart?.add(name, child);
      this.byEnd?.add(reversed(name), child);
    }
    return child;
  }

  dropChild(child: Folder<T>): void {
    this.children.delete(child.name);
    this.byStart?.delete(child.name, child);
    this.byEnd?.delete(reversed(child.name), child);
  }

  private get childStarts(): PrefixTree<Folder<T>> {
    if (!this.byStart) {
      this.byStart = new PrefixTree();
      for (const [name, child] of this.children) this.byStart.add(name, child);
    }
    return this.byStart;
  }

  private get childEnds(): PrefixTree<Folder<T>> {
    if (!this.byEnd) {
      this.byEnd = new PrefixTree();
      for (const [name, child] of this.children) this.byEnd.add(reversed(name), child);
    }
    return this.byEnd;
  }

  /** The children whose name `pattern` matches. */
  childrenMatching(pattern: NamePattern, visit: Visit<Folder<T>>): boolean {
    switch (pattern.kind) {
      case 'literal': {
        const child = this.children.get(pattern.text);
        return child === undefined || visit(child) !== false;
      }
      case 'any':
        for (const child of this.children.values()) if (visit(child) === false) return false;
        return true;
      case 'prefix':
        return this.childStarts.startingWith(pattern.text, visit);
      case 'suffix':
        return this.childEnds.startingWith(reversed(pattern.text), visit);
    }
  }

  counted(agent: string, delta: number): void {
    this.count += delta;
    const n = (this.agents.get(agent) ?? 0) + delta;
    if (n === 0) this.agents.delete(agent);
    else this.agents.set(agent, n);
  }
}

/** How a query goes: `skip` names an agent whose items are not wanted (a subtree holding only those is not entered). */
export interface Walk<T> {
  readonly visit: Visit<T>;
  readonly skip?: string | undefined;
}

export class PathIndex<T extends Indexed> {
  private readonly root = new Folder<T>('');
  /** Patterns that start with **: all of them overlap everything; ** alone holds every file. */
  private readonly everywhere = new Set<T>();
  private readonly anywhere = new NameSet<T>();

  get size(): number {
    return this.root.count + this.everywhere.size + this.anywhere.size;
  }

  add(item: T): void {
    const { shape } = item;
    if (!shape.anchored) {
      if (shape.name) this.anywhere.add(shape.name, item);
      else this.everywhere.add(item);
      return;
    }
    let folder = this.root;
    folder.counted(item.agent, 1);
    for (const name of shape.folders) {
      folder = folder.child(name);
      folder.counted(item.agent, 1);
    }
    if (shape.name) folder.names.add(shape.name, item);
    else folder.here.add(item);
  }

  delete(item: T): void {
    const { shape } = item;
    if (!shape.anchored) {
      if (shape.name) this.anywhere.delete(shape.name, item);
      else this.everywhere.delete(item);
      return;
    }
    const path = [this.root];
    for (const name of shape.folders) {
      const next = path.at(-1)!.children.get(name);
      if (!next) return;
      path.push(next);
    }
    const folder = path.at(-1)!;
    if (shape.name) folder.names.delete(shape.name, item);
    else folder.here.delete(item);
    for (const f of path) f.counted(item.agent, -1);
    for (let i = path.length - 1; i > 0; i--) if (path[i]!.count === 0) path[i - 1]!.dropChild(path[i]!);
  }

  /** The items holding a file, given as its folded names: what check_paths asks. */
  holding(names: readonly string[], walk: Walk<T>): boolean {
    const { visit } = walk;
    for (const item of this.everywhere) if (visit(item) === false) return false;
    if (this.anywhere.size > 0) for (const name of names) if (!this.anywhere.matching(name, visit)) return false;
    let folder: Folder<T> | undefined = this.root;
    for (let depth = 0; folder; depth++) {
      if (walk.skip !== undefined && folder.agents.size === 1 && folder.agents.has(walk.skip)) return true;
      if (depth > 0) for (const item of folder.here) if (visit(item) === false) return false;
      if (depth === names.length) return true;
      if (!folder.names.matching(names[depth]!, visit)) return false;
      folder = folder.children.get(names[depth]!);
    }
    return true;
  }

  /** The items whose patterns overlap a shape: heads that agree name by name as far as the shorter goes. */
  overlapping(shape: PathShape, walk: Walk<T>): boolean {
    const { visit } = walk;
    for (const item of this.everywhere) if (visit(item) === false) return false;
    if (!this.anywhere.every(visit)) return false;
    if (!shape.anchored) return this.subtree(this.root, walk);
    let folder: Folder<T> | undefined = this.root;
    for (const name of shape.folders) {
      if (folder !== this.root) for (const item of folder.here) if (visit(item) === false) return false;
      if (!folder.names.matching(name, visit)) return false;
      folder = folder.children.get(name);
      if (!folder) return true;
    }
    if (!shape.name) return this.subtree(folder, walk);
    // The shape ends in a wildcard name: this folder's own reservations, its wildcard names that meet it, and
    // everything under the children it matches.
    if (folder !== this.root) for (const item of folder.here) if (visit(item) === false) return false;
    if (!folder.names.meeting(shape.name, visit)) return false;
    return folder.childrenMatching(shape.name, (child) => this.subtree(child, walk));
  }

  /** Every item in and under a folder, but for a subtree that holds only the skipped agent's. */
  private subtree(start: Folder<T>, walk: Walk<T>): boolean {
    const stack = [start];
    for (let folder = stack.pop(); folder; folder = stack.pop()) {
      if (walk.skip !== undefined && folder.agents.size === 1 && folder.agents.has(walk.skip)) continue;
      for (const item of folder.here) if (walk.visit(item) === false) return false;
      if (!folder.names.every(walk.visit)) return false;
      for (const child of folder.children.values()) stack.push(child);
    }
    return true;
  }
}
