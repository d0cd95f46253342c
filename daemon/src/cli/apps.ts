// `roundtable apps list|revoke`: the apps that joined a project by signing in (OAuth, issue 34), each acting as one of
// its agents. Revoking ends the grant and every token of it; every daemon refuses them from their next call, since
// each call's token is looked up in the project's store.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { projectFiles } from '../process/project-files.js';
import type { Config } from '../runtime/config.js';
import { quoted } from '../runtime/terminal-text.js';
import type { OAuthStore } from '../store/oauth-port.js';
import type { Command, Invocation } from './command.js';
import { projectMisuse, projectOption, requireProject } from './project-option.js';
import { tableText } from './table.js';

export class AppsCommandError extends Error {}

interface OpenedGrants {
  readonly oauth: OAuthStore;
  close(): Promise<void>;
}

async function openGrants(config: Config, project: string): Promise<OpenedGrants> {
  if (config.databaseUrl) {
    const [{ openMigratedPool }, { postgresOAuth }, { schemaOf }] = await Promise.all([import('../store/postgres/migrate.js'), import('../store/postgres/oauth.js'), import('../store/postgres/project-schema.js')]);
    const sql = await openMigratedPool(config.databaseUrl, schemaOf(project));
    return { oauth: postgresOAuth(sql), close: () => sql.end({ timeout: 1 }) };
  }
  const [{ openDatabase }, { migrate }, { sqliteOAuth }] = await Promise.all([import('../store/sqlite/connection.js'), import('../store/sqlite/migrate.js'), import('../store/sqlite/oauth.js')]);
  const { dbPath } = projectFiles(config, project);
  mkdirSync(dirname(dbPath), { recursive: true, mode: 0o700 });
  // The daemon may be running: SQLite's WAL lets this process write beside it, waiting for its lock if need be.
  const db = openDatabase({ path: dbPath, busyTimeoutMs: config.deadlines.busyMs });
  migrate(db);
  const oauth = sqliteOAuth(db, async (work) => db.transaction(work).immediate());
  return { oauth, close: async () => void db.close() };
}

async function appsCommand(config: Config, { command, args, values }: Invocation): Promise<void> {
  const project = projectOption(values);
  await requireProject(config, project);
  const { oauth, close } = await openGrants(config, project);
  try {
    if (command === 'apps list') {
      const grants = await oauth.listGrants();
      if (values['json'] === true) {
        const apps = grants.map((g) => ({ id: g.id, client_id: g.clientId, client_name: g.clientName, redirect_uri: g.redirectUri, agent: g.agent, granted_by: g.grantedBy, created_at: g.createdAt, last_used_at: g.lastUsedAt }));
        return void process.stdout.write(`${JSON.stringify({ apps })}\n`);
      }
      if (grants.length === 0) return void process.stdout.write(`No apps are connected to project ${quoted(project)}. An app joins by signing in at its MCP URL (docs/CONNECT.md).\n`);
      // The client's name is its own text: quoted (escaped), as anything another party wrote.
      const rows = grants.map((g) => [g.id, `agent=${g.agent}`, `app=${quoted(g.clientName ?? new URL(g.redirectUri).host)}`, `by=${g.grantedBy}`, `since=${g.createdAt}`, `last_used=${g.lastUsedAt ?? 'never'}`]);
      process.stdout.write(tableText(rows, { widths: [0, 0, 0], gap: '  ' }));
      return;
    }
    const id = args[0]!;
    if (!(await oauth.revokeGrant(id, new Date().toISOString(), 'revoked_by_owner'))) {
      throw new AppsCommandError(`no connected app has the id ${quoted(id)} in project ${quoted(project)}; \`roundtable apps list --project ${project}\` shows them`);
    }
    process.stdout.write(`Revoked ${id}: its tokens are refused from their next call, on every daemon. The agent stays; \`roundtable agents remove\` removes it.\n`);
  } finally {
    await close();
  }
}

export const APPS_COMMANDS: readonly Command[] = [
  { name: 'apps list', usage: 'apps list [--project SLUG] [--json]', summary: 'the apps connected by OAuth sign-in: id, agent, app, who granted it, last use', options: ['project', 'json'], args: [], misuse: projectMisuse, run: appsCommand },
  {
    name: 'apps revoke',
    usage: 'apps revoke ID [--project SLUG]',
    summary: "end a connected app's access at once (its agent stays)",
    options: ['project'],
    args: [{ name: 'ID', missing: 'a connected app id (`roundtable apps list` shows them)' }],
    misuse: projectMisuse,
    run: appsCommand,
  },
];
