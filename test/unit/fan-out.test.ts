// The event-stream fan-out: publishing writes nothing on the spot; batches reach every stream in order, coalesced;
// a stream that does not read is dropped, a stream whose session ended is ended, and nothing else is held up.
import { expect, it, vi } from 'vitest';
import { StreamFanOut, type StreamSink } from '../../daemon/src/web/fan-out.js';

interface FakeSink extends StreamSink {
  readonly writes: string[];
  buffered: number;
  ended: boolean;
  dropped: boolean;
}

function sink(viewer: string, sessionId = `session-${viewer}`): FakeSink {
  const s: FakeSink = {
    sessionId,
    viewer,
    writes: [],
    buffered: 0,
    ended: false,
    dropped: false,
    bufferedBytes: () => s.buffered,
    write: (text) => void s.writes.push(text),
    end: () => void (s.ended = true),
    drop: () => void (s.dropped = true),
  };
  return s;
}

it('a push writes nothing synchronously; the write comes later, off the publishing call', async () => {
  const fanOut = new StreamFanOut({ isLive: () => true, coalesceMs: 0 });
  const sinks = [sink('a'), sink('b')];
  for (const s of sinks) fanOut.add(s);
  fanOut.push({ text: 'event: task\ndata: {"task_id":1}\n\n' });
  // The publisher's call returns with no stream written.
  for (const s of sinks) expect(s.writes).toEqual([]);
  await vi.waitFor(() => {
    for (const s of sinks) expect(s.writes).toEqual(['event: task\ndata: {"task_id":1}\n\n']);
  });
});

it('pushes made together go out as one write per stream, in order; visibleTo filters per viewer', async () => {
  const fanOut = new StreamFanOut({ isLive: () => true, coalesceMs: 0 });
  const a = sink('a');
  const b = sink('b');
  fanOut.add(a);
  fanOut.add(b);
  fanOut.push({ text: '1;' });
  fanOut.push({ text: 'only-b;', visibleTo: (viewer) => viewer === 'b' });
  fanOut.push({ text: '3;' });
  await vi.waitFor(() => expect(b.writes).toHaveLength(1));
  expect(a.writes).toEqual(['1;3;']);
  expect(b.writes).toEqual(['1;only-b;3;']);
});

it('many streams in slices and many batches: every stream hears every piece exactly once, in order', async () => {
  const fanOut = new StreamFanOut({ isLive: () => true, coalesceMs: 1, sliceSize: 7 });
  const sinks = Array.from({ length: 50 }, (_, i) => sink(`v${i}`));
  for (const s of sinks) fanOut.add(s);
  const expected: string[] = [];
  for (let i = 0; i < 40; i++) {
    expected.push(`${i};`);
    fanOut.push({ text: `${i};` });
    // Some pushes land while a batch is still being written in slices.
    if (i % 5 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  await vi.waitFor(() => {
    for (const s of sinks) expect(s.writes.join('')).toBe(expected.join(''));
  });
  expect(sinks[0]!.writes.length).toBeGreaterThan(1);
});

it('a stream that stopped reading is dropped, not buffered further; the others keep hearing', async () => {
  const fanOut = new StreamFanOut({ isLive: () => true, coalesceMs: 0, maxBufferedBytes: 1000 });
  const stalled = sink('stalled');
  const reading = sink('reading');
  fanOut.add(stalled);
  fanOut.add(reading);
  stalled.buffered = 1001;
  fanOut.push({ text: 'x;' });
  await vi.waitFor(() => expect(reading.writes).toEqual(['x;']));
  expect(stalled.dropped).toBe(true);
  expect(stalled.writes).toEqual([]);
  expect(fanOut.size).toBe(1);
  fanOut.push({ text: 'y;' });
  await vi.waitFor(() => expect(reading.writes).toEqual(['x;', 'y;']));
  expect(stalled.writes).toEqual([]);
});

it('a stream whose session ended is ended at the next batch; one removed meanwhile gets nothing', async () => {
  const ended = new Set(['session-gone']);
  const isLive = vi.fn((sessionId: string) => !ended.has(sessionId));
  const fanOut = new StreamFanOut({ isLive, coalesceMs: 0 });
  const gone = sink('gone');
  const twin = sink('twin', 'session-gone');
  const kept = sink('kept');
  const removed = sink('removed');
  for (const s of [gone, twin, kept, removed]) fanOut.add(s);
  fanOut.push({ text: 'x;' });
  fanOut.remove(removed);
  await vi.waitFor(() => expect(kept.writes).toEqual(['x;']));
  expect(gone.ended && twin.ended).toBe(true);
  expect(gone.writes.concat(twin.writes, removed.writes)).toEqual([]);
  // Asked once per session per batch, not once per stream.
  expect(isLive.mock.calls.filter(([id]) => id === 'session-gone')).toHaveLength(1);
  expect(fanOut.size).toBe(1);
});

it('close ends every stream and cancels what was queued', async () => {
  const fanOut = new StreamFanOut({ isLive: () => true, coalesceMs: 0 });
  const a = sink('a');
  fanOut.add(a);
  fanOut.push({ text: 'never;' });
  fanOut.close();
  expect(a.ended).toBe(true);
  // The batch would have run at the next turn of the event loop; two turns later it still has not.
  for (let i = 0; i < 2; i++) await new Promise((resolve) => setImmediate(resolve));
  expect(a.writes).toEqual([]);
  expect(fanOut.size).toBe(0);
});
