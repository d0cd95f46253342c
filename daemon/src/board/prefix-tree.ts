// A compressed trie from strings to items: which keys are prefixes of a string, or start with one, in time linear
// in the string's length plus what is found. The path index keeps the literal starts (and, reversed, the ends) of
// wildcard names in these, so a name finds the patterns it matches without trying each one.

interface TreeNode<T> {
  /** Edges by the first code unit of their label. */
  readonly edges: Map<string, Edge<T>>;
  items: Set<T> | undefined;
}

interface Edge<T> {
  label: string;
  node: TreeNode<T>;
}

/** A visitor returns false to stop the walk. */
export type Visit<T> = (item: T) => boolean | void;

const emptyNode = <T>(): TreeNode<T> => ({ edges: new Map(), items: undefined });

function commonLength(a: string, from: number, b: string): number {
  let n = 0;
  while (n < b.length && from + n < a.length && a.charCodeAt(from + n) === b.charCodeAt(n)) n++;
  return n;
}

export class PrefixTree<T> {
  private readonly root: TreeNode<T> = emptyNode();
  private count = 0;

  get size(): number {
    return this.count;
  }

  add(key: string, item: T): void {
    let node = this.root;
    let at = 0;
    while (at < key.length) {
      const edge = node.edges.get(key[at]!);
      if (!edge) {
        const leaf = emptyNode<T>();
        node.edges.set(key[at]!, { label: key.slice(at), node: leaf });
        node = leaf;
        at = key.length;
        break;
      }
      const common = commonLength(key, at, edge.label);
      if (common < edge.label.length) {
        // Split the edge where the key leaves it.
        const middle = emptyNode<T>();
        middle.edges.set(edge.label[common]!, { label: edge.label.slice(common), node: edge.node });
        edge.label = edge.label.slice(0, common);
        edge.node = middle;
      }
      node = edge.node;
      at += common;
    }
    node.items ??= new Set();
    if (!node.items.has(item)) this.count++;
    node.items.add(item);
  }

  delete(key: string, item: T): void {
    const path: Array<{ parent: TreeNode<T>; edge: Edge<T> }> = [];
    let node = this.root;
    let at = 0;
    while (at < key.length) {
      const edge = node.edges.get(key[at]!);
      if (!edge || !key.startsWith(edge.label, at)) return;
      path.push({ parent: node, edge });
      node = edge.node;
      at += edge.label.length;
    }
    if (!node.items?.delete(item)) return;
    this.count--;
    if (node.items.size === 0) node.items = undefined;
    // Drop nodes left with nothing, and merge a node left with one edge and no items into that edge.
    for (let i = path.length - 1; i >= 0; i--) {
      const { parent, edge } = path[i]!;
      const child = edge.node;
      if (child.items === undefined && child.edges.size === 0) {
        parent.edges.delete(edge.label[0]!);
        continue;
      }
      if (child.items === undefined && child.edges.size === 1) {
        const only = child.edges.values().next().value!;
        edge.label += only.label;
        edge.node = only.node;
      }
      break;
    }
  }

  /** Visits the items of every key that is a prefix of `text`: the empty key, ..., `text` itself (unless `proper`). */
  prefixesOf(text: string, visit: Visit<T>, proper = false): boolean {
    let node = this.root;
    let at = 0;
    for (;;) {
      if (node.items && !(proper && at === text.length) && !visitAll(node.items, visit)) return false;
      if (at === text.length) return true;
      const edge = node.edges.get(text[at]!);
      if (!edge || !text.startsWith(edge.label, at)) return true;
      node = edge.node;
      at += edge.label.length;
    }
  }

  /**
   * For a tree of reversed keys: visits the items of every key that, reversed, ends `text` (reads `text` from its
   * end, so a name's ends are found without building its reverse).
   */
  suffixesOf(text: string, visit: Visit<T>): boolean {
    let node = this.root;
    let at = 0; // characters of text consumed from its end
    for (;;) {
      if (node.items && !visitAll(node.items, visit)) return false;
      if (at === text.length) return true;
      const edge = node.edges.get(text[text.length - 1 - at]!);
      if (!edge || edge.label.length > text.length - at) return true;
      for (let i = 1; i < edge.label.length; i++) if (edge.label.charCodeAt(i) !== text.charCodeAt(text.length - 1 - at - i)) return true;
      node = edge.node;
      at += edge.label.length;
    }
  }

  /** Visits the items of every key that starts with `text` (all of them for ''). */
  startingWith(text: string, visit: Visit<T>): boolean {
    let node = this.root;
    let at = 0;
    while (at < text.length) {
      const edge = node.edges.get(text[at]!);
      if (!edge) return true;
      const common = commonLength(text, at, edge.label);
      if (common < edge.label.length && at + common < text.length) return true;
      node = edge.node;
      at += common === edge.label.length ? common : text.length - at;
    }
    return visitSubtree(node, visit);
  }
}

function visitAll<T>(items: Iterable<T>, visit: Visit<T>): boolean {
  for (const item of items) if (visit(item) === false) return false;
  return true;
}

function visitSubtree<T>(start: TreeNode<T>, visit: Visit<T>): boolean {
  const stack = [start];
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (node.items && !visitAll(node.items, visit)) return false;
    for (const edge of node.edges.values()) stack.push(edge.node);
  }
  return true;
}

/** The string's UTF-16 code units in reverse order: keys by their ends become keys by their starts. */
export function reversed(text: string): string {
  return text.length < 2 ? text : text.split('').reverse().join('');
}
