// Runs the user's wake command. CMD is the user's own fixed string from the command line, run by the system shell;
// what the board says reaches it only as environment variables of ids and counts, never inside the command text.
import { spawn } from 'node:child_process';
import { log } from '../log.js';
import { currentPlatform, type Platform } from '../platform.js';

/** A command still running after this long is stopped, so one stuck notifier cannot silence every later wake. */
const COMMAND_TIMEOUT_MS = 120_000;

/** Variables the command never inherits: the agent's token stays with the bridge. */
const WITHHELD = /^(ROUNDTABLE_TOKEN|ROUNDTABLE_TOKEN_FILE|ROUNDTABLE_WAKE_.*)$/;
/** Windows looks names up without regard to case, so `roundtable_token` is ROUNDTABLE_TOKEN there. */
const WITHHELD_ANY_CASE = new RegExp(WITHHELD.source, 'i');

export function commandEnv(base: NodeJS.ProcessEnv, wake: Record<string, string>, platform: Platform = currentPlatform()): NodeJS.ProcessEnv {
  const withheld = platform === 'win32' ? WITHHELD_ANY_CASE : WITHHELD;
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(base)) if (!withheld.test(name)) env[name] = value;
  return { ...env, ...wake };
}

/** Resolves with the exit code (or null after a signal) once the command has finished. */
export function runWakeCommand(command: string, env: NodeJS.ProcessEnv): Promise<number | null> {
  return new Promise((resolve) => {
    // shell: true is `/bin/sh -c command` (cmd.exe on Windows): the string is the user's, unchanged.
    const child = spawn(command, { shell: true, env, stdio: ['ignore', 'inherit', 'inherit'] });
    const timer = setTimeout(() => {
      log.warn(`the wake command ran for ${COMMAND_TIMEOUT_MS / 1000} s; stopping it`);
      child.kill('SIGTERM');
    }, COMMAND_TIMEOUT_MS);
    timer.unref();
    child.once('error', (error) => {
      clearTimeout(timer);
      log.warn(`the wake command could not be started (${(error as NodeJS.ErrnoException).code ?? error.message})`);
      resolve(null);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}
