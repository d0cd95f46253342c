// Runs the official MCP conformance suite (@modelcontextprotocol/conformance 0.2.0-alpha.12, `conformance server`)
// against the real daemon's /mcp, through a loopback proxy that adds the leader's bearer token (the suite cannot send
// one). Each scenario runs at each revision it is written for that applies to Roundtable (`--spec-version` picks the
// wire: 2025-06-18 and 2025-11-25 open with initialize, 2026-07-28 sends the per-request `_meta` envelope), one `it`
// each: exit code 0, and in checks.json no FAILURE and no WARNING except the checks the baseline
// (test/fixtures/conformance-baseline.yml, passed as --expected-failures) names, and at least one SUCCESS.
//
// The suite's releases since 0.1.14 need Node 22 or newer (they import fs.globSync); this machine's Node is 20, so the
// suite runs under the binary of the npm `node` package: ROUNDTABLE_CONFORMANCE_NODE, or the Node 24 that
// scripts/install-apps.sh installs beside the agent apps (pinned in test/apps/package.json). Without one the file is skipped, unless
// ROUNDTABLE_REQUIRE_CONFORMANCE=1 (CI), which makes that a failure.
//
// What runs, and why the rest does not (NOT_RUN; a test checks that RUN and NOT_RUN cover `list --server` exactly,
// scenario by revision):
//   - server-initialize, ping (2025 only: 2026-07-28 removed them), tools-list, prompts-list, dns-rebinding-protection
//     (a foreign Host/Origin gets a 4xx, and we also require the host guard's 403, not auth's 401).
//   - tools-call-error: it calls the fixture tool test_error_handling and checks that the error comes back as an
//     isError result; ours for a tool that does not exist is exactly that.
//   - 2026-07-28: server-stateless (the envelope rules, server/discover, 400 and -32022 for an unsupported revision,
//     400 and -32020 for a header that disagrees with the envelope, 404 for removed methods, subscriptions/listen),
//     caching (ttlMs/cacheScope on tools/list, prompts/list, server/discover), http-header-validation (Mcp-Method,
//     Mcp-Name), server-sse-multiple-streams (concurrent POSTs), input-required-result-unsupported-methods and
//     -ignore-extra-params (no input_required where the revision forbids it).
// The others need what only the suite's reference "everything" server has (fixture tools and prompts), capabilities
// Roundtable does not declare (logging, completions, resources), sessions (a 2025-era Mcp-Session-Id; /mcp is
// stateless), server-to-client requests (sampling, elicitation, input_required), x-mcp-header tool parameters, or an
// optional extension (tasks, skills).
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeDir } from '../helpers/apps.js';
import { startAuthProxy, type AuthProxy } from '../helpers/auth-proxy.js';
import { ROOT, startBoard, type TestBoard } from '../helpers/board.js';
import { freePort } from '../helpers/net.js';
import { spawnTracked, stopProcess } from '../helpers/processes.js';

const SUITE_VERSION = '0.2.0-alpha.12';
const BASELINE = join(ROOT, 'test/fixtures/conformance-baseline.yml');

type Revision = '2025-06-18' | '2025-11-25' | '2026-07-28';
const LEGACY: Revision[] = ['2025-06-18', '2025-11-25'];
const ALL: Revision[] = [...LEGACY, '2026-07-28'];

/** Scenario -> the revisions it runs at. */
const RUN: Record<string, Revision[]> = {
  'server-initialize': LEGACY,
  ping: LEGACY,
  'tools-list': ALL,
  'tools-call-error': ALL,
  'prompts-list': ALL,
  'dns-rebinding-protection': ['2025-11-25', '2026-07-28'],
  'server-stateless': ['2026-07-28'],
  caching: ['2026-07-28'],
  'http-header-validation': ['2026-07-28'],
  'server-sse-multiple-streams': ['2026-07-28'],
  'input-required-result-unsupported-methods': ['2026-07-28'],
  'input-required-result-ignore-extra-params': ['2026-07-28'],
};

const FIXTURE = 'a fixture tool or prompt that only the reference server has';
const INPUT_REQUIRED = `${FIXTURE}; needs input_required (server-to-client requests), which no Roundtable tool makes`;
/** Scenario (or scenario@revision) -> why it does not apply to Roundtable. */
const NOT_RUN: Record<string, string> = {
  'server-session-lifecycle': 'needs a 2025-era Mcp-Session-Id; /mcp is stateless (the suite itself only reports it skipped)',
  'server-sse-multiple-streams@2025-11-25': 'needs an Mcp-Session-Id on 2025-11-25; /mcp is stateless',
  'logging-set-level': 'no logging capability',
  'completion-complete': 'no completions capability',
  'tools-call-simple-text': FIXTURE,
  'tools-call-image': FIXTURE,
  'tools-call-audio': FIXTURE,
  'tools-call-embedded-resource': FIXTURE,
  'tools-call-mixed-content': FIXTURE,
  'tools-call-with-logging': `${FIXTURE}; no logging capability`,
  'tools-call-with-progress': FIXTURE,
  'tools-call-sampling': `${FIXTURE}; no sampling`,
  'tools-call-elicitation': `${FIXTURE}; no elicitation`,
  'json-schema-2020-12': FIXTURE,
  'elicitation-sep1034-defaults': `${FIXTURE}; no elicitation`,
  'elicitation-sep1330-enums': `${FIXTURE}; no elicitation`,
  'server-sse-polling': `${FIXTURE}; JSON answers, no GET stream`,
  'resources-list': 'no resources capability',
  'resources-read-text': 'no resources capability',
  'resources-read-binary': 'no resources capability',
  'resources-templates-read': 'no resources capability',
  'resources-subscribe': 'no resources capability',
  'resources-unsubscribe': 'no resources capability',
  'sep-2164-resource-not-found': 'no resources capability',
  'prompts-get-simple': `${FIXTURE} (test/daemon/prompts.test.ts gets each of ours)`,
  'prompts-get-with-args': FIXTURE,
  'prompts-get-embedded-resource': FIXTURE,
  'prompts-get-with-image': FIXTURE,
  'http-custom-header-server-validation': 'no tool declares x-mcp-header parameters',
  'input-required-result-basic-elicitation': INPUT_REQUIRED,
  'input-required-result-basic-sampling': INPUT_REQUIRED,
  'input-required-result-basic-list-roots': INPUT_REQUIRED,
  'input-required-result-request-state': INPUT_REQUIRED,
  'input-required-result-multiple-input-requests': INPUT_REQUIRED,
  'input-required-result-multi-round': INPUT_REQUIRED,
  'input-required-result-missing-input-response': INPUT_REQUIRED,
  'input-required-result-non-tool-request': INPUT_REQUIRED,
  'input-required-result-result-type': INPUT_REQUIRED,
  'input-required-result-tampered-state': INPUT_REQUIRED,
  'input-required-result-capability-check': INPUT_REQUIRED,
  'input-required-result-validate-input': INPUT_REQUIRED,
  'sep-2640-skills-directory': 'the skills extension (optional); not offered',
  'sep-2640-skills-enumeration': 'the skills extension (optional); not offered',
  'sep-2640-skills-manifest': 'the skills extension (optional); not offered',
  'tasks-lifecycle': 'the tasks extension (optional); not offered',
  'tasks-capability-negotiation': 'the tasks extension (optional); not offered',
  'tasks-wire-fields': 'the tasks extension (optional); not offered',
  'tasks-request-state-removal': 'the tasks extension (optional); not offered',
  'tasks-mrtr-input': 'the tasks extension (optional); not offered',
  'tasks-request-headers': 'the tasks extension (optional); not offered',
  'tasks-dispatch-and-envelope': 'the tasks extension (optional); not offered',
  'tasks-status-notifications': 'the tasks extension (optional); not offered',
  'tasks-required-task-error': 'the tasks extension (optional); not offered',
  'tasks-mrtr-composition': 'the tasks extension (optional); not offered',
};

/** The checks the baseline excuses, per scenario (entries are `scenario:check-id`). */
const EXCUSED = readFileSync(BASELINE, 'utf8')
  .split('\n')
  .map((line) => /^\s*-\s*([\w-]+):([\w-]+)\s*$/.exec(line))
  .filter((m): m is RegExpExecArray => m !== null)
  .map((m) => ({ scenario: m[1]!, check: m[2]! }));

/** A Node 22+ binary for the suite, or undefined. */
function suiteNode(): string | undefined {
  const configured = process.env['ROUNDTABLE_CONFORMANCE_NODE'];
  if (configured) return configured;
  const installed = join(nodeDir(24), 'node');
  return existsSync(installed) ? installed : undefined;
}
const NODE = suiteNode();
if (!NODE && process.env['ROUNDTABLE_REQUIRE_CONFORMANCE'] === '1') {
  throw new Error('ROUNDTABLE_REQUIRE_CONFORMANCE=1, but no Node 22+ binary for the conformance suite: run scripts/install-apps.sh, or set ROUNDTABLE_CONFORMANCE_NODE');
}
if (!NODE) console.warn('conformance suite skipped: it needs Node 22+ (scripts/install-apps.sh installs one; CI sets ROUNDTABLE_REQUIRE_CONFORMANCE=1)');

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
  const child = spawnTracked(NODE!, [SUITE_BIN, ...args], {
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

const RUNS = Object.entries(RUN).flatMap(([scenario, revisions]) => revisions.map((revision) => [scenario, revision] as const));

describe.skipIf(!NODE)(`MCP conformance suite ${SUITE_VERSION} against /mcp`, () => {
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

  it('uses the pinned suite, and every server scenario it lists, at every revision it names, is either run or explained', async () => {
    expect(SUITE_MANIFEST.version).toBe(SUITE_VERSION);
    const run = await runSuite(['list', '--server'], scratch);
    expect(run.code, `conformance list --server failed:\n${run.stdout}\n${run.stderr}`).toBe(0);
    const listed = [...run.stdout.matchAll(/^\s+- (\S+) \[([^\]]*)\]$/gm)].map((m) => ({ scenario: m[1]!, revisions: m[2]!.split(',') }));
    expect(listed.length, `no scenarios parsed from:\n${run.stdout}`).toBeGreaterThan(0);
    const uncovered: string[] = [];
    for (const { scenario, revisions } of listed) {
      for (const revision of revisions) {
        const covered = (RUN[scenario] as string[] | undefined)?.includes(revision) || NOT_RUN[`${scenario}@${revision}`] || (NOT_RUN[scenario] && !RUN[scenario]);
        if (!covered) uncovered.push(`${scenario}@${revision}`);
      }
    }
    expect(uncovered).toEqual([]);
    // Nothing here names a scenario the suite does not have, and the baseline only excuses checks of scenarios we run.
    const names = new Set(listed.map((l) => l.scenario));
    expect([...Object.keys(RUN), ...Object.keys(NOT_RUN).map((k) => k.split('@')[0]!)].filter((n) => !names.has(n))).toEqual([]);
    expect(EXCUSED.length).toBeGreaterThan(0);
    for (const { scenario } of EXCUSED) expect(RUN[scenario], scenario).toBeDefined();
  });

  it.each(RUNS)('%s at %s passes', async (scenario, revision) => {
    const outDir = mkdtempSync(join(scratch, `${scenario}-${revision}-`));
    const seenBefore = proxy.requests.length;
    const run = await runSuite(
      ['server', '--url', `${proxy.url}/mcp`, '--scenario', scenario, '--spec-version', revision, '--expected-failures', BASELINE, '--output-dir', outDir],
      scratch,
    );

    const resultDirs = readdirSync(outDir);
    let checks: Check[] = [];
    let checksError = '';
    try {
      checks = JSON.parse(readFileSync(join(outDir, resultDirs[0]!, 'checks.json'), 'utf8')) as Check[];
    } catch (error) {
      checksError = `could not read checks.json in ${outDir} (${resultDirs.join(', ') || 'empty'}): ${String(error)}\n`;
    }
    const excused = (c: Check) => EXCUSED.some((e) => e.scenario === scenario && e.check === c.id);
    const bad = checks.filter((c) => (c.status === 'FAILURE' || c.status === 'WARNING') && !excused(c));
    const report =
      `conformance scenario ${scenario} at ${revision}: exit ${run.code}${run.signal ? ` (signal ${run.signal})` : ''}\n${checksError}` +
      bad.map((c) => `${c.status} [${c.id}] ${c.description ?? c.name}: ${c.errorMessage ?? ''}\n  details: ${JSON.stringify(c.details)}\n`).join('') +
      `--- stdout ---\n${run.stdout}\n--- stderr ---\n${run.stderr}\n--- daemon stderr ---\n${board.output().stderr.slice(-4000)}`;

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
