/**
 * Executes one run in this process: stream the graph, hand each chunk to the run's log,
 * record the outcome, bring the thread up to date, then start the thread's next queued run.
 */

import type { StateSnapshot } from "@interlude/core";
import {
  type CompiledStateGraph,
  INTERRUPT,
  isGraphDrained,
  newCheckpointId,
  RunControl,
  type ToolEvent,
} from "@interlude/core";
import { countRunEnd, type Execution, type ServerContext, type StopReason } from "../context.js";
import { ServerStoppingError } from "../errors.js";
import { isStorageFailure } from "../store/failures.js";
import type { RunKwargs, RunRecord, RunStatus } from "../store/records.js";
import { deleteRunStatement } from "../store/store.js";
import { undoRunSteps } from "../threads/copy.js";
import { apiInterrupt } from "../threads/state.js";
import { type Announcements, announce, announceAtCommit, readSnapshot, syncThreadIn } from "../threads/sync.js";
import type { RunLog } from "./broker.js";
import { abortLocal } from "./cancel.js";
import { goesOnWithoutClient, handBack } from "./drain.js";
import { chunksWithEvents, type Triple } from "./event-stream.js";
import { failRun } from "./failure.js";
import { graphConfig, graphInput, streamModes, wantsMode } from "./input.js";
import { claimAtCommit, finishWith, withJoinedSaver } from "./joined-saver.js";
import { move, moveStatement } from "./lifecycle.js";
import { MessageEvents } from "./message-events.js";
import { type ErrorBody, errorBody, isRefusal, isThreadBusy } from "./outcome.js";
import { SettleOnRequest } from "./settle-on-request.js";
import { SubgraphLifecycle } from "./subgraph-lifecycle.js";
import { wireToolEvent } from "./tool-events.js";

const BUSY_RETRY_MS = 500;

/** Interrupts inside chunks are shown in the API's shape. */
function wire(chunk: unknown): unknown {
  if (typeof chunk !== "object" || chunk === null || !(INTERRUPT in chunk)) return chunk;
  const list = (chunk as Record<string, unknown>)[INTERRUPT];
  return Array.isArray(list) ? { ...chunk, [INTERRUPT]: list.map(apiInterrupt) } : chunk;
}

/**
 * What claiming a pending run changes in its record. `continuing`: a run started before (its
 * process died) continues from where it got instead of re-sending its input.
 */
export async function claimFields(ctx: ServerContext, run: RunRecord): Promise<ClaimFields> {
  return claimFieldsAt(run, (await ctx.saver.getHeadId(run.thread_id)) ?? null);
}

type ClaimFields = Pick<RunRecord, "status" | "kwargs" | "attempt"> & { continuing: boolean };

/** `claimFields` with the thread's checkpoint head known, read just now along with something else (null: no checkpoint). */
export function claimFieldsAt(run: RunRecord, head: string | null): ClaimFields {
  const kwargs = { ...run.kwargs };
  const continuing = kwargs.started_at_checkpoint !== undefined && kwargs.started_at_checkpoint !== head;
  if (kwargs.started_at_checkpoint === undefined) {
    kwargs.started_at_checkpoint = head;
    // Greater than every checkpoint id saved so far, and less than every one this run saves
    // (never less than its head: a clock behind the one that saved it would undo more).
    const made = newCheckpointId();
    kwargs.started_mark = head !== null && head > made ? head : made;
    kwargs.started_ms = Date.now();
  }
  return { status: "running", kwargs, attempt: run.attempt + 1, continuing };
}

/** A run's kwargs without the marks of its first claim, for a run that executed nothing (claimFieldsAt). */
function notStarted(kwargs: RunKwargs): RunKwargs {
  const { started_at_checkpoint: _head, started_mark: _mark, started_ms: _ms, ...rest } = kwargs;
  return rest;
}

/** What claiming a run came to: its record, and the thread's claim taken with it (runs/joined-saver.ts). */
interface Taken {
  run: RunRecord;
  continuing: boolean;
  handoff?: Promise<string | undefined>;
}

/** Claims a pending run, with its thread's claim where the saver joins; undefined if someone else has it. */
async function claim(ctx: ServerContext, run: RunRecord): Promise<Taken | undefined> {
  const { continuing, ...fields } = await claimFields(ctx, run);
  const handoff = await ctx.store.tx(
    async (tx) => {
      if (!(await move(tx, run.run_id, "pending", "running", fields))) return undefined;
      await tx.markThreadBusy(run.thread_id);
      return { at: claimAtCommit(ctx, tx, run.thread_id) };
    },
    run.thread_id,
    { durable: false },
  ); // the run's first save commits it along
  if (!handoff) return undefined;
  return { run: { ...run, ...fields }, continuing, handoff: handoff.at };
}

interface Streamed {
  error?: unknown;
  accepted: boolean;
  /** The graph that ran, to read the thread's new state with. */
  graph?: CompiledStateGraph;
  /** The thread's state as the run left it, when the run could tell it (no need to read it back). */
  final?: StateSnapshot;
}

async function stream(
  ctx: ServerContext,
  run: RunRecord,
  continuing: boolean,
  log: RunLog,
  signal: AbortSignal,
  control: RunControl,
  answers: SettleOnRequest,
): Promise<Streamed> {
  let accepted = false;
  let graph: CompiledStateGraph | undefined;
  let final: StateSnapshot | undefined;
  // Events before the run is accepted wait: a run refused (thread busy) is tried again, and its events would repeat.
  const held: Array<[string, unknown]> = [];
  const side = (name: string, data: unknown) => (accepted ? log.push(name, data) : held.push([name, data]));
  // Subgraphs' starts and ends are read from the tasks they run (runs/subgraph-lifecycle.ts).
  const lifecycle = wantsMode(run.kwargs, "lifecycle") ? new SubgraphLifecycle() : undefined;
  try {
    const assistant = await ctx.store.assistants.get(run.assistant_id);
    graph = assistant && ctx.graphs.get(assistant.graph_id);
    if (!graph) throw new Error(`Graph of assistant "${run.assistant_id}" is not loaded by this server.`);
    const modes = streamModes(run.kwargs);
    const config = graphConfig(
      run.thread_id,
      continuing ? { ...run.kwargs, checkpoint_id: undefined } : run.kwargs,
      signal,
    );
    // With only `events` asked, the graph still streams something (nothing of it is sent).
    const core = new Set(modes.length ? modes.map(([, core]) => core) : ["values" as const]);
    config.streamMode = [...(lifecycle ? core.add("tasks") : core)];
    if (ctx.claimTtlMs !== undefined) config.claimTtlMs = ctx.claimTtlMs;
    config.abortGraceMs = ctx.abortGraceMs;
    config.control = control;
    config.onFinalState = (state) => (final = state);
    const messages = new MessageEvents();
    const input = continuing ? null : graphInput(run.kwargs, run.identity);
    const chunks = wantsMode(run.kwargs, "events")
      ? chunksWithEvents(graph, input, config, (event) => side("events", event))
      : ((await graph.stream(input, config)) as AsyncIterable<Triple>);
    for await (const [ns, mode, chunk] of chunks) {
      if (!accepted) {
        accepted = true;
        log.accept();
        if (run.kwargs.answers?.length) answers.take();
        for (const [name, data] of held.splice(0)) log.push(name, data);
      }
      if (lifecycle) for (const [name, data] of lifecycle.observe(ns, mode, chunk)) log.push(name, data);
      if (ns.length && !run.kwargs.stream_subgraphs) continue;
      const suffix = ns.length ? `|${ns.join("|")}` : "";
      for (const [name, core] of modes) {
        if (core !== mode) continue;
        if (mode === "tools") log.push(name + suffix, wireToolEvent(chunk as ToolEvent));
        else if (mode !== "messages") log.push(name + suffix, wire(chunk));
        else
          for (const [event, data] of messages.events(name as "messages" | "messages-tuple", chunk))
            log.push(event + suffix, data);
      }
    }
    for (const [name, data] of lifecycle?.ended() ?? []) log.push(name, data);
    return { accepted, graph, final };
  } catch (error) {
    for (const [name, data] of lifecycle?.ended(errorBody(error)) ?? []) side(name, data);
    return { error, accepted, graph };
  }
}

export interface ExecuteOptions {
  /** The run was claimed when it was queued (`running` already), with the thread's claim, if any (runs/joined-saver.ts). */
  claimed?: { handoff?: Promise<string | undefined> };
  /** Told once the run is this process's (its claim committed), or that it is not (someone else had it). */
  onClaimed?: () => void;
}

export async function executeRun(ctx: ServerContext, pending: RunRecord, options: ExecuteOptions = {}): Promise<void> {
  if (ctx.executing.has(pending.run_id)) return;
  // Registered before the claim, so a cancel arriving while the run starts is not lost; the
  // entry stays until the outcome is recorded, so shutting down waits for it.
  const controller = new AbortController();
  let done!: () => void;
  const answers = new SettleOnRequest(ctx, pending.run_id);
  const entry: Execution = {
    controller,
    control: new RunControl(),
    finished: new Promise<void>((resolve) => (done = resolve)),
    askToSettle: () => answers.ask(),
  };
  ctx.executing.set(pending.run_id, entry);
  let timer: NodeJS.Timeout | undefined;
  let current = pending;
  let drained = false;
  try {
    const { claimed } = options;
    const taken: Taken | undefined = claimed
      ? { run: pending, continuing: false, handoff: claimed.handoff }
      : await claim(ctx, pending);
    options.onClaimed?.();
    if (!taken) {
      // Not queued any more (another process took it, or ended it while it waited to be tried
      // again here): waiters on its log here follow it through the store.
      ctx.broker.closeOpen(pending.run_id);
      return;
    }
    const { run, continuing } = taken;
    current = run;
    const timeoutMs = timeoutOf(ctx, run);
    // Past it already (it started in a process that died or shut down): it stops before running anything.
    if (timeoutMs !== undefined && timeoutMs <= 0) abortLocal(ctx, run.run_id, "timeout");
    else if (timeoutMs !== undefined) {
      timer = setTimeout(() => abortLocal(ctx, run.run_id, "timeout"), timeoutMs);
      timer.unref();
    }
    const log = ctx.broker.openExecution(run.run_id);
    if (run.owner === null) ctx.runEvents?.relay(run.run_id, log);
    if (!log.events.length) log.push("metadata", { run_id: run.run_id, attempt: run.attempt });
    await withJoinedSaver(ctx, run.thread_id, taken.handoff, async () => {
      const streamed: Streamed = controller.signal.aborted
        ? { error: controller.signal.reason, accepted: false }
        : await stream(ctx, run, continuing, log, controller.signal, entry.control, answers);
      const { error, accepted } = streamed;
      if (error !== undefined && !accepted && isThreadBusy(error) && !controller.signal.aborted) {
        // Another writer (or a crashed process's claim, until it lapses) holds the thread: try again shortly.
        // Nothing of it executed: unless it had started before, its next try starts it afresh, from
        // the head it finds then (the other writer may move it: that is not this run's progress).
        const kwargs = continuing ? run.kwargs : notStarted(run.kwargs);
        await move(ctx.store, run.run_id, "running", "pending", { claimed: run.attempt, kwargs });
        setTimeout(
          () => void executeRun(ctx, { ...run, status: "pending", kwargs }).catch(() => undefined),
          BUSY_RETRY_MS,
        ).unref();
        return;
      }
      // The database failed it (and may take writes again by now): as a failure met outside the
      // graph, so that a queued run goes back to the queue rather than ending (API.md, "Storage failures").
      if (error !== undefined && isStorageFailure(error) && !controller.signal.aborted) throw error;
      // Drained at shutdown: the run goes back to the queue (below, once its last writes are out),
      // unless its client, which goes with this process, asked to cancel it then (runs/drain.ts).
      const drainedHere = isGraphDrained(error) && !controller.signal.aborted;
      drained = drainedHere && goesOnWithoutClient(run);
      // (One the drain window ran out on was aborted: it stopped for the shutdown all the same.)
      const stopping = drainedHere || (controller.signal.aborted && entry.control.drainRequested);
      if (stopping) log.drained = drained ? "queue" : "client";
      if (!drained) await finish(ctx, run, log, streamed, entry.action ?? (drainedHere ? "interrupt" : undefined));
    });
    if (drained) {
      await handBack(ctx, run);
      // Waiters here are answered (runs/cancel.ts, waitForRun); its stored events go on where it continues.
      ctx.broker.close(run.run_id);
    }
  } catch (error) {
    failRun(ctx, current, error, entry.action !== undefined);
  } finally {
    clearTimeout(timer);
    ctx.executing.delete(pending.run_id);
    done();
  }
}

/**
 * What is left of the run's own limit, else the server's (ms), counted from its first start: a
 * run handed back at a shutdown, or whose process died, does not start its time again.
 */
function timeoutOf(ctx: ServerContext, run: RunRecord): number | undefined {
  const own = run.kwargs.timeout_seconds;
  const limit = own !== undefined ? own * 1000 : ctx.runTimeoutMs;
  if (limit === undefined) return undefined;
  const { started_ms: started } = run.kwargs;
  return started === undefined ? limit : limit - (Date.now() - started);
}

const TIMED_OUT: ErrorBody = {
  error: "RunTimedOut",
  code: "RUN_TIMED_OUT",
  message:
    "The run took longer than its timeout and was stopped. The thread keeps its last checkpoint; start a new run to continue (raise timeout_seconds if it needs longer).",
};

async function finish(
  ctx: ServerContext,
  run: RunRecord,
  log: RunLog,
  { error, accepted, graph, final }: Streamed,
  cancel: StopReason | undefined,
): Promise<void> {
  const applied = error === undefined || accepted;
  const body = cancel === "timeout" ? TIMED_OUT : error === undefined || cancel ? null : errorBody(error);
  // The run's last writes go with the record of its end when nothing reads the thread before
  // that; else they are saved first (runs/joined-saver.ts).
  const readsState = !(final && error === undefined && !cancel);
  if (readsState) await ctx.joinedSaver?.unpark(run.thread_id);
  // Rolled back: the thread is put back as it was when the run started.
  if (cancel === "rollback") await undoRunSteps(ctx.saver, run);
  const snapshot = readsState ? await newState(ctx, run.thread_id, graph) : final;
  const announcements: Announcements = { events: [], deadlines: [] };
  const done = { type: "run.done", run_id: run.run_id } as const;
  // With none of its events stored (nobody elsewhere follows it), run.done goes with the
  // transaction that records the end (on PostgreSQL: delivered at its commit, no round trip of its own).
  const doneAtCommit = !log.relayed && ctx.bus.publishIn !== undefined;
  // One transaction: the answers settled, the thread brought up to date and the run marked done
  // together, so whoever sees the run done reads the new state.
  const status: RunStatus =
    cancel === "timeout" ? "timeout" : cancel ? "interrupted" : error !== undefined ? "error" : "success";
  const { next, outcome } = await finishWith(ctx, run.thread_id, async (tx) => {
    // The run is recorded first, in the round trip of the sync's reads (which no longer count it active).
    const record =
      cancel === "rollback"
        ? deleteRunStatement(run.run_id)
        : moveStatement(run.run_id, "running", status, { error: body, claimed: run.attempt });
    const { thread, active, first } = await syncThreadIn(
      tx,
      run.thread_id,
      snapshot,
      { error: threadError(body, error, cancel), first: record, taken: applied ? run.kwargs.answers : undefined },
      announcements,
    );
    // Not recorded: another process took the run for lost while this one could not renew its
    // lease (runs/lease.ts). A queued run goes on under its new claim, which ends it; a stream
    // or wait run was ended RUN_LOST.
    const recorded = first.length > 0;
    if (recorded && doneAtCommit) announcements.events.unshift(done);
    // Settled by whoever records the run's end (sent with the commit). A rolled-back run's
    // answers are forgotten: its questions are open again.
    if (recorded && cancel === "rollback") await tx.forgetAnswers(run.run_id);
    else if (recorded) await tx.settleAnswers(run.run_id, applied);
    await announceAtCommit(ctx, tx, announcements);
    if (!recorded) return { next: undefined, outcome: undefined };
    const final = cancel === "rollback" ? undefined : { ...run, status, error: body };
    return { next: active[0], outcome: { run: final, thread } };
  });
  log.outcome = outcome;
  // Not recorded here: the answers are settled by whoever records the end (its waiters here follow it below).
  if (outcome) log.accept(applied ? undefined : error);
  await announce(ctx, announcements);
  // Its end is recorded elsewhere: waiters here follow it through the store, as a requeued run's.
  if (!outcome) return ctx.broker.close(run.run_id);
  countRunEnd(ctx, cancel === "rollback" ? "rolled_back" : status);
  await tellEnd(ctx, run.run_id, log, body, doneAtCommit ? undefined : done);
  if (next?.status === "pending") await ctx.dispatcher.dispatch(next);
}

/**
 * The thread's error after the run: its failure; none after a success or a cancel; unchanged
 * (undefined) when its answers were refused, since nothing ran: a thread a failure stopped
 * between steps stays in error, not `interrupted` with nothing to answer.
 */
function threadError(
  body: ErrorBody | null,
  error: unknown,
  cancel: StopReason | undefined,
): ErrorBody | null | undefined {
  if (cancel || !body) return null;
  return isRefusal(error) ? undefined : body;
}

/**
 * Ends the log of a run whose end this process recorded (with `error` first for a failure), and
 * publishes `done` unless the record's commit carried it.
 */
async function tellEnd(
  ctx: ServerContext,
  runId: string,
  log: RunLog,
  body: ErrorBody | null,
  done: { type: "run.done"; run_id: string } | undefined,
): Promise<void> {
  // Drained at shutdown, its client is told so (and where to go on), not left with a partial state.
  const told = log.drained ? errorBody(new ServerStoppingError(runId, false)) : body;
  if (told) log.push("error", told);
  log.push("end", null);
  ctx.broker.close(runId);
  // Followed from elsewhere (even if asked only after run.done was settled): its stored events go after a while.
  const relay = log.relayed ? ctx.runEvents : undefined;
  relay?.release(runId);
  if (!done) return;
  // Stored before run.done is heard, so a follower elsewhere finds the end when it looks: sent
  // in the statement that stores the run's last events (the bus on its own if that fails).
  const stored = relay
    ? await relay.flush([done]).then(
        () => true,
        () => false,
      )
    : false;
  if (!stored) await ctx.bus.publish(done);
}

/** The thread's state after the run, read through the graph that ran (or the thread's). */
async function newState(
  ctx: ServerContext,
  threadId: string,
  graph: CompiledStateGraph | undefined,
): Promise<StateSnapshot | undefined> {
  if (!graph) return readSnapshot(ctx, threadId);
  return graph.getState({ configurable: { thread_id: threadId } });
}
