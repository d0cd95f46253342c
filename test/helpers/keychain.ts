// The session's Secret Service, as the bridge's keychain tests and the tests that log agents in need it: whether it
// works, and skipping (or with ROUNDTABLE_REQUIRE_KEYCHAIN=1 failing) the tests that need it when it does not.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { beforeEach } from 'vitest';
import { ROOT } from './board.js';
import { bridgeEnv } from './bridge.js';
import { spawnTracked, stopProcess } from './processes.js';

export const REQUIRE_KEYCHAIN = process.env['ROUNDTABLE_REQUIRE_KEYCHAIN'] === '1';

/**
 * Whether the session's Secret Service works: stores, reads back and deletes an entry, in a child process bounded
 * in time. Returns why not, or undefined when it works.
 */
export async function sharedKeyringProblem(): Promise<string | undefined> {
  if (!process.env['DBUS_SESSION_BUS_ADDRESS']) return 'no D-Bus session (DBUS_SESSION_BUS_ADDRESS is unset), so no Secret Service';
  const probe = `
    import { AsyncEntry } from '@napi-rs/keyring';
    const entry = new AsyncEntry('roundtable', 'kc-probe-${randomBytes(4).toString('hex')}', { linux: { store: 'secret-service' } });
    try {
      await entry.setPassword('probe');
      const back = await entry.getPassword();
      await entry.deletePassword();
      if (back !== 'probe') throw new Error('read back ' + JSON.stringify(back));
      process.exit(0);
    } catch (error) { console.error(error.message); process.exit(1); }`;
  const child = spawnTracked(process.execPath, ['--input-type=module', '-e', probe], {
    env: bridgeEnv(),
    cwd: join(ROOT, 'bridge'),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => void stopProcess(child, 'SIGKILL').catch(() => {}), 5_000);
  const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
  clearTimeout(timer);
  if (code === 0) return undefined;
  return `the Secret Service on this D-Bus session does not work (${stderr.trim() || 'no answer within 5 s'})`;
}

/**
 * Skips the tests of a describe block with the reason when a prerequisite is missing, or fails them when the
 * flag that requires it (ROUNDTABLE_REQUIRE_KEYCHAIN by default) is 1.
 */
export function requireOrSkip(problem: () => string | undefined, flag = 'ROUNDTABLE_REQUIRE_KEYCHAIN'): void {
  beforeEach((context) => {
    const why = problem();
    if (why === undefined) return;
    if (process.env[flag] === '1') throw new Error(`${flag}=1, but ${why}`);
    context.skip(`skipped: ${why}`);
  });
}
