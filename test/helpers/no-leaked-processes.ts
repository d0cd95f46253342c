// Fails a test file that leaves a spawned process running.
import { afterAll, expect } from 'vitest';
import { liveProcesses } from './processes.js';

afterAll(() => {
  const leaked = liveProcesses();
  for (const child of leaked) child.kill('SIGKILL');
  expect(leaked.map((c) => c.spawnargs.join(' ')), 'processes left running by this test file').toEqual([]);
});
