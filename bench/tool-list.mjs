// Bench section for the tool list's size: tools/list tokens (JSON characters / 4) per role on /mcp today, beside the
// list every role got before lists were narrowed by role and compacted (the shared/ contract built from git).
// It uses run.mjs's helpers, passed in, so the report, process hygiene and daemon start-up stay in one place.
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { httpClient } from './mcp-clients.mjs';

/** The original task tools: the eleven the budget of 2,500 tokens counts. */
const TASK_TOOLS = ['whoami', 'list_agents', 'create_task', 'list_tasks', 'get_task', 'claim_task', 'release_task', 'post_message', 'submit_result', 'review_task', 'cancel_task'];
const tokensOf = (tools) => JSON.stringify({ tools }).length / 4;

/** The revision just before: the parent of the commit that added the access table (shared/src/tools/access.ts). */
function revisionBefore(root) {
  const added = execFileSync('git', ['log', '--diff-filter=A', '--format=%H', '--', 'shared/src/tools/access.ts'], { cwd: root, encoding: 'utf8' }).trim().split('\n').at(-1);
  if (!added) throw new Error('cannot find the commit that added shared/src/tools/access.ts');
  return execFileSync('git', ['rev-parse', '--short', `${added}^`], { cwd: root, encoding: 'utf8' }).trim();
}

/** shared/ as it was at `rev`, compiled in a git worktree under tempDir; returns its module. */
async function sharedAt(root, rev, tempDir) {
  const tree = join(tempDir, 'shared-before');
  execFileSync('git', ['worktree', 'add', '--detach', tree, rev], { cwd: root, stdio: 'ignore' });
  try {
    const modules = join(tree, 'node_modules');
    mkdirSync(modules);
    for (const entry of readdirSync(join(root, 'node_modules'))) if (!entry.startsWith('roundtable-')) symlinkSync(join(root, 'node_modules', entry), join(modules, entry));
    execFileSync(join(root, 'node_modules/.bin/tsc'), ['-b', 'shared'], { cwd: tree, stdio: 'ignore' });
    if (!existsSync(join(tree, 'shared/dist/index.js'))) throw new Error(`shared/ did not build at ${rev}`);
    return await import(pathToFileURL(join(tree, 'shared/dist/index.js')).href);
  } finally {
    // The module is loaded; the tree is no longer needed.
    execFileSync('git', ['worktree', 'remove', '--force', tree], { cwd: root, stdio: 'ignore' });
  }
}

function agentsFile(dir, name, mode, defs) {
  const tokens = {};
  const file = { ...(mode === 'peer' && { mode }), agents: [] };
  for (const d of defs) {
    tokens[d.name] = `rt_${randomBytes(32).toString('base64url')}`;
    file.agents.push({ ...d, skills: [], token_sha256: createHash('sha256').update(tokens[d.name]).digest('hex') });
  }
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(file), { mode: 0o600 });
  return { path, tokens };
}

export async function benchToolList(h) {
  const dir = h.makeTempDir();
  const rev = revisionBefore(h.ROOT);
  const before = (await sharedAt(h.ROOT, rev, dir)).listedTools();
  const boards = [
    { mode: 'role', defs: [{ name: 'lead', role: 'leader' }, { name: 'w1', role: 'worker' }, { name: 'obs', role: 'observer' }, { name: 'tasks-only', role: 'worker', toolsets: ['tasks'] }] },
    { mode: 'peer', defs: [{ name: 'p1', role: 'peer' }] },
  ];
  const rows = [];
  for (const board of boards) {
    const { path, tokens } = agentsFile(dir, `agents-${board.mode}.json`, board.mode, board.defs);
    const daemon = await h.startDaemon(join(dir, `tool-list-${board.mode}.db`), path);
    try {
      for (const d of board.defs) {
        const { client, close } = await httpClient({ url: `http://127.0.0.1:${daemon.port}/mcp`, token: tokens[d.name] });
        try {
          const { tools } = await client.listTools();
          const label = d.toolsets ? `${d.role}, toolsets ${d.toolsets.join(',')}` : d.role;
          rows.push({ label, tools });
        } finally {
          await close();
        }
      }
    } finally {
      await h.stopServer(daemon);
    }
  }
  const beforeTasks = before.filter((t) => TASK_TOOLS.includes(t.name));
  h.report.table('tool_list', `tools/list on /mcp: tokens (JSON characters / 4) and tools, before (${rev}, every role saw every tool) and now`, ['who', 'tools before', 'tokens before', 'tools now', 'tokens now']);
  for (const row of rows) h.report.row('tool_list', [row.label, String(before.length), h.fmt.rps(tokensOf(before)), String(row.tools.length), h.fmt.rps(tokensOf(row.tools))]);
  const peer = rows.find((r) => r.label === 'peer');
  const nowTasks = peer.tools.filter((t) => TASK_TOOLS.includes(t.name));
  h.report.row('tool_list', ['the 11 task tools', String(beforeTasks.length), h.fmt.rps(tokensOf(beforeTasks)), String(nowTasks.length), h.fmt.rps(tokensOf(nowTasks))]);
  const most = Math.max(...rows.map((r) => tokensOf(r.tools)));
  h.report.target('tools/list < 4,000 tokens for the role that sees the most', `${h.fmt.rps(most)} tokens`, most < 4000);
  h.report.target('the 11 task tools < 2,500 tokens', `${h.fmt.rps(tokensOf(nowTasks))} tokens`, tokensOf(nowTasks) < 2500);
}
