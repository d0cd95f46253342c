// A full disk under a SQLite board, on a real file system: a small tmpfs this test mounts (as root), filled to the
// last byte. Refused writes answer `unavailable` naming the disk; a read whose audit row cannot be written is refused
// rather than answered without it; a lease renewal riding on a call fails with the call, never silently; once space is
// freed everything works again. Where mounting is not permitted the test is skipped, saying why; CI sets
// ROUNDTABLE_REQUIRE_TMPFS=1, which turns that skip into a failure.
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startBoard, writeAgentsFile, token, type TestBoard } from '../helpers/board.js';
import { sleep } from '../helpers/eventually.js';

const REQUIRE_TMPFS = process.env['ROUNDTABLE_REQUIRE_TMPFS'] === '1';
const SIZE = '8m';

function mount(dir: string): string | undefined {
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${SIZE},mode=0700`, 'tmpfs', dir], { encoding: 'utf8' });
  return mounted.status === 0 ? undefined : (mounted.stderr || mounted.error?.message || `exit ${mounted.status}`).trim();
}

/** Why this machine cannot run the test (mount -t tmpfs needs root, or CAP_SYS_ADMIN), or undefined when it can. */
function probeMount(): string | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'roundtable-tmpfs-probe-'));
  try {
    const refused = mount(dir);
    if (refused) return `mount -t tmpfs is not permitted here (${refused}); run as root, or in CI, which sets ROUNDTABLE_REQUIRE_TMPFS=1`;
    spawnSync('umount', [dir]);
    return undefined;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const SKIP_REASON = probeMount();
if (SKIP_REASON && REQUIRE_TMPFS) throw new Error(`ROUNDTABLE_REQUIRE_TMPFS=1, but ${SKIP_REASON}`);

/** Writes `path` until the file system has no byte left. */
function fill(path: string): number {
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(64 * 1024, 1);
  let written = 0;
  try {
    for (;;) written += writeSync(fd, written % (1024 * 1024) === 0 ? chunk : chunk.subarray(0, 4096));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(fd);
  }
  return written;
}

const TTL_S = 10;

describe.skipIf(SKIP_REASON)(`a full disk under a SQLite board${SKIP_REASON ? ` (skipped: ${SKIP_REASON})` : ''}`, () => {
  let dir: string;
  let board: TestBoard;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'roundtable-full-'));
    const refused = mount(dir);
    if (refused) throw new Error(`mount failed: ${refused}`);
    const agents = [
      { name: 'lead', role: 'leader' as const },
      { name: 'w1', role: 'worker' as const },
    ];
    const tokens = Object.fromEntries(agents.map((a) => [a.name, token()]));
    writeAgentsFile(join(dir, 'agents.json'), agents, tokens);
    board = await startBoard({ dir, agents, tokens, env: { ROUNDTABLE_LEASE_TTL: `${TTL_S}s`, ROUNDTABLE_BACKUP_INTERVAL: '0' } });
  });
  afterAll(async () => {
    await board?.stop();
    if (dir) {
      spawnSync('umount', [dir]);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  const leaseOf = (taskId: number): string => {
    const db = new Database(board.dbPath, { readonly: true, fileMustExist: true });
    try {
      return (db.prepare('SELECT lease_expires_at FROM tasks WHERE id = ?').pluck().get(taskId) as string | null) ?? '';
    } finally {
      db.close();
    }
  };

  it('refuses writes and reads with `unavailable` naming the full disk, fails a call rather than drop its lease renewal, and recovers once space is freed', async () => {
    const task = await api(board, 'lead', 'create_task', { title: 'held through the full disk' });
    expect((await api(board, 'w1', 'claim_task', { task_id: task.body.task.id })).status).toBe(200);
    const answers: Array<{ tool: string; status: number }> = [];
    const filler = join(dir, 'filler');
    const bytes = fill(filler);
    console.log(`filled the ${SIZE} tmpfs with ${bytes} bytes`);

    // Writes are refused with our words for the cause; the first ones may still fit in what SQLite had allocated.
    let refused: Awaited<ReturnType<typeof api>> | undefined;
    for (let i = 0; i < 500 && !refused; i++) {
      const answer = await api(board, 'lead', 'create_task', { title: `write ${i}` });
      answers.push({ tool: 'create_task', status: answer.status });
      if (answer.status !== 200) refused = answer;
    }
    expect(refused?.status).toBe(503);
    expect(refused?.body.error).toMatchObject({ code: 'unavailable' });
    expect(refused?.body.error?.message).toMatch(/disk is full; nothing was changed\. Repeat the call: retry once the board owner has freed space/);

    // A read cannot write its audit row: it is refused too, not answered without one (docs/SPEC.md §7).
    const read = await api(board, 'lead', 'list_tasks');
    answers.push({ tool: 'list_tasks', status: read.status });
    expect(read.status).toBe(503);
    expect(read.body.error?.message).toMatch(/disk is full/);

    // The holder's calls carry a renewal each (one is due every tenth of the TTL): each fails with its renewal, so the
    // holder learns that nothing renewed its lease, which stays as it was.
    const leaseBefore = leaseOf(task.body.task.id);
    for (let i = 0; i < 2; i++) {
      await sleep((TTL_S * 1000) / 10 + 100);
      const whoami = await api(board, 'w1', 'whoami');
      answers.push({ tool: 'whoami', status: whoami.status });
      expect(whoami.status).toBe(503);
      expect(whoami.body.error?.message).toMatch(/disk is full/);
    }
    expect(leaseOf(task.body.task.id)).toBe(leaseBefore);

    // Space again: the next call renews the lease (the failed ones left it due), and writes go through.
    rmSync(filler);
    const renewedAt = Date.now();
    const again = await api(board, 'w1', 'whoami');
    answers.push({ tool: 'whoami', status: again.status });
    expect(again.status).toBe(200);
    expect(Date.parse(leaseOf(task.body.task.id))).toBeGreaterThanOrEqual(renewedAt + TTL_S * 900);
    const written = await api(board, 'lead', 'create_task', { title: 'after space was freed' });
    answers.push({ tool: 'create_task', status: written.status });
    expect(written.status).toBe(200);

    // Every call answered 200 has its `ok` row; each refused one has its row or the log line that stands for it.
    const db = new Database(board.dbPath, { readonly: true, fileMustExist: true });
    try {
      for (const tool of ['create_task', 'list_tasks', 'whoami']) {
        const ok = answers.filter((a) => a.tool === tool && a.status === 200).length;
        const rows = db.prepare("SELECT COUNT(*) FROM audit_log WHERE tool = ? AND outcome = 'ok' AND id > (SELECT MIN(id) FROM audit_log WHERE tool = 'claim_task')").pluck().get(tool) as number;
        expect(rows, `${tool}: ok rows for ${ok} answers of 200`).toBe(ok);
      }
      const failedRows = db.prepare("SELECT COUNT(*) FROM audit_log WHERE outcome = 'unavailable'").pluck().get() as number;
      const lines = board.output().stderr.split('\n').filter((line) => line.includes('audit row not written')).length;
      expect(failedRows + lines).toBe(answers.filter((a) => a.status === 503).length);
    } finally {
      db.close();
    }
    expect(board.output().stderr).not.toMatch(/"outcome":"internal"/);
  });
});
