// Each system's branch of what the bridge and the worker do differently on Linux, macOS and Windows. CI runs on
// Linux, so the system is injected: token file modes, keychain failures, state folders, stop signals, the
// commands printed for a person to run, the guard's hook script and the launch command setup writes.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findToken, loginCommand } from '../../bridge/src/credentials.js';
import { KeychainLocked, KeychainTimeout, KeychainUnavailable, TokenFileInsecure } from '../../bridge/src/errors.js';
import { guardHookScript } from '../../bridge/src/guard.js';
import { classifyKeychainError, keychainTimeout } from '../../bridge/src/keychain.js';
import { modeTooOpen, shellArg, stateDir, stateHome, stopSignals } from '../../bridge/src/platform.js';
import { bridgeLaunch, findInstall } from '../../bridge/src/setup/launch.js';
import { loadWorkerConfig } from '../../bridge/src/worker/config.js';
import { commandEnv } from '../../bridge/src/wake/exec.js';

const dir = mkdtempSync(join(tmpdir(), 'rt-platform-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A secret file with the mode Node reports for every file on Windows. */
function openFile(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  chmodSync(file, 0o666);
  return file;
}

describe('secret file modes', () => {
  it('refuses group or other access on Linux and macOS, and skips the check on Windows (ACLs protect the file there)', () => {
    expect(modeTooOpen(0o100600, 'linux')).toBe(false);
    expect(modeTooOpen(0o100640, 'linux')).toBe(true);
    expect(modeTooOpen(0o100604, 'darwin')).toBe(true);
    expect(modeTooOpen(0o100666, 'win32')).toBe(false);
  });

  it('ROUNDTABLE_TOKEN_FILE: a 666 file is refused on POSIX and read on Windows', async () => {
    const file = openFile('token', 'rt_secret_token\n');
    // The keychain has no entry for this account (or no keychain answers): either way the file is read next.
    const env = { ROUNDTABLE_TOKEN_FILE: file };
    const place = { baseUrl: 'http://127.0.0.1:1', account: `rt-platform-test-${process.pid}` };
    await expect(findToken(place, env, 'linux')).rejects.toBeInstanceOf(TokenFileInsecure);
    await expect(findToken(place, env, 'darwin')).rejects.toBeInstanceOf(TokenFileInsecure);
    await expect(findToken(place, env, 'win32')).resolves.toMatchObject({ token: 'rt_secret_token', source: 'ROUNDTABLE_TOKEN_FILE' });
  });

  it('WORKER_API_KEY_FILE: a 666 file is refused on POSIX with chmod as the fix, and read on Windows', () => {
    const file = openFile('model-key', 'sk-model-key\n');
    const env = {
      ROUNDTABLE_URL: 'http://127.0.0.1:1',
      ROUNDTABLE_TOKEN: 'rt_x',
      WORKER_MODEL_BASE_URL: 'https://api.example.com/v1',
      WORKER_MODEL_NAME: 'm',
      WORKER_API_KEY_FILE: file,
    };
    expect(() => loadWorkerConfig(env, 'linux')).toThrow(/WORKER_API_KEY_FILE .* has mode 666.*chmod 600/);
    expect(() => loadWorkerConfig(env, 'darwin')).toThrow(/has mode 666/);
    expect(loadWorkerConfig(env, 'win32').model.apiKey).toBe('sk-model-key');
  });
});

describe('keychain failures, classified for the system they happen on', () => {
  it('Linux: Secret Service wording, with the Secret Service fixes', () => {
    expect(classifyKeychainError(new Error('Platform secure storage failure: The name org.freedesktop.secrets was not provided'), 'linux')).toBeInstanceOf(KeychainUnavailable);
    const locked = classifyKeychainError(new Error('Platform secure storage failure: Item is locked'), 'linux');
    expect(locked).toBeInstanceOf(KeychainLocked);
    expect(locked.fix).toMatch(/gnome-keyring/);
    expect(classifyKeychainError(new Error('Did not receive a reply'), 'linux')).toBeInstanceOf(KeychainTimeout);
  });

  it('Linux: no session bus at all is said so (not "no Secret Service on this session bus"), with the agent app as the likely cause', () => {
    // What libdbus says (through @napi-rs/keyring) when DBUS_SESSION_BUS_ADDRESS is unset, as Codex leaves it.
    const none = classifyKeychainError(new Error('Platform failure: DBus error: Using X11 for dbus-daemon autolaunch was disabled at compile time, set your DBUS_SESSION_BUS_ADDRESS instead'), 'linux');
    expect(none).toBeInstanceOf(KeychainUnavailable);
    expect(none.message).toContain('DBUS_SESSION_BUS_ADDRESS is not set for this process');
    expect(none.message).not.toContain('on this session bus');
    expect(none.fix).toContain('env_vars');
    const gone = classifyKeychainError(new Error('Platform failure: DBus error: Failed to connect to socket /run/user/1/bus: No such file or directory'), 'linux');
    expect(gone.message).toContain('nothing answers at the D-Bus session bus address');
  });

  it('macOS: a locked login keychain is reported as that, with Keychain Access as the fix, never as a Secret Service', () => {
    const locked = classifyKeychainError(new Error("Couldn't access platform secure storage: User interaction is not allowed."), 'darwin');
    expect(locked).toBeInstanceOf(KeychainLocked);
    expect(locked.message).toMatch(/macOS login keychain is locked/);
    expect(locked.fix).toMatch(/Keychain Access/);
    expect(locked.fix).toMatch(/ROUNDTABLE_TOKEN/);
    const refused = classifyKeychainError(new Error('The user name or passphrase you entered is not correct.'), 'darwin');
    expect(refused).toBeInstanceOf(KeychainLocked);
    const missing = classifyKeychainError(new Error('The specified keychain could not be found.'), 'darwin');
    expect(missing).toBeInstanceOf(KeychainUnavailable);
    expect(missing.message).toMatch(/no usable login keychain/);
    const other = classifyKeychainError(new Error('something else (-67671)'), 'darwin');
    expect(other).toBeInstanceOf(KeychainUnavailable);
    for (const error of [locked, refused, missing, other]) expect(`${error.message}. ${error.fix}`).not.toMatch(/Secret Service|gnome|D-Bus|session bus/i);
    expect(keychainTimeout('darwin').fix).toMatch(/Keychain/);
  });

  it('Windows: Credential Manager failures name Credential Manager and a Windows fix', () => {
    const session = classifyKeychainError(new Error("Couldn't access platform secure storage: A specified logon session does not exist. It may already have been terminated. (os error 1312)"), 'win32');
    expect(session).toBeInstanceOf(KeychainUnavailable);
    expect(session.message).toMatch(/Windows Credential Manager cannot be used from this logon session/);
    expect(session.fix).toMatch(/signed-in Windows session|ROUNDTABLE_TOKEN/);
    const denied = classifyKeychainError(new Error('Access is denied. (os error 5)'), 'win32');
    expect(denied).toBeInstanceOf(KeychainLocked);
    expect(denied.fix).toMatch(/Credential Manager/);
    const other = classifyKeychainError(new Error('Platform secure storage failure: something'), 'win32');
    expect(other).toBeInstanceOf(KeychainUnavailable);
    expect(other.message).toMatch(/Windows Credential Manager/);
    for (const error of [session, denied, other]) expect(`${error.message}. ${error.fix}`).not.toMatch(/Secret Service|gnome|D-Bus|session bus|chmod|mode-600/i);
    expect(keychainTimeout('win32').fix).toMatch(/Credential Manager/);
    expect(keychainTimeout('linux').fix).toMatch(/Secret Service/);
  });
});

describe('state folders', () => {
  it('follow XDG on Linux, Application Support on macOS and %LOCALAPPDATA% on Windows; ROUNDTABLE_STATE_DIR wins on all', () => {
    expect(stateHome({ XDG_STATE_HOME: '/x/state' }, 'linux', '/home/a')).toBe('/x/state/roundtable-bridge');
    expect(stateHome({ XDG_STATE_HOME: 'relative' }, 'linux', '/home/a')).toBe('/home/a/.local/state/roundtable-bridge');
    expect(stateHome({}, 'darwin', '/Users/a')).toBe('/Users/a/Library/Application Support/roundtable-bridge');
    expect(stateHome({ XDG_STATE_HOME: '/x/state' }, 'darwin', '/Users/a')).toBe('/Users/a/Library/Application Support/roundtable-bridge');
    expect(stateHome({ LOCALAPPDATA: 'C:\\Users\\a\\AppData\\Local' }, 'win32', 'C:\\Users\\a')).toBe('C:\\Users\\a\\AppData\\Local\\roundtable-bridge');
    expect(stateHome({}, 'win32', 'C:\\Users\\a')).toBe('C:\\Users\\a\\AppData\\Local\\roundtable-bridge');
    for (const platform of ['linux', 'darwin', 'win32'] as const) expect(stateDir({ ROUNDTABLE_STATE_DIR: '/mine' }, platform)).toBe('/mine');
    expect(stateDir({ LOCALAPPDATA: 'C:\\L' }, 'win32')).toBe('C:\\L\\roundtable-bridge');
  });
});

describe('stop signals', () => {
  it('are SIGINT and SIGTERM on POSIX, and SIGINT, SIGBREAK and SIGHUP on Windows, which never delivers SIGTERM', () => {
    expect(stopSignals('linux')).toEqual(['SIGINT', 'SIGTERM']);
    expect(stopSignals('darwin')).toEqual(['SIGINT', 'SIGTERM']);
    expect(stopSignals('win32')).toEqual(['SIGINT', 'SIGBREAK', 'SIGHUP']);
  });
});

describe('commands printed for a person to run', () => {
  it('leave plain words bare and quote the rest for sh on POSIX and for cmd and PowerShell on Windows', () => {
    expect(shellArg('https://board.example.com/team', 'linux')).toBe('https://board.example.com/team');
    expect(shellArg('https://board.example.com/team', 'win32')).toBe('https://board.example.com/team');
    expect(shellArg("/home/a/my token's file", 'linux')).toBe(`'/home/a/my token'\\''s file'`);
    expect(shellArg('C:\\Users\\a b\\token', 'win32')).toBe('"C:\\Users\\a b\\token"');
    expect(shellArg('https://board.example.com/a&b', 'darwin')).toBe(`'https://board.example.com/a&b'`);
    expect(shellArg('https://board.example.com/a&b', 'win32')).toBe('"https://board.example.com/a&b"');
  });

  it('login: the URL is quoted when it needs it, on each system', () => {
    const place = { baseUrl: 'https://board.example.com/a&b', account: 'work' };
    expect(loginCommand(place, 'linux')).toBe(`roundtable-bridge login --url 'https://board.example.com/a&b' --profile work`);
    expect(loginCommand(place, 'win32')).toBe('roundtable-bridge login --url "https://board.example.com/a&b" --profile work');
    expect(loginCommand({ baseUrl: 'https://b.example', account: 'https://b.example' }, 'win32')).toBe('roundtable-bridge login --url https://b.example');
  });

  it('the guard hook is sh on every system (Git runs hooks with sh), with forward-slash paths on Windows', () => {
    const posix = guardHookScript(['/usr/bin/node', '/opt/rt/cli.js', 'guard', '--url', 'https://b.example'], 'linux');
    expect(posix.startsWith('#!/bin/sh\n')).toBe(true);
    expect(posix).toContain(`exec '/usr/bin/node' '/opt/rt/cli.js' 'guard' '--url' 'https://b.example'`);
    const windows = guardHookScript(['C:\\Program Files\\nodejs\\node.exe', 'C:\\Users\\a\\rt\\cli.js', 'guard', '--ca', 'C:\\ca\\root.pem', '--url', 'https://b.example'], 'win32');
    expect(windows.startsWith('#!/bin/sh\n')).toBe(true);
    expect(windows).toContain(`exec 'C:/Program Files/nodejs/node.exe' 'C:/Users/a/rt/cli.js' 'guard' '--ca' 'C:/ca/root.pem' '--url' 'https://b.example'`);
    expect(windows).not.toContain('\\');
  });

  it('setup pins npx to its own version, directly on POSIX and through cmd /c on Windows, where npx is a batch file', () => {
    const args = ['--url', 'https://b.example'];
    const npx = { kind: 'npx', version: '1.2.3' } as const;
    expect(bridgeLaunch(args, npx, 'linux')).toEqual({ command: 'npx', args: ['-y', 'roundtable-bridge@1.2.3', '--url', 'https://b.example'] });
    expect(bridgeLaunch(args, npx, 'darwin')).toEqual({ command: 'npx', args: ['-y', 'roundtable-bridge@1.2.3', '--url', 'https://b.example'] });
    expect(bridgeLaunch(args, npx, 'win32')).toEqual({ command: 'cmd', args: ['/c', 'npx', '-y', 'roundtable-bridge@1.2.3', '--url', 'https://b.example'] });
  });

  it("setup names a checkout's bridge by the full path of the Node.js running setup and the script, on every system", () => {
    const args = ['--url', 'https://b.example'];
    expect(bridgeLaunch(args, { kind: 'checkout', script: '/src/rt/bridge/bin/roundtable-bridge.js' }, 'linux', '/home/a/.nvm/versions/node/v22.1.0/bin/node')).toEqual({
      command: '/home/a/.nvm/versions/node/v22.1.0/bin/node',
      args: ['/src/rt/bridge/bin/roundtable-bridge.js', ...args],
    });
    const win = 'C:\\src\\rt\\bridge\\bin\\roundtable-bridge.js';
    expect(bridgeLaunch(args, { kind: 'checkout', script: win }, 'win32', 'C:\\Program Files\\nodejs\\node.exe')).toEqual({ command: 'C:\\Program Files\\nodejs\\node.exe', args: [win, ...args] });
  });

  it('setup names an installed bridge: the bin on POSIX, node and the script on Windows (a .cmd shim needs a shell)', () => {
    const args = ['--url', 'https://b.example'];
    const installed = { kind: 'installed', bin: '/usr/local/bin/roundtable-bridge', script: '/usr/local/lib/node_modules/roundtable-bridge/bin/roundtable-bridge.js' } as const;
    expect(bridgeLaunch(args, installed, 'linux')).toEqual({ command: '/usr/local/bin/roundtable-bridge', args });
    const win = { kind: 'installed', bin: 'C:\\npm\\roundtable-bridge.cmd', script: 'C:\\npm\\node_modules\\roundtable-bridge\\bin\\roundtable-bridge.js' } as const;
    expect(bridgeLaunch(args, win, 'win32', 'C:\\Program Files\\nodejs\\node.exe')).toEqual({ command: 'C:\\Program Files\\nodejs\\node.exe', args: [win.script, ...args] });
  });

  it('setup finds a global install on each system, a project install, a checkout, and takes npx\'s cache for no install', () => {
    const files = new Map<string, string>();
    const fs = { exists: (p: string) => files.has(p), realpath: (p: string) => files.get(p) ?? (() => { throw new Error('ENOENT'); })() };
    const script = '/usr/lib/node_modules/roundtable-bridge/bin/roundtable-bridge.js';
    files.set(script, script).set('/usr/bin/roundtable-bridge', script);
    const global = { argv1: '/usr/bin/roundtable-bridge', packageDir: '/usr/lib/node_modules/roundtable-bridge', version: '1.2.3', platform: 'linux' as const, ...fs };
    expect(findInstall(global)).toEqual({ kind: 'installed', bin: '/usr/bin/roundtable-bridge', script });
    // Started as `node .../bin/roundtable-bridge.js`: the bin beside the prefix is still found.
    expect(findInstall({ ...global, argv1: script })).toEqual({ kind: 'installed', bin: '/usr/bin/roundtable-bridge', script });
    const project = '/p/node_modules/roundtable-bridge/bin/roundtable-bridge.js';
    files.set(project, project).set('/p/node_modules/.bin/roundtable-bridge', project);
    expect(findInstall({ ...global, argv1: project, packageDir: '/p/node_modules/roundtable-bridge' })).toEqual({ kind: 'installed', bin: '/p/node_modules/.bin/roundtable-bridge', script: project });
    const cache = '/root/.npm/_npx/ab12/node_modules/roundtable-bridge';
    files.set(`${cache}/bin/roundtable-bridge.js`, `${cache}/bin/roundtable-bridge.js`).set('/root/.npm/_npx/ab12/node_modules/.bin/roundtable-bridge', `${cache}/bin/roundtable-bridge.js`);
    expect(findInstall({ ...global, argv1: '/root/.npm/_npx/ab12/node_modules/.bin/roundtable-bridge', packageDir: cache })).toEqual({ kind: 'npx', version: '1.2.3' });
    // A checkout (issue 31): no npm install, so its script by full path; without a built script, npx as before.
    files.set('/src/roundtable/bridge/bin/roundtable-bridge.js', '/src/roundtable/bridge/bin/roundtable-bridge.js');
    expect(findInstall({ ...global, argv1: '/src/roundtable/bridge/bin/roundtable-bridge.js', packageDir: '/src/roundtable/bridge' })).toEqual({ kind: 'checkout', script: '/src/roundtable/bridge/bin/roundtable-bridge.js' });
    expect(findInstall({ ...global, argv1: '/elsewhere/bridge/bin/roundtable-bridge.js', packageDir: '/elsewhere/bridge' })).toEqual({ kind: 'npx', version: '1.2.3' });
    // A bin link that points at another copy is not this install.
    files.set('/usr/bin/roundtable-bridge', '/elsewhere/roundtable-bridge.js');
    expect(findInstall({ ...global, argv1: script })).toEqual({ kind: 'npx', version: '1.2.3' });
    const winDir = 'C:\\Users\\a\\AppData\\Roaming\\npm\\node_modules\\roundtable-bridge';
    files.set(`${winDir}\\bin\\roundtable-bridge.js`, `${winDir}\\bin\\roundtable-bridge.js`).set('C:\\Users\\a\\AppData\\Roaming\\npm\\roundtable-bridge.cmd', '');
    expect(findInstall({ ...global, argv1: undefined, packageDir: winDir, platform: 'win32' })).toMatchObject({ kind: 'installed', bin: 'C:\\Users\\a\\AppData\\Roaming\\npm\\roundtable-bridge.cmd' });
  });
});

describe("wake's command environment (issue 22, item 9)", () => {
  const base = { PATH: '/bin', ROUNDTABLE_TOKEN: 'rt_a', roundtable_token: 'rt_b', Roundtable_Token_File: '/t', roundtable_wake_claimable: '999', ROUNDTABLE_URL: 'u' };
  it('on Windows, where names are looked up without regard to case, withholds the token in any case', () => {
    const env = commandEnv(base, { ROUNDTABLE_WAKE_CLAIMABLE: '1' }, 'win32');
    expect(Object.keys(env).sort()).toEqual(['PATH', 'ROUNDTABLE_URL', 'ROUNDTABLE_WAKE_CLAIMABLE']);
  });
  it('elsewhere names are exact, so only the exact ones are the bridge\'s', () => {
    for (const platform of ['linux', 'darwin'] as const) {
      const env = commandEnv(base, { ROUNDTABLE_WAKE_CLAIMABLE: '1' }, platform);
      expect(env['ROUNDTABLE_TOKEN']).toBeUndefined();
      expect(env['ROUNDTABLE_WAKE_CLAIMABLE']).toBe('1');
      expect(env['roundtable_token']).toBe('rt_b');
    }
  });
});
