// `roundtable agents ...`: edit agents.json safely. Rules are checked before anything is written; writes are atomic, mode 600.
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Role } from 'roundtable-shared';
import { AgentsFileError, generateToken, hashToken, loadAgentsFile, parseAgentsFile, type Agent } from './agents.js';

interface RawEntry {
  name: string;
  role: Role;
  skills?: string[];
  toolsets?: string[];
  token_sha256?: string;
  token?: string;
}
interface RawFile {
  agents: RawEntry[];
  [key: string]: unknown;
}

function readRaw(path: string): RawFile {
  loadAgentsFile(path); // the current file must be readable and valid before we touch it
  return JSON.parse(readFileSync(path, 'utf8')) as RawFile;
}

/** Validates the new content as the daemon would, then replaces the file atomically with mode 600. */
function writeValidated(path: string, file: RawFile): void {
  const text = `${JSON.stringify(file, null, 2)}\n`;
  parseAgentsFile(text, path);
  const temp = join(dirname(path), `.${randomBytes(6).toString('hex')}.agents.json.tmp`);
  const fd = openSync(temp, 'wx', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(temp, path);
  } catch (error) {
    unlinkSync(temp);
    throw error;
  }
}

function find(file: RawFile, name: string, path: string): RawEntry {
  const entry = file.agents.find((a) => a.name === name);
  if (!entry) throw new AgentsFileError(`${path}: no agent is called "${name}"; \`roundtable agents list\` shows the names`);
  return entry;
}

export function listAgents(path: string): Agent[] {
  return loadAgentsFile(path).list();
}

export function addAgent(path: string, options: { name: string; role: Role; skills: string[]; toolsets?: string[] | null }): string {
  const file = readRaw(path);
  if (file.agents.some((a) => a.name === options.name)) throw new AgentsFileError(`${path}: an agent called "${options.name}" already exists; use \`roundtable agents rotate\` for a new token`);
  const token = generateToken();
  file.agents.push({ name: options.name, role: options.role, skills: options.skills, ...(options.toolsets && { toolsets: options.toolsets }), token_sha256: hashToken(token) });
  writeValidated(path, file);
  return token;
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
export function setAgent(path: string, name: string, changes: { role?: Role; skills?: string[]; toolsets?: string[] | null }): AgentChange {
  const file = readRaw(path);
  const entry = find(file, name, path);
  const before = { role: entry.role, skills: entry.skills ?? [], toolsets: entry.toolsets ?? null };
  let change: AgentChange = { name };
  if (changes.role !== undefined && changes.role !== before.role) {
    change = { ...change, role: { from: before.role, to: changes.role } };
    entry.role = changes.role;
  }
  if (changes.skills !== undefined && changes.skills.join('\n') !== before.skills.join('\n')) {
    change = { ...change, skills: { from: before.skills, to: changes.skills } };
    entry.skills = changes.skills;
  }
  if (changes.toolsets !== undefined && (changes.toolsets ?? []).join('\n') !== (before.toolsets ?? []).join('\n')) {
    change = { ...change, toolsets: { from: before.toolsets, to: changes.toolsets } };
    if (changes.toolsets === null) delete entry.toolsets;
    else entry.toolsets = changes.toolsets;
  }
  if (change.role || change.skills || change.toolsets) writeValidated(path, file);
  return change;
}

export function rotateAgent(path: string, name: string): string {
  const file = readRaw(path);
  const entry = find(file, name, path);
  const token = generateToken();
  delete entry.token;
  entry.token_sha256 = hashToken(token);
  writeValidated(path, file);
  return token;
}

export function removeAgent(path: string, name: string): void {
  const file = readRaw(path);
  find(file, name, path);
  file.agents = file.agents.filter((a) => a.name !== name);
  writeValidated(path, file);
}
