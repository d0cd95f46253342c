// The projects and people edits as decisions on the CatalogFile alone, on an in-memory target (any AgentsTarget):
// what each writes, and that each refusal writes nothing.
import { describe, expect, it } from 'vitest';
import { PROJECT_LIMITS } from 'roundtable-shared';
import { addPerson, addProject, grantPerson, removeProject, revokePerson } from '../../daemon/src/agents/catalog-editing.js';
import type { CatalogFile } from '../../daemon/src/agents/catalog.js';
import { hashToken } from '../../daemon/src/agents/directory.js';
import { addAgent, type AgentsTarget } from '../../daemon/src/agents/editing.js';

/** A target that keeps the catalog as JSON text, so a test can see whether anything was written. */
function memoryTarget(file: CatalogFile): AgentsTarget & { text: string; writes: number } {
  const target = {
    where: 'the test catalog',
    text: JSON.stringify(file),
    writes: 0,
    async change<T>(decide: (current: CatalogFile | undefined) => { result: T; write?: CatalogFile }): Promise<T> {
      const { result, write } = decide(JSON.parse(target.text) as CatalogFile);
      if (write) {
        target.text = JSON.stringify(write);
        target.writes++;
      }
      return result;
    },
    async close() {},
  };
  return target;
}

const hash = (n: number) => hashToken(`token-number-${n}-of-the-test`);
const base = (): CatalogFile => ({
  projects: [
    { slug: 'default', mode: 'role', agents: [{ name: 'lead', role: 'leader', skills: [], token_sha256: hash(1) }] },
    { slug: 'web', mode: 'peer', agents: [{ name: 'bob', role: 'peer', skills: [], token_sha256: hash(2) }] },
  ],
  people: [{ name: 'ann', token_sha256: hash(3), grants: { default: 'owner', web: 'observer' } }],
});

async function refusedUnchanged(target: ReturnType<typeof memoryTarget>, edit: () => Promise<unknown>, message: RegExp): Promise<void> {
  const before = target.text;
  await expect(edit()).rejects.toThrow(message);
  expect(target.text).toBe(before);
}

describe('projects', () => {
  it('remove takes the grants to the project with it; default is refused, saying why and what to do', async () => {
    const target = memoryTarget(base());
    await refusedUnchanged(target, () => removeProject(target, 'default'), /cannot be removed: the unprefixed URLs .* Empty it instead/);
    expect(await removeProject(target, 'web')).toEqual(['ann']);
    const file = JSON.parse(target.text) as CatalogFile;
    expect(file.projects.map((p) => p.slug)).toEqual(['default']);
    expect(file.people[0]!.grants).toEqual({ default: 'owner' });
  });

  it('add refuses a bad slug, a taken one, a long title, and one past the limit', async () => {
    const target = memoryTarget(base());
    await refusedUnchanged(target, () => addProject(target, { slug: 'Web', mode: 'role' }), /SLUG "Web": a project slug is 1-40 lowercase/);
    await refusedUnchanged(target, () => addProject(target, { slug: 'web', mode: 'role' }), /a project called "web" already exists/);
    await refusedUnchanged(target, () => addProject(target, { slug: 'x', mode: 'role', title: 't'.repeat(PROJECT_LIMITS.projectTitle + 1) }), /--title is at most 200 characters/);
    const full = base();
    for (let i = full.projects.length; i < PROJECT_LIMITS.projects; i++) full.projects.push({ slug: `p${i}`, mode: 'role', agents: [] });
    const crowded = memoryTarget(full);
    await refusedUnchanged(crowded, () => addProject(crowded, { slug: 'one-more', mode: 'role' }), /at most 1000 projects/);
    await addProject(target, { slug: 'api', mode: 'role', title: 'The API' });
    expect((JSON.parse(target.text) as CatalogFile).projects[2]).toEqual({ slug: 'api', title: 'The API', mode: 'role', agents: [] });
  });
});

describe('people', () => {
  it('a person and an agent of one project need different names, either way round; the message names the project and the way out', async () => {
    const target = memoryTarget(base());
    await addPerson(target, 'Bob');
    await refusedUnchanged(target, () => grantPerson(target, 'Bob', 'web', 'owner'), /project "web" has an agent called "bob"; .* Remove or rename that agent first \(`roundtable agents remove bob --project web`/);
    // In a project without that agent the grant is fine.
    expect(await grantPerson(target, 'Bob', 'default', 'observer')).toEqual({ from: undefined });
    await refusedUnchanged(target, () => addAgent(target, { name: 'ANN', role: 'peer', skills: [], project: 'web' }), /"ann" is a person granted project "web"; .* Choose another name/);
  });

  it('revoke keeps the other grants; add refuses a name equal but for case, and past the limit', async () => {
    const target = memoryTarget(base());
    expect(await revokePerson(target, 'ann', 'web')).toBe('observer');
    expect((JSON.parse(target.text) as CatalogFile).people[0]!.grants).toEqual({ default: 'owner' });
    await refusedUnchanged(target, () => revokePerson(target, 'ann', 'web'), /holds no role in project "web"/);
    await refusedUnchanged(target, () => addPerson(target, 'ANN'), /equal but for case to the person "ann"/);
    const full = base();
    for (let i = 1; i < PROJECT_LIMITS.people; i++) full.people.push({ name: `person-${i}`, token_sha256: hash(100 + i), grants: {} });
    const crowded = memoryTarget(full);
    await refusedUnchanged(crowded, () => addPerson(crowded, 'one-more'), /at most 1000 people/);
  });
});
