// `roundtable init`: a fresh agents.json with one leader and two workers, hashes only, mode 600.
import { writeFileSync } from 'node:fs';
import type { Role } from 'roundtable-shared';
import { generateToken, hashToken } from './agents.js';

export interface IssuedAgent {
  readonly name: string;
  readonly role: Role;
  readonly skills: string[];
  readonly token: string;
}

export const DEFAULT_AGENTS: ReadonlyArray<Pick<IssuedAgent, 'name' | 'role' | 'skills'>> = [
  { name: 'leader', role: 'leader', skills: [] },
  { name: 'worker-1', role: 'worker', skills: [] },
  { name: 'worker-2', role: 'worker', skills: [] },
];

export class AgentsFileExists extends Error {}

/** Writes the file only if it does not exist yet (O_EXCL), so an existing board's tokens are never replaced. */
export function initAgentsFile(path: string): IssuedAgent[] {
  const issued = DEFAULT_AGENTS.map((a) => ({ ...a, skills: [...a.skills], token: generateToken() }));
  const file = {
    agents: issued.map(({ name, role, skills, token }) => ({ name, role, skills, token_sha256: hashToken(token) })),
  };
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

export function describeIssued(path: string, issued: readonly IssuedAgent[]): string {
  const lines = [
    `Wrote ${path} (mode 600; it holds only token hashes).`,
    'Each token is shown once, now. Give each agent its own; keep them out of chats and committed files.',
    '',
  ];
  for (const agent of issued) lines.push(`  ${agent.name.padEnd(10)} ${agent.role.padEnd(7)} ${agent.token}`);
  lines.push('');
  return lines.join('\n');
}
