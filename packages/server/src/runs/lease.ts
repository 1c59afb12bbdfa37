/**
 * Runs executing in this process renew their lease (the run's `updated_at`); a run whose
 * lease lapsed belongs to a process that died. It is put back in the queue (it continues from
 * its last checkpoint), a stream or wait run's too, unless its client asked to cancel it when it
 * goes away (`on_disconnect: "cancel"`: its client is gone with the process) or its process died
 * `LOST_TRIES` times: those are marked as errored. A stream or wait run still queued for a dead
 * server goes to the queue, and one whose start was lost is started (`startOrphans`).
 */
import { countRunEnd, type ServerContext } from "../context.js";
import type { RunRecord } from "../store/records.js";
import { nowOrUntilStored } from "../store/retry-until-stored.js";
import { undoRunSteps } from "../threads/copy.js";
import { syncWith } from "../threads/sync.js";
import { abortLocal } from "./cancel.js";
import { goesOnWithoutClient } from "./drain.js";
import { endStopped } from "./failure.js";
import { revokeClaim } from "./joined-saver.js";
import { move } from "./lifecycle.js";
import type { ErrorBody } from "./outcome.js";
import { dispatchNext } from "./thread-line.js";

const RUN_LOST: ErrorBody = {
  error: "RunLost",
  code: "RUN_LOST",
  message:
    "The process executing this run stopped before it finished. The thread keeps its last checkpoint; start a new run to continue.",
};

/**
 * How many processes may die executing one run: a run whose node takes its process down (out of
 * memory, a native crash) would otherwise go from process to process, and on SQLite take the
 * restarted server down at every start.
 */
const LOST_TRIES = 3;

const LOST_AGAIN: ErrorBody = {
  error: "RunLost",
  code: "RUN_LOST",
  message: `The process executing this run stopped before it finished, ${LOST_TRIES} times: it is not tried again. The thread keeps its last checkpoint; look for what takes its process down (memory, a native crash) before starting a new run to continue.`,
};

export function startLeases(ctx: ServerContext): () => void {
  const renew = setInterval(() => void renewLeases(ctx).catch(() => undefined), Math.max(ctx.runLeaseMs / 3, 50));
  const unheard = new Set<string>();
  const sweep = setInterval(
    () => void recoverLost(ctx, false, unheard).catch(() => undefined),
    Math.max(ctx.runLeaseMs / 2, 100),
  );
  renew.unref();
  sweep.unref();
  return () => {
    clearInterval(renew);
    clearInterval(sweep);
  };
}

/**
 * Renews the leases of the runs executing here. With several processes (PostgreSQL), it also
 * reads whether any of them was told to stop: a `run.cancel` published while this process's
 * LISTEN connection was reconnecting never reaches it, and the run would go on to its end.
 */
async function renewLeases(ctx: ServerContext): Promise<void> {
  const runIds = [...ctx.executing.keys()];
  await ctx.store.touchRuns(runIds);
  if (ctx.dispatcher.local) return;
  for (const { run_id, action } of await ctx.store.stopsRequested(runIds)) {
    if (ctx.executing.get(run_id)?.controller.signal.aborted !== false) continue; // stopping already, or ended
    console.warn(`[interlude] run ${run_id} was cancelled (${action}) unheard by this process: stopping it now`);
    abortLocal(ctx, run_id, action);
  }
}

/**
 * @param everyRun at startup on SQLite: every running run belonged to a process that is gone (one process per file)
 * @param unheard owners of queued runs found not listening at the previous sweep (`startOrphans`); none: not looked for
 */
export async function recoverLost(ctx: ServerContext, everyRun = false, unheard?: Set<string>): Promise<void> {
  const before = new Date(everyRun ? Date.now() + 1000 : Date.now() - ctx.runLeaseMs).toISOString();
  for (const run of await ctx.store.staleRuns(before)) {
    if (ctx.executing.has(run.run_id)) continue;
    if (run.kwargs.stop_requested === "interrupt") {
      // Cancelled before its process died: it ends as cancelled, never executed again.
      await endStopped(ctx, run, "running", null, "interrupted");
      continue;
    }
    if (run.kwargs.stop_requested === "rollback") {
      await rollBackLost(ctx, run);
      continue;
    }
    // A stream or wait run too: its client went with the process, and a client going away does
    // not stop its run (runs/drain.ts). Its waiters in a process that is alive after all follow it.
    const goesOn = goesOnWithoutClient(run);
    const lost = (run.kwargs.lost ?? 0) + 1;
    if (goesOn && lost < LOST_TRIES) {
      if (await takeFromLost(ctx, run, lost)) await dispatchNext(ctx, run.thread_id);
      continue;
    }
    // An answer the thread's checkpoints hold stays recorded: given again, it is refused as answered.
    await endStopped(ctx, run, "running", goesOn ? LOST_AGAIN : RUN_LOST, "lost");
  }
  // A run queued just before its predecessor was killed, first in its thread's line, was never
  // started, and nothing that ends would dispatch it.
  if (everyRun)
    for (const threadId of new Set((await ctx.store.runsIn("pending")).map((run) => run.thread_id)))
      await dispatchNext(ctx, threadId);
  if (unheard) await startOrphans(ctx, unheard);
  if (!ctx.dispatcher.local) await closeLogsOfRunsElsewhere(ctx);
}

/**
 * Logs open here for runs that this process does not execute and will not: taken by the queue
 * while this process was held for gone (`startOrphans`, in another process), ended or executed
 * elsewhere while queued here. Nothing here would close them, and their waiters (joins, waits,
 * streams) would follow them for good: closed, they follow the run through the store.
 */
async function closeLogsOfRunsElsewhere(ctx: ServerContext): Promise<void> {
  for (const runId of ctx.broker.openRunIds()) {
    if (ctx.executing.has(runId)) continue;
    const run = await ctx.store.getRun(runId);
    // Still queued for this process, or for whichever takes it (this one's retry among them).
    if (run?.status === "pending" && (run.owner === ctx.processId || run.owner === null)) continue;
    // Unless this process took it since the read: the log is its execution's.
    if (!ctx.executing.has(runId)) ctx.broker.closeOpen(runId);
  }
}

/**
 * A run cancelled with rollback before its process died, undone as its process would have
 * (runs/executor.ts, finish). Taken first for the length of a lease, while it still counts as
 * running, with its claim revoked (nothing more of it lands): a sweep that dies midway leaves it
 * to the next. Then its steps are undone, and its record deleted, its answers forgotten and its
 * thread brought in line in one transaction.
 */
async function rollBackLost(ctx: ServerContext, run: RunRecord): Promise<void> {
  if (!(await takeFromLost(ctx, run))) return;
  await undoRunSteps(ctx.saver, run);
  const ended = await syncWith(ctx, run.thread_id, async (tx) => {
    if (!(await tx.moveRun(run.run_id, ["running"], "interrupted", { claimed: run.attempt }))) return false;
    await tx.deleteRun(run.run_id);
    await tx.forgetAnswers(run.run_id);
    return true;
  });
  if (ended === false) return;
  countRunEnd(ctx, "rolled_back");
  await nowOrUntilStored(`run ${run.run_id} rolled back, the thread's next run not started yet`, () =>
    dispatchNext(ctx, run.thread_id),
  );
}

/**
 * Takes a run from its process, held for dead: back to the queue with its losses counted
 * (`lost`), or, without, still running under this sweep for the length of a lease; false when
 * someone else moved it first. The process's claim on the thread goes with it (`revokeClaim`):
 * alive after all, it saves nothing more of the run.
 */
function takeFromLost(ctx: ServerContext, run: RunRecord, lost?: number): Promise<boolean> {
  return ctx.store.tx(async (tx) => {
    const taken =
      lost === undefined
        ? await tx.moveRun(run.run_id, ["running"], "running", { claimed: run.attempt })
        : await move(tx, run.run_id, "running", "pending", {
            claimed: run.attempt,
            owner: null,
            kwargs: { ...run.kwargs, lost },
          });
    if (!taken) return false;
    await revokeClaim(ctx, tx, run.thread_id);
    return true;
  }, run.thread_id);
}

/**
 * Stream and wait runs queued for a given server (their owner) that nothing will start:
 * - This process's own, first in their thread's line for a lease already: the `run.dispatch`
 *   that should have started them was lost (sent while this process's LISTEN reconnected).
 *   Started here now.
 * - Those of a server that is gone (PostgreSQL): each waits for a dispatch sent to its owner,
 *   which nobody receives, and its thread's line waits with it. Nothing of them has executed, so
 *   the queue takes them, as a run goes on when its client disconnects: the answers they carry
 *   are applied. An owner counts as gone when its LISTEN connection is missing at two sweeps in
 *   a row (one miss may be a reconnect). On SQLite the one process executes every queued run
 *   itself, its predecessor's included.
 */
async function startOrphans(ctx: ServerContext, unheard: Set<string>): Promise<void> {
  const queued = await ctx.store.queuedForOwners();
  const lapsed = Date.now() - ctx.runLeaseMs;
  for (const run of queued) {
    if (run.owner !== ctx.processId || ctx.executing.has(run.run_id) || Date.parse(run.updated_at) > lapsed) continue;
    if ((await ctx.store.activeRuns(run.thread_id))[0]?.run_id === run.run_id) await ctx.dispatcher.dispatch(run);
  }
  const hears = ctx.bus.hears?.bind(ctx.bus);
  if (!hears) return;
  const others = queued.filter((run) => run.owner !== ctx.processId);
  const missed = new Set<string>();
  const gone = new Set<string>();
  for (const owner of new Set(others.map((run) => run.owner!))) {
    if (await hears(owner).catch(() => true)) continue;
    (unheard.has(owner) ? gone : missed).add(owner);
  }
  unheard.clear();
  for (const owner of missed) unheard.add(owner);
  for (const run of others)
    if (gone.has(run.owner!) && (await ctx.store.adoptRun(run.run_id, run.owner!)))
      await dispatchNext(ctx, run.thread_id);
}
