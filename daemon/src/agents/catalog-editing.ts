// `roundtable projects ...` and `roundtable people ...`: edits of the catalog's projects and people, decided on the
// CatalogFile alone (so they hold on any AgentsTarget), each checked against every rule before anything is written.
import { DEFAULT_PROJECT, PROJECT_LIMITS, PROJECT_SLUG_PATTERN, PROJECT_SLUG_RULE, type BoardMode, type PersonRole } from 'roundtable-shared';
import { quoted } from '../runtime/terminal-text.js';
import type { CatalogFile } from './catalog.js';
import { AgentsFileError, generateToken, hashToken, NAME_PATTERN, RESERVED_NAMES } from './directory.js';
import { projectIn, run, type AgentsTarget } from './editing.js';

type RawPerson = CatalogFile['people'][number];

/** The slug rule, said about the argument that broke it. */
export function slugMistake(slug: string): string | undefined {
  return PROJECT_SLUG_PATTERN.test(slug) ? undefined : `SLUG ${quoted(slug)}: a project slug is ${PROJECT_SLUG_RULE}`;
}

function titleMistake(title: string | undefined): string | undefined {
  if (title === undefined) return undefined;
  if (title.trim() === '') return '--title must not be empty; leave it out for none';
  return title.length > PROJECT_LIMITS.projectTitle ? `--title is at most ${PROJECT_LIMITS.projectTitle} characters (got ${title.length})` : undefined;
}

/** A person's name follows the agents' rule: both sit at a project's table under it. */
export function personNameMistake(name: string): string | undefined {
  if (!NAME_PATTERN.test(name)) return `NAME ${quoted(name)}: a person's name is 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit`;
  return RESERVED_NAMES.has(name.toLowerCase()) ? `NAME ${quoted(name)} is reserved; choose another name` : undefined;
}

/** The whole catalog as it is now, for listings; nothing is written. */
export function readCatalogFile(target: AgentsTarget): Promise<CatalogFile> {
  return run(target, (file) => ({ result: file }));
}

export function addProject(target: AgentsTarget, options: { slug: string; mode: BoardMode; title?: string | undefined }): Promise<void> {
  return run(target, (file, where) => {
    const mistake = slugMistake(options.slug) ?? titleMistake(options.title);
    if (mistake) throw new AgentsFileError(mistake);
    if (file.projects.some((p) => p.slug === options.slug)) throw new AgentsFileError(`${where}: a project called ${quoted(options.slug)} already exists; \`roundtable projects list\` shows them`);
    if (file.projects.length >= PROJECT_LIMITS.projects) {
      throw new AgentsFileError(`${where}: a daemon serves at most ${PROJECT_LIMITS.projects} projects; remove one (\`roundtable projects remove SLUG\`) first`);
    }
    file.projects.push({ slug: options.slug, ...(options.title !== undefined && { title: options.title }), mode: options.mode, agents: [] });
    return { result: undefined, write: file };
  });
}

export function renameProject(target: AgentsTarget, slug: string, title: string): Promise<{ from: string | undefined; to: string }> {
  return run(target, (file, where) => {
    const mistake = titleMistake(title);
    if (mistake) throw new AgentsFileError(mistake);
    const project = projectIn(file, slug, where);
    const from = project.title;
    if (from === title) return { result: { from, to: title } };
    project.title = title;
    return { result: { from, to: title }, write: file };
  });
}

/** Why `default` stays: the unprefixed URLs serve it to the people granted it, and OAuth sign-in is bound to it. */
export const DEFAULT_STAYS = `the project ${quoted(DEFAULT_PROJECT)} cannot be removed: the unprefixed URLs (/mcp, /api/v1) and OAuth sign-in use it. Empty it instead (\`roundtable agents remove NAME\`, \`roundtable people revoke NAME default\`)`;

/** Takes the project out of the catalog with every grant to it; returns the people who lost one. */
export function removeProject(target: AgentsTarget, slug: string): Promise<string[]> {
  return run(target, (file, where) => {
    if (slug === DEFAULT_PROJECT) throw new AgentsFileError(DEFAULT_STAYS);
    projectIn(file, slug, where);
    file.projects = file.projects.filter((p) => p.slug !== slug);
    const lost: string[] = [];
    for (const person of file.people) {
      if (person.grants[slug] === undefined) continue;
      delete person.grants[slug];
      lost.push(person.name);
    }
    return { result: lost, write: file };
  });
}

function findPerson(file: CatalogFile, name: string, where: string): RawPerson {
  const person = file.people.find((p) => p.name === name);
  if (!person) throw new AgentsFileError(`${where}: no person is called ${quoted(name)}; \`roundtable people list\` shows the names`);
  return person;
}

/** A new person with no grant yet; returns their token, to be printed once. */
export function addPerson(target: AgentsTarget, name: string): Promise<string> {
  const token = generateToken();
  return run(target, (file, where) => {
    const mistake = personNameMistake(name);
    if (mistake) throw new AgentsFileError(mistake);
    const clash = file.people.find((p) => p.name.toLowerCase() === name.toLowerCase());
    if (clash) {
      throw new AgentsFileError(
        clash.name === name
          ? `${where}: a person called ${quoted(name)} already exists; use \`roundtable people rotate ${name}\` for a new token`
          : `${where}: ${quoted(name)} is equal but for case to the person ${quoted(clash.name)}; person names must differ in more than case. Choose another name`,
      );
    }
    if (file.people.length >= PROJECT_LIMITS.people) throw new AgentsFileError(`${where}: a daemon holds at most ${PROJECT_LIMITS.people} people; remove one (\`roundtable people remove NAME\`) first`);
    file.people.push({ name, token_sha256: hashToken(token), grants: {} });
    return { result: token, write: file };
  });
}

/** Grants (or changes) the person's role in a project; returns the role they held there before, if any. */
export function grantPerson(target: AgentsTarget, name: string, slug: string, role: PersonRole): Promise<{ from: PersonRole | undefined }> {
  return run(target, (file, where) => {
    const person = findPerson(file, name, where);
    const project = projectIn(file, slug, where);
    const agent = project.agents.find((a) => a.name.toLowerCase() === name.toLowerCase());
    if (agent) {
      throw new AgentsFileError(
        `${where}: project ${quoted(slug)} has an agent called ${quoted(agent.name)}; a person and an agent of one project need different names. Remove or rename that agent first (\`roundtable agents remove ${agent.name} --project ${slug}\`, then add it under another name), or grant the project to a person of another name`,
      );
    }
    const from = person.grants[slug];
    if (from === role) return { result: { from } };
    person.grants[slug] = role;
    return { result: { from }, write: file };
  });
}

/** Takes the person's role in a project away; their token keeps opening the others. */
export function revokePerson(target: AgentsTarget, name: string, slug: string): Promise<PersonRole> {
  return run(target, (file, where) => {
    const person = findPerson(file, name, where);
    const role = person.grants[slug];
    if (role === undefined) throw new AgentsFileError(`${where}: ${quoted(name)} holds no role in project ${quoted(slug)}; \`roundtable people list\` shows each person's grants`);
    delete person.grants[slug];
    return { result: role, write: file };
  });
}

export function rotatePerson(target: AgentsTarget, name: string): Promise<string> {
  const token = generateToken();
  return run(target, (file, where) => {
    const person = findPerson(file, name, where);
    delete person.token;
    person.token_sha256 = hashToken(token);
    return { result: token, write: file };
  });
}

export function removePerson(target: AgentsTarget, name: string): Promise<void> {
  return run(target, (file, where) => {
    findPerson(file, name, where);
    file.people = file.people.filter((p) => p.name !== name);
    return { result: undefined, write: file };
  });
}
