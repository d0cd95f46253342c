// `roundtable people add|grant|revoke|list|rotate|remove`: the people of agents.json's catalog, who sign in once and
// hold a role (owner or observer) in each project granted to them.
import { PERSON_ROLES, type PersonRole } from 'roundtable-shared';
import { addPerson, grantPerson, personNameMistake, readCatalogFile, removePerson, revokePerson, rotatePerson, slugMistake } from '../agents/catalog-editing.js';
import type { Config } from '../runtime/config.js';
import { quoted } from '../runtime/terminal-text.js';
import { agentsTarget } from './agents.js';
import type { Command, Invocation } from './command.js';
import { tableText } from './table.js';

async function peopleCommand(config: Config, { command, args, values }: Invocation): Promise<void> {
  const target = await agentsTarget(config);
  const [name, slug] = args;
  const json = values['json'] === true;
  const applies = config.databaseUrl ? 'every daemon on the board applies it within a second' : 'a running board applies it within seconds';
  const issued = (token: string): void =>
    void process.stdout.write(json ? `${JSON.stringify({ name, token })}\n` : `New sign-in token for ${name} (shown once; ${applies}):\n  ${token}\n`);
  try {
    switch (command) {
      case 'people list': {
        const people = (await readCatalogFile(target)).people.map((p) => ({ name: p.name, grants: p.grants }));
        if (json) return void process.stdout.write(`${JSON.stringify({ people })}\n`);
        if (!people.length) return void process.stdout.write('No people. Add one with `roundtable people add NAME`.\n');
        const grants = (g: Record<string, PersonRole>) => Object.entries(g).map(([s, role]) => `${s}:${role}`).join(',') || '(no project yet)';
        process.stdout.write(tableText(people.map((p) => [p.name, grants(p.grants)]), { widths: [16], gap: ' ' }));
        return;
      }
      case 'people add': {
        const token = await addPerson(target, name!);
        issued(token);
        if (!json) process.stdout.write(`Grant a project next: \`roundtable people grant ${name} SLUG --role owner\` (or observer).\n`);
        return;
      }
      case 'people grant': {
        const role = values['role'] as PersonRole;
        const { from } = await grantPerson(target, name!, slug!, role);
        process.stdout.write(
          from === role
            ? `${name} already holds ${role} in ${slug}; nothing written.\n`
            : `${name} is now ${role} in ${slug}${from ? ` (was ${from})` : ''}; ${applies}. Their token opens /p/${slug}/ and its page.\n`,
        );
        return;
      }
      case 'people revoke': {
        const role = await revokePerson(target, name!, slug!);
        process.stdout.write(`${name} no longer holds ${role} in ${slug}; ${applies}, and their token is refused there (403) from then on.\n`);
        return;
      }
      case 'people rotate':
        return issued(await rotatePerson(target, name!));
      case 'people remove':
        await removePerson(target, name!);
        process.stdout.write(`Removed ${name} with every grant; their token is refused from the next request on.\n`);
        return;
    }
  } finally {
    await target.close();
  }
}

const NAME = { name: 'NAME', missing: "a person's NAME (`roundtable people list` shows them)" };
const SLUG = { name: 'SLUG', missing: 'a project SLUG (`roundtable projects list` shows them)' };
const nameArg = (args: readonly string[]) => (args[0] === undefined ? undefined : personNameMistake(args[0]));
const slugArg = (args: readonly string[]) => (args[1] === undefined ? undefined : slugMistake(args[1]));

export const PEOPLE_COMMANDS: readonly Command[] = [
  { name: 'people list', usage: 'people list [--json]', summary: "every person and their role in each project (never a token)", options: ['json'], args: [], run: peopleCommand },
  {
    name: 'people add',
    usage: 'people add NAME [--json]',
    summary: 'a new person (no project yet); print their sign-in token once',
    options: ['json'],
    args: [NAME],
    misuse: (_values, args) => nameArg(args),
    run: peopleCommand,
  },
  {
    name: 'people grant',
    usage: `people grant NAME SLUG --role ${PERSON_ROLES.join('|')}`,
    summary: 'give the person a role in a project (or change it)',
    options: ['role'],
    args: [NAME, SLUG],
    misuse: (values, args) =>
      slugArg(args) ??
      (values['role'] === undefined
        ? `roundtable people grant needs --role, one of ${PERSON_ROLES.join(', ')}`
        : !(PERSON_ROLES as readonly string[]).includes(String(values['role']))
          ? `--role must be one of ${PERSON_ROLES.join(', ')} for a person (got ${quoted(String(values['role']))}); agents hold the board roles`
          : undefined),
    run: peopleCommand,
  },
  { name: 'people revoke', usage: 'people revoke NAME SLUG', summary: "take the person's role in a project away", options: [], args: [NAME, SLUG], misuse: (_v, args) => slugArg(args), run: peopleCommand },
  { name: 'people rotate', usage: 'people rotate NAME [--json]', summary: 'a new sign-in token for the person, printed once; the old one stops working', options: ['json'], args: [NAME], run: peopleCommand },
  { name: 'people remove', usage: 'people remove NAME', summary: 'the person and every grant; their token stops working', options: [], args: [NAME], run: peopleCommand },
];
