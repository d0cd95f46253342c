// The token -> agent memory (issue 27): a token the daemon has matched is remembered by the agents directory in force,
// and a rotated or removed token is refused on every daemon from the reload on, however warm it was. On SQLite one
// daemon and its agents.json; on PostgreSQL two daemons on one board (the agents table, reloaded through NOTIFY).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { api, daemonEnv, runCli, startBoard, startDaemons, type AgentSpec, type TestBoard } from '../helpers/board.js';
import { eventually } from '../helpers/eventually.js';
import { describeEachStore } from '../helpers/stores.js';

const AGENTS: AgentSpec[] = [
  { name: 'lead', role: 'leader' },
  { name: 'w1', role: 'worker' },
  { name: 'w2', role: 'worker' },
];

async function statusWith(board: TestBoard, bearer: string): Promise<number> {
  return (await api(board, bearer, 'whoami')).status;
}

describeEachStore((store) => {
  let boards: TestBoard[];
  let env: Record<string, string>;
  const issued: string[] = [];

  beforeAll(async () => {
    boards = store.name === 'postgres' ? await startDaemons(2, { agents: AGENTS, label: 'tokencache' }) : [await startBoard({ agents: AGENTS })];
    env = daemonEnv(boards[0]!.dir, boards[0]!.databaseUrl ? { ROUNDTABLE_DATABASE_URL: boards[0]!.databaseUrl } : {});
  });
  afterAll(async () => {
    await Promise.all(boards.map((b) => b.stop()));
    for (const board of boards) for (const secret of issued) expect(board.output().stderr + board.output().stdout).not.toContain(secret);
  });

  /** Many calls with each token on each daemon, so every one of them is remembered before the change. */
  async function warm(names: string[]): Promise<void> {
    for (const board of boards) {
      for (const name of names) for (let i = 0; i < 20; i++) expect(await statusWith(board, boards[0]!.tokens[name]!)).toBe(200);
    }
  }

  it('rotate: the remembered old token is refused on every daemon, the new one works', async () => {
    await warm(['w1', 'w2', 'lead']);
    const rotated = await runCli(['agents', 'rotate', 'w1', '--json'], env);
    expect(rotated.code, rotated.stderr).toBe(0);
    const { token: fresh } = JSON.parse(rotated.stdout) as { token: string };
    issued.push(fresh);
    for (const [i, board] of boards.entries()) {
      await eventually(`the old w1 token to be refused on daemon ${i}`, async () => (await statusWith(board, boards[0]!.tokens['w1']!)) === 401, { intervalMs: 20 });
      // Once refused, refused for good: the memory of the old directory is gone with it.
      for (let n = 0; n < 10; n++) expect(await statusWith(board, boards[0]!.tokens['w1']!)).toBe(401);
      await eventually(`the new w1 token to work on daemon ${i}`, async () => (await statusWith(board, fresh)) === 200, { intervalMs: 20 });
      // The others' remembered tokens still work after the reload.
      expect(await statusWith(board, boards[0]!.tokens['w2']!)).toBe(200);
    }
  });

  it('remove: the remembered token is refused on every daemon', async () => {
    await warm(['w2']);
    const removed = await runCli(['agents', 'remove', 'w2'], env);
    expect(removed.code, removed.stderr).toBe(0);
    for (const [i, board] of boards.entries()) {
      await eventually(`w2's token to be refused on daemon ${i}`, async () => (await statusWith(board, boards[0]!.tokens['w2']!)) === 401, { intervalMs: 20 });
      for (let n = 0; n < 10; n++) expect(await statusWith(board, boards[0]!.tokens['w2']!)).toBe(401);
      expect(await statusWith(board, boards[0]!.tokens['lead']!)).toBe(200);
    }
  });
});
