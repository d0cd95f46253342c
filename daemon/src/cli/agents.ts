// `roundtable agents list|add|set|rotate|remove|import`: agents.json on SQLite, the agents table on PostgreSQL.
import { ROLES, type Role, type Toolset } from 'roundtable-shared';
import { AgentsFileError } from '../agents/directory.js';
import { readCatalogFile } from '../agents/catalog-editing.js';
import { parseCatalog } from '../agents/catalog.js';
import { addAgent, agentsFileTarget, importAgents, listAgents, removeAgent, rotateAgent, setAgent, type AgentsTarget } from '../agents/editing.js';
import type { Config } from '../runtime/config.js';
import { escapeControls, quoted } from '../runtime/terminal-text.js';
import type { Command, Invocation } from './command.js';
import { projectMisuse, projectOption } from './project-option.js';
import { tableText } from './table.js';

function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

function splitSkills(text: string): string[] {
  return [...new Set(text.split(',').map((s) => s.trim()).filter(Boolean))];
}

function describeSkills(skills: readonly string[]): string {
  return skills.length ? skills.join(',') : '(none)';
}

/** agents.json on SQLite; the agents table when the board is on PostgreSQL. */
export async function agentsTarget(config: Config): Promise<AgentsTarget> {
  if (!config.databaseUrl) return agentsFileTarget(config.agentsConfigPath);
  const { openAgentsTable } = await import('../agents/table.js');
  return openAgentsTable(config.databaseUrl);
}

async function agentsCommand(config: Config, invocation: Invocation): Promise<void> {
  if (invocation.command === 'agents import' && !config.databaseUrl) {
    throw new AgentsFileError(
      'agents import moves agents.json into a PostgreSQL board; set ROUNDTABLE_DATABASE_URL to it (a SQLite board reads agents.json where it is)',
    );
  }
  const target = await agentsTarget(config);
  try {
    await agentsAction(target, invocation, config.databaseUrl ? 'every daemon on the board applies it within a second' : 'a running board applies it within seconds');
  } finally {
    await target.close();
  }
}

async function agentsAction(path: AgentsTarget, { command, args, values }: Invocation, applies: string): Promise<void> {
  const [name] = args;
  const project = projectOption(values);
  const json = values['json'] === true;
  const role = values['role'] as Role | undefined;
  const skills = values['skills'] === undefined ? undefined : splitSkills(String(values['skills']));
  // --toolsets '' lifts the narrowing: the agent lists every tool its role may use.
  const toolsetList = values['toolsets'] === undefined ? undefined : splitSkills(String(values['toolsets']));
  // Checked against the toolsets with the whole result (agents/catalog.ts), which names a wrong one.
  const toolsets = toolsetList === undefined ? undefined : toolsetList.length ? (toolsetList as Toolset[]) : null;
  const issued = (token: string, agent: string): void =>
    void process.stdout.write(
      json ? `${JSON.stringify({ name: agent, token })}\n` : `New token for ${agent} (shown once; ${applies}):\n  ${token}\n`,
    );
  switch (command) {
    case 'agents list': {
      if (values['project'] === undefined) {
        // Several projects and none named: every project's members, each row saying whose.
        const file = await readCatalogFile(path);
        if (file.projects.length > 1) {
          const catalog = parseCatalog(JSON.stringify(file), path.where);
          const rows = catalog.projects.flatMap((p) => p.directory.list().map((agent) => [p.slug, agent.name, agent.role, agent.skills.join(',')]));
          process.stdout.write(tableText([['PROJECT', 'NAME', 'ROLE', 'SKILLS'], ...rows], { widths: [16, 16, 8], gap: ' ' }));
          return;
        }
      }
      process.stdout.write(tableText((await listAgents(path, project)).map((agent) => [agent.name, agent.role, agent.skills.join(',')]), { widths: [16, 7], gap: ' ' }));
      return;
    }
    case 'agents add':
      return issued(await addAgent(path, { name: name!, role: role ?? 'worker', skills: skills ?? [], ...(toolsets && { toolsets }), project }), name!);
    case 'agents set': {
      const change = await setAgent(path, name!, { ...(role && { role }), ...(skills && { skills }), ...(toolsets !== undefined && { toolsets }) }, project);
      const parts = [
        change.role && `role ${change.role.from} -> ${change.role.to}`,
        change.skills && `skills ${describeSkills(change.skills.from)} -> ${describeSkills(change.skills.to)}`,
        change.toolsets && `toolsets ${change.toolsets.from?.join(',') ?? '(all)'} -> ${change.toolsets.to?.join(',') ?? '(all)'}`,
      ].filter(Boolean);
      process.stdout.write(
        parts.length
          ? `Changed ${name}: ${parts.join('; ')}. ${applies[0]!.toUpperCase()}${applies.slice(1)}; the token is unchanged.\n`
          : `${name} already has that role, those skills and those toolsets; nothing written.\n`,
      );
      return;
    }
    case 'agents rotate':
      return issued(await rotateAgent(path, name!, project), name!);
    case 'agents remove':
      await removeAgent(path, name!, project);
      process.stdout.write(`Removed ${name}; its token is refused from the next request on, and its claimed tasks go back to open.\n`);
      return;
    case 'agents import': {
      await importAgents(path, name!);
      const count = (await listAgents(path)).length;
      process.stdout.write(`Moved ${count} agent(s) from ${escapeControls(name!)} into the agents table (tokens as hashes only); ${applies}. Edit agents with \`roundtable agents ...\` from now on; the file is no longer read, so keep it only as a backup, or delete it.\n`);
      return;
    }
  }
}

const AGENT_NAME = [{ name: 'NAME', missing: 'an agent NAME (`roundtable agents list` shows them)' }];
const ROLE_CHOICES = ROLES.join('|');

/** --role names one of the roles. */
function roleMisuse(values: Invocation['values']): string | undefined {
  const role = values['role'];
  return role !== undefined && !isRole(String(role)) ? `--role must be one of ${ROLES.join(', ')} (got ${quoted(String(role))})` : undefined;
}

export const AGENTS_COMMANDS: readonly Command[] = [
  {
    name: 'agents list',
    usage: 'agents list [--project SLUG]',
    summary: "name, role and skills of every agent of the project (default: every project's, when there are several)",
    options: ['project'],
    args: [],
    misuse: projectMisuse,
    run: agentsCommand,
  },
  {
    name: 'agents add',
    usage: `agents add NAME [--role ${ROLE_CHOICES}] [--skills a,b] [--toolsets tasks,room] [--project SLUG] [--json]`,
    summary: 'a new agent of the project (default: default; role worker unless given); print its token once',
    options: ['role', 'skills', 'toolsets', 'project', 'json'],
    args: AGENT_NAME,
    misuse: (values) => roleMisuse(values) ?? projectMisuse(values),
    run: agentsCommand,
  },
  {
    name: 'agents set',
    usage: `agents set NAME [--role ${ROLE_CHOICES}] [--skills a,b] [--toolsets tasks,room] [--project SLUG]`,
    summary: "change an agent's role, skills and/or toolsets (--skills '' for none, --toolsets '' for all); its token stays",
    options: ['role', 'skills', 'toolsets', 'project'],
    args: AGENT_NAME,
    misuse: (values) =>
      roleMisuse(values) ??
      projectMisuse(values) ??
      (values['role'] === undefined && values['skills'] === undefined && values['toolsets'] === undefined
        ? 'roundtable agents set needs --role, --skills, --toolsets, or several of them'
        : undefined),
    run: agentsCommand,
  },
  {
    name: 'agents rotate',
    usage: 'agents rotate NAME [--project SLUG] [--json]',
    summary: 'a new token for the agent, printed once; the old one stops working',
    options: ['project', 'json'],
    args: AGENT_NAME,
    misuse: projectMisuse,
    run: agentsCommand,
  },
  { name: 'agents remove', usage: 'agents remove NAME [--project SLUG]', summary: 'its token stops working; its claimed tasks go back to open', options: ['project'], args: AGENT_NAME, misuse: projectMisuse, run: agentsCommand },
  {
    name: 'agents import',
    usage: 'agents import FILE',
    summary: 'PostgreSQL only: move an agents.json into the empty agents table (refused once it holds agents)',
    options: [],
    args: [{ name: 'FILE', missing: 'the agents.json FILE to move into the database' }],
    run: agentsCommand,
  },
];
