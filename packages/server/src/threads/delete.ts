/**
 * Deleting a thread: its runs stopped first, then its records and checkpoints; its questions
 * are told resolved by the one deletion that removed them (a request and a TTL sweep, or two
 * processes' sweeps, may delete it at once).
 */
import type { ServerContext } from "../context.js";
import { cancelRun } from "../runs/cancel.js";
import type { ThreadRecord } from "../store/records.js";

export async function deleteThread(ctx: ServerContext, thread: ThreadRecord): Promise<void> {
  for (const run of await ctx.store.activeRuns(thread.thread_id)) await cancelRun(ctx, run, "interrupt");
  const pending = await ctx.store.pendingOf(thread.thread_id);
  const deleted = await ctx.store.deleteThread(thread.thread_id);
  await ctx.saver.deleteThread(thread.thread_id);
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
