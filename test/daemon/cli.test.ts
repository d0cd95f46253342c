// The `roundtable` command line itself: every mistake on it is one line and the usage with exit code 2, and a
// reader that closes the pipe early (`| head -1`) ends a command quietly.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { DAEMON_BIN, daemonEnv, DEFAULT_AGENTS, ROOT, runCli, token, writeAgentsFile } from '../helpers/board.js';
import { spawnTracked } from '../helpers/processes.js';

const execFileAsync = promisify(execFile);

function boardDir(): { dir: string; env: Record<string, string> } {
  const dir = mkdtempSync(join(tmpdir(), 'roundtable-cli-'));
  writeAgentsFile(join(dir, 'agents.json'), DEFAULT_AGENTS, Object.fromEntries(DEFAULT_AGENTS.map((a) => [a.name, token()])));
  return { dir, env: daemonEnv(dir) };
}

describe('a mistake on the command line', () => {
  const cases: Array<[string, string[], RegExp]> = [
    ['an option without its value', ['agents', 'add', 'x', '--skills'], /^--skills needs a value, e.g. --skills python,sql$/],
    ['an option whose value is the next option', ['agents', 'add', 'x', '--skills', '--json'], /^--skills needs a value/],
    ['an unknown agents subcommand', ['agents', 'frob'], /^unknown agents subcommand "frob"; the known ones are list, add, set, rotate, remove, import$/],
    ['an unknown command', ['frob'], /^unknown command "frob"; the commands are init, run, start, status, projects, agents, people, apps, webhooks, backup, restore, doctor, migrate$/],
    ['a slip of a command', ['stauts'], /^unknown command "stauts"; did you mean status\? the commands are init, run/],
    ['a slip of an option', ['start', '--jsn'], /^unknown option --jsn; did you mean --json\?$/],
    ['a swapped pair in an option', ['run', '--prot', '9000'], /^unknown option --prot; did you mean --port\?$/],
    ["a slip of another command's option", ['agents', 'add', 'x', '--rol', 'worker'], /^unknown option --rol; did you mean --role\?$/],
    ["a slip of the command's own option", ['backup', '--lst'], /^unknown option --lst; did you mean --list\?$/],
    ['an unknown webhooks subcommand', ['webhooks', 'frob'], /^unknown webhooks subcommand "frob"; the known ones are list, add, remove, test, status$/],
    ['webhooks add without --events', ['webhooks', 'add', 'https://hooks.example.com/x'], /^roundtable webhooks add needs --events, a list of submitted, help_request, lease_expired, blocker_cancelled, rejected, owner_message, test$/],
    ['webhooks remove without its ID', ['webhooks', 'remove'], /^roundtable webhooks remove needs a webhook ID/],
    ['an unknown option', ['agents', 'add', 'x', '--admin'], /^unknown option --admin$/],
    ["another command's option", ['backup', '--skills', 'a'], /^--skills is not an option of roundtable backup$/],
    ['a value for a flag', ['agents', 'add', 'x', '--json=yes'], /^--json takes no value \(got "yes"\)$/],
    ['an option given twice', ['agents', 'add', 'x', '--role', 'worker', '--role', 'leader'], /^--role is given twice$/],
    ['a role that does not exist', ['agents', 'add', 'x', '--role', 'boss'], /^--role must be one of leader, worker, peer, observer, owner \(got "boss"\)$/],
    ['a missing NAME', ['agents', 'rotate'], /^roundtable agents rotate needs an agent NAME/],
    ['a missing FILE', ['restore'], /^roundtable restore needs a FILE from `roundtable backup --list`$/],
    ['an extra argument', ['run', 'now'], /^unexpected argument "now" after roundtable run$/],
    ['agents set with nothing to set', ['agents', 'set', 'w1'], /^roundtable agents set needs --role, --skills, --toolsets, or several of them$/],
    ['--env without its file', ['doctor', '--env'], /^--env needs a value/],
    ['projects export without its FILE', ['projects', 'export', 'web'], /^roundtable projects export needs the FILE to write the export to/],
    ['projects import --as a slug that breaks the rule', ['projects', 'import', 'web.rtexport', '--as', 'Web App'], /^--as must be 1-40 lowercase letters, digits or "-", starting with a letter or digit \(e\.g\. "web-app"\) \(got "Web App"\)$/],
  ];

  it.each(cases)('%s: one line naming it, then the usage; exit 2, no stack, nothing written', async (_label, args, message) => {
    const { dir, env } = boardDir();
    const before = readFileSync(join(dir, 'agents.json'), 'utf8');
    const result = await runCli(args, env);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stdout).toBe('');
    const [first, second, ...rest] = result.stderr.trimEnd().split('\n');
    expect(first).toMatch(/^roundtable: /);
    expect(first!.slice('roundtable: '.length)).toMatch(message);
    expect(second).toMatch(/^Usage:/);
    expect(rest.at(-1)).toBe('Every command and option: roundtable --help');
    expect(result.stderr).not.toMatch(/ERR_PARSE_ARGS|\n\s+at |node:internal/);
    expect(readFileSync(join(dir, 'agents.json'), 'utf8')).toBe(before);
    expect(readdirSync(dir).sort()).toEqual(['agents.json']);
  });

  it("shows the usage of the command concerned: a subcommand's own line, or the agents subcommands", async () => {
    const { env } = boardDir();
    const missingValue = await runCli(['agents', 'add', 'x', '--skills'], env);
    expect(missingValue.stderr.split('\n')[1]).toBe('Usage: roundtable agents add NAME [--role leader|worker|peer|observer|owner] [--skills a,b] [--toolsets tasks,room] [--project SLUG] [--json]');
    const unknown = await runCli(['agents', 'frob'], env);
    const usage = unknown.stderr.split('\n').filter((l) => l.startsWith('  roundtable agents '));
    expect(usage.map((l) => l.split(' ')[4])).toEqual(['list', 'add', 'set', 'rotate', 'remove', 'import']);
  });

  it('--help lists every command with exit 0, and says what the exit codes mean', async () => {
    const help = await runCli(['--help'], { PATH: process.env['PATH'] ?? '/usr/bin:/bin' });
    expect(help.code).toBe(0);
    for (const command of ['init', 'run', 'start', 'status', 'projects add', 'projects list', 'projects rename', 'projects remove', 'people add', 'people grant', 'people revoke', 'people list', 'people rotate', 'people remove', 'agents list', 'agents add', 'agents set', 'agents rotate', 'agents remove', 'agents import', 'webhooks list', 'webhooks add', 'webhooks remove', 'webhooks test', 'webhooks status', 'backup', 'restore', 'doctor']) {
      expect(help.stdout).toContain(`roundtable ${command}`);
    }
    expect(help.stdout).toMatch(/2 the command line is wrong/);
  });
});

describe('the docs', () => {
  it('README, SPEC section 18 and ADD-AGENT.md name every agents subcommand that --help lists', async () => {
    const help = (await runCli(['--help'], { PATH: process.env['PATH'] ?? '/usr/bin:/bin' })).stdout;
    const actions = [...help.matchAll(/^ {2}roundtable agents (\w+)/gm)].map((m) => m[1]!);
    expect(actions).toEqual(['list', 'add', 'set', 'rotate', 'remove', 'import']);
    const spec = readFileSync(join(ROOT, 'docs/SPEC.md'), 'utf8');
    const operations = spec.slice(spec.indexOf('## 18. Operations'));
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const addAgent = readFileSync(join(ROOT, 'docs/ADD-AGENT.md'), 'utf8');
    for (const action of actions) {
      expect(operations, `SPEC 18: agents ${action}`).toMatch(new RegExp(`agents [a-z |]*\\b${action}\\b`));
      expect(readme, `README: agents ${action}`).toMatch(new RegExp(`agents [a-z|]*\\b${action}\\b`));
      if (action !== 'list') expect(addAgent, `ADD-AGENT: agents ${action}`).toContain(`roundtable agents ${action} `);
    }
  });
});

describe('a reader that closes the pipe early', () => {
  it('`roundtable backup --list | head -1` prints the newest backup and ends quietly, exit 0', async () => {
    const { dir, env } = boardDir();
    // More names than a pipe buffer holds, so the command is still writing when head has gone.
    const backups = join(dir, 'backups');
    mkdirSync(backups);
    const names = Array.from({ length: 4000 }, (_, i) => `roundtable-${new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString().replace(/[-:]|\.\d{3}/g, '')}.db`);
    for (const name of names) writeFileSync(join(backups, name), '');
    const { stdout, stderr } = await execFileAsync(
      'bash',
      ['--norc', '--noprofile', '-c', `"$NODE" "$BIN" backup --list | head -1; echo "roundtable exited with \${PIPESTATUS[0]}" >&2`],
      { env: { ...env, NODE: process.execPath, BIN: DAEMON_BIN }, timeout: 30_000 },
    );
    expect(stdout).toBe(`${names.at(-1)}\n`);
    expect(stderr).toBe('roundtable exited with 0\n');
  });

  it.each([[['--help']], [['agents', 'list']], [['--version']]])('roundtable %j with its stdout closed exits 0 and prints nothing on stderr', async (args) => {
    const { env } = boardDir();
    const child = spawnTracked(process.execPath, [DAEMON_BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    // Closed before the command has started, so its first write meets a closed pipe.
    child.stdout!.destroy();
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});
