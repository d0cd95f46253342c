// Reading the `roundtable` command line against what each command accepts: every mistake is one UsageError
// that names the option or argument, so the CLI can print one line and the command's usage, never a stack.
import { parseArgs } from 'node:util';
import { quoted } from '../runtime/terminal-text.js';

export interface OptionSpec {
  readonly type: 'boolean' | 'string';
  readonly short?: string;
  /** Shown in "--skills needs a value, e.g. --skills python,sql". */
  readonly example?: string;
}

/** A command line that does not fit the command: exit code 2, the message and the usage on stderr. */
export class UsageError extends Error {
  constructor(
    message: string,
    /** The usage lines of the command concerned (or of every command). */
    readonly usage: string,
  ) {
    super(message);
  }
}

export interface ParsedLine {
  readonly positionals: string[];
  readonly values: Record<string, string | boolean | undefined>;
  /** Every option given, by its long name, for checking against the command once it is known. */
  readonly given: ReadonlyArray<{ name: string; rawName: string }>;
}

/**
 * Splits argv into positionals and options. Node's strict mode would throw errors whose text names the option
 * only in prose; non-strict tokens let each mistake be described here, from its parts.
 */
export function readCommandLine(
  argv: string[],
  options: Readonly<Record<string, OptionSpec>>,
  /** The usage to show with a mistake, from the words given (so a bad option shows its own command's usage). */
  usageFor: (positionals: readonly string[]) => string,
  /** The long names an unknown option may be a slip for, from the words given (the command's own options). */
  suggestFrom: (positionals: readonly string[]) => readonly string[] = () => Object.keys(options),
): ParsedLine {
  const { tokens } = parseArgs({
    args: argv,
    strict: false,
    allowPositionals: true,
    tokens: true,
    options: Object.fromEntries(Object.entries(options).map(([name, o]) => [name, { type: o.type, ...(o.short && { short: o.short }) }])),
  });
  const positionals = tokens.flatMap((token) => (token.kind === 'positional' ? [token.value] : []));
  const usage = usageFor(positionals);
  const values: Record<string, string | boolean | undefined> = {};
  const given: Array<{ name: string; rawName: string }> = [];
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    const spec = options[token.name];
    if (!spec) {
      const near = nearest(token.name, suggestFrom(positionals));
      throw new UsageError(`unknown option ${token.rawName}${near ? `; did you mean --${near}?` : ''}`, usage);
    }
    given.push({ name: token.name, rawName: token.rawName });
    if (spec.type === 'boolean') {
      if (token.value !== undefined) throw new UsageError(`${token.rawName} takes no value (got ${quoted(token.value)})`, usage);
      values[token.name] = true;
      continue;
    }
    // "--skills --json": the next word is another option, so --skills was left without its value.
    if (token.value === undefined || (!token.inlineValue && token.value.startsWith('-'))) {
      throw new UsageError(`${token.rawName} needs a value${spec.example ? `, e.g. ${token.rawName} ${spec.example}` : ''}`, usage);
    }
    if (values[token.name] !== undefined) throw new UsageError(`${token.rawName} is given twice`, usage);
    values[token.name] = token.value;
  }
  return { positionals, values, given };
}

/**
 * Edits between two words (insert, delete, substitute, or swap two neighbours: "--prot" is one slip from "--port"),
 * by the optimal string alignment distance.
 */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/** The known name closest to a mistyped one, when it is close enough to be a slip (one edit, two for longer names). */
export function nearest(word: string, known: readonly string[]): string | undefined {
  const allowed = word.length >= 5 ? 2 : 1;
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = editDistance(word.toLowerCase(), name);
    if (distance <= allowed && (!best || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}
