// Tasks nobody can claim (issue 31 item 6): create_task and update_task warn, on both faces, naming the required skills
// no claimer has; the warning follows the agents in force; a worker's refused claim names the skills it lacks.
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, daemonEnv, mcpClient, runCli, startBoard, type AgentSpec, type TestBoard } from '../helpers/board.js';
import { eventually } from '../helpers/eventually.js';
import { connectTo } from '../helpers/postgres.js';
import { describeEachStore } from '../helpers/stores.js';

/** Writes a task's skills as a board from before the naming rule may hold them (a skill with an escape sequence). */
async function writeOldSkills(board: TestBoard, id: number, skills: string[]): Promise<void> {
  if (board.databaseUrl) {
    const sql = connectTo(board.databaseUrl);
    try {
      await sql`UPDATE tasks SET required_skills = ${JSON.stringify(skills)} WHERE id = ${id}`;
    } finally {
      await sql.end();
    }
    return;
  }
  const db = new Database(board.dbPath);
  try {
    db.prepare('UPDATE tasks SET required_skills = ? WHERE id = ?').run(JSON.stringify(skills), id);
  } finally {
    db.close();
  }
}

const AGENTS: AgentSpec[] = [
  { name: 'lead', role: 'leader' },
  { name: 'w1', role: 'worker', skills: ['python', 'sql'] },
  { name: 'w2', role: 'worker', skills: ['python'] },
  { name: 'w3', role: 'worker', skills: ['rust'] },
  { name: 'boss', role: 'owner', skills: ['cobol'] },
];

describeEachStore((store) => {
  let board: TestBoard;
  beforeAll(async () => {
    board = await startBoard({ store, agents: AGENTS });
  });
  afterAll(async () => {
    await board?.stop();
  });

  describe('create_task and update_task warn when no one can claim the task', () => {
    it('over the JSON API: names the skills no worker has; absent when a worker has them all', async () => {
      const made = await api(board, 'lead', 'create_task', { title: 'needs go', required_skills: ['python', 'go', 'cobol'] });
      expect(made.status).toBe(200);
      // cobol: only an owner has it, and owners never claim.
      expect(made.body['warnings']).toEqual([
        {
          code: 'no_one_can_claim',
          missing_skills: ['go', 'cobol'],
          message:
            'no one can claim this task: no worker has the skills go, cobol. Give a worker the skill (`roundtable agents set NAME --skills ...`), or change required_skills with update_task',
        },
      ]);
      const ok = await api(board, 'lead', 'create_task', { title: 'python and sql', required_skills: ['python', 'sql'] });
      expect(ok.status).toBe(200);
      expect(ok.body).not.toHaveProperty('warnings');
      expect(await api(board, 'lead', 'create_task', { title: 'no skills' })).not.toHaveProperty('body.warnings');

      const id = made.body['task'].id as number;
      const edited = await api(board, 'lead', 'update_task', { task_id: id, required_skills: ['sql', 'rust'] });
      expect(edited.status).toBe(200);
      // Each is held, never both by one worker.
      expect(edited.body['warnings']).toEqual([expect.objectContaining({ code: 'no_one_can_claim', missing_skills: [] })]);
      expect(edited.body['warnings'][0].message).toContain('no single worker has all of the skills sql, rust');
      const fixed = await api(board, 'lead', 'update_task', { task_id: id, required_skills: ['rust'] });
      expect(fixed.status).toBe(200);
      expect(fixed.body).not.toHaveProperty('warnings');
      // An edit of another field answers for the task as it stands.
      expect((await api(board, 'lead', 'update_task', { task_id: id, title: 'renamed' })).body).not.toHaveProperty('warnings');
    });

    it('a task reserved for a worker who lacks a skill: the warning names the assignee', async () => {
      const made = await api(board, 'lead', 'create_task', { title: 'for w2', assignee: 'w2', required_skills: ['python', 'sql'] });
      expect(made.body['warnings']).toEqual([
        expect.objectContaining({ missing_skills: ['sql'], message: expect.stringContaining('its assignee w2 lacks the skill sql') }),
      ]);
      const lifted = await api(board, 'lead', 'update_task', { task_id: made.body['task'].id, assignee: null });
      expect(lifted.body).not.toHaveProperty('warnings');
    });

    it('through the MCP SDK client: the same warning in structuredContent and in the text', async () => {
      const client = await mcpClient(board, 'lead');
      try {
        const made = await client.callTool({ name: 'create_task', arguments: { title: 'mcp go', required_skills: ['go'] } });
        expect(made.isError).toBeFalsy();
        const structured = made.structuredContent as Record<string, any>;
        expect(structured['warnings']).toEqual([expect.objectContaining({ code: 'no_one_can_claim', missing_skills: ['go'] })]);
        const text = (made.content as Array<{ type: string; text: string }>).map((c) => c.text).join('');
        expect(text).toContain('no_one_can_claim');
        const edited = await client.callTool({ name: 'update_task', arguments: { task_id: structured['task'].id, required_skills: ['python'] } });
        expect(edited.structuredContent).not.toHaveProperty('warnings');
        const again = await client.callTool({ name: 'update_task', arguments: { task_id: structured['task'].id, required_skills: ['python', 'haskell'] } });
        expect((again.structuredContent as Record<string, any>)['warnings'][0].missing_skills).toEqual(['haskell']);
      } finally {
        await client.close();
      }
    });

    it('follows the agents in force: once a worker has the skill, the warning is gone', async () => {
      const made = await api(board, 'lead', 'create_task', { title: 'needs elixir', required_skills: ['elixir'] });
      expect(made.body['warnings'][0].missing_skills).toEqual(['elixir']);
      const env = daemonEnv(board.dir, { ...(board.databaseUrl && { ROUNDTABLE_DATABASE_URL: board.databaseUrl }) });
      const set = await runCli(['agents', 'set', 'w3', '--skills', 'rust,elixir'], env);
      expect(set.code, set.stderr).toBe(0);
      await eventually('the reload is in force', async () => {
        const edited = await api(board, 'lead', 'update_task', { task_id: made.body['task'].id, priority: 'high' });
        return edited.status === 200 && !('warnings' in edited.body);
      });
      expect((await api(board, 'w3', 'claim_task', { task_id: made.body['task'].id })).status).toBe(200);
    });
  });

  it("a refused claim names the skills the worker lacks", async () => {
    const made = await api(board, 'lead', 'create_task', { title: 'python, sql and c++', required_skills: ['python', 'sql', 'c++'] });
    const id = made.body['task'].id as number;
    const refused = await api(board, 'w2', 'claim_task', { task_id: id });
    expect(refused.status).toBe(403);
    expect(refused.body.error!.code).toBe('forbidden');
    expect(refused.body.error!.message).toBe(
      `task ${id} needs the skills sql, c++, which you do not have; an owner or the leader may change its required_skills (update_task) or give you the skill. list_tasks with claimable_by_me shows what you can claim`,
    );
    const one = await api(board, 'w1', 'claim_task', { task_id: id });
    expect(one.body.error!.message).toContain(`task ${id} needs the skill c++, which you do not have`);

    // A skill stored before the naming rule is counted, never quoted, in the refusal and in the warning.
    const old = (await api(board, 'lead', 'create_task', { title: 'old skills' })).body['task'].id as number;
    await writeOldSkills(board, old, ['sql', 'x\u001b]0;PWNED\u0007y']);
    const refusedOld = await api(board, 'w2', 'claim_task', { task_id: old });
    expect(refusedOld.body.error!.message).toContain(`task ${old} needs the skill sql and 1 skill named before the naming rule (get_task shows it), which you do not have`);
    const edited = await api(board, 'lead', 'update_task', { task_id: old, priority: 'low' });
    expect(edited.body['warnings'][0].message).toContain('no worker has 1 skill named before the naming rule');
    expect(JSON.stringify([refusedOld.body.error, edited.body['warnings'][0].message])).not.toContain('PWNED');
  });
});

describe('in peer mode', () => {
  let board: TestBoard;
  beforeAll(async () => {
    board = await startBoard({ agents: [{ name: 'p1', role: 'peer', skills: ['python'] }, { name: 'p2', role: 'peer' }, { name: 'watch', role: 'observer', skills: ['go'] }] });
  });
  afterAll(async () => {
    await board?.stop();
  });

  it('counts peers, not observers', async () => {
    const made = await api(board, 'p2', 'create_task', { title: 'go', required_skills: ['go'] });
    expect(made.body['warnings']).toEqual([expect.objectContaining({ missing_skills: ['go'], message: expect.stringContaining('no peer has the skill go') })]);
    expect((await api(board, 'p2', 'create_task', { title: 'py', required_skills: ['python'] })).body).not.toHaveProperty('warnings');
  });
});
