// What one `roundtable` command is: its usage line, the options and arguments it takes, further checks of them, and
// its run function. The option table is one for every command, so an option means the same wherever it is taken.
import type { Config } from '../runtime/config.js';
import type { OptionSpec, ParsedLine } from './args.js';

export const OPTIONS = {
  json: { type: 'boolean' },
  list: { type: 'boolean' },
  role: { type: 'string', example: 'worker' },
  skills: { type: 'string', example: 'python,sql' },
  toolsets: { type: 'string', example: 'tasks,room' },
  // Not --env-file: Node 20 itself takes that flag from anywhere on the command line (nodejs/node#50993).
  env: { type: 'string', example: '/etc/roundtable/roundtable.env' },
  to: { type: 'string', example: 'postgres://roundtable@db.internal/roundtable' },
  events: { type: 'string', example: 'submitted,help_request' },
  format: { type: 'string', example: 'slack' },
  'allow-http-loopback': { type: 'boolean' },
  'allow-private': { type: 'boolean' },
  project: { type: 'string', example: 'web-app' },
  mode: { type: 'string', example: 'peer' },
  title: { type: 'string', example: '"Web app"' },
  force: { type: 'boolean' },
  as: { type: 'string', example: 'web-copy' },
  port: { type: 'string', example: '9000' },
  host: { type: 'string', example: '0.0.0.0' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const satisfies Record<string, OptionSpec>;
export type OptionName = keyof typeof OPTIONS;
/** Taken by every command. */
export const COMMON_OPTIONS: readonly OptionName[] = ['env', 'help', 'version'];

/** A command line resolved to its command: the positional arguments after the command's words, and the options. */
export interface Invocation {
  /** The command's words: `init`, `agents add`. */
  readonly command: string;
  readonly args: string[];
  readonly values: ParsedLine['values'];
}

export interface Command {
  /** The words after `roundtable` that name it: `init`, `agents add`. */
  readonly name: string;
  /** The words after `roundtable`, as shown in the usage. */
  readonly usage: string;
  readonly summary: string;
  readonly options: readonly OptionName[];
  /** Positional arguments after the command's words, each required, with how a message names it. */
  readonly args: ReadonlyArray<{ readonly name: string; readonly missing: string }>;
  /** What is wrong with the options beyond their names and the arguments' count, said as a usage mistake; undefined when nothing is. */
  readonly misuse?: (values: Invocation['values'], args: readonly string[]) => string | undefined;
  /** A long-running command keeps serving when whoever read its stdout goes away. */
  readonly serving?: boolean;
  run(config: Config, invocation: Invocation): void | Promise<void>;
}
