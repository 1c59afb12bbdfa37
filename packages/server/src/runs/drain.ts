/**
 * Shutting down without losing work: each run executing here is asked to drain (LangGraph's
 * `RunControl`), so it stops at its next step boundary with that step saved, its nodes
 * undisturbed (a model call in flight completes). A run stopped this way is given back to the
 * queue and continues from its checkpoint in the next process to take it: a stream or wait
 * run's client goes with this process, and a client going away does not stop its run, unless
 * it asked for that (`on_disconnect: "cancel"`): such a run ends `interrupted`, and
 * `invoke(null)` (a run without input) continues it. A run still going after the drain window
 * is aborted as before.
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
 * Whether a run goes on when its client goes away with the process executing it (drained at
 * shutdown, or the process died): unless that client asked to cancel it then.
 */
export function goesOnWithoutClient(run: RunRecord): boolean {
  return run.owner === null || run.kwargs.on_disconnect !== "cancel";
}

/**
 * A run drained at shutdown: back in the queue, for whichever process takes it (a stream or
 * wait run's too: its client went with this process), to continue from its checkpoint (it
 * started before, so it is not sent its input again: runs/executor.ts, `claimFields`). On
 * PostgreSQL another process takes it at once. One process per SQLite file: the next process
 * to open the file starts it (runs/lease.ts, `recoverLost`).
 */
export function handBack(ctx: ServerContext, run: RunRecord): Promise<void> {
  return backToQueue(ctx, run, !ctx.dispatcher.local);
}

/**
 * A run this process claimed, pending again for whichever process takes it, and dispatched
 * unless `dispatch` is false (or it was claimed again since).
 */
export async function backToQueue(ctx: ServerContext, run: RunRecord, dispatch = true): Promise<void> {
  const queued = await move(ctx.store, run.run_id, "running", "pending", { claimed: run.attempt, owner: null });
  if (queued && dispatch) await ctx.dispatcher.dispatch({ ...run, status: "pending", owner: null });
}
