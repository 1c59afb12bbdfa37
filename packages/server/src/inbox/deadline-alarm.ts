/**
 * Interrupt deadlines in one process (SQLite): a single timer, set for the earliest pending
 * deadline. When it rings, the deadlines now due are read from the pending table (its partial
 * index on deadline_at) and fired, and the timer is set for the next one. Nothing is kept per
 * interrupt: 100,000 threads paused with a deadline cost one timer, not 100,000, and starting
 * the server reads one row instead of all of them.
 */
import type { ServerContext } from "../context.js";
import { fireDeadline } from "./deadlines.js";

/** setTimeout's longest delay; a later deadline sets the timer again when it rings. */
const MAX_DELAY = 2 ** 31 - 1;
/** After a ring that failed (storage, a deadline that did not fire): rings again after 1 s, doubling up to a minute. */
const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 60_000;

export class DeadlineAlarm {
  private timer: NodeJS.Timeout | undefined;
  /** When the timer rings (ms since the epoch; Infinity: not set). */
  private armedAt = Number.POSITIVE_INFINITY;
  private closed = false;
  private retryMs = RETRY_FIRST_MS;

  /**
   * @param due what ringing does: by default fire the deadlines due at `now` (read from the
   *   pending table); on PostgreSQL, wake the process's taker of deadline jobs instead.
   */
  constructor(
    private readonly ctx: ServerContext,
    private readonly due: (now: string) => Promise<void> = (now) => fireDue(ctx, now),
  ) {}

  /** A deadline was recorded (or is pending at startup): ring no later than `at`. */
  schedule(at: number): void {
    if (this.closed || at >= this.armedAt) return;
    clearTimeout(this.timer);
    this.armedAt = at;
    this.timer = setTimeout(() => void this.ring(), Math.min(Math.max(at - Date.now(), 0), MAX_DELAY));
    this.timer.unref();
  }

  /** Sets the timer for the earliest deadline pending (at startup). */
  async start(): Promise<void> {
    await this.armNext(new Date(0).toISOString());
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
  }

  private async ring(): Promise<void> {
    this.armedAt = Number.POSITIVE_INFINITY;
    this.timer = undefined;
    const now = new Date(this.ctx.now()).toISOString();
    try {
      await this.due(now);
      await this.armNext(now);
      this.retryMs = RETRY_FIRST_MS;
    } catch (error) {
      // Deadlines already due are not "next": without a ring of its own, one that failed would
      // wait for a later deadline's ring, and a failed read would leave the timer unset.
      console.error("[interlude] deadlines due now did not all fire (trying again shortly):", error);
      this.schedule(Date.now() + this.retryMs);
      this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
      await this.armNext(now).catch(() => undefined);
    }
  }

  private async armNext(after: string): Promise<void> {
    const next = await this.ctx.store.nextDeadline(after);
    if (next) this.schedule(Date.parse(next));
  }
}

/** Fires every deadline due at `now`, each on its own; rejects once they are all done if any failed (the ring is tried again). */
async function fireDue(ctx: ServerContext, now: string): Promise<void> {
  const due = await ctx.store.dueDeadlines(now);
  const fired = await Promise.allSettled(due.map((d) => fireDeadline(ctx, d.thread_id, d.interrupt_id)));
  const failures = fired.flatMap((outcome) => (outcome.status === "rejected" ? [outcome.reason] : []));
  if (failures.length) throw new AggregateError(failures, `${failures.length} of ${due.length} deadlines failed`);
}
