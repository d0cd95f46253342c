// Keeps the agent's claims alive while its app runs: the bridge lives exactly as long as the app that launched it,
// so it beats at a third of the lease while the agent holds a claim, and stops when it holds none.
import type { HeartbeatAnswer } from 'roundtable-shared';
import { log } from './log.js';

/** After a failed heartbeat (daemon restarting), try again this soon, within the lease. */
const RETRY_MS = 5_000;

export interface HeartbeatOptions {
  /** Sends one heartbeat. */
  readonly beat: () => Promise<HeartbeatAnswer>;
}

export class Heartbeat {
  private timer: NodeJS.Timeout | undefined;
  private beating = false;
  /** Whether this session has asked the board what the agent holds. */
  private checked = false;
  private stopped = false;

  constructor(private readonly options: HeartbeatOptions) {}

  /**
   * Called after every successful tool call. The first call of a session checks at once what the agent holds
   * (claims from before a restart included); a claim starts the beat if it is not running.
   */
  afterCall(tool: string): void {
    if (this.stopped || this.beating) return;
    if (!this.checked || tool === 'claim_task') {
      this.checked = true;
      this.beating = true;
      void this.beat();
    }
  }

  private async beat(): Promise<void> {
    let nextMs: number | undefined;
    try {
      const answer = await this.options.beat();
      nextMs = answer.leases.length > 0 ? answer.heartbeat_interval_s * 1000 : undefined;
      log.debug('heartbeat', { leases: answer.leases.length, next_s: nextMs === undefined ? null : nextMs / 1000 });
    } catch (error) {
      log.debug('heartbeat failed; retrying', { error: String((error as Error)?.message ?? error) });
      nextMs = RETRY_MS;
    }
    clearTimeout(this.timer);
    if (this.stopped) return;
    if (nextMs === undefined) {
      // Holding nothing: stay quiet until the next claim.
      this.beating = false;
      return;
    }
    this.timer = setTimeout(() => void this.beat(), nextMs);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }
}
