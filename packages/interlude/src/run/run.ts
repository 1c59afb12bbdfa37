/**
 * One run of a thread: load its checkpoint, apply the input or the answer, then step until
 * the graph finishes or pauses, saving as it goes.
 */
import { type Breakpoints, breakpointsOf, markInterruptSeen, shouldInterrupt } from "../algo/breakpoints.js";
import { outputWrites } from "../algo/output.js";
import type { GraphInternals } from "../algo/spec.js";
import {
  candidateNodes,
  compareTaskPaths,
  type PreparedTask,
  prepareNextTasks,
  readState,
  subgraphNamespace,
} from "../algo/tasks.js";
import {
  applyNullWrites,
  applyWrites,
  changedChannelValues,
  channelsFromCheckpoint,
  type TaskWrites,
  type Write,
} from "../algo/writes.js";
import { startCallChain, startGraphChain, startNodeChain } from "../callbacks/trace.js";
import type { Channel } from "../channels/base.js";
import { type BaseCheckpointSaver, checkpointIdOf, checkpointNsOf, threadIdOf } from "../checkpoint/base.js";
import { readingLangChain } from "../checkpoint/serde-langchain.js";
import type {
  Checkpoint,
  CheckpointMetadata,
  CheckpointTuple,
  ResumeRecord,
  RunnableConfig,
} from "../checkpoint/types.js";
import { START, TASK_RESULT } from "../constants.js";
import {
  EmptyInputError,
  GraphRecursionError,
  MissingCheckpointerError,
  MissingThreadIdError,
  RunCancelledError,
} from "../errors/graph.js";
import { answersFor, resolveResume } from "../interrupt/answers.js";
import { interrupt } from "../interrupt/interrupt.js";
import type { Interrupt } from "../interrupt/record.js";
import { publicInterrupt, type StoredInterrupt } from "../interrupt/record.js";
import { GraphInterrupt, ParentCommand } from "../interrupt/signal.js";
import { langchainLoaded, loadLangChain } from "../langchain/load.js";
import type { LangChain } from "../langchain/typed.js";
import { loadTypedLangChain } from "../langchain/typed.js";
import { type Command, isCommand } from "../primitives/command.js";
import type { TaskOutcome } from "../runner/outcome.js";
import { runTask, type TaskEnv } from "../runner/run-task.js";
import { currentTask, type RunScope, type TaskScope } from "../runner/scope.js";
import { DEFAULT_CLAIM_TTL_MS, withThreadClaim } from "../thread/claim.js";
import { loadStart } from "../thread/load.js";
import { indexPendingWrites, type PendingIndex } from "../thread/pending.js";
import { type StateSnapshot, snapshotOf } from "../thread/snapshot.js";
import { checkpointToSave, emptyCheckpoint, workingCopy } from "../thread/working-checkpoint.js";
import { abandonOnAbort } from "./abandon.js";
import type { Emitter, StreamMode } from "./emitter.js";
import { RunEvents } from "./events.js";
import { DEFAULT_ABORT_GRACE_MS, DEFAULT_RECURSION_LIMIT, type RunOptions } from "./options.js";
import { finishedWrites, saveStoppedStep } from "./outcomes.js";
import { Persistence } from "./persist.js";
import {
  newestBefore,
  replayBound,
  resolveSubgraphTarget,
  type StartPoint,
  type SubgraphTarget,
  subgraphStart,
} from "./replay.js";

export interface RunResult {
  values: Record<string, unknown>;
  interrupts: Interrupt[];
  /** Stopped before the end: at interrupts, or at a static breakpoint (no interrupts). */
  paused: boolean;
}

const NO_TASKS: readonly PreparedTask[] = [];

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function stepWrites(outcome: TaskOutcome): TaskWrites {
  return {
    name: outcome.task.name,
    triggers: outcome.task.triggers,
    writes: outcome.kind === "done" ? outcome.writes : [],
  };
}

/** A step's writes in LangGraph's task order (by task path), whatever order the tasks finished in. */
function inTaskOrder(outcomes: readonly TaskOutcome[]): readonly TaskOutcome[] {
  if (outcomes.length < 2) return outcomes;
  return [...outcomes].sort((a, b) => compareTaskPaths(a.task.path, b.task.path));
}

/** `config.store` only for graphs that have one (LangGraph's nodes see no `store` key otherwise). */
function withStore(config: Record<string, unknown>, store: unknown): Record<string, unknown> {
  if (store !== undefined) config.store = store;
  return config;
}

export class GraphRun {
  private readonly saver?: BaseCheckpointSaver;
  private readonly threadId?: string;
  private readonly ns: string;
  private readonly parent?: TaskScope;
  private readonly scope: RunScope;
  private readonly events: RunEvents;
  /** Static breakpoints: the run's own, else the graph's. */
  private readonly before?: Breakpoints;
  private readonly after?: Breakpoints;
  private checkpoint!: Checkpoint;
  private channels!: Map<string, Channel>;
  private step = -1;
  private persistence!: Persistence;
  private pending: PendingIndex = { tasks: new Map(), nullWrites: [], audit: [] };
  private reuseFinished = false;
  private resumeRecord?: ResumeRecord;
  private commandWrites: Write[] = [];
  private parents: Record<string, string> = {};
  private subgraphTarget?: SubgraphTarget;
  /** Questions pending at the subgraph checkpoint addressed by the caller: what an answer is for. */
  private targetPending?: StoredInterrupt[];
  /** Loaded when the run has LangChain callbacks (the caller's, or those of the messages stream). */
  private lc?: LangChain;
  /** `config.writer` of the nodes: chunks for the `custom` stream mode. */
  private readonly writer = (chunk: unknown): void => this.emit("custom", () => chunk);

  constructor(
    private readonly graph: GraphInternals,
    private readonly input: unknown,
    private config: RunnableConfig,
    private readonly options: RunOptions,
    emitter?: Emitter,
  ) {
    this.parent = currentTask();
    if (this.parent) {
      this.saver = graph.subgraphCheckpoints === "none" ? undefined : (this.parent.run.saver ?? graph.checkpointer);
      this.threadId = this.parent.run.threadId;
      const call = this.parent.subgraphCounter++;
      if (graph.subgraphCheckpoints === "persistent") this.ns = subgraphNamespace(this.parent.ns, true);
      else this.ns = call === 0 ? this.parent.ns : `${this.parent.ns}~${call}`;
    } else {
      this.saver = graph.checkpointer;
      this.threadId = threadIdOf(config);
      // A subgraph's checkpoint given to the parent: the parent replays from the checkpoint it
      // had then, and the subgraph from this one (time travel into a subgraph).
      const ns = checkpointNsOf(config);
      if (ns) this.subgraphTarget = { ns, checkpointId: checkpointIdOf(config) };
      this.ns = "";
    }
    if (this.saver && this.threadId === undefined) throw new MissingThreadIdError();
    this.scope = {
      saver: this.saver,
      threadId: this.threadId,
      answers: this.parent?.run.answers ?? new Map(),
      positional: graph.positional,
      emitter: this.parent?.run.emitter ?? emitter,
      durability: options.durability ?? this.parent?.run.durability ?? "sync",
      signal: options.signal,
      replay: this.parent?.run.replay,
      replayBefore: this.parent?.run.replayBefore,
      store: graph.store ?? this.parent?.run.store,
    };
    this.events = new RunEvents(this.scope.emitter, this.ns, graph.spec, () => this.step);
    this.before = breakpointsOf(options.interruptBefore) ?? graph.interruptBefore;
    this.after = breakpointsOf(options.interruptAfter) ?? graph.interruptAfter;
  }

  private emit(mode: StreamMode, chunk: () => unknown): void {
    this.events.emit(mode, chunk);
  }

  async execute(): Promise<RunResult> {
    if (!this.saver && (this.before || this.after))
      throw new MissingCheckpointerError("interruptBefore/interruptAfter");
    // A subgraph runs inside its parent's claim.
    if (!this.saver || this.parent) return this.run();
    return withThreadClaim(this.saver, this.threadId!, this.options.claimTtlMs ?? DEFAULT_CLAIM_TTL_MS, () =>
      this.run(),
    );
  }

  private run(): Promise<RunResult> {
    return this.config.callbacks === undefined || this.config.callbacks === null ? this.runSteps() : this.runTraced();
  }

  /** The run inside its chain run (a subgraph's is a child of the node that runs it). */
  private async runTraced(): Promise<RunResult> {
    this.lc = await loadTypedLangChain("Callbacks");
    const chain = await startGraphChain(this.lc, this.config, this.graph.name, this.input);
    this.config = chain.config;
    let result: RunResult;
    try {
      result = await this.runSteps();
    } catch (error) {
      await chain.fail(error);
      throw error;
    }
    await chain.end(result.values);
    return result;
  }

  private async runSteps(): Promise<RunResult> {
    // Message reducers read @langchain/core synchronously: load it before the first step.
    if (this.graph.spec.usesLangChain && !langchainLoaded()) await loadLangChain();
    const early = await this.start();
    if (early) return early;
    const result = await this.loop();
    this.events.flush();
    await this.persistence.flushUnsaved();
    await this.persistence.drain();
    if (this.options.onFinalState && !this.parent) await this.tellFinalState(this.options.onFinalState);
    return result;
  }

  /**
   * The thread's state as getState() would read it back, when this run saved the checkpoint it
   * stopped at: its values are the run's channels, its pending writes those saved against it.
   * A head that predates the run may carry writes of earlier runs, so it is not told.
   */
  private async tellFinalState(tell: (state: StateSnapshot) => void): Promise<void> {
    const saved = this.persistence.savedHead();
    if (!saved) return;
    const tuple: CheckpointTuple = {
      config: this.persistence.configFor(saved.checkpoint.id),
      checkpoint: { ...saved.checkpoint, channel_values: changedChannelValues(this.channels, this.channels.keys()) },
      metadata: saved.metadata,
      pendingWrites: saved.writes,
    };
    if (saved.parentId) tuple.parentConfig = this.persistence.configFor(saved.parentId);
    tell(await snapshotOf(this.graph, tuple, true));
  }

  // ---- start: load, then apply input or answers ----

  private async load(): Promise<{ tuple?: CheckpointTuple; head: string | null }> {
    if (!this.saver) return { head: null };
    const saver = this.saver;
    const threadId = this.threadId as string; // a run with a checkpointer has a thread
    const from = this.parent
      ? subgraphStart(this.scope, this.ns, this.graph.subgraphCheckpoints === "persistent")
      : await this.rootStart(saver);
    const { latest, tuple } = await loadStart(saver, threadId, this.ns, from && "at" in from ? from.at : undefined);
    const head = latest?.checkpoint.id ?? null;
    if (!from || !("before" in from)) return { tuple, head };
    const base = { thread_id: threadId, checkpoint_ns: this.ns };
    return { tuple: await readingLangChain(() => newestBefore(saver, base, from.before)), head };
  }

  /** The checkpoint the caller asked for, directly or through one of a subgraph's. */
  private async rootStart(saver: BaseCheckpointSaver): Promise<StartPoint | undefined> {
    if (!this.subgraphTarget) {
      const id = checkpointIdOf(this.config);
      return id ? { at: id } : undefined;
    }
    const target = await resolveSubgraphTarget(saver, this.threadId!, this.subgraphTarget);
    this.scope.replay = target.replay;
    this.events.interruptNs = this.subgraphTarget.ns;
    this.targetPending = target.pending;
    return target.parentCheckpointId ? { at: target.parentCheckpointId } : undefined;
  }

  private adopt(tuple: CheckpointTuple | undefined, head: string | null): void {
    this.checkpoint = tuple ? workingCopy(tuple.checkpoint) : emptyCheckpoint();
    this.channels = channelsFromCheckpoint(this.graph.spec, tuple?.checkpoint);
    this.step = tuple ? tuple.metadata.step : -2;
    const origin = this.parent?.origin;
    this.parents = origin ? { ...origin.parents, [origin.ns]: origin.checkpointId } : (tuple?.metadata.parents ?? {});
    this.persistence = new Persistence(
      this.saver,
      this.threadId,
      this.ns,
      this.scope.durability,
      head,
      tuple?.checkpoint.id,
    );
    if (tuple) {
      this.pending = indexPendingWrites(tuple.pendingWrites);
      this.reuseFinished = tuple.checkpoint.id === head;
    }
  }

  /** Returns a result when the run ends before stepping (a finished subgraph replayed). */
  private async start(): Promise<RunResult | undefined> {
    const { tuple, head } = await this.load();
    this.adopt(tuple, head);
    if (this.parent) return this.startNested(tuple);
    const requested = this.subgraphTarget !== undefined || checkpointIdOf(this.config) !== undefined;
    const bound = tuple && replayBound(tuple, requested, this.input, this.reuseFinished);
    if (bound) this.scope.replayBefore = { checkpointId: bound, taken: new Set() };
    if (isCommand(this.input)) {
      await this.startCommand(this.input, tuple);
      this.emitResumedValues();
      return undefined;
    }
    if (this.input === null || this.input === undefined) {
      if (!tuple)
        throw new EmptyInputError(
          `Thread "${this.threadId ?? "(none)"}" has no checkpoint to continue from. Start it with an input: invoke({ ... }, config).`,
        );
      // Replaying an older checkpoint starts a new branch, as in LangGraph.js: a "fork" copy of
      // it becomes the thread's newest checkpoint, so that even a step that pauses at once
      // leaves the thread on the new branch.
      if (!this.reuseFinished) await this.commit("fork");
      this.beginResume();
      this.emitResumedValues();
      return undefined;
    }
    await this.startInput(this.input, tuple !== undefined);
    return undefined;
  }

  private async startNested(tuple: CheckpointTuple | undefined): Promise<RunResult | undefined> {
    if (tuple) {
      const tasks = this.nextTasks();
      // The parent node runs again (it was resumed): the subgraph continues where it stopped,
      // and a subgraph that had finished is not run again. A persistent subgraph (one history
      // across the parent's runs) that finished takes a new run's input on top of its state.
      if (tasks.length > 0) {
        // Replaying an older checkpoint forks it; answering its questions continues it.
        if (!this.reuseFinished && this.scope.answers.size === 0) await this.commit("fork");
        this.beginResume();
        this.emitResumedValues();
        return undefined;
      }
      if (this.graph.subgraphCheckpoints !== "persistent" || this.parent!.resuming)
        return { values: this.values(), interrupts: [], paused: false };
    }
    await this.startInput(this.input, tuple !== undefined);
    return undefined;
  }

  /**
   * A Command with an answer continues the paused step; its update stays pending with the
   * paused checkpoint until a step completes. A Command without one (an update, a goto) starts
   * a new step: it is saved as an "input" checkpoint, so that an interrupt it leads to is
   * saved against it and past a static breakpoint the thread was paused at.
   */
  private async startCommand(command: Command, tuple: CheckpointTuple | undefined): Promise<void> {
    if (command.resume !== undefined) {
      const tasks = tuple ? this.nextTasks() : [];
      const pending = this.targetPending ?? this.pendingInterrupts(tasks);
      const reason = !tuple ? "unknown_thread" : tasks.length === 0 ? "finished" : "breakpoint";
      const resolved = resolveResume(this.threadId ?? "", pending, command, reason, this.graph.positional);
      this.scope.answers = resolved.answers;
      this.resumeRecord = resolved.record;
    } else if (!tuple) {
      throw new EmptyInputError(
        `Thread "${this.threadId ?? "(none)"}" has never run, so a Command without resume has nothing to act on. Start it with an input.`,
      );
    }
    const writes = outputWrites(this.graph.spec, "Command", command);
    this.beginResume(writes);
    if (command.resume !== undefined) this.commandWrites = writes;
    else if (writes.length) await this.commit("input");
  }

  /** A resumed run streams the state it continues from first, as LangGraph.js does. */
  private emitResumedValues(): void {
    // Held until the run says something else: a refused answer streams nothing.
    this.events.hold("values", () => this.values());
  }

  /** Applies updates waiting with the checkpoint and those sent now, then passes its breakpoint. */
  private beginResume(writes: readonly Write[] = []): void {
    if (this.reuseFinished && this.pending.nullWrites.length) {
      this.track(applyNullWrites(this.checkpoint, this.channels, this.pending.nullWrites));
    }
    if (writes.length) this.track(applyNullWrites(this.checkpoint, this.channels, writes));
    markInterruptSeen(this.checkpoint);
  }

  /** Saves the input checkpoint: the input waits in the `__start__` channel for the first step. */
  private async startInput(input: unknown, hadCheckpoint: boolean): Promise<void> {
    if (!hadCheckpoint) this.checkpoint = emptyCheckpoint();
    else this.discardPendingTasks();
    this.track(applyNullWrites(this.checkpoint, this.channels, [[START, input]]));
    this.pending = { tasks: new Map(), nullWrites: [], audit: [] };
    this.reuseFinished = false;
    await this.commit("input");
  }

  /**
   * New input on a thread that stopped mid-way (a failed or paused node): the tasks that were
   * next are dropped, as in LangGraph, and the graph runs from the input.
   */
  private discardPendingTasks(): void {
    const tasks = this.nextTasks();
    if (tasks.length === 0) return;
    const dropped = tasks.map((task) => ({ name: task.name, triggers: task.triggers, writes: [] }));
    this.track(applyWrites(this.graph.spec, this.checkpoint, this.channels, dropped));
  }

  // ---- stepping ----

  private nextTasks(candidates?: Iterable<string>): PreparedTask[] {
    return prepareNextTasks(this.graph.spec, this.checkpoint, this.channels, this.step + 1, this.ns, candidates);
  }

  private pendingInterrupts(tasks: readonly PreparedTask[]): StoredInterrupt[] {
    const out: StoredInterrupt[] = [];
    for (const task of tasks) {
      const record = this.pending.tasks.get(task.id);
      if (record?.interrupts && !record.done) out.push(...record.interrupts);
    }
    return out;
  }

  private track(updated: Iterable<string>): void {
    for (const channel of updated) this.persistence.changed.add(channel);
  }

  private values(): Record<string, unknown> {
    return readState(this.channels, this.graph.spec.stateKeys);
  }

  private async loop(): Promise<RunResult> {
    const limit = this.options.recursionLimit ?? DEFAULT_RECURSION_LIMIT;
    const { before, after } = this;
    let candidates: Iterable<string> | undefined;
    let fromInput = false;
    for (let stepsRun = 0; ; ) {
      const tasks = this.nextTasks(candidates);
      if (tasks.length === 0) {
        // As in LangGraph, a run given input spends its last step finding nothing left to run:
        // one that needs exactly `limit` node steps is over the limit.
        if (fromInput && stepsRun >= limit) throw new GraphRecursionError(limit);
        return { values: this.values(), interrupts: [], paused: false };
      }
      // A cancelled run stops at the next step boundary, its last checkpoint intact.
      if (this.scope.signal?.aborted) throw new RunCancelledError(this.scope.signal.reason);
      const onlyInput = tasks.length === 1 && tasks[0]!.name === START;
      fromInput ||= onlyInput;
      if (!onlyInput && stepsRun++ >= limit) throw new GraphRecursionError(limit);
      // The input task is not a node: breakpoints never stop at it.
      const nodes = onlyInput ? NO_TASKS : tasks;
      if (shouldInterrupt(this.checkpoint, before, nodes)) return this.pauseAtBreakpoint();
      const outcomes = await this.runStep(tasks);
      // A node that failed once the run was cancelled was most likely told to stop: not its failure to record.
      if (this.scope.signal?.aborted && outcomes.some((o) => o.kind === "failed"))
        throw new RunCancelledError(this.scope.signal.reason);
      const stop = await this.settle(tasks, outcomes);
      if (stop) return stop;
      const updated = applyWrites(
        this.graph.spec,
        this.checkpoint,
        this.channels,
        inTaskOrder(outcomes).map(stepWrites),
      );
      this.track(updated);
      this.events.updates(outcomes);
      await this.commit("loop");
      this.emit("values", () => this.values());
      if (shouldInterrupt(this.checkpoint, after, nodes)) return this.pauseAtBreakpoint();
      candidates = candidateNodes(this.graph.spec, updated);
    }
  }

  private async pauseAtBreakpoint(): Promise<RunResult> {
    await this.persistence.flushUnsaved();
    // A subgraph's breakpoint pauses the whole run: its parent task stops with no question,
    // and continuing the parent continues the subgraph from the checkpoint saved here.
    if (this.parent) {
      await this.persistence.drain();
      throw new GraphInterrupt([]);
    }
    this.events.interrupted([]);
    return { values: this.values(), interrupts: [], paused: true };
  }

  private taskEnv(checkpointId: string): TaskEnv {
    return {
      spec: this.graph.spec,
      run: this.scope,
      config: (task) => this.nodeConfig(task.ns),
      saveTaskCalls: (task, calls) => this.persistence.saveWrites(checkpointId, task.id, [[TASK_RESULT, calls]]),
      sleep,
      origin: { ns: this.ns, checkpointId, parents: this.parents },
      trace: this.lc && ((task, config) => startNodeChain(this.lc!, config, task, this.step + 1)),
      traceCall:
        this.lc &&
        ((task, config, name, index, input) =>
          startCallChain(this.lc!, config, task, this.step + 1, name, index, input)),
    };
  }

  /** What every node config of this run shares; built once (spreading the caller's config per task was ~20% of a step). */
  private nodeConfigBase?: { config: Record<string, unknown>; configurable: Record<string, unknown> };

  private nodeConfig(ns: string): Record<string, unknown> {
    // Both bases already hold every key (same order as before), so each task's config is two
    // plain clones and two stores: adding a key to a clone costs ~1 us, a store ~10 ns.
    const base = (this.nodeConfigBase ??= {
      config: withStore(
        { ...this.config, configurable: undefined, writer: this.writer, interrupt, signal: this.scope.signal },
        this.scope.store,
      ),
      configurable: { ...this.config.configurable, thread_id: this.threadId, checkpoint_ns: "" },
    });
    const configurable = { ...base.configurable };
    configurable.checkpoint_ns = ns;
    const config = { ...base.config };
    config.configurable = configurable;
    return config;
  }

  /** Runs the step's tasks concurrently; tasks already finished before a pause are not run again. */
  private async runStep(tasks: readonly PreparedTask[]): Promise<TaskOutcome[]> {
    const checkpointId = this.checkpoint.id;
    const env = this.taskEnv(checkpointId);
    const several = tasks.length > 1 && this.scope.durability !== "exit";
    const run = async (task: PreparedTask): Promise<TaskOutcome> => {
      const record = this.pending.tasks.get(task.id);
      if (record?.done && this.reuseFinished)
        return { kind: "done", task, writes: record.writes ?? [], output: undefined };
      this.events.taskStarted(task);
      const outcome = await runTask(
        env,
        task,
        record && { answers: answersFor(task, record, this.scope.answers), taskCalls: record.taskCalls ?? [] },
      );
      this.events.taskFinished(outcome);
      // With siblings, a finished task's writes are saved at once: if the step is then
      // interrupted or the process dies, it is not run again.
      if (outcome.kind === "done" && several && !this.scope.signal?.aborted)
        await this.persistence.saveWrites(checkpointId, task.id, finishedWrites(outcome.writes));
      return outcome;
    };
    const signal = this.scope.signal;
    if (!signal) return tasks.length === 1 ? [await run(tasks[0]!)] : Promise.all(tasks.map(run));
    return abandonOnAbort(Promise.all(tasks.map(run)), signal, this.options.abortGraceMs ?? DEFAULT_ABORT_GRACE_MS);
  }

  /** After a step: stop the run when a task paused, failed or had its answer refused. */
  private async settle(
    tasks: readonly PreparedTask[],
    outcomes: readonly TaskOutcome[],
  ): Promise<RunResult | undefined> {
    const rejected = outcomes.find((o) => o.kind === "rejected");
    if (rejected) throw rejected.error;
    const parentCommand = outcomes.find((o) => o.kind === "parent");
    if (parentCommand && parentCommand.kind === "parent") throw new ParentCommand(parentCommand.command);
    const stopped = outcomes.some((o) => o.kind === "interrupted" || o.kind === "failed");
    if (!stopped) return undefined;

    await this.persistence.flushUnsaved();
    const finishedSaved = tasks.length > 1 && this.scope.durability !== "exit";
    // The answers and update of this run stay with the paused checkpoint until a step completes.
    await saveStoppedStep(
      this.persistence,
      this.checkpoint.id,
      outcomes,
      finishedSaved,
      this.commandWrites,
      this.resumeRecord,
    );
    await this.persistence.drain();

    const failed = outcomes.find((o) => o.kind === "failed");
    if (failed && failed.kind === "failed") throw failed.error;
    const interrupts = outcomes.flatMap((o) => (o.kind === "interrupted" ? o.interrupts : []));
    const visible = interrupts.map(publicInterrupt);
    // A subgraph stopped by a breakpoint further down has no question of its own to stream.
    if (!this.parent || visible.length) {
      this.events.interrupted(visible);
    }
    if (this.parent) throw new GraphInterrupt(interrupts);
    return { values: this.valuesWithFinished(outcomes), interrupts: visible, paused: true };
  }

  /**
   * The paused step's finished tasks wrote their results as pending writes: they are part of
   * the state the caller sees (as getState() shows them), though the step has not completed.
   */
  private valuesWithFinished(outcomes: readonly TaskOutcome[]): Record<string, unknown> {
    const finished = inTaskOrder(outcomes).flatMap((o) => (o.kind === "done" ? o.writes : []));
    if (finished.length === 0) return this.values();
    const copy = workingCopy(this.checkpoint);
    copy.channel_values = changedChannelValues(this.channels, this.graph.spec.stateKeys);
    const channels = channelsFromCheckpoint(this.graph.spec, copy);
    applyNullWrites(copy, channels, finished);
    return readState(channels, this.graph.spec.stateKeys);
  }

  /** A saved checkpoint as the `checkpoints` stream mode (and `debug`) tells it, in LangGraph's shape. */
  private checkpointEvent(id: string, metadata: CheckpointMetadata, parentId: string | undefined) {
    const tasks = this.nextTasks().map((t) => ({ id: t.id, name: t.name, path: t.path, interrupts: [] }));
    const event: Record<string, unknown> = {
      config: this.persistence.configFor(id),
      values: this.values(),
      metadata,
      next: tasks.map((t) => t.name),
      tasks,
    };
    if (parentId) event.parentConfig = this.persistence.configFor(parentId);
    return event;
  }

  private async commit(source: "input" | "loop" | "fork"): Promise<void> {
    this.step += 1;
    const checkpoint = checkpointToSave(this.checkpoint, this.channels, this.persistence.changed);
    const metadata: CheckpointMetadata = { source, step: this.step, parents: this.parents };
    if (source === "loop") {
      const audit = this.resumeRecord ? [...this.pending.audit, this.resumeRecord] : this.pending.audit;
      if (audit.length) metadata.resume = audit;
      this.resumeRecord = undefined;
    }
    const parentId = this.persistence.parentId;
    this.checkpoint.id = checkpoint.id;
    this.checkpoint.ts = checkpoint.ts;
    this.commandWrites = [];
    this.pending = { tasks: new Map(), nullWrites: [], audit: [] };
    await this.persistence.saveCheckpoint(checkpoint, metadata);
    if (this.saver) this.emit("checkpoints", () => this.checkpointEvent(checkpoint.id, metadata, parentId));
  }
}
