/**
 * Every process looks for threads past their TTL (threads/ttl.ts) every `sweepMs`. Several
 * processes may look at one thread at once: deleting it twice, or pruning it twice, comes to the
 * same. A thread touched since its expiry was set is re-armed from its last activity; a thread
 * with a run in progress is looked at again at the next sweep.
 */
import type { ServerContext } from "../context.js";
import { type DueTtl, deleteThreadTtl, dueThreadTtls, rearmThreadTtl } from "../store/thread-ttl.js";
import { deleteThread } from "./delete.js";
import { dueAt } from "./ttl.js";

/** Threads read per statement, and statements per sweep: a backlog is worked off over several sweeps. */
const BATCH = 100;
const BATCHES_PER_SWEEP = 10;

/** Starts sweeping; the function returned stops, once the sweep under way (if any) has ended. */
export function startTtlSweeper(ctx: ServerContext): () => Promise<void> {
  let sweeping: Promise<void> | undefined;
  const timer = setInterval(() => {
    sweeping ??= sweep(ctx)
      .catch((error) => console.error("[interlude] thread TTL sweep failed (tried again at the next):", error))
      .finally(() => (sweeping = undefined));
  }, ctx.threadTtl.sweepMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await sweeping;
  };
}

export async function sweep(ctx: ServerContext): Promise<void> {
  for (let i = 0; i < BATCHES_PER_SWEEP; i++) {
    const due = await dueThreadTtls(ctx.store.db, ctx.now(), BATCH);
    for (const row of due) await expire(ctx, row);
    if (due.length < BATCH) return;
  }
}

async function expire(ctx: ServerContext, { threadId, ttl }: DueTtl): Promise<void> {
  const db = ctx.store.db;
  const thread = await ctx.store.getThread(threadId);
  // Deleted meanwhile (by a process of an earlier version, which leaves the row).
  if (!thread) return deleteThreadTtl(db, threadId);
  const now = ctx.now();
  const due = dueAt(thread.updated_at, ttl);
  if (due > now) return rearmThreadTtl(db, threadId, due);
  if (thread.status === "busy") return rearmThreadTtl(db, threadId, now + ctx.threadTtl.sweepMs);
  if (ttl.strategy === "delete") return deleteThread(ctx, thread);
  await ctx.saver.prune(threadId, { keepLast: 1 });
  await rearmThreadTtl(db, threadId, now + ttl.ms);
}
