/**
 * Creating a run on a thread: resolve the assistant and thread, reserve the answers it
 * carries, apply the multitask strategy against the runs in progress, queue it, and start it
 * when it is first in line.
 */
import { randomUUID } from "node:crypto";
import type { ServerContext } from "../context.js";
import { NotFoundError, ThreadRunningError } from "../errors.js";
import type { AssistantRecord, Json, MultitaskStrategy, RunKwargs, RunRecord, ThreadRecord } from "../store/records.js";
import { resolveAssistant } from "../assistants/defaults.js";
import { newThread } from "../threads/new-thread.js";
import { answeredIds, reserveAnswers } from "./answers.js";
import { cancelRun } from "./cancel.js";
import { dispatchNext } from "./executor.js";

export interface RunRequest extends RunKwargs {
  assistant_id: string;
  metadata?: Json;
  multitask_strategy?: MultitaskStrategy;
  if_not_exists?: "create" | "reject";
  checkpoint?: { checkpoint_id?: string } | null;
  on_disconnect?: "cancel" | "continue";
  on_completion?: "delete" | "keep";
}

async function threadFor(ctx: ServerContext, threadId: string, req: RunRequest, assistant: AssistantRecord): Promise<ThreadRecord> {
  let thread = await ctx.store.getThread(threadId);
  if (!thread && req.if_not_exists === "create") {
    await ctx.store.insertThread(newThread(threadId, { graph_id: assistant.graph_id }, assistant));
    thread = await ctx.store.getThread(threadId);
  }
  if (!thread) throw new NotFoundError("thread", threadId);
  if (thread.graph_id !== assistant.graph_id || thread.assistant_id !== assistant.assistant_id) {
    const metadata = { ...thread.metadata, graph_id: assistant.graph_id, assistant_id: assistant.assistant_id };
    thread = { ...thread, metadata, graph_id: assistant.graph_id, assistant_id: assistant.assistant_id };
    await ctx.store.saveThread(thread);
  }
  return thread;
}

function kwargsOf(req: RunRequest): RunKwargs {
  const kwargs: RunKwargs = {};
  for (const key of ["input", "command", "config", "context", "stream_mode", "stream_subgraphs", "interrupt_before", "interrupt_after"] as const) {
    if (req[key] !== undefined && req[key] !== null) (kwargs as Record<string, unknown>)[key] = req[key];
  }
  const checkpointId = req.checkpoint_id ?? req.checkpoint?.checkpoint_id;
  if (checkpointId) kwargs.checkpoint_id = checkpointId;
  return kwargs;
}

/**
 * @param owner the process that must execute the run (stream and wait runs are executed
 *   where their client is connected), or null to let any process take it.
 */
export async function createRun(ctx: ServerContext, threadId: string, req: RunRequest, identity: string, owner: string | null): Promise<{ run: RunRecord; first: boolean }> {
  const assistant = await resolveAssistant(ctx, req.assistant_id);
  await threadFor(ctx, threadId, req, assistant);
  const now = new Date().toISOString();
  const run: RunRecord = {
    run_id: randomUUID(),
    thread_id: threadId,
    assistant_id: assistant.assistant_id,
    created_at: now,
    updated_at: now,
    status: "pending",
    metadata: req.metadata ?? {},
    multitask_strategy: req.multitask_strategy ?? "reject",
    kwargs: kwargsOf(req),
    identity,
    owner,
    attempt: 0,
    error: null,
  };
  const answers = req.command && req.command.resume !== undefined ? await answeredIds(ctx, threadId, req.command.resume) : new Map<string, unknown>();
  if (answers.size) {
    run.kwargs.answers = [...answers.keys()];
    await reserveAnswers(ctx, threadId, run.run_id, identity, answers);
  }
  let first: boolean;
  try {
    first = await queue(ctx, run);
  } catch (error) {
    await ctx.store.settleAnswers(run.run_id, false);
    throw error;
  }
  ctx.broker.open(run.run_id);
  if (first) await ctx.dispatcher.dispatch(run);
  return { run, first };
}

/** Inserts the run under the thread's lock; true when it is first in line. */
async function queue(ctx: ServerContext, run: RunRecord): Promise<boolean> {
  const toCancel: RunRecord[] = [];
  const first = await ctx.store.db.tx(async (db) => {
    const active = await ctx.store.activeRuns(run.thread_id, db);
    if (active.length && run.multitask_strategy === "reject") throw new ThreadRunningError(run.thread_id);
    if (active.length && (run.multitask_strategy === "interrupt" || run.multitask_strategy === "rollback")) {
      toCancel.push(...active);
      // Rolled back: the new run starts from where the cancelled run started.
      const started = active.find((r) => r.kwargs.started_at_checkpoint)?.kwargs.started_at_checkpoint;
      if (run.multitask_strategy === "rollback" && started && !run.kwargs.checkpoint_id) run.kwargs.checkpoint_id = started;
    }
    await ctx.store.insertRun(run, db);
    await ctx.store.markThreadBusy(run.thread_id, db);
    return active.length === 0;
  }, run.thread_id);
  const action = run.multitask_strategy === "rollback" ? "rollback" : "interrupt";
  for (const old of toCancel) await cancelRun(ctx, old, action);
  // Cancelled runs that had not started free the thread at once.
  if (toCancel.length) await dispatchNext(ctx, run.thread_id);
  return first;
}
