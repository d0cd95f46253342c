// Writing to the open event streams off the request path: a publish only queues; batches are written later, in slices.

/** One open event stream, as the fan-out sees it. */
export interface StreamSink {
  readonly sessionId: string;
  /** The member the stream belongs to: room events for others' direct messages skip it. */
  readonly viewer: string;
  /** Bytes written but not yet taken by the client. */
  bufferedBytes(): number;
  write(text: string): void;
  /** Ends the stream in order (its session ended, or the board shuts down). */
  end(): void;
  /** Cuts off a client that does not keep up; its browser reconnects and re-reads the board. */
  drop(): void;
}

/** A piece of the stream: every sink gets it, or only the viewers `visibleTo` admits. */
export interface Outgoing {
  readonly text: string;
  readonly visibleTo?: (viewer: string) => boolean;
}

export interface FanOutOptions {
  /** Whether a session still stands; a stream of an ended session is ended at its next batch. */
  readonly isLive: (sessionId: string) => boolean;
  /** Batches start at most this often, so a burst of events costs one write per stream (default 50 ms). */
  readonly coalesceMs?: number;
  /** Streams written per turn of the event loop, so requests are served between slices of a large batch. */
  readonly sliceSize?: number;
  /** A stream with more than this still buffered is dropped rather than buffered further. */
  readonly maxBufferedBytes?: number;
}

export const COALESCE_MS = 50;
const SLICE_SIZE = 32;
/** About 400 events' worth: a client this far behind is not reading; its browser reconnects and re-reads. */
export const MAX_BUFFERED_BYTES = 64 * 1024;

/**
 * The streams and the queue of what they have yet to hear. push() is O(1): nothing is written while a request is
 * being answered. A batch takes the whole queue, gives each stream one write of the pieces it may see, in order,
 * and only then does the next batch start, so every stream hears everything in the order it was pushed.
 */
export class StreamFanOut {
  private readonly sinks = new Set<StreamSink>();
  private queue: Outgoing[] = [];
  private state: 'idle' | 'scheduled' | 'writing' = 'idle';
  private pending: { timer: NodeJS.Timeout } | { immediate: NodeJS.Immediate } | undefined;
  private lastBatchAt = Number.NEGATIVE_INFINITY;
  private readonly coalesceMs: number;
  private readonly sliceSize: number;
  private readonly maxBufferedBytes: number;

  constructor(private readonly options: FanOutOptions) {
    this.coalesceMs = options.coalesceMs ?? COALESCE_MS;
    this.sliceSize = options.sliceSize ?? SLICE_SIZE;
    this.maxBufferedBytes = options.maxBufferedBytes ?? MAX_BUFFERED_BYTES;
  }

  get size(): number {
    return this.sinks.size;
  }

  add(sink: StreamSink): void {
    this.sinks.add(sink);
  }

  remove(sink: StreamSink): void {
    this.sinks.delete(sink);
  }

  /** Queues a piece for every open stream; writes nothing now. */
  push(item: Outgoing): void {
    if (this.sinks.size === 0) return;
    this.queue.push(item);
    if (this.state === 'idle') this.schedule();
  }

  /** Ends every stream and forgets what was queued (on shutdown). */
  close(): void {
    this.cancelPending();
    this.queue = [];
    this.state = 'idle';
    const sinks = [...this.sinks];
    this.sinks.clear();
    for (const sink of sinks) sink.end();
  }

  private schedule(): void {
    this.state = 'scheduled';
    const wait = this.lastBatchAt + this.coalesceMs - performance.now();
    if (wait > 0) {
      const timer = setTimeout(() => this.startBatch(), wait);
      timer.unref();
      this.pending = { timer };
    } else {
      this.pending = { immediate: setImmediate(() => this.startBatch()) };
    }
  }

  private cancelPending(): void {
    if (this.pending && 'timer' in this.pending) clearTimeout(this.pending.timer);
    else if (this.pending) clearImmediate(this.pending.immediate);
    this.pending = undefined;
  }

  private startBatch(): void {
    this.lastBatchAt = performance.now();
    const batch = this.queue;
    this.queue = [];
    this.state = 'writing';
    this.writeSlice(batch, [...this.sinks], 0, new Map());
  }

  private writeSlice(batch: readonly Outgoing[], sinks: readonly StreamSink[], from: number, live: Map<string, boolean>): void {
    const to = Math.min(from + this.sliceSize, sinks.length);
    for (let i = from; i < to; i++) this.writeTo(sinks[i]!, batch, live);
    if (to < sinks.length) {
      this.pending = { immediate: setImmediate(() => this.writeSlice(batch, sinks, to, live)) };
      return;
    }
    this.pending = undefined;
    this.state = 'idle';
    if (this.queue.length > 0) this.schedule();
  }

  private writeTo(sink: StreamSink, batch: readonly Outgoing[], live: Map<string, boolean>): void {
    // Closed since the batch began: nothing more for it.
    if (!this.sinks.has(sink)) return;
    let alive = live.get(sink.sessionId);
    if (alive === undefined) {
      alive = this.options.isLive(sink.sessionId);
      live.set(sink.sessionId, alive);
    }
    if (!alive) {
      this.sinks.delete(sink);
      sink.end();
      return;
    }
    if (sink.bufferedBytes() > this.maxBufferedBytes) {
      this.sinks.delete(sink);
      sink.drop();
      return;
    }
    let text = '';
    for (const item of batch) if (!item.visibleTo || item.visibleTo(sink.viewer)) text += item.text;
    if (text !== '') sink.write(text);
  }
}
