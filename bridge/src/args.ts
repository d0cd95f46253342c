// The bridge's command lines: node's parseArgs, with an unknown option answered by the nearest known one.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { BadConfig } from './errors.js';

type Options = NonNullable<ParseArgsConfig['options']>;
/** What parseArgs answers for these options, positionals allowed. */
type ParsedLine<T extends Options> = ReturnType<typeof parseArgs<{ args: string[]; options: T; allowPositionals: true; strict: true }>>;

/**
 * Options the bridge refuses on purpose, and why: a typo close to one of them gets this reason, not a guess at an
 * unrelated flag. The token never comes from the command line, where `ps` and shell history would show it.
 */
const REFUSED: Readonly<Record<string, string>> = {
  token: 'the bridge takes no token on its command line, where ps and shell history would show it; store it with `roundtable-bridge login` (or `login --token-stdin`), or set ROUNDTABLE_TOKEN',
};

/** An option the command does not know, named with the nearest one it does (or the reason it has none). */
export class UnknownOption extends BadConfig {
  override readonly fix: string;
  constructor(given: string, nearest: string | undefined, help: string) {
    const reason = nearest === undefined ? undefined : REFUSED[nearest];
    const hint = nearest === undefined ? '' : reason === undefined ? ` (did you mean --${nearest}?)` : given === `--${nearest}` ? `: ${reason}` : `: there is no --${nearest}; ${reason}`;
    super(`unknown option ${given}${hint}`);
    this.fix = `Run \`${help}\` for the options`;
  }
}

/** Levenshtein distance: inserts, deletes and substitutions each cost one. Option names are short, so two rows do. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * The known name nearest to `given`: within a third of its length (at least 2 edits), or one that begins with it
 * (`--verb` for `--verbose`). Undefined when nothing is that close: a wild guess misleads more than none.
 */
export function nearestOption(given: string, known: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = name !== given && given.length >= 3 && name.startsWith(given) ? 1 : editDistance(given, name);
    if (!best || distance < best.distance) best = { name, distance };
  }
  return best && best.distance <= Math.max(2, Math.floor(given.length / 3)) ? best.name : undefined;
}

/**
 * parseArgs with positionals allowed, after a first lenient pass that finds any option the command does not know:
 * node's own error for one advises quoting a positional argument, which is not what someone who mistyped a flag needs.
 */
export function parseCommandLine<const T extends Options>(args: string[], options: T, help = 'roundtable-bridge --help'): ParsedLine<T> {
  const { tokens } = parseArgs({ args, options, allowPositionals: true, strict: false, tokens: true });
  for (const token of tokens) {
    if (token.kind !== 'option' || Object.hasOwn(options, token.name)) continue;
    const isShort = !token.rawName.startsWith('--');
    const nearest = isShort ? undefined : nearestOption(token.name, [...Object.keys(options), ...Object.keys(REFUSED)]);
    throw new UnknownOption(token.rawName, nearest, help);
  }
  return parseArgs({ args, options, allowPositionals: true, strict: true });
}
