/**
 * SQLite (one process): runs execute here as soon as they are first in line, and deadlines
 * ring one timer, set from the pending table (inbox/deadline-alarm.ts).
 */
import type { Dispatcher, ServerContext } from "../context.js";
import { DeadlineAlarm } from "../inbox/deadline-alarm.js";
import type { RunRecord } from "../store/records.js";
import { executeRun } from "./executor.js";

export class LocalDispatcher implements Dispatcher {
  readonly local = true;
  private readonly deadlines: DeadlineAlarm;
  constructor(private readonly ctx: ServerContext) {
    this.deadlines = new DeadlineAlarm(ctx);
  }

  async dispatch(run: RunRecord): Promise<void> {
    setImmediate(
      () =>
        void executeRun(this.ctx, run).catch((error) =>
          console.error(`[interlude] run ${run.run_id} failed to execute:`, error),
        ),
    );
  }

  async scheduleDeadline(_threadId: string, _interruptId: string, at: Date): Promise<void> {
    this.deadlines.schedule(at.getTime());
  }

  start(): Promise<void> {
    return this.deadlines.start();
  }

  stopTaking(): void {
    this.deadlines.close();
  }

  async close(): Promise<void> {
    this.deadlines.close();
  }
}
