-- Which face a tool call came through: 'mcp' (/mcp), 'api' (the JSON API, which the bridge uses) or 'web' (an
-- owner's action on the live page). Rows written before this migration have none (NULL).
ALTER TABLE audit_log ADD COLUMN face TEXT CHECK (face IS NULL OR face IN ('mcp', 'api', 'web'));
