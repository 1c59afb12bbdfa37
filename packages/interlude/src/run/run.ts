/**
 * One run of a thread: claim it, start (`start.ts`), then step until the graph finishes or
 * pauses, saving as it goes. Each step: the next tasks (pure, `algo/`), run concurrently
 * (`runner/`), settled (a pause or failure saves what the step did), writes applied, committed.
 */
import { shouldInterrupt } from "../algo/breakpoints.js";
import { isOutputKey, type OutputKeys, selectOutput } from "../algo/select-output.js";
import { DEFAULT_GRAPH_NAME, type GraphSpec } from "../algo/spec.js";
import { candidateNodes, compareTaskPaths, type PreparedTask, readState } from "../algo/tasks.js";
import {
  applyNullWrites,
  applyWrites,
  changedChannelValues,
  channelsFromCheckpoint,
  type TaskWrites,
  type Write,
} from "../algo/writes.js";
import {
  type GraphLifecycleStatus,
  type GraphResumeEvent,
  graphHandlersOf,
  tellLifecycle,
} from "../callbacks/graph-lifecycle.js";
import { startCallChain, startGraphChain, startNodeChain } from "../callbacks/trace.js";
import type { CheckpointTuple } from "../checkpoint/types.js";
import { NS_SEP, START, TASK_RESULT } from "../constants.js";
import { GraphRecursionError, GraphValueError, MissingCheckpointerError, RunCancelledError } from "../errors/graph.js";
import { answersFor } from "../interrupt/answers.js";
import { publicInterrupt } from "../interrupt/record.js";
import { GraphDrained, GraphInterrupt, ParentCommand } from "../interrupt/signal.js";
import { langchainLoaded, loadLangChain } from "../langchain/load.js";
import { loadTypedLangChain } from "../langchain/typed.js";
import { hasCallerCallbacks } from "../runner/idle-progress.js";
import { concurrencyLimit, mapWithLimit } from "../runner/limit.js";
import type { TaskOutcome } from "../runner/outcome.js";
import { runTask } from "../runner/policies.js";
import type { TaskEnv } from "../runner/run-task.js";
import { DEFAULT_CLAIM_TTL_MS, withThreadClaim } from "../thread/claim.js";
import { type StateSnapshot, snapshotOf } from "../thread/snapshot.js";
import { workingCopy } from "../thread/working-checkpoint.js";
import { abandonOnAbort } from "./abandon.js";
import { NodeConfigs } from "./node-config.js";
import { DEFAULT_ABORT_GRACE_MS } from "./options.js";
import { finishedWrites, saveStoppedStep } from "./outcomes.js";
import type { RunResult } from "./run-state.js";
import { RunStart } from "./start.js";

const NO_TASKS: readonly PreparedTask[] = [];

function stepWrites(outcome: TaskOutcome): TaskWrites {
  return {
    name: outcome.task.name,
    triggers: outcome.task.triggers,
    writes: outcome.kind === "done" ? outcome.writes : [],
  };
}

function isDone(outcome: TaskOutcome): boolean {
  return outcome.kind === "done";
}

/** `run(task)`, a throw turned into a rejection. */
function startedTask(
  run: (task: PreparedTask) => TaskOutcome | Promise<TaskOutcome>,
  task: PreparedTask,
): TaskOutcome | Promise<TaskOutcome> {
  try {
    return run(task);
  } catch (error) {
    return Promise.reject(error);
  }
}

/** A step's writes in LangGraph's task order (by task path), whatever order the tasks finished in. */
function inTaskOrder(outcomes: readonly TaskOutcome[]): readonly TaskOutcome[] {
  if (outcomes.length < 2) return outcomes;
  return [...outcomes].sort((a, b) => compareTaskPaths(a.task.path, b.task.path));
}

export class GraphRun extends RunStart {
  /** The most tasks of a step run at once (`maxConcurrency`), checked before the run starts. */
  private readonly maxConcurrency = concurrencyLimit(this.options.maxConcurrency, (m) => new GraphValueError(m));
  /** The config of each task, `config.writer` feeding the `custom` stream mode. */
  private nodeConfigs?: NodeConfigs;
  /** The owner of the claim this run holds on its thread (a subgraph runs inside its parent's: none). */
  private get claimOwner(): string | undefined {
    return this.parent ? undefined : this.scope.claim?.owner;
  }

  /** Not an async function: the run's own promise is handed back (every promise a run makes costs its async-context hooks). */
  execute(): Promise<RunResult> {
    const running = this.executeClaimed();
    return this.deadline.timed ? running.finally(() => this.deadline.end()) : running;
  }

  private executeClaimed(): Promise<RunResult> {
    if (!this.saver && (this.before || this.after))
      return Promise.reject(new MissingCheckpointerError("interruptBefore/interruptAfter"));
    // Cancelled before it began: nothing is claimed or saved (not even the input).
    if (this.scope.signal?.aborted) return Promise.reject(new RunCancelledError(this.scope.signal.reason));
    // A subgraph runs inside its parent's claim.
    if (!this.saver || this.parent) return this.run();
    return withThreadClaim(this.saver, this.threadId!, this.options.claimTtlMs ?? DEFAULT_CLAIM_TTL_MS, (claim) => {
      this.scope.claim = claim;
      return this.run();
    });
  }

  private run(): Promise<RunResult> {
    return hasCallerCallbacks(this.config.callbacks) ? this.runTraced() : this.runSteps();
  }

  /** The run inside its chain run (a subgraph's is a child of the node that runs it). */
  private async runTraced(): Promise<RunResult> {
    this.lc = await loadTypedLangChain("Callbacks");
    const chain = await startGraphChain(this.lc, this.config, this.graph.name ?? DEFAULT_GRAPH_NAME, this.input);
    const handlers = graphHandlersOf(this.config.callbacks);
    if (handlers) this.lifecycle = { handlers, runId: chain.runId };
    this.config = chain.config;
    let result: RunResult;
    try {
      result = await this.runSteps();
      if (this.lifecycle && result.paused && !this.parent)
        await tellLifecycle(this.lifecycle.handlers, {
          ...this.lifecycleAt(this.pausedAt),
          interrupts: result.interrupts,
        });
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
    if (this.lifecycle && this.resuming) await tellLifecycle(this.lifecycle.handlers, this.lifecycleAt("pending"));
    const result = await this.loop();
    this.events.flush();
    const flushing = this.persistence.flushUnsaved();
    if (flushing) await flushing;
    const draining = this.persistence.drain();
    if (draining) await draining;
    if (this.options.onFinalState && !this.parent) await this.tellFinalState(this.options.onFinalState);
    return result;
  }

  /** What the graph handlers are told of where the run stands. */
  private lifecycleAt(status: GraphLifecycleStatus): GraphResumeEvent {
    return {
      runId: this.lifecycle?.runId,
      status,
      checkpointId: this.checkpoint.id,
      checkpointNs: this.ns ? this.ns.split(NS_SEP) : [],
    };
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
    tell(snapshotOf(this.graph, tuple, true));
  }

  private async loop(): Promise<RunResult> {
    const limit = this.scope.recursionLimit;
    // As LangGraph.js's loop: the run may reach step `limit + 2` past the checkpoint it began at.
    // A run given input spends two of those steps before its nodes (its input checkpoint and its
    // START step), a Command without an answer one (its input checkpoint); a continued or resumed
    // run has them all for its nodes.
    const lastStep = this.startStep + limit + 2;
    const { before, after } = this;
    let candidates: Iterable<string> | undefined;
    // The next step's tasks, prepared once the checkpoint before it is built.
    let next: PreparedTask[] | undefined;
    for (;;) {
      const tasks = next ?? this.nextTasks(candidates);
      next = undefined;
      this.tellCheckpoint(tasks);
      // A cancelled run stops at the next step boundary, its last checkpoint intact; cancelled
      // during its last step, it is still cancelled (as on LangGraph.js, which does not wait).
      if (this.scope.signal?.aborted) throw new RunCancelledError(this.scope.signal.reason);
      // As in LangGraph, finding nothing left to run takes a step too: a run that needs every
      // step it may reach is over the limit.
      if (this.step + 1 > lastStep) throw new GraphRecursionError(limit);
      if (tasks.length === 0) return { values: this.values(), interrupts: [], paused: false };
      const onlyInput = tasks.length === 1 && tasks[0]!.name === START;
      // The input task is not a node: breakpoints never stop at it.
      const nodes = onlyInput ? NO_TASKS : tasks;
      if (shouldInterrupt(this.checkpoint, before, nodes)) return this.pauseAtBreakpoint("interrupt_before");
      if (this.scope.control.drainRequested) return this.stopForDrain(this.scope.control.drainReason);
      const timed = this.deadline.stepStarted();
      let outcomes = this.runStep(tasks);
      if (outcomes instanceof Promise) outcomes = await outcomes;
      if (timed) this.deadline.stepEnded();
      // A node that failed once the run was cancelled was most likely told to stop: not its failure to record.
      if (this.scope.signal?.aborted && outcomes.some((o) => o.kind === "failed"))
        throw new RunCancelledError(this.scope.signal.reason);
      // Settling is for a step that did not simply finish: skipped (a turn saved) when every task is done.
      const stop = outcomes.every(isDone) ? undefined : await this.settle(tasks, outcomes);
      if (stop) return stop;
      const stepTasks = inTaskOrder(outcomes).map(stepWrites);
      const updated = applyWrites(this.graph.spec, this.checkpoint, this.channels, stepTasks);
      this.track(updated);
      candidates = candidateNodes(this.graph.spec, updated);
      // No step follows: this checkpoint is the run's last save and may carry its claim's release.
      await this.commit("loop", () => ((next = this.nextTasks(candidates)).length ? undefined : this.claimOwner));
      // As LangGraph: a step that changed no state key (its nodes returned nothing) streams no values.
      if (writesOutput(this.graph.spec, stepTasks, this.options.outputKeys)) this.tellValues(() => this.output());
      if (shouldInterrupt(this.checkpoint, after, nodes)) return this.pauseAtBreakpoint("interrupt_after");
    }
  }

  /** Stops at this step boundary for a drain, the checkpoint before the step saved. */
  private async stopForDrain(reason: string | undefined): Promise<never> {
    const flushing = this.persistence.flushUnsaved();
    if (flushing) await flushing;
    const draining = this.persistence.drain();
    if (draining) await draining;
    throw new GraphDrained(reason);
  }

  private async pauseAtBreakpoint(at: GraphLifecycleStatus): Promise<RunResult> {
    this.pausedAt = at;
    const flushing = this.persistence.flushUnsaved();
    if (flushing) await flushing;
    // A subgraph's breakpoint pauses the whole run: its parent task stops with no question,
    // and continuing the parent continues the subgraph from the checkpoint saved here.
    if (this.parent) {
      const draining = this.persistence.drain();
      if (draining) await draining;
      throw new GraphInterrupt([]);
    }
    this.events.interrupted([]);
    return { values: this.values(), interrupts: [], paused: true };
  }

  private taskEnv(checkpointId: string): TaskEnv {
    // Built at the first step: a traced run's config is its chain run's, known only then.
    const configs = (this.nodeConfigs ??= new NodeConfigs(
      this.config,
      this.threadId,
      (chunk) => this.events.custom(chunk),
      this.scope.signal,
      this.scope.control,
      this.scope.store,
      this.scope.recursionLimit,
    ));
    return {
      spec: this.graph.spec,
      run: this.scope,
      config: (task, attempt) =>
        configs.for(task, this.step + 1, checkpointId, attempt, this.graph.spec.nodes.get(task.name)!.metadata),
      saveTaskCalls: (task, calls) => this.persistence.saveWrites(checkpointId, task.id, [[TASK_RESULT, calls]]),
      origin: { ns: this.ns, checkpointId, parents: this.parents },
      cache: this.graph.cache,
      trace: this.lc && ((task, config) => startNodeChain(this.lc!, config, task, this.step + 1)),
      traceCall:
        this.lc &&
        ((task, config, name, index, input) =>
          startCallChain(this.lc!, config, task, this.step + 1, name, index, input)),
    };
  }

  /**
   * Runs the step's tasks concurrently; tasks already finished before a pause are not run again.
   * A lone synchronous task gives its outcome synchronously (no turns of the event loop).
   */
  private runStep(tasks: readonly PreparedTask[]): TaskOutcome[] | Promise<TaskOutcome[]> {
    const checkpointId = this.checkpoint.id;
    const env = this.taskEnv(checkpointId);
    const several = tasks.length > 1 && this.scope.durability !== "exit";
    const finished = (outcome: TaskOutcome): TaskOutcome | Promise<TaskOutcome> => {
      this.events.taskEnded(outcome);
      // With siblings, a finished task's writes are saved at once: if the step is then
      // interrupted or the process dies, it is not run again.
      if (outcome.kind === "done" && several && !this.scope.signal?.aborted)
        return this.persistence
          .saveWrites(checkpointId, outcome.task.id, finishedWrites(outcome.writes, this.graph.spec.untrackedKeys))
          .then(() => outcome);
      return outcome;
    };
    const lone = tasks.length === 1;
    // Tasks a resumed step reuses are told first, as updates marked cached, and then started with
    // the others but never finished (as LangGraph tells them).
    const reused = this.reuseFinished ? this.reusedOutcomes(tasks) : undefined;
    const run = (task: PreparedTask): TaskOutcome | Promise<TaskOutcome> => {
      this.events.taskStarted(task, this.config);
      const reusedOutcome = reused?.get(task);
      if (reusedOutcome) return reusedOutcome;
      const record = this.pending.tasks.get(task.id);
      const outcome = runTask(
        env,
        task,
        record && {
          answers: answersFor(task, record, this.scope.answers),
          taskCalls: record.taskCalls ?? [],
          failure: record.interrupts?.length ? record.error : undefined,
        },
      );
      if (outcome instanceof Promise) return outcome.then(finished);
      // A synchronous sibling reports its end once every task of the step has reported its
      // start, as LangGraph streams them ("tasks", "debug").
      return lone ? finished(outcome) : Promise.resolve(outcome).then(finished);
    };
    const signal = this.scope.signal;
    const abandoning = <T>(work: Promise<T>) =>
      signal ? abandonOnAbort(work, signal, this.options.abortGraceMs ?? DEFAULT_ABORT_GRACE_MS) : work;
    if (lone) {
      // A synchronous node cannot be abandoned: its outcome is taken as it is, without a turn.
      const outcome = run(tasks[0]!);
      return outcome instanceof Promise ? abandoning(outcome.then((o) => [o])) : [outcome];
    }
    // Each task started whatever another's start threw, as when they were async functions; not
    // async functions, which cost each task of a fan-out two more promises.
    const limit = this.maxConcurrency;
    return abandoning(
      limit !== undefined && tasks.length > limit
        ? mapWithLimit(tasks, limit, (task) => startedTask(run, task))
        : Promise.all(tasks.map((task) => startedTask(run, task))),
    );
  }

  /** The step's tasks that finished before the run paused: their outcomes, told now. */
  private reusedOutcomes(tasks: readonly PreparedTask[]): Map<PreparedTask, TaskOutcome> | undefined {
    let reused: Map<PreparedTask, TaskOutcome> | undefined;
    for (const task of tasks) {
      const record = this.pending.tasks.get(task.id);
      if (!record?.done) continue;
      const outcome: TaskOutcome = { kind: "done", task, writes: record.writes ?? [], output: undefined };
      this.events.taskEnded({ ...outcome, cached: true });
      (reused ??= new Map()).set(task, outcome);
    }
    return reused;
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

    const flushing = this.persistence.flushUnsaved();

    if (flushing) await flushing;
    const finishedSaved = tasks.length > 1 && this.scope.durability !== "exit";
    // The answers and update of this run stay with the paused checkpoint until a step completes.
    await saveStoppedStep(this.persistence, {
      checkpointId: this.checkpoint.id,
      outcomes,
      finishedSaved,
      commandWrites: this.commandWrites,
      audit: this.resumeRecord,
      claimOwner: this.claimOwner,
      untracked: this.graph.spec.untrackedKeys,
    });
    const draining = this.persistence.drain();
    if (draining) await draining;

    const failed = outcomes.find((o) => o.kind === "failed");
    if (failed && failed.kind === "failed") throw failed.error;
    // A subgraph drained: the parent stops too, its task to run again (and the subgraph to go on) when continued.
    const drained = outcomes.find((o) => o.kind === "interrupted" && o.drained !== undefined);
    if (drained?.kind === "interrupted") throw new GraphDrained(drained.drained);
    // Each task's questions were told as it stopped (RunEvents.taskEnded).
    const interrupts = outcomes.flatMap((o) => (o.kind === "interrupted" ? o.interrupts : []));
    if (this.parent) throw new GraphInterrupt(interrupts);
    const values = this.valuesWithFinished(outcomes);
    // As LangGraph: the state with the finished tasks' writes closes the stream of a paused step.
    const finished = outcomes.filter((o) => o.kind === "done");
    if (writesOutput(this.graph.spec, finished, this.options.outputKeys))
      this.tellValues(() => selectOutput(values, this.options.outputKeys));
    // A subgraph's breakpoint stopped the step: no task had a question to tell.
    if (interrupts.length === 0) this.events.interrupted([]);
    return { values, interrupts: interrupts.map(publicInterrupt), paused: true };
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
    // Untracked keys are in no checkpoint, not even this copy: they carry over from the run.
    for (const key of this.graph.spec.untrackedKeys) {
      const live = this.channels.get(key)!;
      if (live.isAvailable()) channels.get(key)!.update([live.get()]);
    }
    applyNullWrites(copy, channels, finished);
    return readState(channels, this.graph.spec.stateKeys);
  }
}

/**
 * As LangGraph: a step streams values when a task wrote what the caller reads (its `outputKeys`,
 * else the state); a one-step channel cleared for want of writes does not count.
 */
function writesOutput(
  spec: GraphSpec,
  tasks: ReadonlyArray<{ writes: readonly Write[] }>,
  outputKeys: OutputKeys | undefined,
): boolean {
  for (const { writes } of tasks)
    for (const [channel] of writes) if (isOutputKey(spec, outputKeys, channel)) return true;
  return false;
}
