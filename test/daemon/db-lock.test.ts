// The SQLite lock file names its daemon by pid and start time: after a SIGKILL, a pid reused by another process does
// not block the restart, while a live daemon (or a lock of the older pid-only form naming a live process) still does.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { processStartTime } from '../../daemon/src/runtime/db-lock.js';
import { api, startBoard, type TestBoard } from '../helpers/board.js';

const boards: TestBoard[] = [];
let bystander: ChildProcess | undefined;
afterEach(async () => {
  for (const board of boards.splice(0)) await board.stop();
  bystander?.kill('SIGKILL');
  bystander = undefined;
});

/** A live process that is not a roundtable daemon: what a reused pid points at. */
function liveBystander(): number {
  bystander = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  return bystander.pid!;
}

it('a lock left by a SIGKILLed daemon whose pid now belongs to another process does not block the restart', async () => {
  const first = await startBoard();
  const lock = `${first.dbPath}.lock`;
  const [pidLine, startLine] = readFileSync(lock, 'utf8').split('\n');
  expect(Number(pidLine)).toBe(first.process.pid);
  // The daemon's own start time, as this system tells it.
  expect(startLine).toBe(processStartTime(first.process.pid!));
  await first.stop('SIGKILL');

  // The pid is reused: the lock now names a live process that started at another time than the daemon did.
  const reused = liveBystander();
  writeFileSync(lock, `${reused}\n${startLine}\n`);
  const second = await startBoard({ dir: first.dir, tokens: first.tokens });
  boards.push(second);
  expect((await api(second, 'lead', 'whoami')).status).toBe(200);
  expect(Number(readFileSync(lock, 'utf8').split('\n')[0])).toBe(second.process.pid);
});

it('a lock naming a live process with its own start time is refused, as is an older pid-only lock of a live process', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'roundtable-lock-'));
  const pid = liveBystander();
  for (const text of [`${pid}\n${processStartTime(pid)}\n`, `${pid}\n`]) {
    writeFileSync(join(dir, 'board.db.lock'), text);
    await expect(startBoard({ dir })).rejects.toThrow(new RegExp(`in use by another roundtable daemon \\(pid ${pid}\\)`));
  }
});
