// The last step of setup: start the entry as the app will (its command, in the environment the app would give it)
// and ask the board `whoami` through it over stdio, so a set-up that cannot work is found now, not in the app.
import { spawn } from 'node:child_process';
import type { Launch } from './launch.js';

export type CheckResult =
  | { readonly ok: true; readonly name: string; readonly role: string; readonly ms: number }
  /** notOnRegistry: npm said the package (at that version) is on no registry it asked, so the entry can never start. */
  | { readonly ok: false; readonly why: string; readonly notOnRegistry?: boolean };

export interface CheckOptions {
  readonly launch: Launch;
  readonly env: Record<string, string>;
  readonly cwd: string;
  readonly timeoutMs: number;
}

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'roundtable-bridge-setup-check', version: '1' } },
};

/** Starts the entry, sends initialize and a whoami call, and reads the answers; the process is ended either way. */
export function checkEntry(options: CheckOptions): Promise<CheckResult> {
  const started = performance.now();
  return new Promise((resolve) => {
    let settled = false;
    let stdout = '';
    let stderr = '';
    const child = spawn(options.launch.command, [...options.launch.args], { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'] });
    const finish = (result: CheckResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.stdin.end();
      // Closing stdin ends the bridge; a command that is not the bridge may need telling.
      const kill = setTimeout(() => child.kill('SIGTERM'), 2_000);
      kill.unref();
      child.once('exit', () => clearTimeout(kill));
      resolve(result);
    };
    const timer = setTimeout(() => finish({ ok: false, why: `no answer within ${options.timeoutMs / 1000} s${lastLine(stderr)}` }), options.timeoutMs);
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
    child.on('error', (error: NodeJS.ErrnoException) => finish({ ok: false, why: `the command could not be started (${error.code ?? error.message})` }));
    child.on('exit', (code, signal) =>
      finish(notOnRegistry(stderr) ? { ok: false, why: 'npm found no such package on its registry (E404)', notOnRegistry: true } : { ok: false, why: `the command exited (${signal ?? `code ${code}`}) before it answered${lastLine(stderr)}` }),
    );
    child.stdin.on('error', () => undefined);
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      for (let end = stdout.indexOf('\n'); end >= 0; end = stdout.indexOf('\n')) {
        const line = stdout.slice(0, end);
        stdout = stdout.slice(end + 1);
        const answer = parse(line);
        if (answer?.id === 1) {
          if (answer.error) return finish({ ok: false, why: 'the server refused initialize' });
          send({ jsonrpc: '2.0', method: 'notifications/initialized' });
          send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'whoami', arguments: {} } });
        } else if (answer?.id === 2) {
          finish(whoamiResult(answer, performance.now() - started));
        }
      }
    });
    send(INITIALIZE);
  });
}

interface Answer {
  id?: unknown;
  error?: unknown;
  result?: { isError?: boolean; content?: Array<{ text?: string }> };
}

function parse(line: string): Answer | undefined {
  try {
    const value = JSON.parse(line) as unknown;
    return typeof value === 'object' && value !== null ? (value as Answer) : undefined;
  } catch {
    return undefined;
  }
}

/** whoami's answer: the agent, or the error's code and message (the bridge's own, or the board's fixed words). */
function whoamiResult(answer: Answer, ms: number): CheckResult {
  const text = answer.result?.content?.[0]?.text;
  const body = text === undefined ? undefined : (parse(text) as Record<string, unknown> | undefined);
  if (!body || answer.error) return { ok: false, why: 'whoami got no usable answer' };
  if (answer.result?.isError) {
    const error = body['error'] as { code?: unknown; message?: unknown } | undefined;
    return { ok: false, why: `whoami answered ${String(error?.code ?? 'an error')}: ${String(error?.message ?? '').slice(0, 600)}` };
  }
  return { ok: true, name: String(body['name']), role: String(body['role']), ms };
}

/** The last line the command wrote on stderr (the bridge's log), to say why it stopped. */
function lastLine(stderr: string): string {
  const line = stderr.trim().split('\n').pop()?.trim();
  return line ? `; its last log line: ${line.slice(0, 400)}` : '';
}

/**
 * Whether npx stopped because the registry has no such package or version: npm's output is the only sign a child
 * process gives (its code is 1 for every failure), so its E404 code and its "is not in this registry" line are read.
 */
function notOnRegistry(stderr: string): boolean {
  return /^npm (?:error|ERR!) (?:code E404|404 .*is not in this registry)/m.test(stderr);
}
