// Where each project's own files live on a SQLite board: `default` keeps the paths it always had; any other project
// has a folder of its own beside the database (docs/DECISIONS.md, issue 33: a SQLite file per project).
import { dirname, join } from 'node:path';
import { DEFAULT_PROJECT } from 'roundtable-shared';
import type { Config } from '../runtime/config.js';
import { secretsPathBeside } from '../webhooks/secret-file.js';

/** The folder beside the database that holds every project but `default`, one folder each. */
export const PROJECTS_DIR = 'roundtable-projects';

export interface ProjectFiles {
  /** The project's SQLite database. */
  readonly dbPath: string;
  /** Its webhooks' signing secrets (SQLite boards keep them out of the database). */
  readonly secretsPath: string;
  /** Where its scheduled backups go. */
  readonly backup: Config['backup'];
}

export function projectsRoot(config: Config): string {
  return join(dirname(config.dbPath), PROJECTS_DIR);
}

export function projectFiles(config: Config, slug: string): ProjectFiles {
  if (slug === DEFAULT_PROJECT) return { dbPath: config.dbPath, secretsPath: secretsPathBeside(config.agentsConfigPath), backup: config.backup };
  const folder = join(projectsRoot(config), slug);
  return {
    dbPath: join(folder, 'board.db'),
    secretsPath: join(folder, 'webhook-secrets.json'),
    backup: { ...config.backup, dir: join(config.backup.dir, PROJECTS_DIR, slug) },
  };
}
