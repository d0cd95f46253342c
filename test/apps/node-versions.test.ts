// The packed bridge on Node 22 and 24 (the Node agent apps run it under; Node 20's life ended in April 2026), and the
// packed daemon on Node 24, installed from its tarball into an empty folder with better-sqlite3 built against that
// Node's headers from the npm `node` package (no download). The Node binaries come from scripts/install-apps.sh:
// without them these tests are skipped, unless ROUNDTABLE_REQUIRE_APPS=1.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SERVER_INSTRUCTIONS } from 'roundtable-shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appsProblem, nodeDir, nodeHeaders, REQUIRE_APPS_FLAG } from '../helpers/apps.js';
import { api, startBoard, type TestBoard } from '../helpers/board.js';
import { body, bridgeEnv, startBridge } from '../helpers/bridge.js';
import { requireOrSkip, sharedKeyringProblem } from '../helpers/keychain.js';
import { npmInstall, packWorkspace } from '../helpers/packed.js';

const MAJORS = [22, 24] as const;
const run = randomBytes(2).toString('hex');

let problem: string | undefined;
let board: TestBoard;
let work: string;
let bin: string;
const outputs: string[] = [];

beforeAll(async () => {
  problem = appsProblem(['node22', 'node24']) ?? (await sharedKeyringProblem());
  if (problem) {
    if (process.env[REQUIRE_APPS_FLAG] !== '1') console.warn(`the Node 22/24 tests are skipped: ${problem}`);
    return;
  }
  board = await startBoard();
  work = mkdtempSync(join(tmpdir(), 'roundtable-node-versions-'));
  const tarball = packWorkspace('bridge');
  bin = join(npmInstall(tarball, { global: true, into: join(work, 'global') }), 'roundtable-bridge');
  rmSync(join(tarball, '..'), { recursive: true, force: true });
}, 300_000);

afterAll(async () => {
  if (problem) return;
  for (const major of MAJORS) await bridgeOn(major, ['logout', '--url', board.url, '--profile', `node${major}-${run}`]);
  await board.stop();
  for (const secret of Object.values(board.tokens)) for (const out of outputs) expect(out).not.toContain(secret);
  rmSync(work, { recursive: true, force: true });
});

/** The installed bin, with this Node first on PATH: its `#!/usr/bin/env node` then runs on it, as in an agent app. */
const envOn = (major: 22 | 24, extra: Record<string, string> = {}) => bridgeEnv({ HOME: work, PATH: `${nodeDir(major)}:${process.env['PATH'] ?? '/usr/bin:/bin'}`, ...extra });

function bridgeOn(major: 22 | 24, args: string[], stdin = ''): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(bin, args, { env: envOn(major), cwd: work, timeout: 120_000 }, (error, stdout, stderr) => {
      outputs.push(stdout, stderr);
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
    child.stdin!.end(stdin);
  });
}

describe.each(MAJORS)('the packed bridge on Node %i', (major) => {
  requireOrSkip(() => problem, REQUIRE_APPS_FLAG);
  const profile = () => `node${major}-${run}`;

  it('logs in to the keychain, and setup checks its entry with whoami, running on this Node', async () => {
    const login = await bridgeOn(major, ['login', '--url', board.url, '--profile', profile(), '--token-stdin'], `${board.tokens['w1']!}\n`);
    expect(login.code, login.stderr).toBe(0);
    const status = await bridgeOn(major, ['status', '--url', board.url, '--profile', profile()]);
    expect(status.stdout).toMatch(new RegExp(`bridge: +roundtable-bridge \\S+, node v${major}\\.`));
    expect(status.stdout).toContain(`token:    from keychain (account "${profile()}")`);
    const home = mkdtempSync(join(work, `home${major}-`));
    const setup = await new Promise<{ code: number; stdout: string }>((resolve) => {
      execFile(bin, ['setup', 'codex', '--url', board.url, '--profile', profile()], { env: envOn(major, { HOME: home }), cwd: home, timeout: 120_000 }, (error, stdout, stderr) => {
        outputs.push(stdout, stderr);
        resolve({ code: error ? 1 : 0, stdout: stdout + stderr });
      });
    });
    expect(setup.code, setup.stdout).toBe(0);
    expect(setup.stdout).toContain('whoami through it: w1 (worker)');
  });

  it('serves initialize, tools/list and a call over stdio with the keychain token, and answers a hook', async () => {
    const bridge = await startBridge({ node: join(nodeDir(major), 'node'), bin, args: ['--url', board.url, '--profile', profile()], env: envOn(major) });
    try {
      expect(bridge.client.getServerVersion()?.name).toBe('roundtable');
      expect(bridge.client.getInstructions()).toBe(SERVER_INSTRUCTIONS);
      expect((await bridge.client.listTools()).tools.map((t) => t.name)).toContain('claim_task');
      expect(body(await bridge.client.callTool({ name: 'whoami', arguments: {} })).name).toBe('w1');
    } finally {
      await bridge.close();
      outputs.push(bridge.stderr());
    }
    const hook = await bridgeOn(major, ['hook', 'codex', 'SessionStart', '--url', board.url, '--profile', profile()], JSON.stringify({ session_id: `n${major}`, hook_event_name: 'SessionStart' }));
    expect(hook.code, hook.stderr).toBe(0);
    expect(JSON.parse(hook.stdout).hookSpecificOutput.additionalContext).toContain(`Roundtable board at ${board.url}: you are w1 (worker).`);
  });
});

describe('the packed daemon on Node 24', () => {
  requireOrSkip(() => problem, REQUIRE_APPS_FLAG);
  let daemon: TestBoard | undefined;
  afterAll(async () => {
    await daemon?.stop();
  });

  it('installs from its tarball into an empty folder (better-sqlite3 built for Node 24), starts, and runs a role flow', async () => {
    const folder = join(work, 'daemon24');
    mkdirSync(folder);
    const tarball = packWorkspace('daemon');
    // Node 24's headers for node-gyp: the build needs no download (~/.npmrc's own nodedir is overridden).
    const env = { ...process.env, PATH: `${nodeDir(24)}:${process.env['PATH'] ?? '/usr/bin:/bin'}`, npm_config_nodedir: nodeHeaders(24) };
    npmInstall(tarball, { global: false, into: folder, env });
    rmSync(join(tarball, '..'), { recursive: true, force: true });
    const installed = join(folder, 'node_modules', 'roundtable-daemon');
    expect(JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')).name).toBe('roundtable-daemon');

    daemon = await startBoard({ node: join(nodeDir(24), 'node'), bin: join(installed, 'bin', 'roundtable.js') });
    const status = await (await fetch(`${daemon.url}/status`)).json();
    expect(status).toMatchObject({ board: 'Roundtable' });
    const created = await api(daemon, 'lead', 'create_task', { title: 'on node 24', description: 'd' });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const id = created.body['task']['id'] as number;
    const claimed = await api(daemon, 'w1', 'claim_task', { task_id: id });
    expect(claimed.status).toBe(200);
    expect((await api(daemon, 'w1', 'submit_result', { task_id: id, result: 'done', claim_id: claimed.body['task']['claim_id'] })).status).toBe(200);
    expect((await api(daemon, 'lead', 'review_task', { task_id: id, verdict: 'approve' })).body['task']['status']).toBe('done');
    expect(daemon.output().stderr).not.toMatch(/NODE_MODULE_VERSION|was compiled against a different Node\.js version/);
  }, 900_000);
});
