/**
 * Cancelling a run: a queued run is dropped at once; a running one is aborted where it
 * executes (this process, or another one told through the bus) and stops at its next step.
 */
import type { ServerContext, StopReason } from "../context.js";
import { ServerStoppingError } from "../errors.js";
import type { RunRecord } from "../store/records.js";
import { undoRunSteps } from "../threads/copy.js";
import { syncWith } from "../threads/sync.js";
import { isActive, move } from "./lifecycle.js";

export type CancelAction = "interrupt" | "rollback";

/** Aborts the run if it executes in this process; true when it did. */
export function abortLocal(ctx: ServerContext, runId: string, action: StopReason): boolean {
  const entry = ctx.executing.get(runId);
  if (!entry) return false;
  if (entry.controller.signal.aborted) return true;
  entry.action = action;
  entry.controller.abort(
    new Error(action === "timeout" ? `Run ${runId} timed out.` : `Run ${runId} was cancelled (${action}).`),
  );
  return true;
}

export async function cancelRun(ctx: ServerContext, run: RunRecord, action: CancelAction): Promise<void> {
  if (run.status === "pending") {
    // Queued again after it started (handed back at a shutdown, requeued after a failure): the
    // steps it saved are undone first, while it is queued still (a process dying here leaves it
    // queued, as if not cancelled).
    if (action === "rollback") await undoRunSteps(ctx.saver, run);
    // Dropped with its answers refused and its thread brought in line, in one transaction.
    const dropped = await syncWith(ctx, run.thread_id, async (tx) => {
      const out =
        action === "rollback"
          ? await tx.deleteRun(run.run_id, "pending")
          : await move(tx, run.run_id, "pending", "interrupted");
      if (out) await tx.settleAnswers(run.run_id, false);
      return out;
    });
    if (dropped !== false) {
      // Refused: whoever waits on these answers (another answer to the same question) may go on.
      await ctx.bus.publish({ type: "answers.settled", run_id: run.run_id });
      ctx.broker.get(run.run_id)?.accept(new Error("cancelled"));
      ctx.broker.close(run.run_id);
      // Queued for another server, whose clients wait on its log there: told, it closes it.
      if (run.owner !== null && run.owner !== ctx.processId)
        await ctx.bus.publish({ type: "run.cancel", run_id: run.run_id, action });
      return;
    }
    // It started meanwhile: abort it as a running run.
  }
  // Recorded first: if the process executing it dies before it stops, it is not executed again.
  await ctx.store.tx((tx) => tx.requestStop(run.run_id, action), run.thread_id);
  if (!abortLocal(ctx, run.run_id, action)) await ctx.bus.publish({ type: "run.cancel", run_id: run.run_id, action });
}

/** Resolves after `ms`, or earlier when the bus says the run is done (its process publishes `run.done`). */
function doneOrAfter(ctx: ServerContext, runId: string, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => (clearTimeout(timer), unsubscribe(), resolve());
    const timer = setTimeout(done, ms);
    const unsubscribe = ctx.bus.subscribe((event) => {
      if (event.type === "run.done" && event.run_id === runId) done();
    });
  });
}

/**
 * Resolves when the run has left pending/running: through its log when it executes here,
 * else woken by the bus's `run.done`; the store is read again after a growing pause (up to 1 s)
 * only in case that event was missed.
 */
export async function waitForRun(
  ctx: ServerContext,
  runId: string,
  signal?: AbortSignal,
): Promise<RunRecord | undefined> {
  let unwatch: (() => void) | undefined;
  try {
    for (let delay = 50; ; delay = Math.min(delay * 2, 1_000)) {
      const log = ctx.broker.get(runId);
      if (log && !log.done) await new Promise<void>((resolve) => log.follow((e) => e === null && resolve()));
      // Drained here by the shutdown: continued elsewhere, by the queue or by the client.
      if (log?.drained) throw new ServerStoppingError(runId, log.drained === "queue");
      // Executed here: its final record is known without reading it back.
      if (log?.outcome) return log.outcome.run;
      // Watched before it is read, so that its run.done, from whichever process, is heard.
      unwatch ??= await ctx.bus.watch();
      const run = await ctx.store.getRun(runId);
      if (!run || !isActive(run.status) || signal?.aborted) return run;
      await doneOrAfter(ctx, runId, delay);
    }
  } finally {
    unwatch?.();
  }
}
