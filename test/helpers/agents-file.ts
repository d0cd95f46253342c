// Reading agents.json in a test whatever its spelling: the first one ({ mode, agents }) or the catalog's ({ projects, people }).
import { readFileSync } from 'node:fs';

export interface FileAgent {
  name: string;
  role: string;
  skills: string[];
  toolsets?: string[];
  token_sha256?: string;
  token?: string;
}

/** The whole file, and the agents list of one project in it (the same array: change it, then write `file` back). */
export function readAgentsFile(path: string, project = 'default'): { file: Record<string, unknown>; agents: FileAgent[] } {
  const file = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  if (!Array.isArray(file['projects'])) return { file, agents: file['agents'] as FileAgent[] };
  const entry = (file['projects'] as Array<{ slug: string; agents: FileAgent[] }>).find((p) => p.slug === project);
  if (!entry) throw new Error(`no project ${project} in ${path}`);
  return { file, agents: entry.agents };
}
