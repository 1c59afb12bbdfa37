/**
 * Every process looks for crons whose next run has come, every `sweepMs`, and makes their
 * runs: on the cron's thread (queued behind a run in progress, as `enqueue` does), or for a
 * stateless cron on a new thread, deleted once its run ends unless the cron keeps it. Each due
 * cron is taken by one process for a while (store/crons.ts); its next run is set in the
 * transaction that queues its run, and only if it is still that process's, so that a run is made
 * once for each time the cron comes due: a process dying before the commit, or storage failing,
 * leaves the cron due again, and one that lost the cron to another process meanwhile makes none.
 */
import { randomUUID } from "node:crypto";
import type { ServerContext } from "../context.js";
import { startPeriodicSweep } from "../periodic-sweep.js";
import { createRun, type RunRequest } from "../runs/create.js";
import { type CronRecord, setNextRun, takeDueCrons } from "../store/crons.js";
import { isStorageFailure } from "../store/failures.js";
import type { StoreTx } from "../store/store.js";
import { deleteWhenRunEnds } from "../threads/delete.js";
import { nextRun } from "./schedule.js";

const BATCH = 100;
/** How long a taken cron is this sweep's: far longer than queueing a run takes, and how late a cron whose process died is. */
const LEASE_MS = 60_000;

/** Starts sweeping; the function returned stops, once the cron under way (if any) is done. */
export function startCronSweeper(ctx: ServerContext): () => Promise<void> {
  return startPeriodicSweep("cron sweep", ctx.cronSweepMs, (stopped) => sweepCrons(ctx, stopped));
}

/** Makes the run of every cron due now, unless `stopped` says to stop (those taken and left are due again after the lease). */
export async function sweepCrons(ctx: ServerContext, stopped: () => boolean = () => false): Promise<void> {
  for (;;) {
    const now = ctx.now();
    const due = await takeDueCrons(
      ctx.store.db,
      new Date(now).toISOString(),
      BATCH,
      new Date(now + LEASE_MS).toISOString(),
    );
    let failed = false;
    for (const cron of due) {
      if (stopped()) return;
      // One that fails is due again (at the next sweep, this one taking no more): the crons after it are not held up.
      await fire(ctx, cron, now).catch((error) => {
        failed = true;
        console.error(`[interlude] cron ${cron.cron_id} not fired yet:`, error);
      });
    }
    if (due.length < BATCH || failed) return;
  }
}

async function fire(ctx: ServerContext, cron: CronRecord, now: number): Promise<void> {
  const { db } = ctx.store;
  // As taken, the cron shows its lease.
  const takenUntil = cron.next_run_date!;
  if (cron.end_time !== null && Date.parse(cron.end_time) <= now) {
    await setNextRun(db, cron.cron_id, null, takenUntil);
    return;
  }
  const next = nextRun(cron.schedule, cron.timezone, now, cron.end_time);
  try {
    await start(ctx, cron, async (tx) => {
      if (!(await setNextRun(tx.db, cron.cron_id, next, takenUntil))) throw new TakenElsewhere();
    });
  } catch (error) {
    if (error instanceof TakenElsewhere) return;
    if (isStorageFailure(error)) {
      // Due again at the next sweep, or once the lease has passed if storage is still away.
      await setNextRun(db, cron.cron_id, new Date(now).toISOString(), takenUntil).catch(() => false);
      throw error;
    }
    // A cron whose run cannot be made (its assistant deleted, its thread gone) is not stopped: the next may succeed.
    console.error(`[interlude] cron ${cron.cron_id} made no run:`, error);
    await setNextRun(db, cron.cron_id, next, takenUntil);
  }
}

/** The cron's lease was no longer this sweep's when its run was to be committed: no run is made. */
class TakenElsewhere extends Error {}

async function start(ctx: ServerContext, cron: CronRecord, alsoIn: (tx: StoreTx) => Promise<void>): Promise<void> {
  const request = {
    ...cron.payload,
    assistant_id: cron.assistant_id,
    metadata: { ...(cron.payload.metadata as object), cron_id: cron.cron_id },
  } as RunRequest;
  const identity = cron.user_id ?? "cron";
  if (cron.thread_id) {
    await createRun(ctx, cron.thread_id, { multitask_strategy: "enqueue", ...request }, identity, null, alsoIn);
    return;
  }
  const threadId = randomUUID();
  const temporary = cron.on_run_completed !== "keep";
  const { run } = await createRun(
    ctx,
    threadId,
    { ...request, if_not_exists: "create", temporary },
    identity,
    null,
    alsoIn,
  );
  if (temporary) deleteWhenRunEnds(ctx, run.run_id, threadId);
}
