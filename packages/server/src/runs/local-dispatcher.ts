/**
 * SQLite (one process): runs execute here as soon as they are first in line, and deadlines
 * are timers, re-armed from the pending table at startup.
 */
import type { Dispatcher, ServerContext } from "../context.js";
import { fireDeadline } from "../inbox/deadlines.js";
import type { RunRecord } from "../store/records.js";
import { executeRun } from "./executor.js";

/** setTimeout's longest delay; later deadlines re-arm when it fires. */
const MAX_DELAY = 2 ** 31 - 1;

export class LocalDispatcher implements Dispatcher {
  readonly local = true;
  private readonly timers = new Set<NodeJS.Timeout>();
  constructor(private readonly ctx: ServerContext) {}

  async dispatch(run: RunRecord): Promise<void> {
    setImmediate(
      () =>
        void executeRun(this.ctx, run).catch((error) =>
          console.error(`[interlude] run ${run.run_id} failed to execute:`, error),
        ),
    );
  }

  async scheduleDeadline(threadId: string, interruptId: string, at: Date): Promise<void> {
    const delay = Math.min(Math.max(at.getTime() - Date.now(), 0), MAX_DELAY);
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (at.getTime() - Date.now() > 50) void this.scheduleDeadline(threadId, interruptId, at);
      else
        void fireDeadline(this.ctx, threadId, interruptId).catch((error) =>
          console.error("[interlude] deadline failed:", error),
        );
    }, delay);
    timer.unref();
    this.timers.add(timer);
  }

  async start(): Promise<void> {
    const rows = await this.ctx.store.deadlines();
    for (const row of rows) await this.scheduleDeadline(row.thread_id, row.interrupt_id, new Date(row.deadline_at));
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}
