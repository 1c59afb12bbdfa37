/**
 * A thread's runs execute one at a time, in the order they were queued (the runs table's line,
 * runs/create.ts): whatever ends or moves the thread's active run starts the next one queued.
 */
import type { ServerContext } from "../context.js";

/** Starts the thread's first active run if it is still queued (none running ahead of it). */
export async function dispatchNext(ctx: ServerContext, threadId: string): Promise<void> {
  const next = (await ctx.store.activeRuns(threadId))[0];
  if (next?.status === "pending") await ctx.dispatcher.dispatch(next);
}
