// `roundtable agents ...`: edit the agents directory safely, in agents.json (SQLite) or in the agents table
// (PostgreSQL). Rules are checked on the whole result before anything is written; hashes only; file writes are
// atomic, mode 600; database writes are one transaction that every daemon hears of.
import { readFileSync } from 'node:fs';
import type { Role } from 'roundtable-shared';
import { writePrivateFile } from '../runtime/private-file.js';
import { quoted } from '../runtime/terminal-text.js';
import { AgentsFileError, generateToken, hashToken, loadAgentsFile, parseAgentsFile, type Agent } from './directory.js';

export interface RawEntry {
  name: string;
  role: Role;
  skills?: string[];
  toolsets?: string[];
  token_sha256?: string;
  token?: string;
}
export interface RawFile {
  agents: RawEntry[];
  [key: string]: unknown;
}

/** What an edit decided: its result, and the whole new directory to write (none: write nothing). */
export interface Decision<T> {
  readonly result: T;
  readonly write?: RawFile;
}
type Edit<T> = (file: RawFile, where: string) => Decision<T>;

/** Where the directory lives: agents.json, or the agents table. */
export interface AgentsTarget {
  /** Names it in messages: the file's path, or "the agents table". */
  readonly where: string;
  /** Reads the directory, lets `decide` choose, and writes what it returns; undefined is an empty table. */
  change<T>(decide: (current: RawFile | undefined) => Decision<T>): Promise<T>;
  close(): Promise<void>;
}

/** Validates the new content as the daemon would, then replaces the file atomically with mode 600. */
function writeValidated(path: string, file: RawFile): void {
  const text = `${JSON.stringify(file, null, 2)}\n`;
  parseAgentsFile(text, path);
  writePrivateFile(path, text);
}

export function agentsFileTarget(path: string): AgentsTarget {
  return {
    where: path,
    async change(decide) {
      loadAgentsFile(path); // the current file must be readable and valid before we touch it
      const { result, write } = decide(JSON.parse(readFileSync(path, 'utf8')) as RawFile);
      if (write) writeValidated(path, write);
      return result;
    },
    async close() {},
  };
}

const EMPTY_TABLE = 'the agents table is empty; move an agents.json in with `roundtable agents import agents.json`';

/** Runs `edit` on the directory; whatever it would write is checked against every rule first, so a refusal writes nothing. */
function run<T>(target: AgentsTarget, edit: Edit<T>): Promise<T> {
  return target.change((current) => {
    if (!current) throw new AgentsFileError(EMPTY_TABLE);
    const decision = edit(current, target.where);
    if (decision.write) parseAgentsFile(JSON.stringify(decision.write), target.where);
    return decision;
  });
}

function find(file: RawFile, name: string, where: string): RawEntry {
  const entry = file.agents.find((a) => a.name === name);
  if (!entry) throw new AgentsFileError(`${where}: no agent is called ${quoted(name)}; \`roundtable agents list\` shows the names`);
  return entry;
}

export function listAgents(target: AgentsTarget): Promise<Agent[]> {
  return run(target, (file, where) => ({ result: parseAgentsFile(JSON.stringify(file), where).list() }));
}

export function addAgent(target: AgentsTarget, options: { name: string; role: Role; skills: string[]; toolsets?: string[] | null }): Promise<string> {
  const token = generateToken();
  return run(target, (file, where) => {
    if (file.agents.some((a) => a.name === options.name)) throw new AgentsFileError(`${where}: an agent called ${quoted(options.name)} already exists; use \`roundtable agents rotate\` for a new token`);
    const clash = file.agents.find((a) => a.name.toLowerCase() === options.name.toLowerCase());
    if (clash) {
      throw new AgentsFileError(
        `${where}: ${quoted(options.name)} is equal but for case to the agent ${quoted(clash.name)}; agent names must differ in more than case. Choose another name (or \`roundtable agents rotate ${clash.name}\` for a new token of that one)`,
      );
    }
    const entry: RawEntry = { name: options.name, role: options.role, skills: options.skills, ...(options.toolsets && { toolsets: options.toolsets }), token_sha256: hashToken(token) };
    return { result: token, write: { ...file, agents: [...file.agents, entry] } };
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
export function setAgent(target: AgentsTarget, name: string, changes: { role?: Role; skills?: string[]; toolsets?: string[] | null }): Promise<AgentChange> {
  return run(target, (file, where) => {
    const entry = find(file, name, where);
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

export function rotateAgent(target: AgentsTarget, name: string): Promise<string> {
  const token = generateToken();
  return run(target, (file, where) => {
    const entry = find(file, name, where);
    delete entry.token;
    entry.token_sha256 = hashToken(token);
    return { result: token, write: file };
  });
}

export function removeAgent(target: AgentsTarget, name: string): Promise<void> {
  return run(target, (file, where) => {
    find(file, name, where);
    return { result: undefined, write: { ...file, agents: file.agents.filter((a) => a.name !== name) } };
  });
}

/**
 * Moves agents.json into the agents table (tokens as hashes). Refused when the table already holds agents, unless
 * `ifEmpty`: then the table is left as it is (several daemons starting at once on one board) and false returned.
 */
export async function importAgents(target: AgentsTarget, path: string, options: { ifEmpty?: boolean } = {}): Promise<boolean> {
  const directory = loadAgentsFile(path); // every rule, with the file's name in the message
  const file = JSON.parse(readFileSync(path, 'utf8')) as RawFile;
  return target.change((current) => {
    if (current) {
      if (options.ifEmpty) return { result: false };
      throw new AgentsFileError(
        `${target.where} already holds ${current.agents.length} agent(s); import only fills an empty one. Edit it with \`roundtable agents add|set|rotate|remove\``,
      );
    }
    return { result: directory.list().length > 0, write: file };
  });
}
