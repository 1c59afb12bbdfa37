/**
 * What a running task knows about itself, reachable from anywhere in its call stack
 * (`interrupt()`, `task()`, a subgraph's `invoke`) through AsyncLocalStorage.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { Write } from "../algo/writes.js";
import type { BaseCache } from "../cache/base.js";
import type { BaseCheckpointSaver } from "../checkpoint/base.js";
import type { FreshAnswer, GivenAnswer, StoredInterrupt, TaskCallRecord } from "../interrupt/record.js";
import type { RunControl } from "../primitives/run-control.js";
import type { Emitter } from "../run/emitter.js";
import type { Durability } from "../run/persist.js";
import type { BaseStore } from "../store/base.js";
import type { HeldClaim } from "../thread/claim.js";

export interface RunScope {
  saver?: BaseCheckpointSaver;
  threadId?: string;
  /** The root run's claim on its thread, which every save of the run (its subgraphs' too) is made under. */
  claim?: HeldClaim;
  /** Answers sent with this run, by interrupt id; subgraphs pick theirs from here. */
  answers: ReadonlyMap<string, FreshAnswer>;
  /** Positional matching like LangGraph (no payload check) for this graph. */
  positional: boolean;
  /** The caller's stream, shared with subgraph runs (which emit under their namespace). */
  emitter?: Emitter;
  durability: Durability;
  /** Steps a run may take; a subgraph takes its parent's unless invoked with its own, as in LangGraph.js. */
  recursionLimit: number;
  signal?: AbortSignal;
  /** The drain switch of the whole run: a subgraph's steps check its parent's (nodes get it as `config.control`). */
  control: RunControl;
  /**
   * Time travel into a subgraph: the checkpoint each subgraph namespace starts from instead of
   * its newest (taken once, by the first run in that namespace).
   */
  replay?: Map<string, string>;
  /**
   * The parent replays an older checkpoint: a persistent subgraph (`checkpointer: true`) starts
   * from its state as it was then, its newest checkpoint before this one (once per namespace).
   */
  replayBefore?: { checkpointId: string; taken: Set<string> };
  store?: BaseStore;
}

/** The step a task belongs to: subgraphs it runs record it as their parent checkpoint. */
export interface StepOrigin {
  readonly ns: string;
  readonly checkpointId: string;
  /** The checkpoints of the graphs above, by namespace (`metadata.parents`). */
  readonly parents: Readonly<Record<string, string>>;
}

export interface TaskScope {
  taskId: string;
  node: string;
  /** The config the node was called with, for `getConfig()`. */
  config: Record<string, unknown>;
  /** What the node was called with (the state, or a Send's argument), for `getCurrentTaskInput()`. */
  input: unknown;
  ns: string;
  run: RunScope;
  /** Answers already bound to this task's interrupts, by position and by key. */
  byIndex: ReadonlyMap<number, GivenAnswer>;
  byKey: ReadonlyMap<string, GivenAnswer>;
  /** Answers used in this attempt, saved if the task pauses again. */
  used: GivenAnswer[];
  interruptCounter: number;
  /** An interrupt that was raised and not answered: it wins over whatever the node returns. */
  raised?: StoredInterrupt[];
  /** An answer that was refused (mismatch or failed validation): the run is rejected. */
  rejection?: Error;
  taskCalls: TaskCallRecord[];
  taskCallCounter: number;
  /** Saves `taskCalls` now, so a crash after a side effect does not repeat it. */
  saveTaskCalls(): Promise<void>;
  /** Set when the run has LangChain callbacks: runs a `task()` call as a chain run of its own. */
  traceCall?: <T>(name: string, index: number, input: unknown, body: () => Promise<T>) => Promise<T>;
  /** Number of subgraph invocations so far, to give each its own namespace. */
  subgraphCounter: number;
  /** Set inside a `task()` call: the call's position, which prefixes its interrupts' slots. */
  callSlot?: string;
  /** Inside a `task()` call: the node's scope, which records what was raised or refused. */
  root?: TaskScope;
  origin: StepOrigin;
  /** The task ran before and stopped (paused or failed): subgraphs it runs continue, not restart. */
  resuming: boolean;
  /** The graph's cache of results, for `task()`s with a cache policy. */
  cache?: BaseCache;
  /** Messages the node wrote with `pushMessage`, before its return's writes. */
  pushed?: Write[];
  /** Set under an idle timeout counting the node's activity: told of a task() call or a pushed message. */
  progress?: () => void;
}

/** The scope a `task()` call runs in: the node's, with its own count of interrupts. */
export function callScope(scope: TaskScope, call: number): TaskScope {
  const child = Object.create(scope) as TaskScope;
  child.interruptCounter = 0;
  child.callSlot = scope.callSlot === undefined ? String(call) : `${scope.callSlot}.${call}`;
  child.root = scope.root ?? scope;
  return child;
}

export const taskStorage = new AsyncLocalStorage<TaskScope>();

export function currentTask(): TaskScope | undefined {
  return taskStorage.getStore();
}
