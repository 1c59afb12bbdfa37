/**
 * Deleting a thread: its runs stopped first, then its checkpoints and records; its questions
 * are told resolved by the one deletion that removed them (a request and a TTL sweep, or two
 * processes' sweeps, may delete it at once).
 */
import type { ServerContext } from "../context.js";
import { cancelRun, waitForRun } from "../runs/cancel.js";
import type { ThreadRecord } from "../store/records.js";
import { retryUntilStored } from "../store/retry-until-stored.js";

export async function deleteThread(ctx: ServerContext, thread: ThreadRecord): Promise<void> {
  for (const run of await ctx.store.activeRuns(thread.thread_id)) await cancelRun(ctx, run, "interrupt");
  const pending = await ctx.store.pendingOf(thread.thread_id);
  // Checkpoints first: a deletion that fails between the two leaves the thread there to delete
  // again, not gone with its checkpoints left for a thread made again under its id to inherit.
  await ctx.saver.deleteThread(thread.thread_id);
  const deleted = await ctx.store.deleteThread(thread.thread_id);
  if (!deleted) return;
  const at = new Date().toISOString();
  for (const p of pending)
    await ctx.bus.publish({
      type: "interrupt.resolved",
      thread_id: p.thread_id,
      interrupt_id: p.interrupt_id,
      by: null,
      answer: null,
      at,
    });
}

/** Threads read at a time while deleting an assistant's. */
const BATCH = 100;

/**
 * `assistants.delete(id, { deleteThreads: true })`: every thread whose `metadata.assistant_id` is
 * the assistant, deleted as `DELETE /threads/:id` deletes one (its runs in progress cancelled
 * first), as LangGraph Server deletes them with the assistant. Read in batches: a thread's state
 * may be large, and an assistant may have many threads.
 */
export async function deleteAssistantThreads(ctx: ServerContext, assistantId: string): Promise<void> {
  const seen = new Set<string>();
  for (;;) {
    const found = await ctx.store.threads({ metadata: { assistant_id: assistantId }, limit: BATCH }, { values: false });
    // A thread found again was not deleted (created anew meanwhile): left, so this cannot loop forever.
    const batch = found.filter((thread) => !seen.has(thread.thread_id));
    if (!batch.length) return;
    for (const thread of batch) {
      seen.add(thread.thread_id);
      await deleteThread(ctx, thread);
    }
  }
}

/** Deletes the thread if it is still there. */
export async function deleteThreadIfThere(ctx: ServerContext, threadId: string): Promise<void> {
  const thread = await ctx.store.getThread(threadId, { values: false });
  if (thread) await deleteThread(ctx, thread);
}

/** A stateless run's thread whose deletion failed: tried again until storage takes it. */
export function retryDeleting(ctx: ServerContext, threadId: string): (error: unknown) => void {
  return (error) => {
    console.error(`[interlude] stateless thread ${threadId} not deleted yet (retrying):`, error);
    retryUntilStored(() => deleteThreadIfThere(ctx, threadId));
  };
}

/** A stateless run's thread (a stateless run's or a stateless cron's, not kept) goes once the run ends. */
export function deleteWhenRunEnds(ctx: ServerContext, runId: string, threadId: string): void {
  void waitForRun(ctx, runId)
    .then(() => deleteThreadIfThere(ctx, threadId))
    .catch(retryDeleting(ctx, threadId));
}
