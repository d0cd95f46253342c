// `roundtable agents ...`: edit the agents directory safely, in agents.json (SQLite) or in the agents table
// (PostgreSQL). Rules are checked on the whole result before anything is written; hashes only; file writes are
// atomic, mode 600; database writes are one transaction that every daemon hears of. Edits name their project
// (`default` when none is given); the file is always written in the catalog's spelling (agents/catalog.ts).
import { DEFAULT_PROJECT, type Role, type Toolset } from 'roundtable-shared';
import { writePrivateFile } from '../runtime/private-file.js';
import { quoted } from '../runtime/terminal-text.js';
import { asCatalogFile, parseCatalog, readCatalogText, type CatalogFile } from './catalog.js';
import { AgentsFileError, generateToken, hashToken, type Agent } from './directory.js';

export type RawFile = CatalogFile;
type RawProject = CatalogFile['projects'][number];
export type RawEntry = RawProject['agents'][number];

/** What an edit decided: its result, and the whole new catalog to write (none: write nothing). */
export interface Decision<T> {
  readonly result: T;
  readonly write?: CatalogFile;
}
type Edit<T> = (file: CatalogFile, where: string) => Decision<T>;

/** Where the directory lives: agents.json, or the agents table. */
export interface AgentsTarget {
  /** Names it in messages: the file's path, or "the agents table". */
  readonly where: string;
  /** Reads the catalog, lets `decide` choose, and writes what it returns; undefined is an empty table. */
  change<T>(decide: (current: CatalogFile | undefined) => Decision<T>): Promise<T>;
  close(): Promise<void>;
}

/** agents.json's text as the catalog's spelling: the first spelling is read as the project `default`. */
export function catalogFileOf(text: string, where: string): CatalogFile {
  const catalog = parseCatalog(text, where); // every rule, with the file's name in the message
  const raw = JSON.parse(text) as Record<string, unknown>;
  if (!catalog.firstSpelling) return raw as unknown as CatalogFile;
  return asCatalogFile({ mode: (raw['mode'] as CatalogFile['projects'][number]['mode']) ?? 'role', agents: raw['agents'] as RawEntry[] });
}

/** Validates the new content as the daemon would, then replaces the file atomically with mode 600. */
function writeValidated(path: string, file: CatalogFile): void {
  const text = `${JSON.stringify(file, null, 2)}\n`;
  parseCatalog(text, path);
  writePrivateFile(path, text);
}

export function agentsFileTarget(path: string): AgentsTarget {
  return {
    where: path,
    async change(decide) {
      const { result, write } = decide(catalogFileOf(readCatalogText(path), path));
      if (write) writeValidated(path, write);
      return result;
    },
    async close() {},
  };
}

const EMPTY_TABLE = 'the agents table is empty; move an agents.json in with `roundtable agents import agents.json`';

/** Runs `edit` on the directory; whatever it would write is checked against every rule first, so a refusal writes nothing. */
export function run<T>(target: AgentsTarget, edit: Edit<T>): Promise<T> {
  return target.change((current) => {
    if (!current) throw new AgentsFileError(EMPTY_TABLE);
    const decision = edit(current, target.where);
    if (decision.write) parseCatalog(JSON.stringify(decision.write), target.where);
    return decision;
  });
}

/** The project an edit names, from the catalog being edited. */
export function projectIn(file: CatalogFile, slug: string, where: string): RawProject {
  const project = file.projects.find((p) => p.slug === slug);
  if (!project) throw new AgentsFileError(`${where}: no project is called ${quoted(slug)}; \`roundtable projects list\` shows the slugs`);
  return project;
}

function find(project: RawProject, name: string, where: string): RawEntry {
  const entry = project.agents.find((a) => a.name === name) as RawEntry | undefined;
  if (!entry) throw new AgentsFileError(`${where}: no agent is called ${quoted(name)} in project ${quoted(project.slug)}; \`roundtable agents list --project ${project.slug}\` shows the names`);
  return entry;
}

/** The project's members: its agents, and the people granted it with their role there. */
export function listAgents(target: AgentsTarget, slug: string = DEFAULT_PROJECT): Promise<Agent[]> {
  return run(target, (file, where) => {
    projectIn(file, slug, where);
    return { result: parseCatalog(JSON.stringify(file), where).project(slug)!.directory.list() };
  });
}

export function addAgent(target: AgentsTarget, options: { name: string; role: Role; skills: string[]; toolsets?: Toolset[] | null; project?: string }): Promise<string> {
  const token = generateToken();
  return run(target, (file, where) => {
    const project = projectIn(file, options.project ?? DEFAULT_PROJECT, where);
    if (project.agents.some((a) => a.name === options.name)) throw new AgentsFileError(`${where}: an agent called ${quoted(options.name)} already exists; use \`roundtable agents rotate\` for a new token`);
    const clash = project.agents.find((a) => a.name.toLowerCase() === options.name.toLowerCase());
    if (clash) {
      throw new AgentsFileError(
        `${where}: ${quoted(options.name)} is equal but for case to the agent ${quoted(clash.name)}; agent names must differ in more than case. Choose another name (or \`roundtable agents rotate ${clash.name}\` for a new token of that one)`,
      );
    }
    const person = file.people.find((p) => p.name.toLowerCase() === options.name.toLowerCase() && p.grants[project.slug] !== undefined);
    if (person) {
      throw new AgentsFileError(
        `${where}: ${quoted(person.name)} is a person granted project ${quoted(project.slug)}; an agent and a person of one project need different names. Choose another name for the agent (or \`roundtable people revoke ${person.name} ${project.slug}\` first)`,
      );
    }
    const entry: RawEntry = { name: options.name, role: options.role, skills: options.skills, ...(options.toolsets && { toolsets: options.toolsets }), token_sha256: hashToken(token) };
    project.agents.push(entry);
    return { result: token, write: file };
  });
}

export interface AgentChange {
  readonly name: string;
  readonly role?: { readonly from: Role; readonly to: Role };
  readonly skills?: { readonly from: readonly string[]; readonly to: readonly string[] };
  /** null: every toolset. */
  readonly toolsets?: { readonly from: readonly string[] | null; readonly to: readonly string[] | null };
}

/**
 * Changes an agent's role and/or skills, keeping its token. The whole result is checked first (one leader in
 * role mode, no leader or worker in peer mode, ...); nothing is written when it fails or when nothing changes.
 */
/**
 * A person granted `project` under this exact name: before projects, owners and observers were entries of agents.json,
 * and `roundtable agents rotate|set|remove NAME` acted on them; it still does, on the person's token or grant there.
 */
function grantedPerson(file: CatalogFile, project: RawProject, name: string): CatalogFile['people'][number] | undefined {
  if (project.agents.some((a) => a.name === name)) return undefined;
  return file.people.find((p) => p.name === name && p.grants[project.slug] !== undefined);
}

export function setAgent(target: AgentsTarget, name: string, changes: { role?: Role; skills?: string[]; toolsets?: Toolset[] | null }, slug: string = DEFAULT_PROJECT): Promise<AgentChange> {
  return run(target, (file, where) => {
    const project = projectIn(file, slug, where);
    const person = grantedPerson(file, project, name);
    if (person) {
      const from = person.grants[slug]!;
      if (changes.skills !== undefined || changes.toolsets !== undefined || (changes.role !== undefined && changes.role !== 'owner' && changes.role !== 'observer')) {
        throw new AgentsFileError(`${where}: ${quoted(name)} is a person (${from} in project ${quoted(slug)}): a person holds owner or observer, with no skills or toolsets; \`roundtable people grant ${name} ${slug} --role owner|observer\` changes the role`);
      }
      if (changes.role === undefined || changes.role === from) return { result: { name } };
      person.grants[slug] = changes.role;
      return { result: { name, role: { from, to: changes.role } }, write: file };
    }
    const entry = find(project, name, where);
    const before = { role: entry.role, skills: entry.skills ?? [], toolsets: entry.toolsets ?? null };
    let change: AgentChange = { name };
    if (changes.role !== undefined && changes.role !== before.role) {
      change = { ...change, role: { from: before.role, to: changes.role } };
      entry.role = changes.role;
    }
    if (changes.skills !== undefined && !sameItems(changes.skills, before.skills)) {
      change = { ...change, skills: { from: before.skills, to: changes.skills } };
      entry.skills = changes.skills;
    }
    if (changes.toolsets !== undefined && !sameItems(changes.toolsets ?? [], before.toolsets ?? [])) {
      change = { ...change, toolsets: { from: before.toolsets, to: changes.toolsets } };
      if (changes.toolsets === null) delete entry.toolsets;
      else entry.toolsets = changes.toolsets;
    }
    return { result: change, ...((change.role || change.skills || change.toolsets) && { write: file }) };
  });
}

/** The same list, item by item and in order (the order is the file's); never compared as one joined string. */
function sameItems(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i]);
}

export function rotateAgent(target: AgentsTarget, name: string, slug: string = DEFAULT_PROJECT): Promise<string> {
  const token = generateToken();
  return run(target, (file, where) => {
    const project = projectIn(file, slug, where);
    const entry = grantedPerson(file, project, name) ?? find(project, name, where);
    delete entry.token;
    entry.token_sha256 = hashToken(token);
    return { result: token, write: file };
  });
}

export function removeAgent(target: AgentsTarget, name: string, slug: string = DEFAULT_PROJECT): Promise<void> {
  return run(target, (file, where) => {
    const project = projectIn(file, slug, where);
    const person = grantedPerson(file, project, name);
    if (person) {
      // The person's role here ends; a person left with no role anywhere is removed, token and all.
      delete person.grants[slug];
      if (!Object.keys(person.grants).length) file.people = file.people.filter((p) => p !== person);
      return { result: undefined, write: file };
    }
    find(project, name, where);
    project.agents = project.agents.filter((a) => a.name !== name);
    return { result: undefined, write: file };
  });
}

/**
 * Moves agents.json into the agents table (tokens as hashes). Refused when the table already holds agents, unless
 * `ifEmpty`: then the table is left as it is (several daemons starting at once on one board) and false returned.
 */
export async function importAgents(target: AgentsTarget, path: string, options: { ifEmpty?: boolean } = {}): Promise<boolean> {
  const file = catalogFileOf(readCatalogText(path), path);
  return target.change((current) => {
    if (current) {
      if (options.ifEmpty) return { result: false };
      const agents = current.projects.reduce((n, p) => n + p.agents.length, 0);
      throw new AgentsFileError(
        `${target.where} already holds ${agents} agent(s) and ${current.people.length} person(s); import only fills an empty one. Edit it with \`roundtable agents add|set|rotate|remove\``,
      );
    }
    return { result: file.projects.some((p) => p.agents.length > 0) || file.people.length > 0, write: file };
  });
}
