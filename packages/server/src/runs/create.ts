/**
 * Creating a run on a thread: resolve the assistant and thread, reserve the answers it
 * carries, apply the multitask strategy against the runs in progress, queue it, and start it
 * when it is first in line.
 */
import { randomUUID } from "node:crypto";
import { isResumeMap } from "@interlude/core";
import { resolveAssistant } from "../assistants/defaults.js";
import type { ServerContext } from "../context.js";
import { AlreadyAnsweredError, InvalidRequestError, NotFoundError, ThreadRunningError } from "../errors.js";
import { isUniqueViolation } from "../store/failures.js";
import type { AnswerRecord, AssistantRecord, Json, MultitaskStrategy, RunKwargs, RunRecord } from "../store/records.js";
import type { StoreTx } from "../store/store.js";
import { type QueueView, queueView } from "../store/views.js";
import { insertThreadIn, newThread } from "../threads/new-thread.js";
import { temporaryThreadTtl } from "../threads/ttl.js";
import { answeredIds, earlierAnswer, reserveAnswers, SETTLE_TIMEOUT_MS } from "./answers.js";
import { cancelRun } from "./cancel.js";
import { claimFields, claimFieldsAt, executeRun } from "./executor.js";
import { claimAtCommit } from "./joined-saver.js";
import { SettleWatch } from "./settle-watch.js";
import { dispatchNext } from "./thread-line.js";

export interface RunRequest extends RunKwargs {
  assistant_id: string;
  metadata?: Json;
  multitask_strategy?: MultitaskStrategy;
  if_not_exists?: "create" | "reject";
  checkpoint?: { checkpoint_id?: string } | null;
  on_completion?: "delete" | "keep";
  /** A stateless run's thread, made for it and deleted once it ends (never sent by a client). */
  temporary?: boolean;
  checkpoint_during?: boolean;
  /** When the request arrived (ISO): a plain `command.resume` answers only what was pending then. */
  received_at?: string;
}

/**
 * The thread exists (created if asked, with the default TTL, or a temporary thread's) and runs
 * the assistant's graph; false when there is no such thread.
 */
async function threadFor(
  ctx: ServerContext,
  tx: StoreTx,
  threadId: string,
  req: RunRequest,
  assistant: AssistantRecord,
  read: QueueView["graph"],
): Promise<boolean> {
  // Only its graph is needed, unless it changes (the whole record is read to save it).
  let graph = read;
  if (!graph && req.if_not_exists === "create") {
    const ttl = req.temporary ? temporaryThreadTtl(ctx.threadTtl) : ctx.threadTtl.default;
    await insertThreadIn(tx, newThread(threadId, { graph_id: assistant.graph_id }, assistant), ttl, ctx.now());
    graph = await tx.threadGraph(threadId);
  }
  if (!graph) return false;
  if (graph.graph_id !== assistant.graph_id || graph.assistant_id !== assistant.assistant_id) {
    const thread = (await tx.getThread(threadId, { values: false }))!;
    const metadata = { ...thread.metadata, graph_id: assistant.graph_id, assistant_id: assistant.assistant_id };
    await tx.saveThreadMetadata({
      ...thread,
      metadata,
      graph_id: assistant.graph_id,
      assistant_id: assistant.assistant_id,
    });
  }
  return true;
}

function kwargsOf(req: RunRequest): RunKwargs {
  const kwargs: RunKwargs = {};
  for (const key of [
    "input",
    "command",
    "config",
    "context",
    "stream_mode",
    "stream_subgraphs",
    "interrupt_before",
    "interrupt_after",
    "timeout_seconds",
    "on_disconnect",
  ] as const) {
    if (req[key] !== undefined && req[key] !== null) (kwargs as Record<string, unknown>)[key] = req[key];
  }
  const checkpointId = req.checkpoint_id ?? req.checkpoint?.checkpoint_id;
  if (checkpointId) kwargs.checkpoint_id = checkpointId;
  const durability = req.durability ?? (req.checkpoint_during === false ? "exit" : undefined);
  if (durability) kwargs.durability = durability;
  return kwargs;
}

/** What queueing a run came to: queued, or why not (returned, not thrown, so that nothing is rolled back). */
type Queued =
  | {
      run: RunRecord;
      first: boolean;
      toCancel: RunRecord[];
      handoff?: Promise<string | undefined>;
      /** Handed to the queue in the transaction that queued it (Dispatcher.dispatchIn). */
      dispatched?: boolean;
    }
  | { earlier: AnswerRecord }
  | { refusal: Error };

/**
 * @param owner the process that must execute the run (stream and wait runs are executed
 *   where their client is connected), or null to let any process take it.
 * @param alsoIn writes committed with the run, or not at all (it throws to make none).
 */
export async function createRun(
  ctx: ServerContext,
  threadId: string,
  req: RunRequest,
  identity: string,
  owner: string | null,
  alsoIn?: (tx: StoreTx) => Promise<void>,
): Promise<{ run: RunRecord; first: boolean }> {
  const input = req.input as { lg_name?: unknown } | null | undefined;
  if (typeof input === "object" && input !== null && input.lg_name === "Command")
    throw new InvalidRequestError(
      "input",
      'is shaped like a serialised Command (lg_name: "Command"); send resume, update and goto as `command` instead.',
    );
  const assistant = await resolveAssistant(ctx, req.assistant_id);
  const runId = randomUUID();
  const until = Date.now() + SETTLE_TIMEOUT_MS;
  // Opened when an earlier answer is found reserved, before looking again (settle-watch.ts).
  let settles: SettleWatch | undefined;
  try {
    for (;;) {
      let queued: Queued;
      const slot: Slot = {};
      try {
        // A background run is acknowledged once queued, so it must be committed by then; a waited
        // or streamed one is acknowledged when it ends, after its last (durable) commit.
        queued = await ctx.store.tx(
          (tx) => queue(ctx, tx, { runId, threadId, req, identity, owner, assistant, alsoIn }, slot),
          threadId,
          { durable: owner === null },
        );
      } catch (error) {
        slot.release?.();
        // An answer reserved meanwhile by a writer without the thread's lock: look again.
        if (isUniqueViolation(error)) continue;
        throw error;
      }
      if (!("run" in queued)) slot.release?.();
      if ("refusal" in queued) throw queued.refusal;
      if ("earlier" in queued) {
        if (queued.earlier.state === "applied" || Date.now() > until) throw new AlreadyAnsweredError(queued.earlier);
        if (settles) await settles.settled(queued.earlier.run_id);
        else settles = await SettleWatch.open(ctx.bus, queued.earlier.run_id);
        continue;
      }
      settles?.close();
      await startQueued(ctx, queued, slot);
      return { run: queued.run, first: queued.first };
    }
  } finally {
    settles?.close();
  }
}

/** Cancels what the new run replaces, then executes the run here or hands it to the dispatcher. */
async function startQueued(ctx: ServerContext, queued: Extract<Queued, { run: RunRecord }>, slot: Slot): Promise<void> {
  const { run, first, toCancel, handoff } = queued;
  const action = run.multitask_strategy === "rollback" ? "rollback" : "interrupt";
  for (const old of toCancel) await cancelRun(ctx, old, action);
  // Cancelled runs that had not started free the thread at once.
  if (toCancel.length) await dispatchNext(ctx, run.thread_id);
  // A log only for a run executed here: one opened for a run that another process executes
  // would never close, and joins through this process would wait on it forever.
  if (run.owner !== null || run.status === "running" || ctx.dispatcher.local) ctx.broker.open(run.run_id);
  if (run.status === "running")
    void executeRun(ctx, run, { claimed: { handoff } })
      .catch((error) => console.error(`[interlude] run ${run.run_id} failed to execute:`, error))
      .finally(() => slot.release?.());
  else if (first && !queued.dispatched) await ctx.dispatcher.dispatch(run);
}

/** The dispatcher's slot a background run claimed where it is queued holds (Dispatcher.takeHere). */
interface Slot {
  release?: () => void;
}

interface QueueRequest {
  runId: string;
  threadId: string;
  req: RunRequest;
  identity: string;
  owner: string | null;
  assistant: AssistantRecord;
  alsoIn?: (tx: StoreTx) => Promise<void>;
}

/**
 * Under the thread's lock: the thread (created if asked), the answers reserved, the multitask
 * strategy applied against the runs in progress, the run inserted. Checks come before writes.
 */
async function queue(
  ctx: ServerContext,
  tx: StoreTx,
  { runId, threadId, req, identity, owner, assistant, alsoIn }: QueueRequest,
  slot: Slot,
): Promise<Queued> {
  const resume = req.command?.resume;
  // Everything the checks need, in one read (one round trip on PostgreSQL), with the
  // checkpoint head when this process may claim the run here.
  const mayClaim = owner === ctx.processId || (owner === null && ctx.dispatcher.takeHere !== undefined);
  const view = await queueView(
    tx.db,
    threadId,
    resume === undefined ? undefined : isResumeMap(resume) ? { answerIds: Object.keys(resume) } : { pending: true },
    mayClaim ? ctx.headStatement?.(threadId) : undefined,
  );
  // Most runs find the thread on the assistant's graph already: no call (and no promise) for it.
  const { graph } = view;
  const same = graph?.graph_id === assistant.graph_id && graph.assistant_id === assistant.assistant_id;
  if (!same && !(await threadFor(ctx, tx, threadId, req, assistant, graph)))
    return { refusal: new NotFoundError("thread", threadId) };
  const { answers, overtaken } =
    resume !== undefined
      ? await answeredIds(tx, threadId, resume, view.pending, req.received_at)
      : { answers: new Map<string, unknown>() };
  if (overtaken) return { refusal: new AlreadyAnsweredError(overtaken) };
  const earlier = earlierAnswer(view.answers, answers.keys());
  if (earlier) return { earlier };
  const now = new Date().toISOString();
  const run: RunRecord = {
    run_id: runId,
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
  const { active } = view;
  if (active.length && run.multitask_strategy === "reject") return { refusal: new ThreadRunningError(threadId) };
  const toCancel: RunRecord[] = [];
  if (active.length && (run.multitask_strategy === "interrupt" || run.multitask_strategy === "rollback")) {
    toCancel.push(...active);
    // Rolled back: the new run starts from where the cancelled run started.
    const started = active.find((r) => r.kwargs.started_at_checkpoint)?.kwargs.started_at_checkpoint;
    if (run.multitask_strategy === "rollback" && started && !run.kwargs.checkpoint_id)
      run.kwargs.checkpoint_id = started;
  }
  await alsoIn?.(tx);
  if (answers.size) {
    run.kwargs.answers = [...answers.keys()];
    await reserveAnswers(tx, threadId, runId, identity, answers);
  }
  // First in line and executed by this process (a stream or wait run served here, or a
  // background run this process has a free slot for): claimed here, saving the claim's own
  // transaction (and a background run the queue's round trips).
  if (active.length === 0 && owner === null) slot.release = ctx.dispatcher.takeHere?.();
  const claimHere = active.length === 0 && (owner === ctx.processId || slot.release !== undefined);
  if (claimHere)
    Object.assign(run, view.head !== undefined ? claimFieldsAt(run, view.head) : await claimFields(ctx, run));
  await tx.insertRun(run);
  await tx.markThreadBusy(threadId);
  // The thread's claim and checkpoint too, in the commit's exchange (runs/joined-saver.ts).
  const handoff = claimHere ? claimAtCommit(ctx, tx, threadId) : undefined;
  // A background run for the queue goes there with this commit, or not at all.
  const dispatched = active.length === 0 && !claimHere && owner === null && ctx.dispatcher.dispatchIn !== undefined;
  if (dispatched) await ctx.dispatcher.dispatchIn!(tx.db, run);
  return { run, first: active.length === 0, toCancel, handoff, dispatched };
}
