// Request log lines at a crash (issue 27): the daemon writes its log lines once per event-loop turn and answers a
// request only after its lines are written, so a SIGKILL in the middle of a load loses no line of an answered request:
// every X-Request-Id a client got back has its "request" line and its "tool call" line in what the daemon wrote.
import { afterEach, expect, it } from 'vitest';
import { startBoard, type TestBoard } from '../helpers/board.js';
import { eventually } from '../helpers/eventually.js';
import { describeEachStore } from '../helpers/stores.js';

describeEachStore((store) => {
  let board: TestBoard | undefined;
  afterEach(async () => {
    await board?.stop();
    board = undefined;
  });

  it('after SIGKILL under load, every answered request has its log lines', async () => {
    board = await startBoard({ store });
    const b = board;
    const answered: string[] = [];
    let killed = false;
    const call = async (i: number) => {
      const tool = i % 3 === 0 ? 'create_task' : 'whoami';
      const response = await fetch(`${b.url}/api/v1/tools/${tool}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${b.tokens['lead']}`, 'content-type': 'application/json' },
        body: JSON.stringify(tool === 'create_task' ? { title: `logged ${i}` } : {}),
      });
      await response.arrayBuffer();
      if (response.status === 200) answered.push(response.headers.get('x-request-id')!);
    };
    // 16 clients in a closed loop until the kill; the kill comes once 300 calls are answered, with more in flight.
    let seq = 0;
    const clients = Array.from({ length: 16 }, async () => {
      while (!killed) await call(seq++).catch(() => undefined);
    });
    await eventually('300 answered calls', () => answered.length >= 300, { timeoutMs: 60_000 });
    killed = true;
    b.process.kill('SIGKILL');
    await Promise.all(clients);
    await eventually('the daemon to exit and its stderr to close', () => b.process.exitCode !== null || b.process.signalCode !== null);
    await new Promise<void>((resolve) => (b.process.stderr!.readableEnded ? resolve() : b.process.stderr!.once('close', () => resolve())));
    const lines = b
      .output()
      .stderr.split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg: string; request_id?: string });
    const requestLines = new Set(lines.filter((l) => l.msg === 'request').map((l) => l.request_id));
    const toolLines = new Set(lines.filter((l) => l.msg === 'tool call').map((l) => l.request_id));
    const missing = answered.filter((id) => !requestLines.has(id));
    const missingTool = answered.filter((id) => !toolLines.has(id));
    expect(answered.length).toBeGreaterThanOrEqual(300);
    expect(missing, `${missing.length} of ${answered.length} answered requests have no request line`).toEqual([]);
    expect(missingTool, `${missingTool.length} of ${answered.length} answered requests have no tool call line`).toEqual([]);
  });
});
