// The board's own files stay out of the git repository they sit in (issue 31, item 4): after a start and
// `webhooks add`, `git status` shows none of them; doctor warns about a secret-bearing file git would commit, and
// about the webhook secrets' mode. SQLite only: on PostgreSQL the board writes no database, lock or secrets file.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { daemonEnv, runCli, startBoard, type TestBoard } from '../helpers/board.js';
import { doctorLine } from '../helpers/doctor-output.js';

const boards: TestBoard[] = [];
afterEach(async () => {
  await Promise.all(boards.splice(0).map((b) => b.stop()));
});

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' } });
}

function gitRepo(): string {
  const dir = mkdtempSync(join(tmpdir(), 'roundtable-git-'));
  git(dir, 'init', '-q', '-b', 'main');
  // The user's own file: it must still show, and no tracked file of theirs may change.
  writeFileSync(join(dir, 'main.py'), 'print("hi")\n');
  return dir;
}

describe("the board's files in a git repository", () => {
  it('after a start and `webhooks add`, `git status --porcelain` shows none of them; the exclude lines are written once', async () => {
    const dir = gitRepo();
    const b = await startBoard({ dir });
    boards.push(b);
    const env = daemonEnv(dir);
    const added = await runCli(['webhooks', 'add', 'http://127.0.0.1:9/hook', '--events', 'submitted', '--allow-http-loopback'], env);
    expect(added.code, added.stderr).toBe(0);
    expect(readFileSync(join(dir, 'webhook-secrets.json'), 'utf8')).toContain('whsec_');
    // While it runs (the lock, the WAL) and after `webhooks add` (the secrets): only the user's file shows.
    expect(git(dir, 'status', '--porcelain', '--untracked-files=all')).toBe('?? main.py\n');
    expect(git(dir, 'check-ignore', 'webhook-secrets.json', 'board.db.lock', 'agents.json').trim().split('\n')).toHaveLength(3);
    await b.stop();
    const exclude = readFileSync(join(dir, '.git/info/exclude'), 'utf8');
    // A second start adds nothing.
    const again = await startBoard({ dir, tokens: b.tokens });
    boards.push(again);
    expect(readFileSync(join(dir, '.git/info/exclude'), 'utf8')).toBe(exclude);
    expect(git(dir, 'status', '--porcelain', '--untracked-files=all')).toBe('?? main.py\n');
  });

  it('doctor warns about a secret-bearing file git would commit, and about the webhook secrets\' mode', async () => {
    const dir = gitRepo();
    const env = daemonEnv(dir, { ROUNDTABLE_PORT: '1' });
    const init = await runCli(['init'], env);
    expect(init.code, init.stderr).toBe(0);
    writeFileSync(join(dir, 'webhook-secrets.json'), '{}\n', { mode: 0o600 });
    // As written by init: ignored, mode 600.
    let run = await runCli(['doctor'], env);
    expect(doctorLine(run.stdout, 'git').status).toBe('ok');
    expect(doctorLine(run.stdout, 'webhooks')).toMatchObject({ status: 'ok', detail: expect.stringMatching(/webhook-secrets\.json, mode 600$/) });
    // The exclude lost (a fresh clone, or `git init` after the board), the secrets readable by others, agents.json tracked.
    writeFileSync(join(dir, '.git/info/exclude'), '');
    chmodSync(join(dir, 'webhook-secrets.json'), 0o644);
    git(dir, 'add', '-f', 'agents.json');
    run = await runCli(['doctor'], env);
    expect(run.code).toBe(0);
    const gitLine = doctorLine(run.stdout, 'git');
    expect(gitLine.status).toBe('warn');
    expect(gitLine.detail).toContain(`${join(dir, 'webhook-secrets.json')} (the webhook signing secrets) is in a git work tree and not ignored`);
    expect(gitLine.detail).toContain(`${join(dir, 'agents.json')} (the agents, their roles and token hashes) is in a git work tree and tracked by git`);
    expect(gitLine.fix).toContain(`git rm --cached ${join(dir, 'agents.json')}`);
    expect(doctorLine(run.stdout, 'webhooks')).toMatchObject({ status: 'warn', fix: `chmod 600 ${join(dir, 'webhook-secrets.json')}` });
    expect(doctorLine(run.stdout, 'webhooks').detail).toContain('mode 644: group and others can read it');
  });

  it('outside a repository nothing is written, and doctor says there is nothing to warn about', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'roundtable-nogit-'));
    const env = daemonEnv(dir, { ROUNDTABLE_PORT: '1' });
    expect((await runCli(['init'], env)).code).toBe(0);
    const run = await runCli(['doctor'], env);
    expect(doctorLine(run.stdout, 'git').status).toBe('ok');
    expect(doctorLine(run.stdout, 'webhooks').detail).toContain('no webhook-secrets.json');
  });
});
