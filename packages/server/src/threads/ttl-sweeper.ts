/**
 * Every process looks for threads past their TTL (threads/ttl.ts) every `sweepMs`, and works
 * until none is due (a backlog does not wait for later sweeps) or the process stops. Each takes
 * its threads in batches that other processes' sweeps pass by (store/thread-ttl.ts); should two
 * still meet on one thread, deleting or pruning it twice comes to the same. A thread touched
 * since its expiry was set is re-armed from its last activity; a thread with a run in progress
 * is looked at again at the next sweep.
 */
import type { ServerContext } from "../context.js";
import { startPeriodicSweep } from "../periodic-sweep.js";
import { type DueTtl, deleteThreadTtl, rearmThreadTtl, takeDueThreadTtls } from "../store/thread-ttl.js";
import { pruneThread } from "./prune.js";
import { dueAt } from "./ttl.js";

/** Threads taken at once. */
const BATCH = 100;
/** How long a batch is this sweep's: far longer than a batch takes (a deletion is a few ms). */
const LEASE_MS = 5 * 60_000;

/** Starts sweeping; the function returned stops, once the thread under way (if any) is done. */
export function startTtlSweeper(ctx: ServerContext): () => Promise<void> {
  return startPeriodicSweep("thread TTL sweep", ctx.threadTtl.sweepMs, (stopped) => sweep(ctx, stopped));
}

/** Works off every thread due, unless `stopped` says to stop (the threads taken and left are due again after the lease). */
export async function sweep(ctx: ServerContext, stopped: () => boolean = () => false): Promise<void> {
  for (;;) {
    const now = ctx.now();
    const due = await takeDueThreadTtls(ctx.store.db, now, BATCH, now + LEASE_MS);
    for (const row of due) {
      if (stopped()) return;
      // One that fails is due again when its lease ends: the threads after it are not held up.
      await expire(ctx, row).catch((error) =>
        console.error(`[interlude] thread ${row.threadId} past its TTL not expired yet:`, error),
      );
    }
    if (due.length < BATCH) return;
  }
}

async function expire(ctx: ServerContext, { threadId, ttl }: DueTtl): Promise<void> {
  const db = ctx.store.db;
  const thread = await ctx.store.getThread(threadId, { values: false });
  // Deleted meanwhile (by a process of an earlier version, which leaves the row).
  if (!thread) return deleteThreadTtl(db, threadId);
  const now = ctx.now();
  const due = dueAt(thread.updated_at, ttl);
  if (due > now) return rearmThreadTtl(db, threadId, due);
  if (thread.status === "busy") return rearmThreadTtl(db, threadId, now + ctx.threadTtl.sweepMs);
  await pruneThread(ctx, thread, ttl.strategy);
  if (ttl.strategy === "keep_latest") await rearmThreadTtl(db, threadId, now + ttl.ms);
}
