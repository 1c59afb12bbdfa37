/**
 * What a run holds as it goes: the graph's place in the thread (saver, thread, namespace), the
 * working checkpoint and its channels, the step, the pending writes it started from; and how
 * it saves a checkpoint (`commit`). The start (`start.ts`) and the loop (`run.ts`) build on it.
 */

import { type Breakpoints, breakpointsOf } from "../algo/breakpoints.js";
import { checkOutputKeys, selectOutput } from "../algo/select-output.js";
import type { GraphInternals } from "../algo/spec.js";
import { type PreparedTask, prepareNextTasks, readState, subgraphNamespace } from "../algo/tasks.js";
import type { Write } from "../algo/writes.js";
import type { GraphCallbackHandler, GraphLifecycleStatus } from "../callbacks/graph-lifecycle.js";
import type { Channel } from "../channels/base.js";
import { type BaseCheckpointSaver, checkpointIdOf, checkpointNsOf, threadIdOf } from "../checkpoint/base.js";
import { callerKeys } from "../checkpoint/tuple.js";
import type { Checkpoint, CheckpointMetadata, ResumeRecord, RunnableConfig } from "../checkpoint/types.js";
import { MissingThreadIdError } from "../errors/graph.js";
import type { Interrupt, StoredInterrupt } from "../interrupt/record.js";
import type { LangChain } from "../langchain/typed.js";
import { RunControl } from "../primitives/run-control.js";
import { currentTask, type RunScope, type TaskScope } from "../runner/scope.js";
import { NO_PENDING, type PendingIndex } from "../thread/pending.js";
import { describePendingTask } from "../thread/snapshot.js";
import { checkpointToSave } from "../thread/working-checkpoint.js";
import { RunDeadline } from "./deadline.js";
import type { Emitter, StreamMode } from "./emitter.js";
import { type CheckpointEnvelope, RunEvents } from "./events.js";
import { nestedRunEmitter } from "./nested-run.js";
import { checkRunOptions, DEFAULT_RECURSION_LIMIT, durabilityOf, type RunOptions } from "./options.js";
import type { Persistence } from "./persist.js";
import type { SubgraphTarget } from "./replay.js";

export interface RunResult {
  values: Record<string, unknown>;
  interrupts: Interrupt[];
  /** Stopped before the end: at interrupts, or at a static breakpoint (no interrupts). */
  paused: boolean;
}

export abstract class RunState {
  protected readonly saver?: BaseCheckpointSaver;
  protected readonly threadId?: string;
  /** The caller's own configurable keys, which every saver call is handed (`callerKeys`). */
  protected readonly saverKeys?: Record<string, unknown>;
  protected readonly ns: string;
  protected readonly parent?: TaskScope;
  protected readonly scope: RunScope;
  protected readonly deadline: RunDeadline;
  protected readonly events: RunEvents;
  /** Static breakpoints: the run's own, else the graph's. */
  protected readonly before?: Breakpoints;
  protected readonly after?: Breakpoints;
  protected checkpoint!: Checkpoint;
  protected channels!: Map<string, Channel>;
  protected step = -1;
  /** The step of the checkpoint the run began at (-2 on a new thread, whose input is step -1). */
  protected startStep = -2;
  protected persistence!: Persistence;
  protected pending: PendingIndex = NO_PENDING;
  protected reuseFinished = false;
  protected resumeRecord?: ResumeRecord;
  protected commandWrites: Write[] = [];
  protected parents: Record<string, string> = {};
  protected subgraphTarget?: SubgraphTarget;
  /** Questions pending at the subgraph checkpoint addressed by the caller: what an answer is for. */
  protected targetPending?: StoredInterrupt[];
  /** Loaded when the run has LangChain callbacks (the caller's, or those of the messages stream). */
  protected lc?: LangChain;
  /** The caller's graph handlers, with the graph's chain run (callbacks/graph-lifecycle.ts). */
  protected lifecycle?: { readonly handlers: readonly GraphCallbackHandler[]; readonly runId: string };
  /** Continuing from a checkpoint (an answer, `invoke(null)`, a subgraph whose node runs again): handlers are told. */
  protected resuming = false;
  /** Where a paused run stopped, as the handlers are told. */
  protected pausedAt: GraphLifecycleStatus = "pending";
  /** The checkpoint the state is at (set when loaded and at each commit), as streams tell it. */
  protected at?: CheckpointAt;

  constructor(
    protected readonly graph: GraphInternals,
    protected readonly input: unknown,
    protected config: RunnableConfig,
    protected readonly options: RunOptions,
    emitter?: Emitter,
  ) {
    this.parent = currentTask();
    this.deadline = new RunDeadline(options.signal ?? this.parent?.run.signal, options.timeout, graph.stepTimeout);
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
    if (this.saver && this.threadId === undefined) throw new MissingThreadIdError(config);
    if (this.saver) this.saverKeys = callerKeys(config);
    this.scope = {
      saver: this.saver,
      threadId: this.threadId,
      // A subgraph saves under its parent's claim (the root run's, set once it holds it).
      claim: this.parent?.run.claim,
      answers: this.parent?.run.answers ?? new Map(),
      positional: graph.positional,
      emitter: this.parent ? nestedRunEmitter(this.parent.run.emitter, emitter, this.ns) : emitter,
      durability: durabilityOf(options) ?? this.parent?.run.durability ?? "sync",
      recursionLimit: options.recursionLimit ?? this.parent?.run.recursionLimit ?? DEFAULT_RECURSION_LIMIT,
      // A graph invoked inside a node without a config is still cancelled with its parent.
      signal: this.deadline.signal,
      control: options.control ?? this.parent?.run.control ?? new RunControl(),
      replay: this.parent?.run.replay,
      replayBefore: this.parent?.run.replayBefore,
      store: graph.store ?? this.parent?.run.store,
    };
    checkOutputKeys(graph.spec, options.outputKeys);
    checkRunOptions(options);
    this.events = new RunEvents(
      this.scope.emitter,
      this.ns,
      graph.spec,
      () => this.step,
      () => (this.at ? envelopeOf(this.at) : undefined),
      options.outputKeys,
    );
    this.before = breakpointsOf(options.interruptBefore) ?? graph.interruptBefore;
    this.after = breakpointsOf(options.interruptAfter) ?? graph.interruptAfter;
  }

  protected emit(mode: StreamMode, chunk: () => unknown): void {
    this.events.emit(mode, chunk);
  }

  /**
   * Whether the run told a `values` chunk (streamed or not): LangGraph's `invoke` returns the
   * last one, so a run that changed none of its output keys returns nothing of them.
   */
  valuesTold = false;
  /**
   * The last values told, kept when the state has one-step channels (an `EphemeralValue`, a
   * `Topic`): a later step may clear them, and `invoke` returns what was told, not what is left.
   */
  lastValues?: { chunk: unknown };
  private keepsToldValues?: boolean;

  protected tellValues(chunk: () => unknown): void {
    this.valuesTold = true;
    const spec = this.graph.spec;
    this.keepsToldValues ??= spec.stateKeys.some((key) => spec.ephemeralSet.has(key));
    if (this.keepsToldValues) {
      const told = chunk();
      this.lastValues = { chunk: told };
      this.events.emit("values", () => told);
    } else this.events.emit("values", chunk);
  }

  protected nextTasks(candidates?: Iterable<string>): PreparedTask[] {
    return prepareNextTasks(this.graph.spec, this.checkpoint, this.channels, this.step + 1, this.ns, candidates);
  }

  protected pendingInterrupts(tasks: readonly PreparedTask[]): StoredInterrupt[] {
    const out: StoredInterrupt[] = [];
    for (const task of tasks) {
      const record = this.pending.tasks.get(task.id);
      if (record?.interrupts && !record.done) out.push(...record.interrupts);
    }
    return out;
  }

  protected track(updated: Iterable<string>): void {
    for (const channel of updated) this.persistence.changed.add(channel);
  }

  protected values(): Record<string, unknown> {
    return readState(this.channels, this.graph.spec.stateKeys);
  }

  /** The state as `values` chunks show it: the run's `outputKeys`, else every key. */
  protected output(): unknown {
    return selectOutput(this.values(), this.options.outputKeys);
  }

  /**
   * Tells the `checkpoints` stream mode (and `debug`) the checkpoint the run is at, with the
   * tasks it runs next. As LangGraph: as a step starts from it, so after the values it holds and
   * before its tasks' results (a resumed run tells the checkpoint it continues from).
   */
  protected tellCheckpoint(tasks: readonly PreparedTask[]): void {
    const at = this.at;
    if (!this.saver || !at || !this.events.tells("checkpoints")) return;
    this.emit("checkpoints", () => {
      const event: Record<string, unknown> = {
        config: this.eventConfig(at.id),
        values: this.values(),
        metadata: at.metadata,
        next: tasks.map((t) => t.name),
        tasks: tasks.map((t) => describePendingTask(this.graph.spec, t, this.pending.tasks.get(t.id), this.threadId)),
      };
      if (at.parentId) event.parentConfig = this.eventConfig(at.parentId);
      return event;
    });
  }

  /** A checkpoint's config as streams tell it: a subgraph's carries its parents' checkpoints (`checkpoint_map`), as LangGraph's. */
  private eventConfig(checkpointId: string): RunnableConfig {
    const config = this.persistence.configFor(checkpointId);
    if (!this.ns) return config;
    return { ...config, configurable: { ...config.configurable, checkpoint_map: { ...this.parents } } };
  }

  /**
   * @param lastSave the run's claim owner when nothing is saved after this checkpoint (decided once it is built)
   * @param withNext the input task's save follows before any node runs (`Persistence.saveCheckpoint`)
   */
  protected commit(
    source: "input" | "loop" | "fork",
    lastSave?: () => string | undefined,
    withNext = false,
  ): Promise<void> {
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
    this.pending = NO_PENDING;
    this.at = { id: checkpoint.id, parentId: this.saver ? parentId : undefined, metadata };
    return this.persistence.saveCheckpoint(checkpoint, metadata, { releaseClaim: lastSave?.(), withNext });
  }
}

/** A checkpoint as streams name it. */
export interface CheckpointAt {
  id: string;
  parentId: string | undefined;
  metadata: CheckpointMetadata;
}

function envelopeOf({ id, parentId, metadata }: CheckpointAt): CheckpointEnvelope {
  return parentId
    ? { id, parent_id: parentId, step: metadata.step, source: metadata.source }
    : { id, step: metadata.step, source: metadata.source };
}
