-- Agent names equal but for case ("Alice" and "alice") are refused (issue 31): the rule is checked on every load and
-- edit (agents.ts), and this index holds it in the table too. A board that already holds such a pair must still
-- migrate: the index is then left out here (its daemons refuse to start, naming the pair and the fix), and the first
-- edit of the agents table after the pair is gone makes it (store/postgres/agents-directory.ts).
-- Numbered 011: 010 is the webhook attempts of the same issue, written on another branch at the same time.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM agents GROUP BY lower(name) HAVING COUNT(*) > 1) THEN
    CREATE UNIQUE INDEX agents_name_folded ON agents (lower(name));
  END IF;
END
$$;
