/**
 * What a run tells its stream: chunks are built only for modes someone reads, subgraph runs
 * emit under their namespace, and `debug` wraps checkpoint and task events.
 */
import { isOutputKey, type OutputKeys } from "../algo/select-output.js";
import type { GraphSpec } from "../algo/spec.js";
import type { PreparedTask } from "../algo/tasks.js";
import type { Write } from "../algo/writes.js";
import type { RunnableConfig } from "../checkpoint/types.js";
import { INTERRUPT, START } from "../constants.js";
import type { Interrupt } from "../interrupt/record.js";
import { publicInterrupt } from "../interrupt/record.js";
import type { TaskOutcome } from "../runner/outcome.js";
import { currentTask } from "../runner/scope.js";
import { errorRecord } from "../thread/pending.js";
import type { Emitter, StreamMode } from "./emitter.js";
import { streamedTaskMetadata } from "./task-metadata.js";

/** The checkpoint a `values` chunk shows, as streamEvents v3 tells it before the chunk. */
export interface CheckpointEnvelope {
  id: string;
  parent_id?: string;
  step: number;
  source: string;
}

/**
 * Chunks held per stream (shared by a run and its subgraphs' runs), in the order they were
 * held: whatever any level tells next releases them all first, parents before children.
 */
const heldChunks = new WeakMap<Emitter, Array<[ns: string, mode: StreamMode, chunk: unknown]>>();

export class RunEvents {
  /**
   * Where the run's `__interrupt__` chunk is tagged, when not its own namespace: a root run
   * that time-travels into a subgraph tags it with that subgraph's namespace, as LangGraph.js does.
   */
  interruptNs?: string;

  constructor(
    private readonly emitter: Emitter | undefined,
    private readonly ns: string,
    private readonly spec: GraphSpec,
    private readonly step: () => number,
    /** The checkpoint the state is at (v3's envelopes), if it has one. */
    private readonly envelope: () => CheckpointEnvelope | undefined = () => undefined,
    /** The run's `outputKeys`: as in LangGraph, `updates` show writes to these only (one key: its value alone). */
    private readonly outputKeys?: OutputKeys,
  ) {}

  /** Whether a write to `key` is part of a node's streamed update. */
  private streams(key: string): boolean {
    return isOutputKey(this.spec, this.outputKeys, key);
  }

  wants(mode: StreamMode): boolean {
    const emitter = this.emitter;
    return emitter?.modes.has(mode) === true && (this.ns === "" || emitter.subgraphs || mode === "custom");
  }

  /**
   * A chunk told only once something else is told, or the run ends: the values a resumed run
   * starts from. A run whose answer is refused so tells nothing, and a caller can take the
   * first chunk as "the answer was taken".
   */
  hold(mode: StreamMode, chunk: () => unknown): void {
    if (!this.wants(mode)) return;
    const emitter = this.emitter!;
    let held = heldChunks.get(emitter);
    if (!held) heldChunks.set(emitter, (held = []));
    // Built now: the state moves on before the chunk is told.
    const envelope = mode === "values" && emitter.envelopes ? this.envelope() : undefined;
    if (envelope) held.push([this.ns, "checkpoints", envelope]);
    held.push([this.ns, mode, chunk()]);
  }

  flush(): void {
    const emitter = this.emitter;
    const held = emitter && heldChunks.get(emitter);
    if (!held) return;
    heldChunks.delete(emitter);
    for (const [ns, mode, chunk] of held) emitter.emit(ns, mode, chunk);
  }

  /** Whether `emit(mode)` tells anything: its mode is read, or `debug` wraps it. */
  tells(mode: StreamMode): boolean {
    return this.wants(mode) || ((mode === "checkpoints" || mode === "tasks") && this.wants("debug"));
  }

  emit(mode: StreamMode, chunk: () => unknown): void {
    const debug = (mode === "checkpoints" || mode === "tasks") && this.wants("debug");
    if (!debug && !this.wants(mode)) return;
    this.flush();
    const value = chunk();
    if (mode === "values" && this.emitter!.envelopes) {
      const envelope = this.envelope();
      if (envelope) this.emitter!.emit(this.ns, "checkpoints", envelope);
    }
    if (this.wants(mode)) this.emitter!.emit(this.ns, mode, value);
    if (debug) {
      // As LangGraph: a checkpoint event carries its checkpoint's step, a task event the step it runs in.
      const checkpoint = mode === "checkpoints";
      const type = checkpoint ? "checkpoint" : "result" in (value as object) ? "task_result" : "task";
      this.emitter!.emit(this.ns, "debug", {
        step: checkpoint ? this.step() : this.step() + 1,
        type,
        timestamp: new Date().toISOString(),
        payload: value,
      });
    }
  }

  /**
   * A node's `custom` chunk. One written inside a `task()` call comes from the node's own
   * namespace, one level below its graph (LangGraph runs a call as a task of its own).
   */
  custom(chunk: unknown): void {
    const call = this.emitter?.subgraphs ? currentTask() : undefined;
    if (call?.callSlot === undefined || !this.wants("custom")) {
      this.emit("custom", () => chunk);
      return;
    }
    this.flush();
    this.emitter!.emit(call.ns, "custom", chunk);
  }

  /** The `__interrupt__` chunk of a run that stopped (in `updates` and `values`). */
  interrupted(interrupts: readonly Interrupt[]): void {
    if (!this.emitter) return;
    this.flush();
    const ns = this.interruptNs !== undefined && this.emitter.subgraphs ? this.interruptNs : this.ns;
    for (const mode of ["updates", "values"] as const)
      if (this.wants(mode)) this.emitter.emit(ns, mode, { [INTERRUPT]: interrupts });
  }

  private stateUpdate(writes: readonly Write[]): Record<string, unknown> {
    const update: Record<string, unknown> = {};
    for (const [key, value] of writes) if (this.streams(key)) update[key] = value;
    return update;
  }

  /**
   * A node's update as LangGraph streams it: one object, or one per write when it wrote a key
   * twice; with one output key, the value written to it.
   */
  private streamedUpdate(writes: readonly Write[]): unknown {
    const keys = this.outputKeys;
    if (typeof keys === "string") return writes.findLast(([key]) => key === keys)?.[1];
    const seen = new Set<string>();
    for (const [key] of writes) {
      if (!this.streams(key)) continue;
      if (seen.has(key)) return writes.filter(([k]) => this.streams(k)).map(([k, value]) => ({ [k]: value }));
      seen.add(key);
    }
    return this.stateUpdate(writes);
  }

  /**
   * A task ended, told as LangGraph tells it when the task's writes land: a node's update (or
   * the questions it asked, as `__interrupt__` chunks), then its result (`tasks`). A result from
   * the cache, or one a resumed step reuses, is told as an update marked `cached` only.
   */
  taskEnded(outcome: TaskOutcome): void {
    if (!this.emitter || outcome.task.name === START) return;
    if (outcome.kind === "done") {
      this.emit("updates", () => {
        const chunk: Record<string, unknown> = {
          [outcome.as ?? outcome.task.name]: this.streamedUpdate(outcome.writes),
        };
        if (outcome.cached) chunk.__metadata__ = { cached: true };
        return chunk;
      });
      if (outcome.cached) return;
    } else if (outcome.kind === "interrupted") {
      const interrupts = outcome.interrupts.map(publicInterrupt);
      // A subgraph stopped by a breakpoint further down has no question of its own to tell.
      if (interrupts.length) this.interrupted(interrupts);
    }
    this.taskFinished(outcome);
  }

  /** `config`: the run's (its metadata and tags are the task's, with its node's `metadata`). */
  taskStarted(task: PreparedTask, config: RunnableConfig): void {
    if (task.name !== START)
      this.emit("tasks", () => ({
        id: task.id,
        name: task.name,
        input: task.input,
        triggers: task.triggers,
        interrupts: [],
        metadata: streamedTaskMetadata(config, this.spec.nodes.get(task.name)?.metadata),
      }));
  }

  private taskFinished(outcome: TaskOutcome): void {
    this.emit("tasks", () => ({
      id: outcome.task.id,
      name: outcome.task.name,
      result: outcome.kind === "done" ? this.stateUpdate(outcome.writes) : {},
      interrupts: outcome.kind === "interrupted" ? outcome.interrupts.map(publicInterrupt) : [],
      error: outcome.kind === "failed" ? errorRecord(outcome.error) : null,
    }));
  }
}
