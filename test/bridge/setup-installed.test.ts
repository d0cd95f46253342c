// `setup` run from the bridge as a user installs it (the packed tarball, `npm install -g` and into a project): the entry
// names that bin, the check starts it as the app will and asks a real board whoami with the token from the keychain,
// and the bin stops at once on SIGINT. The session's Secret Service is needed (CI: gnome-keyring in dbus-run-session).
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkEntry } from '../../bridge/src/setup/check.js';
import { serverEnvironment } from '../../bridge/src/setup/environment.js';
import { startBoard, type TestBoard } from '../helpers/board.js';
import { bridgeEnv } from '../helpers/bridge.js';
import { eventually } from '../helpers/eventually.js';
import { requireOrSkip, sharedKeyringProblem } from '../helpers/keychain.js';
import { npmInstall, packWorkspace } from '../helpers/packed.js';
import { spawnTracked, stopProcess } from '../helpers/processes.js';

let board: TestBoard;
let work: string;
let globalBin: string;
let projectBin: string;
let project: string;
let keyringProblem: string | undefined;
const outputs: string[] = [];
const profiles: string[] = [];
const run = randomBytes(3).toString('hex');

beforeAll(async () => {
  board = await startBoard();
  keyringProblem = await sharedKeyringProblem();
  work = mkdtempSync(join(tmpdir(), 'roundtable-setup-installed-'));
  const tarball = packWorkspace('bridge');
  globalBin = npmInstall(tarball, { global: true, into: join(work, 'global') });
  project = join(work, 'project');
  mkdirSync(project);
  projectBin = npmInstall(tarball, { global: false, into: project });
  rmSync(join(tarball, '..'), { recursive: true, force: true });
}, 300_000);

afterAll(async () => {
  for (const profile of profiles) await bin(globalBin, ['logout', '--url', board.url, '--profile', profile], { home: work });
  await board?.stop();
  for (const secret of Object.values(board?.tokens ?? {})) for (const out of outputs) expect(out).not.toContain(secret);
  rmSync(work, { recursive: true, force: true });
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function bin(folder: string, args: string[], options: { home: string; cwd?: string; stdin?: string }): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(join(folder, 'roundtable-bridge'), args, { env: bridgeEnv({ HOME: options.home }), cwd: options.cwd ?? options.home, timeout: 120_000 }, (error, stdout, stderr) => {
      outputs.push(stdout, stderr);
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
    child.stdin!.end(options.stdin ?? '');
  });
}

/** A profile of its own in the shared keyring, holding this agent's token; removed after the file. */
async function loggedIn(agent: string, home: string): Promise<string> {
  const profile = `setup-${run}-${agent}`;
  profiles.push(profile);
  const login = await bin(globalBin, ['login', '--url', board.url, '--profile', profile, '--token-stdin'], { home, stdin: `${board.tokens[agent]!}\n` });
  expect(login.code, login.stderr).toBe(0);
  return profile;
}

function home(): string {
  return mkdtempSync(join(work, 'home-'));
}

describe('setup from an installed bridge', () => {
  requireOrSkip(() => keyringProblem);

  it('globally installed: the entry names its bin, and the check asks whoami through it with the keychain token', async () => {
    const h = home();
    const profile = await loggedIn('w1', h);
    const setup = await bin(globalBin, ['setup', 'claude-code', '--url', board.url, '--profile', profile], { home: h });
    expect(setup.code, setup.stdout + setup.stderr).toBe(0);
    const entry = JSON.parse(readFileSync(join(h, '.claude.json'), 'utf8')).mcpServers[`roundtable-${profile}`];
    expect(entry).toEqual({ command: join(globalBin, 'roundtable-bridge'), args: ['--url', board.url, '--profile', profile] });
    expect(setup.stdout).toMatch(/Checked: started the entry as Claude Code will \(with its whole environment\), and the board answered whoami through it: w1 \(worker\), in \d+ ms\./);
    expect(setup.stdout).not.toContain('npx');
  });

  it('in a project: the entry names node_modules/.bin/roundtable-bridge', async () => {
    const h = home();
    const profile = await loggedIn('w2', h);
    const setup = await bin(projectBin, ['setup', 'cursor', '--url', board.url, '--profile', profile, '--scope', 'project'], { home: h, cwd: project });
    expect(setup.code, setup.stdout + setup.stderr).toBe(0);
    const entry = JSON.parse(readFileSync(join(project, '.cursor', 'mcp.json'), 'utf8')).mcpServers[`roundtable-${profile}`];
    expect(entry.command).toBe(join(projectBin, 'roundtable-bridge'));
    expect(setup.stdout).toContain('whoami through it: w2 (worker)');
  });

  it("Codex: the entry answers under Codex's own environment rules; the same command without env_vars cannot reach the keychain", async () => {
    const h = home();
    const profile = await loggedIn('w3', h);
    const setup = await bin(globalBin, ['setup', 'codex', '--url', board.url, '--profile', profile], { home: h });
    expect(setup.code, setup.stdout + setup.stderr).toBe(0);
    expect(setup.stdout).toContain('started the entry as Codex will (with only HOME, PATH');
    expect(setup.stdout).toContain('whoami through it: w3 (worker)');
    const toml = readFileSync(join(h, '.codex', 'config.toml'), 'utf8');
    expect(toml).toContain(`command = "${join(globalBin, 'roundtable-bridge')}"`);
    expect(toml).toContain('required = true');

    // The entry setup wrote before env_vars: Codex passes no D-Bus address, so the keychain is out of reach.
    const launch = { command: join(globalBin, 'roundtable-bridge'), args: ['--url', board.url, '--profile', profile] };
    const without = await checkEntry({ launch, env: serverEnvironment('allowlist', bridgeEnv({ HOME: h }), {}, 'linux'), cwd: h, timeoutMs: 20_000 });
    expect(without.ok).toBe(false);
    expect(!without.ok && without.why).toContain('keychain_unavailable: no OS keychain can be reached: DBUS_SESSION_BUS_ADDRESS is not set for this process');
    expect(!without.ok && without.why).toContain('Codex: env_vars in the entry');
  });

  it('with no token stored for the profile, the check fails naming the login command to run, and setup exits 1', async () => {
    const h = home();
    const profile = `setup-${run}-nobody`;
    const setup = await bin(globalBin, ['setup', 'claude-code', '--url', board.url, '--profile', profile], { home: h });
    expect(setup.code).toBe(1);
    expect(JSON.parse(readFileSync(join(h, '.claude.json'), 'utf8')).mcpServers[`roundtable-${profile}`]).toBeDefined();
    expect(setup.stdout).toContain(`whoami answered no_credential: no token for ${profile}`);
    expect(setup.stdout).toContain(`Run \`roundtable-bridge login --url ${board.url} --profile ${profile}\` to store this agent's token`);
    expect(setup.stdout).not.toContain('<board URL>');
  });

  it('--hooks writes hook commands that run the installed bin, and they answer the client', async () => {
    const h = home();
    const profile = await loggedIn('lead', h);
    const setup = await bin(globalBin, ['setup', 'claude-code', '--url', board.url, '--profile', profile, '--hooks'], { home: h });
    expect(setup.code, setup.stdout + setup.stderr).toBe(0);
    const settings = JSON.parse(readFileSync(join(h, '.claude', 'settings.json'), 'utf8'));
    const command: string = settings.hooks.SessionStart[0].hooks[0].command;
    expect(command).toBe(`${join(globalBin, 'roundtable-bridge')} hook claude-code SessionStart --url ${board.url} --profile ${profile}`);
    // Run as Claude Code runs a command hook: through sh, the event on stdin.
    const hook = await new Promise<Run>((resolve) => {
      const child = execFile('/bin/sh', ['-c', command], { env: bridgeEnv({ HOME: h }), timeout: 30_000 }, (error, stdout, stderr) =>
        resolve({ code: error ? 1 : 0, stdout, stderr }),
      );
      child.stdin!.end(JSON.stringify({ session_id: `s-${run}`, hook_event_name: 'SessionStart' }));
    });
    expect(hook.code, hook.stderr).toBe(0);
    expect(JSON.parse(hook.stdout).hookSpecificOutput.additionalContext).toContain(`Roundtable board at ${board.url}: you are lead (leader).`);
  });
});

describe('the installed bin and SIGINT', () => {
  it('stops at once on SIGINT while serving (an agent app sends it first when it quits)', async () => {
    const child = spawnTracked(join(globalBin, 'roundtable-bridge'), ['--url', board.url], { env: bridgeEnv({ HOME: work }), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } } })}\n`);
    await eventually('the initialize answer', () => stdout.includes('"id":1'));
    const sent = performance.now();
    const exited = new Promise<{ code: number | null; ms: number }>((resolve) => child.once('exit', (code) => resolve({ code, ms: performance.now() - sent })));
    child.kill('SIGINT');
    const timer = setTimeout(() => void stopProcess(child, 'SIGKILL').catch(() => {}), 10_000);
    const { code, ms } = await exited;
    clearTimeout(timer);
    expect(code).toBe(0);
    // "At once": an app that gets no exit within its grace time (Claude Code: a few seconds) escalates to SIGTERM.
    expect(ms).toBeLessThan(2_000);
  });
});
