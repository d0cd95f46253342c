// The live page's place in the event log (issue 24): board changes reach the streams from the log, each with its
// position as the SSE id, so a browser that reconnects with Last-Event-ID is sent what it missed. One reader for all
// streams: a burst of changes is one read, however many pages are open.
import type { LoggedEvent } from '../events.js';
import { decodeChangeCursor, encodeChangeCursor } from '../board/change-cursor.js';
import { comparePositions, type LogEntry, type LogPosition } from '../store/event-log.js';
import type { BoardStore } from '../store/store.js';
import { log } from '../runtime/log.js';

/** Rows per read; a reconnecting page further behind than this many pages reads the board again instead. */
const PAGE_ROWS = 500;
const CATCH_UP_PAGES = 20;
/** PostgreSQL: a committed row behind an older transaction still running is looked for again this soon (at most 50 times). */
const HELD_RETRY_MS = 20;
const HELD_RETRIES = 50;

export type EventLogReader = Pick<BoardStore, 'readEvents' | 'eventLogHead' | 'eventLogSecret'>;

/** What a resuming stream is sent before it joins: the entries it missed; 'resync' when the log no longer reaches its id. */
export type Missed = ReadonlyArray<{ readonly entry: LogEntry; readonly id: string }> | 'resync';

export class StreamLog {
  private position: Promise<LogPosition> | undefined;
  /** Where the streams are, once known: every entry up to it was delivered. */
  private current: LogPosition | undefined;
  private secret: Promise<Buffer> | undefined;
  private tailing: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly reader: EventLogReader,
    /** Called with each new entry, in log order, once. */
    private readonly deliver: (entry: LogEntry, id: string) => void,
  ) {}

  /** Where the streams are now, as an SSE id. */
  async currentId(): Promise<string> {
    return encodeChangeCursor(await this.key(), await this.start());
  }

  /** A change was published: read the log on from where the streams are (one read at a time; another follows if asked meanwhile). */
  changed(): void {
    if (this.tailing) {
      this.again = true;
      return;
    }
    this.tailing = this.tail().finally(() => {
      this.tailing = undefined;
      if (this.again) {
        this.again = false;
        this.changed();
      }
    });
  }

  /**
   * A stream resuming from `lastEventId`: `join` is called with what it missed, in the same turn as the check that
   * it reaches where the streams are, so the stream joins with no entry lost or sent twice; with undefined for an id
   * this board did not make (the page reads the board as on a first load).
   */
  async resume(lastEventId: string, join: (missed: Missed | undefined) => void): Promise<void> {
    let from: LogPosition;
    let secret: Buffer;
    try {
      secret = await this.key();
      from = decodeChangeCursor(secret, lastEventId);
      await this.start();
    } catch {
      join(undefined);
      return;
    }
    const missed: Array<{ entry: LogEntry; id: string }> = [];
    let headChecked = false;
    for (let pages = 0; pages < CATCH_UP_PAGES; pages++) {
      if (comparePositions(from, this.current!) >= 0) {
        if (!headChecked && comparePositions(from, this.current!) > 0) {
          // Past where the streams are: another daemon's newer id, or past the log's newest row, an id from a newer
          // copy of the board (restored from an older one): what the page shows may never have happened here, so it
          // reads the board again. After the look, the check runs again, so the join stays in the turn of its check.
          headChecked = true;
          if (comparePositions(from, await this.reader.eventLogHead()) > 0) return join('resync');
          continue;
        }
        return join(missed);
      }
      const page = await this.reader.readEvents(from, PAGE_ROWS);
      if (page.expired) return join('resync');
      // Delivered to the other streams meanwhile: up to here the tail has sent; past it, it will send to this one too.
      const upTo = this.current!;
      for (const entry of page.entries) if (comparePositions(entry.position, upTo) <= 0) missed.push({ entry, id: encodeChangeCursor(secret, entry.position) });
      if (comparePositions(page.end, upTo) >= 0 || !page.more) return join(missed);
      from = page.end;
    }
    join('resync');
  }

  private start(): Promise<LogPosition> {
    this.position ??= this.reader.eventLogHead().then(
      (head) => (this.current ??= head),
      (error: unknown) => {
        this.position = undefined;
        throw error;
      },
    );
    return this.position;
  }

  private key(): Promise<Buffer> {
    this.secret ??= this.reader.eventLogSecret().catch((error: unknown) => {
      this.secret = undefined;
      throw error;
    });
    return this.secret;
  }

  private async tail(): Promise<void> {
    try {
      let at = await this.start();
      for (let held = 0; ; ) {
        const page = await this.reader.readEvents(at, PAGE_ROWS);
        const secret = await this.key();
        for (const entry of page.entries) this.deliver(entry, encodeChangeCursor(secret, entry.position));
        at = page.end;
        this.current = at;
        this.position = Promise.resolve(at);
        if (page.more) continue;
        if (!page.held || ++held > HELD_RETRIES) return;
        await new Promise((resolve) => setTimeout(resolve, HELD_RETRY_MS));
      }
    } catch (error) {
      // The next change reads again from the same place: nothing is skipped.
      log.warn('reading the event log for the live pages failed; the next change reads it again', { error: String(error) });
    }
  }
}

/** The events the streams take from the log rather than from the bus. */
export function isLogged(event: { readonly type: string }): event is LoggedEvent {
  return event.type === 'task' || event.type === 'task_message' || event.type === 'room';
}
