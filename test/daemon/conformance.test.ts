// Runs the official MCP conformance suite (@modelcontextprotocol/conformance 0.1.13, `conformance server`) against
// the real daemon's /mcp, through a loopback proxy that adds the leader's bearer token (the suite cannot send one).
//
// Scenarios run, one `it` each (every one must pass: exit code 0, and in checks.json no FAILURE and no WARNING —
// the suite's own baseline mode counts warnings as failures — and at least one SUCCESS):
//   - server-initialize          initialize handshake and the initialized notification
//   - ping                       `ping` answers {}
//   - tools-list                 every tool has a name, a description and an inputSchema
//   - dns-rebinding-protection   a foreign Host/Origin gets a 4xx (we also require the host guard's 403, not auth's
//                                401), a loopback Host/Origin gets a 2xx
//
// The other server scenarios of 0.1.13 do not apply to Roundtable, which has only its own board tools and declares
// only the `tools` capability (see NOT_APPLICABLE below; a test checks that the two lists cover `list --server`):
//   - logging-set-level, completion-complete: need the logging / completions capabilities, which we do not offer.
//   - tools-call-* (simple-text, image, audio, embedded-resource, mixed-content, with-logging, error, with-progress,
//     sampling, elicitation), json-schema-2020-12, elicitation-sep1034-defaults, elicitation-sep1330-enums: each
//     calls or lists a fixture tool (test_simple_text, test_error_handling, json_schema_2020_12_tool, ...) that only
//     the suite's reference "everything" server has; sampling and elicitation also need server-to-client requests.
//   - server-sse-polling: calls the fixture tool test_reconnection and tests SSE resumption (Last-Event-ID on GET);
//     we answer POSTs with JSON and offer no GET stream.
//   - server-sse-multiple-streams: needs an Mcp-Session-Id; our stateless server issues none, so the scenario only
//     emits a warning and checks nothing.
//   - resources-*, prompts-*: we declare no resources or prompts capability.
//
// The suite runs as `node <bin>` (no npx, no network); it only talks to the proxy on 127.0.0.1, which only talks
// to the daemon on 127.0.0.1.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuthProxy, type AuthProxy } from '../helpers/auth-proxy.js';
import { startBoard, type TestBoard } from '../helpers/board.js';
import { freePort } from '../helpers/net.js';
import { spawnTracked, stopProcess } from '../helpers/processes.js';

const SUITE_VERSION = '0.1.13';

const RUN = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'] as const;

const NOT_APPLICABLE: Record<string, string> = {
  'logging-set-level': 'no logging capability',
  'completion-complete': 'no completions capability',
  'tools-call-simple-text': 'fixture tool test_simple_text',
  'tools-call-image': 'fixture tool test_image_content',
  'tools-call-audio': 'fixture tool test_audio_content',
  'tools-call-embedded-resource': 'fixture tool test_embedded_resource',
  'tools-call-mixed-content': 'fixture tool test_multiple_content_types',
  'tools-call-with-logging': 'fixture tool test_tool_with_logging',
  'tools-call-error': 'fixture tool test_error_handling',
  'tools-call-with-progress': 'fixture tool test_tool_with_progress',
  'tools-call-sampling': 'fixture tool test_sampling; no sampling',
  'tools-call-elicitation': 'fixture tool test_elicitation; no elicitation',
  'json-schema-2020-12': 'fixture tool json_schema_2020_12_tool',
  'elicitation-sep1034-defaults': 'fixture tool test_elicitation_sep1034_defaults; no elicitation',
  'elicitation-sep1330-enums': 'fixture tool test_elicitation_sep1330_enums; no elicitation',
  'server-sse-polling': 'fixture tool test_reconnection; JSON responses, no GET stream',
  'server-sse-multiple-streams': 'needs a session id; the server is stateless',
  'resources-list': 'no resources',
  'resources-read-text': 'no resources',
  'resources-read-binary': 'no resources',
  'resources-templates-read': 'no resources',
  'resources-subscribe': 'no resources',
  'resources-unsubscribe': 'no resources',
  'prompts-list': 'no prompts',
  'prompts-get-simple': 'no prompts',
  'prompts-get-with-args': 'no prompts',
  'prompts-get-embedded-resource': 'no prompts',
  'prompts-get-with-image': 'no prompts',
};

const require = createRequire(import.meta.url);
const SUITE_PACKAGE = require.resolve('@modelcontextprotocol/conformance/package.json');
const SUITE_MANIFEST = JSON.parse(readFileSync(SUITE_PACKAGE, 'utf8')) as { version: string; bin: Record<string, string> };
const SUITE_BIN = join(dirname(SUITE_PACKAGE), SUITE_MANIFEST.bin['conformance']!);

const CLI_TIMEOUT_MS = 45_000;

interface Check {
  id: string;
  name: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | string;
  description?: string;
  errorMessage?: string;
  details?: Record<string, unknown>;
}

interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

const stripAnsi = (text: string) => text.replace(/\x1b\[[0-9;]*m/g, '');

/** Runs the conformance CLI with `args`, in a scratch directory, with a minimal environment (no proxies, no tokens). */
async function runSuite(args: readonly string[], cwd: string): Promise<CliRun> {
  const child = spawnTracked(process.execPath, [SUITE_BIN, ...args], {
    cwd,
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => {
    stderr += `\n[test] conformance CLI still running after ${CLI_TIMEOUT_MS} ms; stopping it`;
    void stopProcess(child, 'SIGKILL').catch(() => undefined);
  }, CLI_TIMEOUT_MS);
  const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal }));
  }).finally(() => clearTimeout(timer));
  return { code, signal, stdout: stripAnsi(stdout), stderr: stripAnsi(stderr) };
}

describe(`MCP conformance suite ${SUITE_VERSION} against /mcp`, () => {
  let board: TestBoard;
  let proxy: AuthProxy;
  let scratch: string;

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'roundtable-conformance-'));
    // The suite's Host and Origin name the proxy's port, which the daemon admits for a loopback name only when
    // ROUNDTABLE_ALLOWED_HOSTS lists it with that port (SPEC §9), as a local proxy's owner would.
    const proxyPort = await freePort();
    board = await startBoard({ env: { ROUNDTABLE_ALLOWED_HOSTS: `127.0.0.1:${proxyPort},localhost:${proxyPort}` } });
    proxy = await startAuthProxy(board.url, board.tokens['lead']!, { port: proxyPort });
  });

  afterAll(async () => {
    await proxy?.close();
    await board?.stop();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it(`uses the pinned suite, and every server scenario it lists is either run or explained`, async () => {
    expect(SUITE_MANIFEST.version).toBe(SUITE_VERSION);
    const run = await runSuite(['list', '--server'], scratch);
    expect(run.code, `conformance list --server failed:\n${run.stdout}\n${run.stderr}`).toBe(0);
    const listed = [...run.stdout.matchAll(/^\s+- (\S+)$/gm)].map((m) => m[1]!);
    expect(listed.length, `no scenarios parsed from:\n${run.stdout}`).toBeGreaterThan(0);
    expect([...listed].sort()).toEqual([...RUN, ...Object.keys(NOT_APPLICABLE)].sort());
  });

  it.each(RUN)('%s passes', async (scenario) => {
    const outDir = mkdtempSync(join(scratch, `${scenario}-`));
    const seenBefore = proxy.requests.length;
    const run = await runSuite(['server', '--url', `${proxy.url}/mcp`, '--scenario', scenario, '--output-dir', outDir], scratch);

    const resultDirs = readdirSync(outDir);
    let checks: Check[] = [];
    let checksError = '';
    try {
      checks = JSON.parse(readFileSync(join(outDir, resultDirs[0]!, 'checks.json'), 'utf8')) as Check[];
    } catch (error) {
      checksError = `could not read checks.json in ${outDir} (${resultDirs.join(', ') || 'empty'}): ${String(error)}\n`;
    }
    const bad = checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
    const report =
      `conformance scenario ${scenario}: exit ${run.code}${run.signal ? ` (signal ${run.signal})` : ''}\n${checksError}` +
      bad.map((c) => `${c.status} [${c.id}] ${c.description ?? c.name}: ${c.errorMessage ?? ''}\n  details: ${JSON.stringify(c.details)}\n`).join('') +
      `--- stdout ---\n${run.stdout}\n--- stderr ---\n${run.stderr}\n--- daemon stderr ---\n${board.output().stderr}`;

    expect(run.code, report).toBe(0);
    expect(checksError, report).toBe('');
    expect(bad, report).toEqual([]);
    expect(checks.filter((c) => c.status === 'SUCCESS').length, report).toBeGreaterThan(0);
    // The suite really went through the proxy (and so reached the daemon with a token).
    expect(proxy.requests.length, report).toBeGreaterThan(seenBefore);

    if (scenario === 'dns-rebinding-protection') {
      // A 401 would also be a 4xx: make sure the refusal came from the host guard, with the token present.
      const rejected = checks.find((c) => c.id === 'localhost-host-rebinding-rejected');
      expect(rejected?.details?.['statusCode'], report).toBe(403);
      const forwarded = proxy.requests.slice(seenBefore);
      expect(forwarded.find((r) => r.host === 'evil.example.com'), report).toMatchObject({ origin: 'http://evil.example.com', status: 403 });
      expect(forwarded.find((r) => r.host === `127.0.0.1:${proxy.port}`), report).toMatchObject({ origin: `http://127.0.0.1:${proxy.port}`, status: 200 });
    }
  });
});
