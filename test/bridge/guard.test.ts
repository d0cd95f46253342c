// `roundtable-bridge guard` in a real temporary git repository: real commits run the installed pre-commit hook,
// which runs the real bridge against a real board (and against a port where no board answers).
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startBoard, type TestBoard } from '../helpers/board.js';
import { BRIDGE_BIN, bridgeEnv } from '../helpers/bridge.js';

let board: TestBoard;
let repo: string;
let heldTask: number;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], env: Record<string, string>, cwd = repo): Promise<Run> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** What git and the hook it runs see: an explicit environment with w2's token and no global git config. */
function gitEnv(agent = 'w2'): Record<string, string> {
  const home = mkdtempSync(join(tmpdir(), 'roundtable-guard-home-'));
  return bridgeEnv({
    HOME: home,
    ROUNDTABLE_TOKEN: board.tokens[agent]!,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'w2',
    GIT_AUTHOR_EMAIL: 'w2@example.test',
    GIT_COMMITTER_NAME: 'w2',
    GIT_COMMITTER_EMAIL: 'w2@example.test',
  });
}

const git = (args: string[], env = gitEnv()) => run('git', args, env);
const guard = (args: string[], env = gitEnv()) => run(process.execPath, [BRIDGE_BIN, 'guard', ...args], env);

/** Stages one changed file and tries to commit it. */
async function commitFile(path: string, env = gitEnv()): Promise<Run> {
  mkdirSync(join(repo, path, '..'), { recursive: true });
  writeFileSync(join(repo, path), `${Date.now()} ${Math.random()}\n`);
  // A literal pathspec: git reads "**" in a pathspec as a glob, and these tests stage files called that.
  expect((await git(['add', '--', `:(literal)${path}`], env)).code).toBe(0);
  const result = await git(['commit', '-q', '-m', `change ${path}`], env);
  if (result.code !== 0) await git(['reset', '-q'], env); // leave the index clean for the next case
  return result;
}

/** A loopback port where nothing listens. */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  board = await startBoard();
  const claim = async (agent: string, paths: string[]) => {
    const id = (await api(board, 'lead', 'create_task', { title: `work of ${agent}` })).body.task.id as number;
    expect((await api(board, agent, 'claim_task', { task_id: id })).status).toBe(200);
    const reserved = await api(board, agent, 'reserve_paths', { task_id: id, paths });
    expect(reserved.status, JSON.stringify(reserved.body)).toBe(200);
    return id;
  };
  heldTask = await claim('w1', ['src/held/**']);
  await claim('w2', ['src/mine.ts']);
  repo = mkdtempSync(join(tmpdir(), 'roundtable-guard-repo-'));
  expect((await git(['init', '-q', '-b', 'main'])).code).toBe(0);
  // A hook that was there before: it leaves a mark each time it runs, and refuses a file called veto.txt.
  writeFileSync(
    join(repo, '.git/hooks/pre-commit'),
    '#!/bin/sh\necho ran >> "$(git rev-parse --git-dir)/earlier-hook-ran"\nif git diff --cached --name-only | grep -q veto.txt; then echo "earlier hook says no" >&2; exit 3; fi\n',
  );
  chmodSync(join(repo, '.git/hooks/pre-commit'), 0o755);
});
afterAll(async () => {
  await board.stop();
});

describe('roundtable-bridge guard', () => {
  it('--install makes it the pre-commit hook and keeps the existing hook, chained and run first; twice changes nothing', async () => {
    const installed = await guard(['--install', '--url', board.url]);
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stdout).toContain('pre-commit.before-roundtable');
    const hook = readFileSync(join(repo, '.git/hooks/pre-commit'), 'utf8');
    expect(hook).toContain('roundtable-bridge guard');
    expect(hook).not.toContain(board.tokens['w2']!);
    expect(readFileSync(join(repo, '.git/hooks/pre-commit.before-roundtable'), 'utf8')).toContain('earlier-hook-ran');
    const again = await guard(['--install', '--url', board.url]);
    expect(again.code, again.stderr).toBe(0);
    expect(readFileSync(join(repo, '.git/hooks/pre-commit.before-roundtable'), 'utf8')).toContain('earlier-hook-ran');
  });

  it("refuses a commit touching a file another agent holds exclusively, naming the holder and the task", async () => {
    const refused = await commitFile('src/held/login.ts');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('commit refused');
    expect(refused.stderr).toContain(`src/held/login.ts: held by w1 (task ${heldTask})`);
    expect(refused.stderr).not.toContain(board.tokens['w2']!);
    // The earlier hook ran first.
    expect(existsSync(join(repo, '.git/earlier-hook-ran'))).toBe(true);
  });

  it("lets the agent's own files and free files through", async () => {
    const own = await commitFile('src/mine.ts');
    expect(own.code, own.stderr).toBe(0);
    const free = await commitFile('README.md');
    expect(free.code, free.stderr).toBe(0);
    expect(free.stderr).toBe('');
  });

  it('the chained hook still refuses what it refuses', async () => {
    const vetoed = await commitFile('veto.txt');
    expect(vetoed.code).not.toBe(0);
    expect(vetoed.stderr).toContain('earlier hook says no');
  });

  // Issue 22, item 4: with --strict nothing unchecked passes, and nothing printed can drive the terminal.
  const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;
  const longName = `src/held/${'a'.repeat(200)}/${'b'.repeat(200)}.ts`;

  it.each([
    ['a name over 300 characters', longName, longName],
    ['a tab and an escape sequence', 'src/held/tab\there\u001b[31mred.ts', 'src/held/tab\\u0009here\\u001b[31mred.ts'],
    ['a backslash', 'src/held/back\\slash.ts', 'src/held/back\\\\slash.ts'],
    ['the C1 controls NEL and CSI', 'src/held/next\u0085line\u009b31m.ts', 'src/held/next\\u0085line\\u009b31m.ts'],
  ])('with --strict, %s is checked as the literal name it is, and printed escaped', async (_what, name, printed) => {
    expect((await guard(['--install', '--url', board.url, '--strict'])).code).toBe(0);
    const refused = await commitFile(name);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(`${printed}: held by w1 (task ${heldTask})`);
    expect(refused.stderr).not.toMatch(RAW_CONTROL);
  });

  it('a staged file literally called ** is that file: held only by what holds that name', async () => {
    expect((await guard(['--install', '--url', board.url, '--strict'])).code).toBe(0);
    const atRoot = await commitFile('**');
    expect(atRoot.code, atRoot.stderr).toBe(0); // w1 holds src/held/**, which is not a file called ** at the root
    expect((await git(['show', '--name-only', '--format=', 'HEAD'])).stdout.trim()).toBe('**');
    const inHeld = await commitFile('src/held/**');
    expect(inHeld.code).not.toBe(0);
    expect(inHeld.stderr).toContain(`src/held/**: held by w1 (task ${heldTask})`);
  });

  it('with the board down, the commit passes with one warning line; with --strict it fails', async () => {
    const down = `http://127.0.0.1:${await deadPort()}`;
    expect((await guard(['--install', '--url', down])).code).toBe(0);
    const passes = await commitFile('src/held/while-down.ts');
    expect(passes.code, passes.stderr).toBe(0);
    expect(passes.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^roundtable guard: warning: .*cannot be reached.*; commit allowed$/)]);
    expect((await guard(['--install', '--url', down, '--strict'])).code).toBe(0);
    const fails = await commitFile('src/held/while-down-strict.ts');
    expect(fails.code).not.toBe(0);
    expect(fails.stderr).toMatch(/commit refused \(--strict\)/);
  });
});
