// The Roundtable contract shared by the daemon and the bridge. No Node module, no database.
export * from './states.js';
export * from './limits.js';
export * from './errors.js';
export * from './schemas.js';
export * from './fields.js';
export * from './tools/index.js';
export * from './mcp.js';
export * from './leases.js';
export * from './prompts.js';
export * from './path-patterns.js';
export * from './projects.js';
export * from './work.js';
