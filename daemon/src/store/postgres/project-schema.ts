// Where a project's board lives on PostgreSQL (issue 33): `default` in the public schema beside the catalog, every
// other project in a schema of its own named after its slug; and the two things done to those schemas as wholes.
import { DEFAULT_PROJECT } from 'roundtable-shared';
import { InvalidInput } from '../../errors.js';
import { quoteIdent, type Db, type Schema } from './connection.js';

/** Every project schema's name starts with this (a slug has no `_`, so no slug maps onto another's schema). */
const PREFIX = 'rt_';

/** The schema of project `slug`: undefined (the public one) for `default`, else `rt_` and the slug with `-` as `_`. */
export function schemaOf(slug: string): Schema {
  return slug === DEFAULT_PROJECT ? undefined : `${PREFIX}${slug.replace(/-/g, '_')}`;
}

/** The slugs of the projects that have a schema in this database (`default` not among them: it has none of its own). */
export async function listProjectSchemas(db: Db): Promise<string[]> {
  const rows = await db<Array<{ name: string }>>`
    SELECT nspname AS name FROM pg_namespace WHERE starts_with(nspname, ${PREFIX}) ORDER BY nspname`;
  return rows.map((r) => r.name.slice(PREFIX.length).replace(/_/g, '-'));
}

/**
 * Drops project `slug`'s schema with every table of its board (`projects remove --force`, after its backup): the
 * project's tasks, history, audit, events and webhooks are gone. `default`'s board is the public schema's and is refused.
 * Returns whether there was one.
 */
export async function dropProjectSchema(db: Db, slug: string): Promise<boolean> {
  const schema = schemaOf(slug);
  if (schema === undefined) throw new InvalidInput(`the project ${DEFAULT_PROJECT} lives in the public schema beside the catalog and cannot be dropped; remove another project`);
  const [exists] = await db<Array<{ present: boolean }>>`SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = ${schema}) AS present`;
  if (!exists?.present) return false;
  await db.unsafe(`DROP SCHEMA ${quoteIdent(schema)} CASCADE`);
  return true;
}
