// The catalog: every project a daemon serves, its mode and agents, and the people who hold a role in some of them.
// Read from agents.json (or the agents tables on PostgreSQL); one validated whole, replaced whole on every reload.
//
// Two spellings are read (docs/SPEC.md, "agents.json"):
// - the first one, `{ "mode", "agents": [...] }`: the project `default`; its owners and observers are people granted
//   that role in `default` (issue 33: what exists today becomes the project default);
// - `{ "projects": [{ "slug", "title", "mode", "agents" }], "people": [{ "name", "token_sha256", "grants" }] }`.
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { BOARD_MODES, DEFAULT_PROJECT, PERSON_ROLES, PROJECT_LIMITS, PROJECT_SLUG_PATTERN, PROJECT_SLUG_RULE, type BoardMode, type PersonRole, type Role } from 'roundtable-shared';
import { AgentDirectory, AgentsFileError, AGENTS_TABLE, entrySchema, hashToken, NAME_PATTERN, RESERVED_NAMES, type AgentEntry } from './directory.js';
import { jsonErrorPlace } from './json-place.js';

const slugSchema = z.string({ error: 'must be a string' }).regex(PROJECT_SLUG_PATTERN, { error: `must be ${PROJECT_SLUG_RULE}` });

const projectSchema = z.strictObject({
  slug: slugSchema,
  title: z.string({ error: 'must be a string' }).min(1, { error: 'must not be empty; leave it out for none' }).max(PROJECT_LIMITS.projectTitle, { error: `is at most ${PROJECT_LIMITS.projectTitle} characters` }).optional(),
  mode: z.enum(BOARD_MODES, { error: `must be one of ${BOARD_MODES.join(', ')}` }).default('role'),
  agents: z.array(entrySchema, { error: 'must be a list of agents' }).max(PROJECT_LIMITS.agentsPerProject, { error: `holds at most ${PROJECT_LIMITS.agentsPerProject} agents` }).default([]),
});

const personSchema = z
  .strictObject({
    name: z
      .string({ error: 'must be a string' })
      .regex(NAME_PATTERN, { error: 'must be 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit' })
      .refine((n) => !RESERVED_NAMES.has(n.toLowerCase()), { error: 'is reserved; choose another name' }),
    token_sha256: z.string().regex(/^[0-9a-f]{64}$/, { error: 'must be 64 lowercase hex characters (the SHA-256 of the token)' }).optional(),
    token: z.string().min(16, { error: 'must be at least 16 characters; issue one with `roundtable people add`' }).optional(),
    grants: z.record(slugSchema, z.enum(PERSON_ROLES, { error: `must be one of ${PERSON_ROLES.join(', ')}` }), { error: 'must map project slugs to "owner" or "observer"' }).default({}),
  })
  .refine((e) => (e.token === undefined) !== (e.token_sha256 === undefined), { error: 'needs exactly one of token_sha256 (preferred) or token', path: ['token_sha256'] });

const catalogSchema = z.strictObject({
  projects: z.array(projectSchema, { error: 'must be a list of projects' }).min(1, { error: 'must list at least one project' }).max(PROJECT_LIMITS.projects, { error: `holds at most ${PROJECT_LIMITS.projects} projects` }),
  people: z.array(personSchema, { error: 'must be a list of people' }).max(PROJECT_LIMITS.people, { error: `holds at most ${PROJECT_LIMITS.people} people` }).default([]),
});

const firstSpellingSchema = z.strictObject({
  mode: z.enum(BOARD_MODES, { error: `must be one of ${BOARD_MODES.join(', ')}` }).default('role'),
  agents: z.array(entrySchema, { error: 'must be a list of agents' }).min(1, { error: 'must list at least one agent' }),
});

type RawAgent = z.infer<typeof entrySchema>;
type RawPerson = z.infer<typeof personSchema>;

/** The catalog as agents.json spells it (the second spelling): what editing reads and writes. */
export interface CatalogFile {
  projects: Array<{ slug: string; title?: string | undefined; mode: BoardMode; agents: RawAgent[] }>;
  people: Array<{ name: string; token_sha256?: string | undefined; token?: string | undefined; grants: Record<string, PersonRole> }>;
}

/** Who a token stands for: an agent of one project, or a person with a role in some. */
export type Principal =
  | { readonly kind: 'agent'; readonly name: string; readonly project: string }
  | { readonly kind: 'person'; readonly name: string; readonly grants: ReadonlyMap<string, PersonRole> };

export interface ProjectInfo {
  readonly slug: string;
  readonly title: string | undefined;
  readonly mode: BoardMode;
  /** Its agents and the people granted it (with their role there): what the project's board checks callers against. */
  readonly directory: AgentDirectory;
  /** Agents only, people not counted. */
  readonly agentCount: number;
}

export interface PersonInfo {
  readonly name: string;
  readonly grants: ReadonlyMap<string, PersonRole>;
}

interface Holder {
  readonly tokenHash: Buffer;
  readonly principal: Principal;
}

/** How many presented tokens the catalog remembers per holder before the memory is emptied and refilled. */
const TOKEN_CACHE_PER_HOLDER = 4;

export class Catalog {
  private readonly bySlug: ReadonlyMap<string, ProjectInfo>;
  private readonly holders: readonly Holder[];
  private readonly matched = new Map<string, Principal>();

  constructor(
    projects: readonly ProjectInfo[],
    readonly people: readonly PersonInfo[],
    holders: readonly Holder[],
    /** "project/name" of each entry whose token is written in plaintext. */
    readonly plaintextTokens: readonly string[],
    /** The file used the first spelling (`mode` and `agents` at the top). */
    readonly firstSpelling: boolean,
  ) {
    this.bySlug = new Map(projects.map((p) => [p.slug, p]));
    this.holders = holders;
  }

  get projects(): ProjectInfo[] {
    return [...this.bySlug.values()];
  }

  project(slug: string): ProjectInfo | undefined {
    return this.bySlug.get(slug);
  }

  /** A token matched before is answered from memory; any other's hash is compared with every holder's in constant time. */
  findByToken(token: string): Principal | undefined {
    const known = this.matched.get(token);
    if (known) return known;
    const principal = this.findByTokenHash(createHash('sha256').update(token, 'utf8').digest());
    if (principal) {
      if (this.matched.size >= this.holders.length * TOKEN_CACHE_PER_HOLDER) this.matched.clear();
      this.matched.set(token, principal);
    }
    return principal;
  }

  findByTokenHash(presented: Buffer): Principal | undefined {
    let match: Holder | undefined;
    for (const holder of this.holders) if (timingSafeEqual(presented, holder.tokenHash)) match = holder;
    return match?.principal;
  }

  person(name: string): PersonInfo | undefined {
    return this.people.find((p) => p.name === name);
  }
}

/** The projects a principal may enter, with its role in each, in catalog order. */
export function projectsOf(catalog: Catalog, principal: Principal): Array<{ readonly project: ProjectInfo; readonly role: Role }> {
  const found: Array<{ project: ProjectInfo; role: Role }> = [];
  for (const project of catalog.projects) {
    const role = roleIn(catalog, principal, project.slug);
    if (role) found.push({ project, role });
  }
  return found;
}

/** The principal's role in `slug`, or undefined where it has none (or the project does not exist). */
export function roleIn(catalog: Catalog, principal: Principal, slug: string): Role | undefined {
  const project = catalog.project(slug);
  if (!project) return undefined;
  if (principal.kind === 'person') return principal.grants.get(slug);
  return principal.project === slug ? project.directory.find(principal.name)?.role : undefined;
}

/**
 * The project an unprefixed URL serves for this principal: an agent's own; a person's `default` when granted it, else
 * the one project they hold; undefined when that is not one project (the caller must name it in the URL).
 */
export function homeProject(catalog: Catalog, principal: Principal): string | undefined {
  if (principal.kind === 'agent') return catalog.project(principal.project) ? principal.project : undefined;
  if (principal.grants.has(DEFAULT_PROJECT) && catalog.project(DEFAULT_PROJECT)) return DEFAULT_PROJECT;
  const held = [...principal.grants.keys()].filter((slug) => catalog.project(slug));
  return held.length === 1 ? held[0] : undefined;
}

/** The first spelling read as the second: one project `default`; its owners and observers become people granted it. */
export function asCatalogFile(raw: z.infer<typeof firstSpellingSchema>): CatalogFile {
  const agents = raw.agents.filter((a) => a.role !== 'owner' && a.role !== 'observer');
  const people = raw.agents
    .filter((a) => a.role === 'owner' || a.role === 'observer')
    .map((a) => ({ name: a.name, ...(a.token_sha256 ? { token_sha256: a.token_sha256 } : { token: a.token! }), grants: { [DEFAULT_PROJECT]: a.role as PersonRole } }));
  return { projects: [{ slug: DEFAULT_PROJECT, mode: raw.mode, agents }], people };
}

/** Parses agents.json text (either spelling); errors name the file, the project, the entry and the field. */
export function parseCatalog(text: string, path: string): Catalog {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    // The parser's message quotes the text around the error, which may hold a plaintext token: give the place only.
    const { line, column } = jsonErrorPlace(text, error as Error);
    throw new AgentsFileError(`${path}: not valid JSON at line ${line}, column ${column}; check the commas, quotes and brackets there`);
  }
  if (raw !== null && typeof raw === 'object' && !Array.isArray(raw) && !('projects' in raw)) {
    const parsed = firstSpellingSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new AgentsFileError(`${path}: ${describePath(raw, issue.path)} ${issue.message}`);
    }
    // The whole list is held to the rules it was written under (a leader, a peer), owners and observers included.
    checkMembers(parsed.data.agents, parsed.data.mode, path, '', 'the board');
    return build(asCatalogFile(parsed.data), path, true);
  }
  const parsed = catalogSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new AgentsFileError(`${path}: ${describePath(raw, issue.path)} ${issue.message}`);
  }
  return build(parsed.data, path, false);
}

export function loadCatalog(path: string): Catalog {
  return parseCatalog(readCatalogText(path), path);
}

export function readCatalogText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new AgentsFileError(
      code === 'ENOENT' ? `${path}: file not found; create it with \`roundtable init\` or set ROUNDTABLE_AGENTS_CONFIG` : `${path}: cannot be read (${code ?? 'unknown error'})`,
    );
  }
}

function build(file: CatalogFile, path: string, firstSpelling: boolean): Catalog {
  const slugs = new Set<string>();
  for (const [i, project] of file.projects.entries()) {
    if (slugs.has(project.slug)) throw new AgentsFileError(`${path}: projects[${i}] ("${project.slug}") slug: duplicate; project slugs must be unique`);
    slugs.add(project.slug);
  }
  const people = file.people as RawPerson[];
  const personNames = new Map<string, string>();
  for (const [i, person] of people.entries()) {
    const other = personNames.get(person.name.toLowerCase());
    if (other !== undefined) throw new AgentsFileError(`${path}: people[${i}] ("${person.name}") name: ${other === person.name ? 'duplicate' : `equal but for case to "${other}"`}; person names must differ in more than case`);
    personNames.set(person.name.toLowerCase(), person.name);
    for (const slug of Object.keys(person.grants)) {
      if (!slugs.has(slug)) throw new AgentsFileError(`${path}: people[${i}] ("${person.name}") grants: no project "${slug}"; grant a project that exists, or remove the grant`);
    }
  }

  const hashes = new Map<string, string>();
  const claimHash = (hex: string, who: string) => {
    const other = hashes.get(hex);
    if (other !== undefined) throw new AgentsFileError(`${path}: ${who} token: the same token is given to ${other} too; each agent and person needs its own`);
    hashes.set(hex, who);
  };
  const holders: Holder[] = [];
  const plaintext: string[] = [];
  const grantees = people.map((person, i) => {
    const hex = person.token_sha256 ?? hashToken(person.token!);
    claimHash(hex, `people[${i}] ("${person.name}")`);
    if (person.token !== undefined) plaintext.push(person.name);
    const grants = new Map(Object.entries(person.grants) as Array<[string, PersonRole]>);
    const tokenHash = Buffer.from(hex, 'hex');
    holders.push({ tokenHash, principal: Object.freeze({ kind: 'person' as const, name: person.name, grants }) });
    return { name: person.name, grants, tokenHash };
  });

  const projects = file.projects.map((project, p) => {
    const where = firstSpelling ? '' : `projects[${p}] ("${project.slug}") `;
    if (!firstSpelling && project.agents.length) checkMembers(project.agents, project.mode, path, where, `project "${project.slug}"`);
    const seen = new Map<string, string>();
    const entries: AgentEntry[] = [];
    for (const [i, agent] of project.agents.entries()) {
      const at = `${where}agents[${i}] ("${agent.name}")`;
      const other = seen.get(agent.name.toLowerCase());
      if (other === agent.name) throw new AgentsFileError(`${path}: ${at} name: duplicate; agent names must be unique within a project`);
      if (other !== undefined) throw new AgentsFileError(`${path}: ${at} name: equal but for case to "${other}"; agent names must differ in more than case. Rename or remove one of the two (${caseClashFix(path, agent.name)})`);
      seen.set(agent.name.toLowerCase(), agent.name);
      const hex = agent.token_sha256 ?? hashToken(agent.token!);
      claimHash(hex, at);
      if (agent.token !== undefined) plaintext.push(firstSpelling ? agent.name : `${project.slug}/${agent.name}`);
      const entry: AgentEntry = {
        name: agent.name,
        role: agent.role,
        skills: Object.freeze([...new Set(agent.skills)]),
        ...(agent.toolsets && { toolsets: Object.freeze([...new Set(agent.toolsets)]) }),
        tokenHash: Buffer.from(hex, 'hex'),
      };
      entries.push(entry);
      holders.push({ tokenHash: entry.tokenHash, principal: Object.freeze({ kind: 'agent' as const, name: agent.name, project: project.slug }) });
    }
    // The people granted this project sit at its table under their own name, with the role granted here.
    for (const person of grantees) {
      const role = person.grants.get(project.slug);
      if (!role) continue;
      const other = seen.get(person.name.toLowerCase());
      if (other !== undefined) {
        throw new AgentsFileError(`${path}: people: "${person.name}" is granted ${firstSpelling ? 'the board' : `project "${project.slug}"`}, which has an agent named "${other}"; a person and an agent of one project need different names`);
      }
      seen.set(person.name.toLowerCase(), person.name);
      entries.push({ name: person.name, role, skills: Object.freeze([]), tokenHash: person.tokenHash });
    }
    const plaintextHere = project.agents.filter((a) => a.token !== undefined).map((a) => a.name);
    for (const person of people) if (person.token !== undefined && person.grants[project.slug]) plaintextHere.push(person.name);
    return Object.freeze({
      slug: project.slug,
      title: project.title,
      mode: project.mode,
      directory: new AgentDirectory(entries, plaintextHere, project.mode),
      agentCount: project.agents.length,
    });
  });
  return new Catalog(projects, grantees.map(({ name, grants }) => Object.freeze({ name, grants })), holders, plaintext, firstSpelling);
}

/** The mode's rules for a project's members: one leader among leaders and workers, or at least one peer. */
function checkMembers(agents: readonly { name: string; role: Role }[], mode: BoardMode, path: string, where: string, what: string): void {
  if (mode === 'role') {
    const leaders = agents.filter((a) => a.role === 'leader');
    if (leaders.length !== 1) {
      throw new AgentsFileError(`${path}: ${where}role: ${what} needs exactly one leader, found ${leaders.length}${leaders.length ? ` (${leaders.map((l) => l.name).join(', ')})` : ''}`);
    }
    const peer = agents.findIndex((a) => a.role === 'peer');
    if (peer !== -1) throw new AgentsFileError(`${path}: ${where}agents[${peer}] ("${agents[peer]!.name}") role: "peer" needs "mode": "peer" ${where ? 'on the project' : 'at the top of the file'}`);
    return;
  }
  const ranked = agents.findIndex((a) => a.role === 'leader' || a.role === 'worker');
  if (ranked !== -1) {
    throw new AgentsFileError(`${path}: ${where}agents[${ranked}] ("${agents[ranked]!.name}") role: a peer-mode board has no leader or workers; use "peer" (or "observer", or "owner" for a person)`);
  }
  if (!agents.some((a) => a.role === 'peer')) throw new AgentsFileError(`${path}: ${where}role: a peer-mode board needs at least one "peer"`);
}

/** How to undo a clash: the agents table is edited with the CLI; a file by hand (the CLI refuses to edit an invalid file). */
function caseClashFix(path: string, name: string): string {
  return path === AGENTS_TABLE ? `\`roundtable agents remove ${name}\`, then add it again under another name` : `edit ${path}`;
}

function describePath(raw: unknown, path: readonly PropertyKey[]): string {
  const named = (list: unknown, index: number, key: string) => {
    const entry = Array.isArray(list) ? list[index] : undefined;
    const value = entry && typeof entry === 'object' ? (entry as Record<string, unknown>)[key] : undefined;
    return typeof value === 'string' ? ` ("${value}")` : '';
  };
  const parts: string[] = [];
  let node: unknown = raw;
  for (let i = 0; i < path.length; i++) {
    const key = path[i]!;
    const next = path[i + 1];
    if ((key === 'agents' || key === 'projects' || key === 'people') && typeof next === 'number') {
      parts.push(`${key}[${next}]${named((node as Record<string, unknown>)?.[key], next, key === 'projects' ? 'slug' : 'name')}`);
      node = ((node as Record<string, unknown[]>)?.[key] ?? [])[next];
      i++;
      continue;
    }
    parts.push(String(key));
    node = (node as Record<string, unknown> | undefined)?.[String(key)];
  }
  if (!parts.length) return '(top level):';
  // "agents[0] ("w") skills.1": the entry, then the field inside it.
  const entryEnd = parts.findLastIndex((p) => /\]/.test(p));
  const head = parts.slice(0, entryEnd + 1).join(' ');
  const field = parts.slice(entryEnd + 1).join('.');
  return `${head}${head && field ? ' ' : ''}${field}:`;
}
