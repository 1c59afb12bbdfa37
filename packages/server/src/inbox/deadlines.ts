/**
 * What happens when an interrupt's deadline passes and it is still pending: answer it with
 * the declared default (a run like any other, by "deadline", so a human answering at the same
 * moment gets 409 or wins), or mark the thread as errored with the declared reason.
 */
import type { ServerContext } from "../context.js";
import { AlreadyAnsweredError } from "../errors.js";
import { createRun } from "../runs/create.js";
import { syncThread } from "../threads/sync.js";
import { DEADLINE_IDENTITY, deadlineOf } from "./deadline-spec.js";

export async function fireDeadline(ctx: ServerContext, threadId: string, interruptId: string): Promise<void> {
  const row = (await ctx.store.pendingOf(threadId)).find((p) => p.interrupt_id === interruptId);
  if (!row?.deadline_at || Date.parse(row.deadline_at) > ctx.now() + 50) return;
  const spec = deadlineOf(row.value);
  const thread = await ctx.store.getThread(threadId, { values: false });
  if (!spec || !thread?.assistant_id) return;
  try {
    if ("resume" in spec.on_timeout) {
      await createRun(
        ctx,
        threadId,
        {
          assistant_id: thread.assistant_id,
          command: { resume: { [interruptId]: spec.on_timeout.resume } },
          multitask_strategy: "enqueue",
        },
        DEADLINE_IDENTITY,
        null,
      );
      return;
    }
    const reserved = await ctx.store.reserveAnswer({
      thread_id: threadId,
      interrupt_id: interruptId,
      by: DEADLINE_IDENTITY,
      answer: null,
      at: new Date().toISOString(),
      run_id: null,
      state: "applied",
    });
    // A human answered first. The deadline's own reservation is one whose sync failed after it
    // (this is the retry): the thread is given its error now.
    if (reserved && reserved.by !== DEADLINE_IDENTITY) return;
    await syncThread(ctx, threadId, {
      error: {
        error: "DeadlineExpired",
        code: "DEADLINE_EXPIRED",
        message: spec.on_timeout.error,
        interrupt_id: interruptId,
      },
    });
  } catch (error) {
    if (!(error instanceof AlreadyAnsweredError)) throw error;
  }
}
