// How long the daemon's event loop is held while something runs: another agent calls a cheap tool (whoami) over and
// over meanwhile, and the longest answer is the bound on any stall (a blocked loop answers nobody).
import { api, type TestBoard } from './board.js';

export interface StallProbe {
  /** Stops probing; resolves with the longest whoami seen (ms) and how many were answered. */
  stop(): Promise<{ longestMs: number; calls: number }>;
}

export function probeStalls(board: TestBoard, agent: string): StallProbe {
  let running = true;
  let longestMs = 0;
  let calls = 0;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      const answer = await api(board, agent, 'whoami');
      if (answer.status !== 200) throw new Error(`whoami answered ${answer.status} while probing`);
      longestMs = Math.max(longestMs, performance.now() - started);
      calls++;
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { longestMs, calls };
    },
  };
}
