// The git work behind a submission (issue 35), end to end: a real repository made here, the real bridge's
// `worktree` command and the guard's trailer hook run by real commits, submit_result through the real bridge over
// stdio, and the work record the real daemon keeps (on each store), compared with what git itself says.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachStore } from '../helpers/stores.js';
import { LIMITS, utf8Bytes } from 'roundtable-shared';
import { api, startBoard, type TestBoard } from '../helpers/board.js';
import { readWorkRecord } from '../../bridge/src/work/record.js';
import { body, BRIDGE_BIN, bridgeEnv, startBridge } from '../helpers/bridge.js';

let board: TestBoard;
let root: string;
let repo: string;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], env: Record<string, string>, cwd: string): Promise<Run & { bytes: Buffer }> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env, timeout: 60_000, encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout: stdout.toString('utf8'), stderr: stderr.toString('utf8'), bytes: stdout });
    });
  });
}

/** What git, its hooks and the bridge's commands see: an agent's token, no global or system git config. */
function agentEnv(agent: string, extra: Record<string, string> = {}): Record<string, string> {
  return bridgeEnv({
    HOME: mkdtempSync(join(tmpdir(), 'roundtable-work-home-')),
    ROUNDTABLE_TOKEN: board.tokens[agent]!,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: agent,
    GIT_AUTHOR_EMAIL: `${agent}@example.test`,
    GIT_COMMITTER_NAME: agent,
    GIT_COMMITTER_EMAIL: `${agent}@example.test`,
    ...extra,
  });
}

/** git in a folder; fails the test if git fails. */
async function git(cwd: string, args: string[], agent = 'w1'): Promise<string> {
  const result = await run('git', ['-c', 'core.quotePath=false', ...args], agentEnv(agent), cwd);
  expect(result.code, `git ${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result.stdout;
}

async function gitBytes(cwd: string, args: string[]): Promise<Buffer> {
  const result = await run('git', ['-c', 'core.quotePath=false', ...args], agentEnv('w1'), cwd);
  expect(result.code, result.stderr).toBe(0);
  return result.bytes;
}

const bridgeCommand = (agent: string, args: string[], cwd: string, extra: Record<string, string> = {}) =>
  run(process.execPath, [BRIDGE_BIN, ...args, '--url', board.url], agentEnv(agent, extra), cwd);

/** A new repository on main with one commit, the guard (and its trailer hook) installed for the agent. */
async function newRepository(name: string, agent: string, files: Record<string, string | Buffer>, hooks: Record<string, string> = {}): Promise<string> {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  await git(dir, ['init', '-q', '-b', 'main'], agent);
  for (const [hook, script] of Object.entries(hooks)) writeFileSync(join(dir, '.git/hooks', hook), script, { mode: 0o755 });
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  await git(dir, ['add', '-A'], agent);
  await git(dir, ['commit', '-q', '-m', 'initial'], agent);
  const installed = await bridgeCommand(agent, ['guard', '--install'], dir);
  expect(installed.code, installed.stderr).toBe(0);
  expect(installed.stdout).toContain('prepare-commit-msg');
  return dir;
}

/** A task the lead makes and the agent claims over HTTP; returns its id and claim id. */
async function claimedTask(agent: string, title: string): Promise<{ id: number; claimId: number }> {
  const id = (await api(board, 'lead', 'create_task', { title })).body.task.id as number;
  const claimed = await api(board, agent, 'claim_task', { task_id: id });
  expect(claimed.status, JSON.stringify(claimed.body)).toBe(200);
  return { id, claimId: claimed.body.task.claim_id as number };
}

/** Submits through a bridge started in `cwd`; returns the bridge's stderr. */
async function submitThroughBridge(agent: string, cwd: string, task: { id: number; claimId: number }, extraArgs: string[] = [], env: Record<string, string> = {}): Promise<string> {
  const bridge = await startBridge({ args: ['--url', board.url, ...extraArgs], env: agentEnv(agent, env), cwd });
  try {
    const answer = await bridge.client.callTool({ name: 'submit_result', arguments: { task_id: task.id, claim_id: task.claimId, result: 'done, see the work' } });
    expect(answer.isError, JSON.stringify(answer)).toBeFalsy();
    expect(body(answer).task.status).toBe('submitted');
  } finally {
    await bridge.close();
  }
  return bridge.stderr();
}

async function workOf(taskId: number, includePatch = true): Promise<any> {
  const answer = await api(board, 'lead', 'get_task', { task_id: taskId, include_patch: includePatch });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.work;
}

/** The Roundtable-Task trailer of each commit in a range, oldest first. */
async function trailers(cwd: string, range: string): Promise<string[]> {
  const out = await git(cwd, ['log', '--reverse', '--format=%(trailers:key=Roundtable-Task,valueonly,separator=%x2c)%x00', range]);
  return out.split('\0').map((s) => s.trim()).filter((s) => s !== '');
}

/** A binary file: bytes a text diff cannot show. */
const binary = (seed: number) => Buffer.from(Array.from({ length: 600 }, (_, i) => (i * 31 + seed) % 256));
/** A module long enough that a rename with a small edit is still found as a rename. */
const moduleText = Array.from({ length: 40 }, (_, i) => `export const value${i} = ${i};\n`).join('');
/** A file name and a commit subject an attacker would choose: markup, quotes, an ANSI escape, a newline in the name. */
const HOSTILE_PATH = 'src/<script>alert(1)<\\script> "q" \u001b[31mred\nline.ts';
const HOSTILE_SUBJECT = 'Export <img src=x onerror=alert(1)> "quoted" \'single\' \u001b[31mred\u001b[0m & done';

describeEachStore((store) => {
  beforeAll(async () => {
    board = await startBoard({ store });
    // realpath: git prints the real path of a worktree (on macOS /tmp is a link).
    root = realpathSync(mkdtempSync(join(tmpdir(), 'roundtable-work-')));
    repo = await newRepository('app', 'w1', {
      'README.md': '# App\n\nFirst line.\nSecond line.\n',
      'src/old-name.ts': moduleText,
      'assets/logo.bin': binary(1),
    });
  });
  afterAll(async () => {
    await board.stop();
  });

  describe('the work record of a submission', () => {
    it('a worktree made by `worktree`, two commits, submitted through the bridge: the record is what git says, and both commits carry the trailer', async () => {
      const task = await claimedTask('w1', 'Add CSV exporter <script>alert(1)</script>');
      const made = await bridgeCommand('w1', ['worktree', String(task.id)], repo);
      expect(made.code, made.stderr).toBe(0);
      const tree = join(root, 'app.worktrees', `${task.id}-add-csv-exporter-script-alert-1-script`);
      expect(made.stdout).toBe(`${tree}\n`);
      expect(made.stderr).toBe('');
      // Asked again: the same path, nothing new.
      const again = await bridgeCommand('w1', ['worktree', String(task.id)], repo);
      expect([again.code, again.stdout]).toEqual([0, `${tree}\n`]);
      // Another agent does not hold it: refused, exit 2.
      const other = await bridgeCommand('w3', ['worktree', String(task.id)], repo);
      expect(other.code).toBe(2);
      expect(other.stderr).toContain('do not hold task');

      expect((await git(tree, ['symbolic-ref', '--short', 'HEAD'])).trim()).toBe(`rt/${task.id}-add-csv-exporter-script-alert-1-script`);
      writeFileSync(join(tree, 'README.md'), '# App\n\nFirst line, changed.\nSecond line.\nThird line.\n');
      writeFileSync(join(tree, HOSTILE_PATH), 'export const csv = true;\n');
      await git(tree, ['add', '-A']);
      await git(tree, ['commit', '-q', '-m', HOSTILE_SUBJECT]);
      await git(tree, ['mv', 'src/old-name.ts', 'src/new-name.ts']);
      writeFileSync(join(tree, 'src/new-name.ts'), moduleText.replace('value3 = 3', 'value3 = 33'));
      writeFileSync(join(tree, 'assets/logo.bin'), binary(2));
      await git(tree, ['add', '-A']);
      await git(tree, ['commit', '-q', '-m', 'Rename the module and redraw the logo']);

      const stderr = await submitThroughBridge('w1', tree, task);
      expect(stderr).not.toMatch(/error|warn/i);

      const base = (await git(tree, ['merge-base', 'HEAD', 'main'])).trim();
      const head = (await git(tree, ['rev-parse', 'HEAD'])).trim();
      const ids = (await git(tree, ['rev-list', '--reverse', `${base}..HEAD`])).trim().split('\n');
      expect(ids).toHaveLength(2);
      const patch = (await gitBytes(tree, ['diff', '-M', '--no-color', base, 'HEAD'])).toString('utf8');
      const work = await workOf(task.id);
      expect(work).toMatchObject({
        branch: `rt/${task.id}-add-csv-exporter-script-alert-1-script`,
        base,
        head,
        dirty: false,
        patch,
        patch_truncated: false,
        patch_bytes: Buffer.byteLength(patch),
        submitted_by: 'w1',
      });
      const expectedCommits = [];
      for (const id of ids) {
        const [subject, time] = (await git(tree, ['show', '-s', '--format=%s%x00%aI', id])).replace(/\n$/, '').split('\0');
        expectedCommits.push({ id, subject, author_time: new Date(time!).toISOString() });
      }
      expect(work.commits).toEqual(expectedCommits);
      expect(work.commits[0].subject).toBe(HOSTILE_SUBJECT); // byte for byte: markup, quotes and the escape as data
      const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : 1);
      expect([...work.files].sort(byPath)).toEqual(
        [
          { path: 'README.md', status: 'modified', binary: false, added: 2, removed: 1 },
          { path: HOSTILE_PATH, status: 'added', binary: false, added: 1, removed: 0 },
          { path: 'assets/logo.bin', status: 'modified', binary: true, added: 0, removed: 0 },
          { path: 'src/new-name.ts', old_path: 'src/old-name.ts', status: 'renamed', binary: false, added: 1, removed: 1 },
        ].sort(byPath),
      );
      // git's own counts, file by file.
      const numstat = (await git(tree, ['diff', '-M', '--numstat', '-z', base, 'HEAD'])).split('\0');
      expect(numstat).toContain('2\t1\tREADME.md');
      expect(numstat).toContain('-\t-\tassets/logo.bin');
      expect(numstat).toContain(`1\t0\t${HOSTILE_PATH}`);
      expect(await trailers(tree, `${base}..HEAD`)).toEqual([String(task.id), String(task.id)]);

      // Without include_patch an agent gets the summary only.
      const summary = await workOf(task.id, false);
      expect(summary.patch).toBeUndefined();
      expect(summary.files).toHaveLength(4);

      // --remove: refused until the task is final; then the worktree goes and the branch stays.
      const early = await bridgeCommand('w1', ['worktree', '--remove', String(task.id)], repo);
      expect(early.code).toBe(2);
      expect(early.stderr).toContain('done or cancelled');
      expect((await api(board, 'lead', 'review_task', { task_id: task.id, verdict: 'approve' })).status).toBe(200);
      const removed = await bridgeCommand('w1', ['worktree', '--remove', String(task.id)], repo);
      expect(removed.code, removed.stderr).toBe(0);
      expect(removed.stderr).toContain('is kept');
      expect(existsSync(tree)).toBe(false);
      expect((await git(repo, ['rev-parse', '--verify', `rt/${task.id}-add-csv-exporter-script-alert-1-script`])).trim()).toBe(head);
    });

    it('a patch over the cap is cut at a whole line with a note, the files list whole; uncommitted changes make it dirty; the bridge finds the task\'s worktree from the main checkout', async () => {
      const task = await claimedTask('w1', 'Generate the big table');
      const elsewhere = join(root, 'elsewhere');
      const made = await bridgeCommand('w1', ['worktree', String(task.id)], repo, { ROUNDTABLE_WORKTREE_DIR: elsewhere });
      expect(made.code, made.stderr).toBe(0);
      const tree = made.stdout.trim();
      expect(tree).toBe(join(elsewhere, `${task.id}-generate-the-big-table`));
      const rows = Array.from({ length: 20_000 }, (_, i) => `row ${String(i).padStart(6, '0')} ${'é'.repeat(20)} ${'z'.repeat(40)}\n`).join('');
      writeFileSync(join(tree, 'table.txt'), rows);
      for (let i = 0; i < 30; i++) writeFileSync(join(tree, `small-${i}.txt`), `${i}\n`);
      await git(tree, ['add', '-A']);
      await git(tree, ['commit', '-q', '-m', 'Add the table']);
      writeFileSync(join(tree, 'README.md'), 'changed, not committed\n');
      writeFileSync(join(tree, 'untracked.txt'), 'new\n');

      await submitThroughBridge('w1', repo, task); // started in the main checkout, on main
      const base = (await git(tree, ['merge-base', 'HEAD', 'main'])).trim();
      const whole = await gitBytes(tree, ['diff', '-M', '--no-color', base, 'HEAD']);
      expect(whole.length).toBeGreaterThan(LIMITS.workPatchBytes);
      const work = await workOf(task.id);
      expect(work).toMatchObject({ branch: `rt/${task.id}-generate-the-big-table`, dirty: true, patch_truncated: true, patch_bytes: whole.length });
      expect(utf8Bytes(work.patch)).toBeLessThanOrEqual(LIMITS.workPatchBytes);
      const lines = (work.patch as string).split('\n');
      const note = lines.at(-2)!;
      const kept = lines.slice(0, -2).join('\n') + '\n';
      expect(note).toBe(`# roundtable: patch cut at ${Buffer.byteLength(kept)} of ${whole.length} bytes; the files list is whole`);
      expect(whole.toString('utf8').startsWith(kept)).toBe(true);
      expect(utf8Bytes(kept)).toBeGreaterThan(LIMITS.workPatchBytes - 200); // cut at the last whole line, not long before
      expect(work.files).toHaveLength(31);
      expect(work.files.find((f: { path: string }) => f.path === 'table.txt')).toEqual({ path: 'table.txt', status: 'added', binary: false, added: 20_000, removed: 0 });
    });

    it('work on the default branch itself: the base is the HEAD the bridge saw at the claim, kept across a restart; the trailer comes from the sole claim', async () => {
      // A prepare-commit-msg hook that was there before: kept, run first, its own trailer kept too.
      const earlier = '#!/bin/sh\ngit interpret-trailers --in-place --trailer "Earlier-Hook: ran" "$1"\n';
      const plain = await newRepository('plain', 'w2', { 'notes.txt': 'one\n' }, { 'prepare-commit-msg': earlier });
      const stateDir = mkdtempSync(join(tmpdir(), 'roundtable-work-state-'));
      const id = (await api(board, 'lead', 'create_task', { title: 'Edit the notes' })).body.task.id as number;
      const bridge = await startBridge({ args: ['--url', board.url], env: agentEnv('w2', { ROUNDTABLE_STATE_DIR: stateDir }), cwd: plain });
      let claimId: number;
      try {
        const claimed = await bridge.client.callTool({ name: 'claim_task', arguments: { task_id: id } });
        expect(claimed.isError).toBeFalsy();
        claimId = body(claimed).task.claim_id;
      } finally {
        await bridge.close();
      }
      const atClaim = (await git(plain, ['rev-parse', 'HEAD'], 'w2')).trim();
      writeFileSync(join(plain, 'notes.txt'), 'one\ntwo\n');
      await git(plain, ['commit', '-q', '-am', 'Add a second note'], 'w2');
      expect(await trailers(plain, `${atClaim}..HEAD`)).toEqual([String(id)]);
      expect(await git(plain, ['log', '-1', '--format=%(trailers:key=Earlier-Hook,valueonly)'], 'w2')).toContain('ran');

      await submitThroughBridge('w2', plain, { id, claimId }, [], { ROUNDTABLE_STATE_DIR: stateDir });
      const work = await workOf(id);
      expect(work).toMatchObject({ branch: 'main', base: atClaim, head: (await git(plain, ['rev-parse', 'HEAD'], 'w2')).trim(), dirty: false });
      expect(work.commits.map((c: { subject: string }) => c.subject)).toEqual(['Add a second note']);
      expect(work.files).toEqual([{ path: 'notes.txt', status: 'modified', binary: false, added: 1, removed: 0 }]);

      // No claim, or two: no trailer, and the commit goes on.
      writeFileSync(join(plain, 'notes.txt'), 'one\ntwo\nthree\n');
      await git(plain, ['commit', '-q', '-am', 'No claim held'], 'w2');
      for (const title of ['first', 'second']) await claimedTask('w2', title);
      writeFileSync(join(plain, 'notes.txt'), 'one\ntwo\nthree\nfour\n');
      await git(plain, ['commit', '-q', '-am', 'Two claims held'], 'w2');
      expect(await trailers(plain, 'HEAD~2..HEAD')).toEqual([]);
    });

    it('outside any repository, and with --no-work or ROUNDTABLE_WORK=off: no work record, no error', async () => {
      const nowhere = mkdtempSync(join(tmpdir(), 'roundtable-not-a-repo-'));
      const outside = await claimedTask('w3', 'Outside git');
      const noTree = await bridgeCommand('w3', ['worktree', String(outside.id)], nowhere);
      expect(noTree.code).toBe(1);
      expect(noTree.stderr).toContain('not inside a git repository');
      const stderr = await submitThroughBridge('w3', nowhere, outside, ['--verbose']);
      expect(stderr).not.toMatch(/ error| warn/);
      expect(await workOf(outside.id)).toBeNull();

      // A branch with a commit: without the switch it would have a record.
      const off = await newRepository('off', 'w3', { 'a.txt': 'a\n' });
      await git(off, ['checkout', '-q', '-b', 'feature'], 'w3');
      writeFileSync(join(off, 'a.txt'), 'b\n');
      for (const [args, env] of [[['--no-work'], {}], [[], { ROUNDTABLE_WORK: 'off' }]] as const) {
        const task = await claimedTask('w3', 'Switched off');
        await git(off, ['commit', '-q', '--allow-empty', '-am', `work of ${task.id}`], 'w3');
        await submitThroughBridge('w3', off, task, [...args], { ...env });
        expect(await workOf(task.id)).toBeNull();
      }
    });
  });

  describe('reading git', () => {
    it(`keeps the newest ${LIMITS.workCommits} commits of a longer branch, oldest first`, async () => {
      const long = await newRepository('long', 'w1', { 'a.txt': 'a\n' });
      const count = LIMITS.workCommits + 3;
      const stream = Array.from({ length: count }, (_, i) =>
        [`commit refs/heads/long`, `committer w1 <w1@example.test> ${1_700_000_000 + i} +0000`, `data ${`c${i}`.length}`, `c${i}`, ...(i === 0 ? ['from refs/heads/main^0'] : []), `M 644 inline n.txt`, `data ${String(i).length + 1}`, `${i}`, ''].join('\n'),
      ).join('\n');
      const imported = await new Promise<number>((resolve) => {
        const child = execFile('git', ['fast-import', '--quiet'], { cwd: long, env: agentEnv('w1') }, (error) => resolve(error ? 1 : 0));
        child.stdin!.end(`${stream}\n`);
      });
      expect(imported).toBe(0);
      await git(long, ['checkout', '-q', 'long']);
      const record = await readWorkRecord({ cwd: long, claimHead: async () => undefined });
      if (typeof record === 'string') throw new Error(record);
      expect(record.commits).toHaveLength(LIMITS.workCommits);
      expect(record.commits.map((c) => c.subject)).toEqual(Array.from({ length: LIMITS.workCommits }, (_, i) => `c${i + 3}`));
      expect(record.commits[0]!.author_time).toBe(new Date((1_700_000_000 + 3) * 1000).toISOString());
      expect(record.files).toEqual([{ path: 'n.txt', status: 'added', binary: false, added: 1, removed: 0 }]);
    });

    it('outside a repository there is no record, and why', async () => {
      expect(await readWorkRecord({ cwd: mkdtempSync(join(tmpdir(), 'roundtable-not-a-repo-')), claimHead: async () => undefined })).toBe('not a repository');
    });
  });
});
