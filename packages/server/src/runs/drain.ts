/**
 * Shutting down without losing work: each run executing here is asked to drain (LangGraph's
 * `RunControl`), so it stops at its next step boundary with that step saved, its nodes
 * undisturbed (a model call in flight completes). A queued run stopped this way is given back
 * to the queue and continues from its checkpoint in the next process to take it; a stream or
 * wait run, whose client goes with this process, ends `interrupted` and `invoke(null)` (a run
 * without input) continues it. A run still going after the drain window is aborted as before.
 */
import type { Execution, ServerContext } from "../context.js";
import type { RunRecord } from "../store/records.js";
import { abortLocal } from "./cancel.js";
import { move } from "./lifecycle.js";

/** Drains one run executing here; aborts it if it has not stopped within `ctx.drainGraceMs`. */
export async function drainLocal(ctx: ServerContext, runId: string, entry: Execution): Promise<void> {
  entry.control.requestDrain("shutdown");
  let timer: NodeJS.Timeout | undefined;
  const lapsed = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(true), ctx.drainGraceMs);
  });
  const late = await Promise.race([entry.finished.then(() => false), lapsed]);
  clearTimeout(timer);
  if (late) {
    abortLocal(ctx, runId, "interrupt");
    await entry.finished;
  }
}

/**
 * A queued run drained at shutdown: back in the queue, to continue from its checkpoint (it
 * started before, so it is not sent its input again: runs/executor.ts, `claimFields`). One
 * process per SQLite file: it stays `running`, and the next process to open the file puts it
 * back when it starts (runs/lease.ts).
 */
export async function handBack(ctx: ServerContext, run: RunRecord): Promise<void> {
  if (!ctx.dispatcher.local) await backToQueue(ctx, run);
}

/** A queued run this process claimed, pending again and dispatched (unless claimed again since). */
export async function backToQueue(ctx: ServerContext, run: RunRecord): Promise<void> {
  if (await move(ctx.store, run.run_id, "running", "pending", { claimed: run.attempt }))
    await ctx.dispatcher.dispatch({ ...run, status: "pending" });
}
