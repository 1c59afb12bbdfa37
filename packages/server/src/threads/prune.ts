/** Pruning a thread, by request (POST /threads/prune) or past its TTL (ttl-sweeper.ts). */
import type { ServerContext } from "../context.js";
import type { ThreadRecord } from "../store/records.js";
import { deleteThread } from "./delete.js";
import type { TtlStrategy } from "./ttl.js";

/**
 * `delete`: the thread goes (its runs are stopped first); `keep_latest`: only its newest
 * checkpoint stays, which still resumes. False when the thread has a run in progress and is
 * to be cut (the run writes its next checkpoint on top of one that might go): left as it is.
 */
export async function pruneThread(ctx: ServerContext, thread: ThreadRecord, strategy: TtlStrategy): Promise<boolean> {
  if (strategy === "delete") {
    await deleteThread(ctx, thread);
    return true;
  }
  if (thread.status === "busy") return false;
  await ctx.saver.prune(thread.thread_id, { keepLast: 1 });
  return true;
}
