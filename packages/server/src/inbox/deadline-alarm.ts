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

export class DeadlineAlarm {
  private timer: NodeJS.Timeout | undefined;
  /** When the timer rings (ms since the epoch; Infinity: not set). */
  private armedAt = Number.POSITIVE_INFINITY;
  private closed = false;

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
    } catch (error) {
      console.error("[interlude] reading due deadlines failed:", error);
    }
  }

  private async armNext(after: string): Promise<void> {
    const next = await this.ctx.store.nextDeadline(after);
    if (next) this.schedule(Date.parse(next));
  }
}

async function fireDue(ctx: ServerContext, now: string): Promise<void> {
  const due = await ctx.store.dueDeadlines(now);
  // Each on its own: one that fails is logged (and tried again when the timer next rings, or at the
  // next start), the others still fire.
  await Promise.all(
    due.map((d) =>
      fireDeadline(ctx, d.thread_id, d.interrupt_id).catch((error) =>
        console.error("[interlude] deadline failed:", error),
      ),
    ),
  );
}
