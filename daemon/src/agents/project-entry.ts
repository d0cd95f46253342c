// A project's catalog entry as an export file carries it (issue 33): slug, title, mode and agents with token hashes
// only; people are not carried (grants are per daemon). Read out of one catalog, checked when read back, added to another.
import { quoted } from '../runtime/terminal-text.js';
import { parseCatalog, type CatalogFile } from './catalog.js';
import { AgentsFileError, hashToken } from './directory.js';
import type { AgentsTarget } from './editing.js';

export type ProjectEntry = CatalogFile['projects'][number];

/** The project's entry from the catalog, every plaintext `token` turned into its sha256: an export never holds a token. */
export function exportedEntry(target: AgentsTarget, slug: string): Promise<ProjectEntry> {
  return target.change((current) => {
    const project = current?.projects.find((p) => p.slug === slug);
    if (!project) throw new AgentsFileError(`${target.where}: no project is called ${quoted(slug)}; \`roundtable projects list\` shows the slugs`);
    const agents = project.agents.map(({ token, token_sha256, ...agent }) => ({ ...agent, token_sha256: token_sha256 ?? hashToken(token!) }));
    return { result: { slug: project.slug, ...(project.title !== undefined && { title: project.title }), mode: project.mode, agents } };
  });
}

/** An export's entry, held to every catalog rule (names, roles, mode, limits) as a catalog of that one project. */
export function parseEntry(json: string, where: string): ProjectEntry {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    throw new AgentsFileError(`${where}: its project entry is not valid JSON; export the project again`);
  }
  const catalog = parseCatalog(JSON.stringify({ projects: [raw], people: [] }), `${where} (project entry)`);
  if (catalog.plaintextTokens.length) throw new AgentsFileError(`${where}: its project entry holds a plaintext token; an export holds token hashes only, so it was not written by \`roundtable projects export\``);
  return raw as ProjectEntry;
}

/**
 * The catalog with the imported project added as `slug`, checked against every rule; refused when the slug is taken or
 * when one of its agents' tokens is already held on this daemon (a token opens one project only).
 */
export function withImportedProject(file: CatalogFile, entry: ProjectEntry, slug: string, where: string): CatalogFile {
  if (file.projects.some((p) => p.slug === slug)) {
    throw new AgentsFileError(`${where}: a project called ${quoted(slug)} already exists on this daemon; import it under another slug with --as SLUG`);
  }
  const held = new Map<string, string>();
  for (const project of file.projects) for (const a of project.agents) held.set(a.token_sha256 ?? hashToken(a.token!), `agent ${quoted(a.name)} of project ${quoted(project.slug)}`);
  for (const person of file.people) held.set(person.token_sha256 ?? hashToken(person.token!), `the person ${quoted(person.name)}`);
  for (const agent of entry.agents) {
    const holder = held.get(agent.token_sha256!);
    if (holder) {
      throw new AgentsFileError(
        `${where}: the imported agent ${quoted(agent.name)} has the token of ${holder} already on this daemon (was this project imported here before?); a token opens one project only, so import it on another daemon, or remove that project first`,
      );
    }
  }
  const next: CatalogFile = { ...file, projects: [...file.projects, { ...entry, slug }] };
  parseCatalog(JSON.stringify(next), where);
  return next;
}

/** Adds the imported project to the catalog through the edit layer; checked first, so a refusal writes nothing. */
export function addImportedProject(target: AgentsTarget, entry: ProjectEntry, slug: string, options: { dryRun?: boolean } = {}): Promise<void> {
  return target.change((current) => {
    if (!current) throw new AgentsFileError(`${target.where} is empty; a project is imported into a board that has a catalog`);
    const next = withImportedProject(current, entry, slug, target.where);
    return options.dryRun ? { result: undefined } : { result: undefined, write: next };
  });
}
