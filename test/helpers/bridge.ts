// Spawns the real bridge process over stdio with an explicit environment, and connects the MCP SDK client to it.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { clientOptionsFor, ROOT, TestClient, type McpEra } from './board.js';
import { eventually } from './eventually.js';

export const BRIDGE_BIN = join(ROOT, 'bridge/bin/roundtable-bridge.js');

/**
 * The environment a bridge gets in tests: PATH, the D-Bus session if any, a state directory of its own (so no role is
 * remembered from another test or from the machine), and what the test adds.
 */
export function bridgeEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: process.env['HOME'] ?? '/root',
    ROUNDTABLE_STATE_DIR: mkdtempSync(join(tmpdir(), 'roundtable-bridge-state-')),
  };
  const bus = process.env['DBUS_SESSION_BUS_ADDRESS'];
  if (bus) env['DBUS_SESSION_BUS_ADDRESS'] = bus;
  return { ...env, ...extra };
}

export interface BridgeSession {
  readonly client: TestClient;
  readonly pid: number;
  stderr(): string;
  /** Closes stdin and waits until the bridge process has exited. */
  close(): Promise<void>;
}

/**
 * The SDK's stdio transport, probing in place: on the base class a negotiating client probes with server/discover
 * on a second, throw-away process; a subclass probes on the bridge it starts, so each test starts one process.
 */
class ProbeInPlace extends StdioClientTransport {}

/**
 * Starts the bridge and connects the v2 SDK client: on 2026-07-28 unless `era: 'legacy'` asks for initialize.
 * `node` runs the bridge (default: the Node running the tests), e.g. Node 22 or 24 from scripts/install-apps.sh;
 * `cwd` is the folder the app launches it in (default: the tests').
 */
export async function startBridge(options: { args: string[]; env: Record<string, string>; bin?: string; era?: McpEra; node?: string; cwd?: string }): Promise<BridgeSession> {
  const transport = new ProbeInPlace({
    command: options.node ?? process.execPath,
    args: [options.bin ?? BRIDGE_BIN, ...options.args],
    env: options.env,
    ...(options.cwd !== undefined && { cwd: options.cwd }),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const client = new TestClient({ name: 'roundtable-bridge-test', version: '0.0.0' }, clientOptionsFor(options.era ?? 'modern'));
  await client.connect(transport);
  const pid = transport.pid!;
  return {
    client,
    pid,
    stderr: () => stderr,
    async close() {
      await client.close();
      await waitForExit(pid);
    },
  };
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function waitForExit(pid: number, timeoutMs = 10_000): Promise<void> {
  try {
    await eventually(`bridge ${pid} to exit after its stdin closed`, () => !isAlive(pid), { timeoutMs, intervalMs: 20 });
  } catch (error) {
    process.kill(pid, 'SIGKILL');
    throw error;
  }
}

/** Parses the JSON text of a tool result. */
export function body(result: unknown): any {
  return JSON.parse((result as { content: Array<{ text: string }> }).content[0]!.text);
}
