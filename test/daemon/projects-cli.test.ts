// The CLI of projects and people (issue 33) against a running daemon, on each store: each command's effect is seen on
// the project's own URLs; refusals write nothing; a token is printed once, by add or rotate, and nowhere else. On
// PostgreSQL the catalog is the agents table and a project's board its schema (rt_SLUG) instead of its folder.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readDirectory } from '../../daemon/src/store/postgres/agents-directory.js';
import { daemonEnv, runCli, startBoard, type CliRun, type TestBoard } from '../helpers/board.js';
import { eventually } from '../helpers/eventually.js';
import { connectTo } from '../helpers/postgres.js';
import { describeEachStore } from '../helpers/stores.js';

describeEachStore((store) => {
  let board: TestBoard;
  let env: Record<string, string>;
  const onPostgres = store.name === 'postgres';
  /** Every token or secret a command printed, with the command that printed it. */
  const issued = new Map<string, string>();
  /** Every command's output but the one that issued each token. */
  const outputs: Array<{ args: string; run: CliRun }> = [];

  async function cli(args: string[]): Promise<CliRun> {
    const run = await runCli(args, env, 40_000);
    outputs.push({ args: args.join(' '), run });
    return run;
  }

  function issuedBy(args: string[], run: CliRun): string {
    expect(run.code, run.stderr).toBe(0);
    const { token } = JSON.parse(run.stdout) as { token: string };
    issued.set(token, args.join(' '));
    return token;
  }

  async function call(path: string, token: string, tool: string, args: unknown = {}): Promise<{ status: number; body: any }> {
    const response = await fetch(`${board.url}${path}/api/v1/tools/${tool}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(args) });
    return { status: response.status, body: await response.json() };
  }

  const agentsFile = () => readFileSync(join(board.dir, 'agents.json'));
  const projectDir = (slug: string) => join(board.dir, 'roundtable-projects', slug);

  /** On PostgreSQL: `query` on the board's database. */
  async function inDatabase<T>(query: (sql: ReturnType<typeof connectTo>) => Promise<T>): Promise<T> {
    const sql = connectTo(board.databaseUrl!);
    try {
      return await query(sql);
    } finally {
      await sql.end({ timeout: 1 });
    }
  }

  /** The catalog as stored: agents.json's bytes, or the agents table's rows. */
  const catalogNow = async (): Promise<string> => (onPostgres ? JSON.stringify(await inDatabase(readDirectory)) : agentsFile().toString('hex'));

  /** Runs a command that must be refused, and checks that the catalog is as it was. */
  async function refused(args: string[], message: RegExp, code = 1): Promise<void> {
    const before = await catalogNow();
    const run = await cli(args);
    expect(run.code, run.stdout).toBe(code);
    expect(run.stderr).toMatch(message);
    expect(await catalogNow()).toBe(before);
  }

  /** The schemas of project boards in the database. */
  const projectSchemas = () => inDatabase(async (sql) => (await sql<Array<{ name: string }>>`SELECT nspname AS name FROM pg_namespace WHERE nspname LIKE 'rt\_%' ORDER BY 1`).map((r) => r.name));

  beforeAll(async () => {
    board = await startBoard({ store });
    env = daemonEnv(board.dir, board.databaseUrl ? { ROUNDTABLE_DATABASE_URL: board.databaseUrl } : {});
  });
  afterAll(async () => {
    await board?.stop();
    const daemon = board.output();
    for (const [token, by] of issued) {
      expect(daemon.stdout + daemon.stderr, `the daemon logged the token of ${by}`).not.toContain(token);
      for (const { args, run } of outputs) if (args !== by) expect(run.stdout + run.stderr, `${args} printed the token of ${by}`).not.toContain(token);
    }
  });

  describe('roundtable projects and people on a running board', () => {
    let leadToken: string;
    let annToken: string;

    it('projects add, then agents add --project: the agent answers on /p/SLUG/ and on the unprefixed URL (its home)', async () => {
      const added = await cli(['projects', 'add', 'web', '--title', 'Web app']);
      expect(added.code, added.stderr).toBe(0);
      const args = ['agents', 'add', 'web-lead', '--role', 'leader', '--project', 'web', '--json'];
      leadToken = issuedBy(args, await cli(args));
      expect(await catalogNow()).not.toContain(leadToken);
      const me = await eventually('the new project to answer', async () => {
        const answer = await call('/p/web', leadToken, 'whoami');
        return answer.status === 200 && answer.body;
      });
      expect(me).toMatchObject({ name: 'web-lead', role: 'leader' });
      expect((await call('', leadToken, 'whoami')).body).toMatchObject({ name: 'web-lead' });
      // Its token opens its project only.
      expect((await call('/p/default', leadToken, 'whoami')).status).toBe(403);
      expect((await call('/p/web', board.tokens['lead']!, 'whoami')).status).toBe(403);

      const list = await cli(['agents', 'list']);
      expect(list.stdout).toMatch(/^web\s+web-lead\s+leader/m);
      expect(list.stdout).toMatch(/^default\s+lead\s+leader/m);
      const webOnly = await cli(['agents', 'list', '--project', 'web']);
      expect(webOnly.stdout.trim().split('\n')).toEqual([expect.stringMatching(/^web-lead\s+leader/)]);
    });

    it('projects list counts each project\'s open tasks; rename changes the title only', async () => {
      expect((await call('/p/web', leadToken, 'create_task', { title: 'ship the page' })).status).toBe(200);
      const list = JSON.parse((await cli(['projects', 'list', '--json'])).stdout) as { projects: Array<Record<string, unknown>> };
      expect(list.projects).toEqual([
        { slug: 'default', title: null, mode: 'role', agents: 4, open_tasks: 0 },
        { slug: 'web', title: 'Web app', mode: 'role', agents: 1, open_tasks: 1 },
      ]);
      expect((await cli(['projects', 'rename', 'web', '--title', 'The web app'])).code).toBe(0);
      expect((await cli(['projects', 'list'])).stdout).toMatch(/^web\s+role\s+1\s+1\s+The web app$/m);
    });

    it('people add, grant, revoke: the token works on the project granted, with that role, and is refused elsewhere', async () => {
      const args = ['people', 'add', 'ann', '--json'];
      annToken = issuedBy(args, await cli(args));
      // Known to the daemon once it has reloaded agents.json (401 until then), and granted nothing yet: 403.
      await eventually('ann to be known and refused on web', async () => (await call('/p/web', annToken, 'whoami')).status === 403);
      expect((await cli(['people', 'grant', 'ann', 'web', '--role', 'observer'])).code).toBe(0);
      await eventually('ann to observe web', async () => (await call('/p/web', annToken, 'whoami')).body.role === 'observer');
      expect((await call('/p/default', annToken, 'whoami')).status).toBe(403);
      expect((await cli(['people', 'grant', 'ann', 'web', '--role', 'owner'])).code).toBe(0);
      await eventually('ann to own web', async () => (await call('/p/web', annToken, 'whoami')).body.role === 'owner');
      expect((await cli(['people', 'list'])).stdout).toMatch(/^ann\s+web:owner$/m);
      expect((await cli(['people', 'revoke', 'ann', 'web'])).code).toBe(0);
      await eventually('ann to be refused on web', async () => (await call('/p/web', annToken, 'whoami')).status === 403);
      expect((await cli(['people', 'grant', 'ann', 'web', '--role', 'owner'])).code).toBe(0);
      await eventually('ann to own web again', async () => (await call('/p/web', annToken, 'whoami')).status === 200);
    });

    it('people rotate: the new token works, the old one is refused', async () => {
      const args = ['people', 'rotate', 'ann', '--json'];
      const fresh = issuedBy(args, await cli(args));
      await eventually('the new token to work', async () => (await call('/p/web', fresh, 'whoami')).status === 200);
      expect((await call('/p/web', annToken, 'whoami')).status).toBe(401);
      annToken = fresh;
    });

    it('refusals name the argument or the rule, say what to do, and write nothing', async () => {
      await refused(['projects', 'add', 'Web_App'], /SLUG "Web_App": a project slug is 1-40 lowercase letters/, 2);
      await refused(['projects', 'add', 'web'], /a project called "web" already exists/);
      await refused(['projects', 'add', 'x', '--mode', 'flat'], /--mode must be one of role, peer/, 2);
      await refused(['projects', 'remove', 'default'], /"default" cannot be removed: the unprefixed URLs .* OAuth .* Empty it instead/);
      await refused(['projects', 'remove', 'nope'], /no project is called "nope"/);
      await refused(['projects', 'remove', 'web'], /project "web" has 1 task\(s\); nothing removed\. `roundtable projects remove web --force` writes a backup/);
      if (onPostgres) expect(await projectSchemas()).toEqual(['rt_web']);
      else expect(existsSync(join(projectDir('web'), 'board.db'))).toBe(true);
      await refused(['people', 'grant', 'ann', 'web', '--role', 'leader'], /--role must be one of owner, observer/, 2);
      await refused(['people', 'add', 'ANN'], /equal but for case to the person "ann"/);
      // A person and an agent of one project need different names: the message names the project and the way out.
      await cli(['people', 'add', 'web-lead', '--json']).then((run) => issuedBy(['people', 'add', 'web-lead', '--json'], run));
      await refused(['people', 'grant', 'web-lead', 'web', '--role', 'owner'], /project "web" has an agent called "web-lead"; a person and an agent of one project need different names\. Remove or rename that agent first \(`roundtable agents remove web-lead --project web`/);
      await refused(['agents', 'add', 'ann', '--project', 'web'], /"ann" is a person granted project "web"; .* Choose another name/);
      await refused(['agents', 'add', 'x', '--project', 'Nope'], /--project "Nope": a project slug is/, 2);
      await refused(['webhooks', 'list', '--project', 'nope'], /--project "nope": no project is called that/);
      expect((await cli(['people', 'remove', 'web-lead'])).code).toBe(0);
    });

    it('webhooks and backup --project act on that project\'s own store and files', async () => {
      const args = ['webhooks', 'add', 'http://127.0.0.1:9/hook', '--events', 'submitted', '--allow-http-loopback', '--project', 'web', '--json'];
      const added = await cli(args);
      expect(added.code, added.stderr).toBe(0);
      const { id, secret } = JSON.parse(added.stdout) as { id: string; secret: string };
      issued.set(secret, args.join(' '));
      expect(JSON.parse((await cli(['webhooks', 'list', '--project', 'web', '--json'])).stdout).webhooks.map((h: { id: string }) => h.id)).toEqual([id]);
      expect(JSON.parse((await cli(['webhooks', 'list', '--json'])).stdout).webhooks).toEqual([]);
      if (onPostgres) {
        // The row, its secret with it, in the project's schema; none in default's.
        expect(await inDatabase(async (sql) => [...(await sql.unsafe('SELECT id FROM rt_web.webhooks'))])).toEqual([{ id }]);
        expect(await inDatabase(async (sql) => [...(await sql.unsafe('SELECT id FROM public.webhooks'))])).toEqual([]);
        // Backups on PostgreSQL are PostgreSQL's own.
        expect((await cli(['backup', '--project', 'web'])).stderr).toMatch(/the board is on PostgreSQL \(ROUNDTABLE_DATABASE_URL\): back it up and restore it with PostgreSQL's own tools/);
        return;
      }
      expect(Object.keys(JSON.parse(readFileSync(join(projectDir('web'), 'webhook-secrets.json'), 'utf8')))).toEqual([id]);
      const backup = await cli(['backup', '--project', 'web']);
      expect(backup.code, backup.stderr).toBe(0);
      expect(backup.stdout).toContain(join(board.dir, 'backups', 'roundtable-projects', 'web'));
    });

    it('projects remove --force: a checked backup first, then the project answers 403, its folder and grants are gone', async () => {
      const removed = await cli(['projects', 'remove', 'web', '--force']);
      expect(removed.code, removed.stderr).toBe(0);
      const file = /Backup of web written and checked: (\S+)/.exec(removed.stdout)?.[1];
      expect(file).toBeDefined();
      // In the project's backup folder; on PostgreSQL an export file, named for the project and the time.
      expect(file!.startsWith(join(board.dir, 'backups', 'roundtable-projects', 'web') + '/')).toBe(true);
      if (onPostgres) expect(readdirSync(join(board.dir, 'backups', 'roundtable-projects', 'web'))).toEqual([expect.stringMatching(/^web-removed-\d{8}T\d{6}Z\.export\.db$/)]);
      const copy = new Database(file!, { readonly: true, fileMustExist: true });
      try {
        expect(copy.prepare('SELECT title FROM tasks').all()).toEqual([{ title: 'ship the page' }]);
      } finally {
        copy.close();
      }
      expect(removed.stdout).toContain('Grants removed with it: ann.');
      // A valid token on the removed project's URL: 403, as for any project it holds no role in; its agents' tokens are gone.
      await eventually('web to answer 403', async () => (await call('/p/web', annToken, 'whoami')).status === 403);
      expect((await call('/p/web', board.tokens['lead']!, 'whoami')).status).toBe(403);
      expect((await call('/p/web', leadToken, 'whoami')).status).toBe(401);
      if (onPostgres) {
        expect(await projectSchemas()).toEqual([]);
        expect(removed.stdout).toContain('Dropped its schema rt_web with every table of its board.');
      } else {
        expect(existsSync(projectDir('web'))).toBe(false);
        expect(removed.stdout).toContain(`Deleted its folder ${projectDir('web')}.`);
      }
      expect((await cli(['people', 'list'])).stdout).toMatch(/^ann\s+\(no project yet\)$/m);
      // The default project is untouched.
      expect((await call('', board.tokens['lead']!, 'whoami')).status).toBe(200);
    });
  });
});
