// How long the daemon's event loop is held while something runs: another agent calls a cheap tool (whoami) over and
// over meanwhile, from a worker thread of its own (so that work in the test's thread never shows as the daemon's),
// and the longest answer bounds any stall: a blocked loop answers nobody.
import { Worker } from 'node:worker_threads';
import type { TestBoard } from './board.js';

export interface StallProbe {
  /** Stops probing; resolves with the longest whoami seen (ms) and how many were answered. */
  stop(): Promise<{ longestMs: number; calls: number }>;
}

const PROBE = `
const { parentPort, workerData } = require('node:worker_threads');
let running = true;
let longestMs = 0;
let calls = 0;
parentPort.on('message', () => { running = false; });
(async () => {
  while (running) {
    const started = performance.now();
    const response = await fetch(workerData.url, { method: 'POST', headers: { authorization: 'Bearer ' + workerData.token, 'content-type': 'application/json' }, body: '{}' });
    await response.text();
    if (response.status !== 200) throw new Error('whoami answered ' + response.status + ' while probing');
    longestMs = Math.max(longestMs, performance.now() - started);
    calls++;
  }
  parentPort.postMessage({ longestMs, calls });
})().catch((error) => parentPort.postMessage({ error: String(error) }));
`;

export function probeStalls(board: TestBoard, agent: string): StallProbe {
  const worker = new Worker(PROBE, { eval: true, workerData: { url: `${board.url}/api/v1/tools/whoami`, token: board.tokens[agent] } });
  const result = new Promise<{ longestMs: number; calls: number }>((resolve, reject) => {
    worker.once('message', (m: { longestMs: number; calls: number; error?: string }) => (m.error ? reject(new Error(m.error)) : resolve(m)));
    worker.once('error', reject);
  });
  return {
    async stop() {
      worker.postMessage('stop');
      try {
        return await result;
      } finally {
        await worker.terminate();
      }
    },
  };
}
