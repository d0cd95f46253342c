// How an agent app starts the bridge: the installed bin when there is one, node and the script of a checkout, else npx
// pinned to this exact version.
import { existsSync, realpathSync } from 'node:fs';
import { posix, resolve, win32 } from 'node:path';
import { shellArg, type Platform } from '../platform.js';

export interface Launch {
  readonly command: string;
  readonly args: readonly string[];
}

/** Where setup found the bridge it runs as, which decides what the entry starts. */
export type BridgeInstall =
  | { readonly kind: 'installed'; readonly bin: string; readonly script: string }
  | { readonly kind: 'checkout'; readonly script: string }
  | { readonly kind: 'npx'; readonly version: string };

export interface Running {
  /** process.argv[1]: the path the command was started by (a bin link keeps its own path here). */
  readonly argv1: string | undefined;
  /** The package folder of the running bridge (bridge/, or node_modules/roundtable-bridge). */
  readonly packageDir: string;
  readonly version: string;
  readonly platform: Platform;
  readonly exists?: (path: string) => boolean;
  readonly realpath?: (path: string) => string;
}

const BIN = 'roundtable-bridge';

/**
 * The bin to name in an entry, if this bridge is installed: globally (PREFIX/bin/roundtable-bridge, Windows
 * PREFIX\roundtable-bridge.cmd) or in a project (node_modules/.bin/roundtable-bridge). A bridge run by npx lives in
 * npm's cache (`_npx`), which npm may clear: it gets the npx form, the package being on the registry it came from.
 * A bridge outside any node_modules/roundtable-bridge (a checkout of the repository, an unpacked copy) is no npm
 * install, and its version may be on no registry (issue 31: npx then answered 404), so the entry names its script.
 */
export function findInstall(running: Running): BridgeInstall {
  const exists = running.exists ?? existsSync;
  const real = running.realpath ?? realpathSync;
  const path = running.platform === 'win32' ? win32 : posix;
  const npx: BridgeInstall = { kind: 'npx', version: running.version };
  const script = path.join(running.packageDir, 'bin', `${BIN}.js`);
  const inCache = /[\\/]_npx[\\/]/.test(running.packageDir);
  const modules = path.dirname(running.packageDir);
  if (inCache) return npx;
  if (path.basename(running.packageDir) !== BIN || path.basename(modules) !== 'node_modules') {
    return exists(script) ? { kind: 'checkout', script: safeReal(real, script) ?? script } : npx;
  }
  let target: string;
  try {
    target = real(script);
  } catch {
    return npx;
  }
  const candidates =
    running.platform === 'win32'
      ? [path.join(path.dirname(modules), `${BIN}.cmd`), path.join(modules, '.bin', `${BIN}.cmd`)]
      : [running.argv1?.startsWith(running.packageDir + path.sep) ? undefined : running.argv1, path.join(modules, '.bin', BIN), path.join(path.dirname(path.dirname(modules)), 'bin', BIN)];
  for (const candidate of candidates) {
    if (!candidate || !path.isAbsolute(candidate) || !exists(candidate)) continue;
    // A .cmd shim is a text file, not a link: on Windows its place beside the package is what ties it to it.
    if (running.platform === 'win32' || safeReal(real, candidate) === target) return { kind: 'installed', bin: candidate, script };
  }
  return npx;
}

function safeReal(real: (path: string) => string, path: string): string | undefined {
  try {
    return real(path);
  } catch {
    return undefined;
  }
}

/** The running bridge, as setup sees itself. */
export function runningBridge(packageDir: string, version: string, platform: Platform): Running {
  const argv1 = process.argv[1] === undefined ? undefined : resolve(process.argv[1]);
  return { argv1, packageDir, version, platform };
}

/**
 * The command and arguments of an entry. Installed: the bin itself (its `#!/usr/bin/env node` finds node on the app's
 * PATH); on Windows node and the script, since a .cmd shim cannot be started without a shell. A checkout: the Node
 * that runs setup, by its absolute path, and the script: an app started from a desktop or a service has a PATH
 * without nvm's or fnm's node, and this Node is the one the checkout was built and checked with (docs/DECISIONS.md,
 * issue 31). Otherwise `npx -y roundtable-bridge@VERSION`: pinned, so no one who publishes a later version runs code
 * in the app unasked; on Windows through `cmd /c`, npx being a batch file there.
 */
export function bridgeLaunch(args: readonly string[], install: BridgeInstall, platform: Platform, nodePath: string = process.execPath): Launch {
  if (install.kind === 'checkout') return { command: nodePath, args: [install.script, ...args] };
  if (install.kind === 'installed') {
    return platform === 'win32' ? { command: nodePath, args: [install.script, ...args] } : { command: install.bin, args: [...args] };
  }
  const npx = ['npx', '-y', `${BIN}@${install.version}`, ...args];
  return platform === 'win32' ? { command: 'cmd', args: ['/c', ...npx] } : { command: npx[0]!, args: npx.slice(1) };
}

/** The same command as one line for a shell, as command hooks are written. */
export function shellLine(launch: Launch, platform: Platform): string {
  return [launch.command, ...launch.args].map((word) => shellArg(word, platform)).join(' ');
}
