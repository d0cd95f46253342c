// What differs between the systems agent apps run on (Linux, macOS, Windows): file modes, state folders, stop
// signals, and quoting in commands we print. The system is a parameter, so each branch is unit-tested on Linux CI.
import { homedir } from 'node:os';
import { posix, win32 } from 'node:path';

export type Platform = NodeJS.Platform;

/** The system this process runs on; every function below takes it as a parameter so a test can pass another. */
export function currentPlatform(): Platform {
  return process.platform;
}

/**
 * Whether a secret file's mode lets others read it. Windows has no POSIX modes (Node reports 0o666 for every
 * file there), so only the user profile's ACLs protect it and the check is skipped; elsewhere group or other
 * access refuses the file.
 */
export function modeTooOpen(mode: number, platform: Platform = currentPlatform()): boolean {
  if (platform === 'win32') return false;
  return (mode & 0o077) !== 0;
}

/**
 * The per-user folder for state this program keeps between runs, followed by `roundtable-bridge`:
 * Linux (and other POSIX) $XDG_STATE_HOME, else ~/.local/state; macOS ~/Library/Application Support;
 * Windows %LOCALAPPDATA% (machine-local, not roaming), else ~\AppData\Local.
 */
export function stateHome(env: NodeJS.ProcessEnv, platform: Platform = currentPlatform(), home: string = homedir()): string {
  if (platform === 'win32') {
    const local = env['LOCALAPPDATA'];
    return win32.join(local && win32.isAbsolute(local) ? local : win32.join(home, 'AppData', 'Local'), 'roundtable-bridge');
  }
  if (platform === 'darwin') return posix.join(home, 'Library', 'Application Support', 'roundtable-bridge');
  // The XDG spec says a relative path is invalid and must be ignored.
  const xdg = env['XDG_STATE_HOME'];
  return posix.join(xdg && xdg.startsWith('/') ? xdg : posix.join(home, '.local', 'state'), 'roundtable-bridge');
}

/** $ROUNDTABLE_STATE_DIR, else this system's per-user state folder (see stateHome). */
export function stateDir(env: NodeJS.ProcessEnv = process.env, platform: Platform = currentPlatform()): string {
  const own = env['ROUNDTABLE_STATE_DIR'];
  if (own) return own;
  return stateHome(env, platform);
}

/**
 * The signals that mean "stop" for a long-running command. Windows never delivers SIGTERM; there Node raises
 * SIGINT on Ctrl+C, SIGBREAK on Ctrl+Break and SIGHUP when the console window closes.
 */
export function stopSignals(platform: Platform = currentPlatform()): readonly NodeJS.Signals[] {
  return platform === 'win32' ? ['SIGINT', 'SIGBREAK', 'SIGHUP'] : ['SIGINT', 'SIGTERM'];
}

/** Calls `stop` with the signal's name on each stop signal of this system, once each. */
export function onStopSignals(stop: (signal: string) => void, platform: Platform = currentPlatform()): void {
  for (const signal of stopSignals(platform)) process.on(signal, () => stop(signal));
}

/** Plain words every shell takes as they are: a URL without a query, a profile name, a simple path. */
const BARE = /^[A-Za-z0-9_./:@+=,-]+$/;

/**
 * One argument of a command we print for the user to paste. POSIX sh: single quotes. Windows: double quotes,
 * which cmd.exe and PowerShell both take (the values we print have no `"`, `%` or `$`; a profile name cannot).
 */
export function shellArg(value: string, platform: Platform = currentPlatform()): string {
  if (BARE.test(value)) return value;
  if (platform === 'win32') return `"${value.replace(/"/g, '""')}"`;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
