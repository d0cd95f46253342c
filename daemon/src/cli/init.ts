// `roundtable init`: a fresh agents.json with the person's owner, one leader and two workers, hashes only, mode 600.
import { writeFileSync } from 'node:fs';
import { DEFAULT_PROJECT, type Role } from 'roundtable-shared';
import type { CatalogFile } from '../agents/catalog.js';
import { generateToken, hashToken } from '../agents/directory.js';
import { excludeDaemonFiles } from '../process/git-exclude.js';
import type { Config } from '../runtime/config.js';
import type { Command } from './command.js';
import { tableLine } from './table.js';

export interface IssuedAgent {
  readonly name: string;
  readonly role: Role;
  readonly skills: string[];
  readonly token: string;
}

/**
 * The owner comes first: the person who runs `init` owns the work, and without an owner's token the page only
 * watches. It is called `owner` rather than after $USER, which may be no valid agent name, would tell every agent on
 * the board the login name of the machine, and would make the docs' commands differ per person (docs/DECISIONS.md).
 */
export const DEFAULT_AGENTS: ReadonlyArray<Pick<IssuedAgent, 'name' | 'role' | 'skills'>> = [
  { name: 'owner', role: 'owner', skills: [] },
  { name: 'leader', role: 'leader', skills: [] },
  { name: 'worker-1', role: 'worker', skills: [] },
  { name: 'worker-2', role: 'worker', skills: [] },
];

export class AgentsFileExists extends Error {}

/**
 * Written in the catalog's spelling (agents/catalog.ts): the project `default` with the agents, and the owner as a
 * person granted owner there, so `roundtable people grant owner SLUG` later opens other projects to the same token.
 */
function catalogOf(issued: readonly IssuedAgent[]): CatalogFile {
  const isPerson = (a: IssuedAgent) => a.role === 'owner' || a.role === 'observer';
  return {
    projects: [{ slug: DEFAULT_PROJECT, mode: 'role', agents: issued.filter((a) => !isPerson(a)).map(({ name, role, skills, token }) => ({ name, role, skills, token_sha256: hashToken(token) })) }],
    people: issued.filter(isPerson).map(({ name, role, token }) => ({ name, token_sha256: hashToken(token), grants: { [DEFAULT_PROJECT]: role as 'owner' | 'observer' } })),
  };
}

/** Writes the file only if it does not exist yet (O_EXCL), so an existing board's tokens are never replaced. */
export function initAgentsFile(path: string): IssuedAgent[] {
  const issued = DEFAULT_AGENTS.map((a) => ({ ...a, skills: [...a.skills], token: generateToken() }));
  const file = catalogOf(issued);
  try {
    writeFileSync(path, `${JSON.stringify(file, null, 2)}\n`, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new AgentsFileExists(`${path} already exists; refusing to overwrite it (its tokens are in use). Delete it first to start over`);
    }
    throw error;
  }
  return issued;
}

/**
 * Where a person opens the board's page: ROUNDTABLE_PUBLIC_URL when set, else the address the daemon listens on (a
 * wildcard bind shown as its loopback address, which a browser on this machine can open). Undefined for port 0, whose
 * port is known only once it listens (`run` prints the address then).
 */
export function pageAddress(config: Pick<Config, 'host' | 'port' | 'tls' | 'publicUrl'>): string | undefined {
  if (config.publicUrl !== undefined) return config.publicUrl.endsWith('/') ? config.publicUrl : `${config.publicUrl}/`;
  if (config.port === 0) return undefined;
  const host = config.host === '0.0.0.0' ? '127.0.0.1' : config.host === '::' ? '::1' : config.host;
  return `${config.tls ? 'https' : 'http'}://${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${config.port}/`;
}

/** The owner's token first, with the page to sign in at; then the agents'. Each token is printed here only. */
export function describeIssued(path: string, issued: readonly IssuedAgent[], page: string | undefined): string {
  const row = (agent: IssuedAgent) => tableLine([agent.name, agent.role, agent.token], { widths: [10, 7], gap: ' ', indent: '  ' });
  const lines = [`Wrote ${path} (mode 600; it holds only token hashes). Each token is shown once, now.`, ''];
  const owners = issued.filter((agent) => agent.role === 'owner');
  const others = issued.filter((agent) => agent.role !== 'owner');
  if (owners.length) {
    lines.push(`Yours, to act on the board's page: sign in at ${page ?? 'the web page address printed when the board starts'} with`);
    lines.push(...owners.map(row), '');
  }
  lines.push('For the agents (give each its own; keep them out of chats and committed files):');
  lines.push(...others.map(row), '');
  return lines.join('\n');
}

/** `roundtable init`: agents.json is written, kept out of git, and each token printed once (as JSON with --json). */
export function init(config: Config, json: boolean): void {
  const issued = initAgentsFile(config.agentsConfigPath);
  excludeDaemonFiles(config);
  const page = pageAddress(config);
  process.stdout.write(json ? `${JSON.stringify({ agents: issued, ...(page !== undefined && { page }) })}\n` : describeIssued(config.agentsConfigPath, issued, page));
}

export const INIT: Command = {
  name: 'init',
  usage: 'init [--json]',
  summary: 'write agents.json with an owner (you), one leader and two workers; print each token once',
  options: ['json'],
  args: [],
  run: (config, { values }) => init(config, values['json'] === true),
};
