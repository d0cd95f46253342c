// MCP client helpers for the bridge sections of bench/run.mjs: stdio servers spawned with an explicit environment,
// a raw JSON-RPC cold-start probe, MCP SDK (v2) clients over stdio and over Streamable HTTP, and /proc readings.
// Every child process goes through the caller's track(child), so run.mjs can kill it on exit, error or signal.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Client, LATEST_PROTOCOL_VERSION, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { DEFAULT_INHERITED_ENV_VARS, StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const CLIENT_INFO = { name: 'roundtable-bench', version: '0.0.0' };

/**
 * The whole environment of a child: PATH and HOME (which the caller points at a temp dir) plus `extra`; nothing else
 * of the bench's environment. The SDK's StdioClientTransport adds HOME, LOGNAME, PATH, SHELL, TERM and USER from the
 * bench's own environment to whatever it is given; Node's spawn drops keys whose value is undefined, so those are
 * blanked here first and the child gets exactly these keys (the bench checks /proc/PID/environ).
 */
export function childEnv(home, extra = {}) {
  const blank = Object.fromEntries(DEFAULT_INHERITED_ENV_VARS.map((key) => [key, undefined]));
  return { ...blank, PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, ...extra };
}

/** Names of the environment variables a running process was started with (/proc/PID/environ). */
export function environKeys(pid) {
  return readFileSync(`/proc/${pid}/environ`, 'utf8')
    .split('\0')
    .filter(Boolean)
    .map((entry) => entry.slice(0, entry.indexOf('=')))
    .sort();
}

/**
 * Resident memory of a process in MB from /proc/PID/status: VmRSS, its anonymous part RssAnon (heap and other
 * private memory; the rest is mostly the node binary's file-backed pages, shared by every node process), and VmHWM,
 * the peak VmRSS so far.
 */
export function residentMemory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMb: kb('VmRSS') / 1024, anonMb: kb('RssAnon') / 1024, hwmMb: kb('VmHWM') / 1024 };
}

/** SIGTERM, then SIGKILL after graceMs; resolves once the process has exited. */
export function stopChild(child, graceMs = 2000) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/**
 * One cold start, measured with raw JSON-RPC over stdio so that no client-side work (schema compilation, validation)
 * is counted: spawn `node args...`, write initialize at once (it waits in the pipe until the server reads stdin),
 * then on its answer notifications/initialized and tools/list. Resolves with the milliseconds from just before
 * spawn to each answer, and the number of tools listed; the process is stopped before resolving.
 */
export async function coldStart({ args, env, track, timeoutMs = 20_000 }) {
  const t0 = performance.now();
  const child = spawn(process.execPath, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
  track(child);
  let stderrTail = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk) => {
    stderrTail = (stderrTail + chunk).slice(-2000);
  });
  child.stdin.on('error', () => {}); // EPIPE if it dies first: reported by the exit handler below
  const send = (message) => child.stdin.write(`${JSON.stringify(message)}\n`);
  try {
    return await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no tools/list answer within ${timeoutMs} ms\n${stderrTail}`)), timeoutMs);
      const fail = (error) => {
        clearTimeout(timer);
        reject(error);
      };
      child.once('error', fail);
      child.once('exit', (code, signal) => fail(new Error(`exited (${code ?? signal}) during start-up\n${stderrTail}`)));
      let buffer = '';
      let initMs;
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk) => {
        buffer += chunk;
        for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          if (!line.trim()) continue;
          const message = JSON.parse(line);
          if (message.error) return fail(new Error(`id ${message.id}: ${JSON.stringify(message.error)}`));
          if (message.id === 1) {
            initMs = performance.now() - t0;
            send({ jsonrpc: '2.0', method: 'notifications/initialized' });
            send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
          } else if (message.id === 2) {
            const listMs = performance.now() - t0;
            clearTimeout(timer);
            resolve({ initMs, listMs, tools: message.result.tools.length, pid: child.pid });
          }
        }
      });
      send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: CLIENT_INFO },
      });
    });
  } finally {
    child.removeAllListeners('exit');
    await stopChild(child);
  }
}

/**
 * An MCP SDK client connected over stdio to `node args...` (StdioClientTransport, explicit env, stderr kept).
 * Returns { client, child, pid, stderrTail(), close() }; close() stops the process without the SDK's 2 s waits.
 */
export async function stdioClient({ args, env, track }) {
  const transport = new StdioClientTransport({ command: process.execPath, args, env, stderr: 'pipe' });
  let stderrTail = '';
  transport.stderr.setEncoding('utf8');
  transport.stderr.on('data', (chunk) => {
    stderrTail = (stderrTail + chunk).slice(-4000);
  });
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  // connect() spawns the process; the SDK keeps the ChildProcess in _process, taken here for cleanup and /proc.
  const connecting = client.connect(transport);
  const child = transport._process;
  if (child) track(child);
  try {
    await connecting;
  } catch (error) {
    if (child) await stopChild(child);
    throw new Error(`${error.message}\n${stderrTail}`);
  }
  return {
    client,
    child,
    pid: transport.pid,
    stderrTail: () => stderrTail,
    async close() {
      if (child) await stopChild(child);
      await client.close().catch(() => {});
    },
  };
}

/**
 * The v2 SDK client's connect options: 'legacy' opens with initialize (the SDK's default), 'auto' probes with
 * server/discover and falls back to initialize, { pin: '2026-07-28' } speaks that revision or fails.
 */
export const clientOptions = (mode = 'legacy') => ({ capabilities: {}, versionNegotiation: { mode } });

/** An MCP SDK client on the daemon's /mcp (StreamableHTTPClientTransport, bearer header), connected in `mode`. */
export async function httpClient({ url, token, mode = 'legacy' }) {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
  const client = new Client(CLIENT_INFO, clientOptions(mode));
  await client.connect(transport);
  return {
    client,
    async close() {
      await client.close().catch(() => {});
    },
  };
}

/** Calls a tool and returns its structured output; throws if the result is an error. */
export async function callTool(client, name, args) {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name} ${JSON.stringify(args)}: ${result.content?.[0]?.text ?? 'error'}`);
  return result.structuredContent ?? result.content;
}
