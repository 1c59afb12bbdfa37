/**
 * Every process looks for crons whose next run has come, every `sweepMs`, and makes their
 * runs: on the cron's thread (queued behind a run in progress, as `enqueue` does), or for a
 * stateless cron on a new thread, deleted once its run ends unless the cron keeps it. Each due
 * cron is taken by one process (store/crons.ts); its next run is set after its run is queued,
 * so that a crash between the two repeats the run rather than skips it.
 */
import { randomUUID } from "node:crypto";
import type { ServerContext } from "../context.js";
import { startPeriodicSweep } from "../periodic-sweep.js";
import { createRun, type RunRequest } from "../runs/create.js";
import { type CronRecord, setNextRun, takeDueCrons } from "../store/crons.js";
import { deleteWhenRunEnds } from "../threads/delete.js";
import { nextRun } from "./schedule.js";

const BATCH = 100;
/** How long a taken cron is this sweep's: far longer than queueing a run takes. */
const LEASE_MS = 5 * 60_000;

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
    for (const cron of due) {
      if (stopped()) return;
      // One that fails is due again when its lease ends: the crons after it are not held up.
      await fire(ctx, cron, now).catch((error) =>
        console.error(`[interlude] cron ${cron.cron_id} not fired yet:`, error),
      );
    }
    if (due.length < BATCH) return;
  }
}

async function fire(ctx: ServerContext, cron: CronRecord, now: number): Promise<void> {
  const ended = cron.end_time !== null && Date.parse(cron.end_time) <= now;
  if (!ended) {
    try {
      await start(ctx, cron);
    } catch (error) {
      // A cron whose run cannot be made (its assistant deleted, its thread gone) is not stopped: the next may succeed.
      console.error(`[interlude] cron ${cron.cron_id} made no run:`, error);
    }
  }
  await setNextRun(
    ctx.store.db,
    cron.cron_id,
    ended ? null : nextRun(cron.schedule, cron.timezone, now, cron.end_time),
  );
}

async function start(ctx: ServerContext, cron: CronRecord): Promise<void> {
  const request = {
    ...cron.payload,
    assistant_id: cron.assistant_id,
    metadata: { ...(cron.payload.metadata as object), cron_id: cron.cron_id },
  } as RunRequest;
  const identity = cron.user_id ?? "cron";
  if (cron.thread_id) {
    await createRun(ctx, cron.thread_id, { multitask_strategy: "enqueue", ...request }, identity, null);
    return;
  }
  const threadId = randomUUID();
  const temporary = cron.on_run_completed !== "keep";
  const { run } = await createRun(ctx, threadId, { ...request, if_not_exists: "create", temporary }, identity, null);
  if (temporary) deleteWhenRunEnds(ctx, run.run_id, threadId);
}
