// `roundtable doctor`: checks the set-up and says what is wrong and how to fix it.
import type { Config } from './config.js';

/** Returns the exit code: 0 when nothing failed. */
export async function runDoctor(_config: Config): Promise<number> {
  process.stdout.write('roundtable doctor: not implemented yet\n');
  return 1;
}
