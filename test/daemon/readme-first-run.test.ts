// The README's first screen, run as written (issue 31): its first commands block must be what works from a clone
// today. The test reads that block, checks it clones, installs, starts and tests, and runs its start command from this
// checkout (already installed, so `npm ci` is left out) against a temporary folder and a free port: the board starts,
// the owner's token is the first token printed, right under the page's address, and it is an owner's token.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/board.js';
import { eventually } from '../helpers/eventually.js';
import { freePort } from '../helpers/net.js';

/** The commands of the README's first ```sh block, each line without its comment. */
function firstCommands(): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const block = /^```sh\n([\s\S]*?)^```$/m.exec(readme);
  if (!block) throw new Error('README.md has no ```sh block');
  return block[1]!
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter(Boolean);
}

/** Each command of a line joined with &&. */
const steps = (line: string) => line.split('&&').map((step) => step.trim());

/** git status of the checkout, to see that a run writes nothing into it. */
const gitStatus = () => execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: ROOT, encoding: 'utf8' });

let child: ChildProcess | undefined;
const dir = mkdtempSync(join(tmpdir(), 'roundtable-readme-'));

afterAll(async () => {
  // npm start runs sh and node under npm: the whole group is stopped.
  if (child?.pid !== undefined && child.exitCode === null) {
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    process.kill(-child.pid, 'SIGTERM');
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

describe("the README's first commands", () => {
  it('clone, install, start and test, in that order', () => {
    const all = firstCommands().flatMap(steps);
    const at = (pattern: RegExp) => all.findIndex((step) => pattern.test(step));
    expect(at(/^git clone \S/), all.join('\n')).toBe(0);
    expect(at(/^npm ci$/)).toBeGreaterThan(at(/^git clone /));
    expect(at(/^npm start$/)).toBeGreaterThan(at(/^npm ci$/));
    expect(at(/^npm test$/)).toBeGreaterThan(at(/^npm ci$/));
    // Nothing there needs a package from the registry that is not published yet.
    expect(all.join('\n')).not.toMatch(/npx roundtable|install -g roundtable/);
  });

  it("npm start, as written, starts the board and prints the owner's token first, with the page's address", async () => {
    const start = firstCommands().flatMap(steps).find((step) => /^npm start\b/.test(step))!;
    const port = await freePort();
    const before = gitStatus();
    let stdout = '';
    let stderr = '';
    child = spawn('sh', ['-c', start], {
      cwd: ROOT,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        PATH: process.env['PATH'] ?? '/usr/bin:/bin',
        HOME: dir,
        ROUNDTABLE_PORT: String(port),
        ROUNDTABLE_DB_PATH: join(dir, 'roundtable.db'),
        ROUNDTABLE_AGENTS_CONFIG: join(dir, 'agents.json'),
        npm_config_update_notifier: 'false',
      },
    });
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const base = `http://127.0.0.1:${port}`;
    await eventually(`the board to answer /status (stderr: ${stderr.slice(-300)})`, async () => (await fetch(`${base}/status`).catch(() => undefined))?.ok || undefined, { timeoutMs: 60_000 });

    const tokens = [...stdout.matchAll(/^ {2}(\S+)\s+(owner|leader|worker)\s+(rt_[A-Za-z0-9_-]{43})$/gm)];
    expect(tokens.map((m) => m[2]), stdout).toEqual(['owner', 'leader', 'worker', 'worker']);
    const [ownerLine, name, , token] = tokens[0]!;
    const lines = stdout.split('\n');
    expect(lines[lines.indexOf(ownerLine) - 1]).toBe(`Yours, to act on the board's page: sign in at ${base}/ with`);
    expect(stdout.indexOf(`${base}/`)).toBeLessThan(stdout.indexOf('rt_'));

    const me = await fetch(`${base}/api/v1/tools/whoami`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{}' });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ name, role: 'owner' });
    // The board's files went to the folder the settings name, none into the checkout.
    expect(gitStatus()).toBe(before);
  }, 90_000);
});
