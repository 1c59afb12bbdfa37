/**
 * One run of a thread: load its checkpoint, apply the input or the answer, then step until
 * the graph finishes or pauses, saving as it goes.
 */
import { markInterruptSeen, shouldInterrupt } from "../algo/breakpoints.js";
import { outputWrites } from "../algo/output.js";
import { candidateNodes, type PreparedTask, prepareNextTasks, readState } from "../algo/tasks.js";
import {
  applyNullWrites,
  applyWrites,
  changedChannelValues,
  channelsFromCheckpoint,
  type TaskWrites,
  type Write,
} from "../algo/writes.js";
import type { Channel } from "../channels/base.js";
import type { BaseCheckpointSaver } from "../checkpoint/base.js";
import type {
  Checkpoint,
  CheckpointMetadata,
  CheckpointTuple,
  ResumeRecord,
  RunnableConfig,
} from "../checkpoint/types.js";
import { INTERRUPT, START, TASK_RESULT } from "../constants.js";
import {
  CheckpointNotFoundError,
  EmptyInputError,
  GraphRecursionError,
  MissingCheckpointerError,
  MissingThreadIdError,
  RunCancelledError,
} from "../errors/graph.js";
import { currentTask, type RunScope, type TaskScope } from "../interrupt/context.js";
import { GraphInterrupt, ParentCommand, publicInterrupt, type StoredInterrupt } from "../interrupt/signal.js";
import { type Command, isCommand } from "../primitives/command.js";
import type { Interrupt } from "../primitives/interrupt-record.js";
import type { TaskOutcome } from "../runner/outcome.js";
import { runTask, type TaskEnv } from "../runner/run-task.js";
import { abandonOnAbort } from "./abandon.js";
import { answersFor, resolveResume } from "./answers.js";
import { withThreadClaim } from "./claim.js";
import type { Emitter, StreamMode } from "./emitter.js";
import { RunEvents } from "./events.js";
import {
  DEFAULT_ABORT_GRACE_MS,
  DEFAULT_CLAIM_TTL_MS,
  DEFAULT_RECURSION_LIMIT,
  type GraphInternals,
  type RunOptions,
} from "./graph-internals.js";
import { finishedWrites, saveStoppedStep } from "./outcomes.js";
import { indexPendingWrites, type PendingIndex } from "./pending.js";
import { Persistence } from "./persist.js";
import { type StateSnapshot, snapshotOf } from "./snapshot.js";
import { checkpointToSave, emptyCheckpoint, workingCopy } from "./working-checkpoint.js";

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

export class GraphRun {
  private readonly saver?: BaseCheckpointSaver;
  private readonly threadId?: string;
  private readonly ns: string;
  private readonly parent?: TaskScope;
  private readonly scope: RunScope;
  private readonly events: RunEvents;
  private checkpoint!: Checkpoint;
  private channels!: Map<string, Channel>;
  private step = -1;
  private persistence!: Persistence;
  private pending: PendingIndex = { tasks: new Map(), nullWrites: [], audit: [] };
  private reuseFinished = false;
  private resumeRecord?: ResumeRecord;
  private commandWrites: Write[] = [];
  private parents: Record<string, string> = {};
  /** `config.writer` of the nodes: chunks for the `custom` stream mode. */
  private readonly writer = (chunk: unknown): void => this.emit("custom", () => chunk);

  constructor(
    private readonly graph: GraphInternals,
    private readonly input: unknown,
    private readonly config: RunnableConfig,
    private readonly options: RunOptions,
    emitter?: Emitter,
  ) {
    this.parent = currentTask();
    if (this.parent) {
      this.saver = this.parent.run.saver ?? graph.checkpointer;
      this.threadId = this.parent.run.threadId;
      const call = this.parent.subgraphCounter++;
      this.ns = call === 0 ? this.parent.ns : `${this.parent.ns}~${call}`;
    } else {
      this.saver = graph.checkpointer;
      const id = config.configurable?.thread_id;
      this.threadId = id === undefined || id === null ? undefined : String(id);
      this.ns = (config.configurable?.checkpoint_ns as string | undefined) ?? "";
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
    };
    this.events = new RunEvents(this.scope.emitter, this.ns, graph.spec, () => this.step);
  }

  private emit(mode: StreamMode, chunk: () => unknown): void {
    this.events.emit(mode, chunk);
  }

  async execute(): Promise<RunResult> {
    const breakpoints = this.options.interruptBefore ?? this.graph.interruptBefore;
    const after = this.options.interruptAfter ?? this.graph.interruptAfter;
    if (!this.saver && (breakpoints || after)) throw new MissingCheckpointerError("interruptBefore/interruptAfter");
    // A subgraph runs inside its parent's claim.
    if (!this.saver || this.parent) return this.run();
    return withThreadClaim(this.saver, this.threadId!, this.options.claimTtlMs ?? DEFAULT_CLAIM_TTL_MS, () =>
      this.run(),
    );
  }

  private async run(): Promise<RunResult> {
    const early = await this.start();
    if (early) return early;
    const result = await this.loop();
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
    tell(await snapshotOf(this.graph, tuple, false, async () => undefined));
  }

  // ---- start: load, then apply input or answers ----

  private async load(): Promise<{ tuple?: CheckpointTuple; head: string | null }> {
    if (!this.saver) return { head: null };
    const base = { thread_id: this.threadId, checkpoint_ns: this.ns };
    const wanted = this.parent ? undefined : (this.config.configurable?.checkpoint_id as string | undefined);
    const latest = await this.saver.getTuple({ configurable: base });
    if (!wanted) return { tuple: latest, head: latest?.checkpoint.id ?? null };
    const tuple = await this.saver.getTuple({ configurable: { ...base, checkpoint_id: wanted } });
    if (!tuple) throw new CheckpointNotFoundError(this.threadId!, wanted);
    return { tuple, head: latest?.checkpoint.id ?? null };
  }

  private adopt(tuple: CheckpointTuple | undefined, head: string | null): void {
    this.checkpoint = tuple ? workingCopy(tuple.checkpoint) : emptyCheckpoint();
    this.channels = channelsFromCheckpoint(this.graph.spec, tuple?.checkpoint);
    this.step = tuple ? tuple.metadata.step : -2;
    this.parents = tuple?.metadata.parents ?? (this.parent ? { [this.parent.ns]: "" } : {});
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
    if (isCommand(this.input)) {
      this.startCommand(this.input, tuple);
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
      return undefined;
    }
    await this.startInput(this.input, tuple !== undefined);
    return undefined;
  }

  private async startNested(tuple: CheckpointTuple | undefined): Promise<RunResult | undefined> {
    if (tuple) {
      const tasks = this.nextTasks();
      // The parent node runs again (it was resumed): the subgraph continues where it stopped,
      // and a subgraph that had finished is not run again.
      if (tasks.length === 0) return { values: this.values(), interrupts: [], paused: false };
      this.beginResume();
      return undefined;
    }
    await this.startInput(this.input, false);
    return undefined;
  }

  private startCommand(command: Command, tuple: CheckpointTuple | undefined): void {
    if (command.resume !== undefined) {
      const tasks = tuple ? this.nextTasks() : [];
      const pending = this.pendingInterrupts(tasks);
      const reason = !tuple ? "unknown_thread" : tasks.length === 0 ? "finished" : "breakpoint";
      const resolved = resolveResume(this.threadId ?? "", pending, command, reason);
      this.scope.answers = resolved.answers;
      this.resumeRecord = resolved.record;
    } else if (!tuple) {
      throw new EmptyInputError(
        `Thread "${this.threadId ?? "(none)"}" has never run, so a Command without resume has nothing to act on. Start it with an input.`,
      );
    }
    this.beginResume();
    const writes = outputWrites(this.graph.spec, "Command", command);
    if (writes.length) {
      this.commandWrites = writes;
      this.track(applyNullWrites(this.checkpoint, this.channels, writes));
    }
  }

  private beginResume(): void {
    if (this.reuseFinished && this.pending.nullWrites.length) {
      this.track(applyNullWrites(this.checkpoint, this.channels, this.pending.nullWrites));
    }
    markInterruptSeen(this.checkpoint);
  }

  /** Saves the input checkpoint: the input waits in the `__start__` channel for the first step. */
  private async startInput(input: unknown, hadCheckpoint: boolean): Promise<void> {
    if (!hadCheckpoint) this.checkpoint = emptyCheckpoint();
    this.track(applyNullWrites(this.checkpoint, this.channels, [[START, input]]));
    this.pending = { tasks: new Map(), nullWrites: [], audit: [] };
    this.reuseFinished = false;
    await this.commit("input");
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
    const before = this.options.interruptBefore ?? this.graph.interruptBefore;
    const after = this.options.interruptAfter ?? this.graph.interruptAfter;
    let candidates: Iterable<string> | undefined;
    for (let stepsRun = 0; ; ) {
      const tasks = this.nextTasks(candidates);
      if (tasks.length === 0) return { values: this.values(), interrupts: [], paused: false };
      // A cancelled run stops at the next step boundary, its last checkpoint intact.
      if (this.scope.signal?.aborted) throw new RunCancelledError(this.scope.signal.reason);
      const onlyInput = tasks.length === 1 && tasks[0]!.name === START;
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
      const updated = applyWrites(this.graph.spec, this.checkpoint, this.channels, outcomes.map(stepWrites));
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
    this.emit("updates", () => ({ [INTERRUPT]: [] }));
    this.emit("values", () => ({ [INTERRUPT]: [] }));
    return { values: this.values(), interrupts: [], paused: true };
  }

  private taskEnv(checkpointId: string): TaskEnv {
    return {
      spec: this.graph.spec,
      run: this.scope,
      config: (task) => this.nodeConfig(task.ns),
      saveTaskCalls: (task, calls) => this.persistence.saveWrites(checkpointId, task.id, [[TASK_RESULT, calls]]),
      sleep,
    };
  }

  /** What every node config of this run shares; built once (spreading the caller's config per task was ~20% of a step). */
  private nodeConfigBase?: { config: Record<string, unknown>; configurable: Record<string, unknown> };

  private nodeConfig(ns: string): Record<string, unknown> {
    // Both bases already hold every key (same order as before), so each task's config is two
    // plain clones and two stores: adding a key to a clone costs ~1 us, a store ~10 ns.
    const base = (this.nodeConfigBase ??= {
      config: { ...this.config, configurable: undefined, writer: this.writer, signal: this.scope.signal },
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
    if (this.parent) throw new GraphInterrupt(interrupts);
    const visible = interrupts.map(publicInterrupt);
    this.emit("updates", () => ({ [INTERRUPT]: visible }));
    this.emit("values", () => ({ [INTERRUPT]: visible }));
    return { values: this.values(), interrupts: visible, paused: true };
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
    this.checkpoint.id = checkpoint.id;
    this.checkpoint.ts = checkpoint.ts;
    this.commandWrites = [];
    this.pending = { tasks: new Map(), nullWrites: [], audit: [] };
    await this.persistence.saveCheckpoint(checkpoint, metadata);
    this.emit("checkpoints", () => ({
      config: this.persistence.configFor(checkpoint.id),
      metadata,
      values: this.values(),
    }));
  }
}
