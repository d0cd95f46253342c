// Reading the `roundtable` command line against what each command accepts: every mistake is one UsageError
// that names the option or argument, so the CLI can print one line and the command's usage, never a stack.
import { parseArgs } from 'node:util';
import { quoted } from './terminal-text.js';

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
    if (!spec) throw new UsageError(`unknown option ${token.rawName}`, usage);
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
