// Runs the real `roundtable-bridge hook` process once, with a client's event JSON (a fixture) on stdin.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './board.js';
import { BRIDGE_BIN, bridgeEnv } from './bridge.js';
import { spawnTracked } from './processes.js';

export const HOOK_FIXTURES = join(ROOT, 'test/fixtures/hooks');

export interface HookRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Spawn to exit, in ms. */
  readonly elapsedMs: number;
}

export function fixture(client: string, name: string): string {
  return readFileSync(join(HOOK_FIXTURES, client, `${name}.json`), 'utf8');
}

export async function runHookProcess(options: {
  url: string;
  token: string;
  stateDir: string;
  client: string;
  event: string;
  stdin: string;
  args?: string[];
}): Promise<HookRun> {
  const started = performance.now();
  const child = spawnTracked(process.execPath, [BRIDGE_BIN, 'hook', options.client, options.event, '--url', options.url, ...(options.args ?? [])], {
    env: bridgeEnv({ ROUNDTABLE_TOKEN: options.token, ROUNDTABLE_STATE_DIR: options.stateDir }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdin!.end(options.stdin);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, stdout, stderr, elapsedMs: performance.now() - started };
}
