-- Projects (issue 33). The catalog (projects, people, their grants, the agents of every project) lives once, beside
-- the project `default`'s board; every other project's board is a schema of its own (rt_<slug>), made by running
-- these same files there. So this file does two things, chosen by the runner (store/postgres/migrate.ts):
-- - the catalog's schema: makes the catalog tables and turns the agents directory of today into the project `default`
--   (its mode, its agents; owners and observers become people granted that role in `default`);
-- - a project's schema (roundtable.project_schema = 'on'): drops the catalog's tables that 002, 003 and 005 made there,
--   which a project never reads (its sign-in sessions and agents are the catalog's).
DO $$
BEGIN
  IF current_setting('roundtable.project_schema', true) IS NOT DISTINCT FROM 'on' THEN
    DROP TABLE IF EXISTS agents, agents_mode, web_sessions;
    RETURN;
  END IF;

  CREATE TABLE projects (
    slug TEXT COLLATE "C" PRIMARY KEY,
    -- NULL: no title (the slug is shown).
    title TEXT,
    mode TEXT NOT NULL,
    -- The order projects are listed in (as in the file they came from).
    position INTEGER NOT NULL
  );

  CREATE TABLE people (
    name TEXT COLLATE "C" PRIMARY KEY,
    position INTEGER NOT NULL,
    token_sha256 TEXT COLLATE "C" NOT NULL UNIQUE
  );
  CREATE UNIQUE INDEX people_name_folded ON people (lower(name));

  CREATE TABLE grants (
    person TEXT COLLATE "C" NOT NULL REFERENCES people (name) ON DELETE CASCADE,
    project TEXT COLLATE "C" NOT NULL REFERENCES projects (slug) ON DELETE CASCADE,
    role TEXT NOT NULL,
    PRIMARY KEY (person, project)
  );

  -- Today's directory is the project `default` (when there is one: an empty table stays empty, filled at the first start).
  INSERT INTO projects (slug, title, mode, position)
    SELECT 'default', NULL, COALESCE((SELECT mode FROM agents_mode LIMIT 1), 'role'), 0
    WHERE EXISTS (SELECT 1 FROM agents);
  INSERT INTO people (name, position, token_sha256)
    SELECT name, position, token_sha256 FROM agents WHERE role IN ('owner', 'observer');
  INSERT INTO grants (person, project, role)
    SELECT name, 'default', role FROM agents WHERE role IN ('owner', 'observer');
  DELETE FROM agents WHERE role IN ('owner', 'observer');

  -- An agent belongs to one project; its name is unique there (case folded), its token everywhere.
  ALTER TABLE agents ADD COLUMN project TEXT COLLATE "C" NOT NULL DEFAULT 'default' REFERENCES projects (slug) ON DELETE CASCADE;
  ALTER TABLE agents ALTER COLUMN project DROP DEFAULT;
  ALTER TABLE agents DROP CONSTRAINT agents_pkey;
  ALTER TABLE agents ADD PRIMARY KEY (project, name);
  -- 011 left this index out on a board holding two names equal but for case: the first edit makes the new one then
  -- (store/postgres/agents-directory.ts).
  DROP INDEX IF EXISTS agents_name_folded;
  IF NOT EXISTS (SELECT 1 FROM agents GROUP BY project, lower(name) HAVING COUNT(*) > 1) THEN
    CREATE UNIQUE INDEX agents_project_name_folded ON agents (project, lower(name));
  END IF;

  -- The mode is each project's now.
  DROP TABLE agents_mode;
END
$$;
