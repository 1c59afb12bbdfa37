/**
 * What a node receives besides its state, and the helpers that reach it from anywhere in the
 * node's call stack: `getConfig()`, `getStore()`, `getWriter()` (LangGraph's names and types).
 */
import type { RunnableConfig } from "../checkpoint/types.js";
import { OutsideNodeError } from "../errors/store.js";
import type { RunControl } from "../primitives/run-control.js";
import type { ExecutionInfo as TaskExecutionInfo } from "../run/task-metadata.js";
import { currentTask } from "../runner/scope.js";
import type { BaseStore } from "../store/base.js";

/** `true` when `A` and `B` are the same type (as LangGraph.js tells a type parameter left to its default). */
type IsEqual<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/**
 * The run-time services of a node, as LangGraph 1.x types them: `Runtime<Context, Interrupt, Writer>`,
 * where `Interrupt` and `Writer` type `interrupt` and `writer` when given.
 */
export interface Runtime<ContextType = Record<string, unknown>, InterruptType = unknown, WriterType = unknown> {
  configurable?: ContextType;
  /** The run's context (`invoke(input, { context })`), typed by the graph's context schema. */
  context?: ContextType;
  /** The store given to `compile({ store })`. */
  store?: BaseStore;
  /** Sends a chunk to the `custom` stream mode (dropped when nobody streams it). */
  writer: IsEqual<WriterType, unknown> extends true ? (chunk: unknown) => void : WriterType;
  /** `interrupt()`, handed to the node (the same function as the exported one). */
  interrupt: IsEqual<InterruptType, unknown> extends true ? (value: unknown, options?: any) => any : InterruptType;
  /** Aborted when the run is cancelled. */
  signal: AbortSignal;
  /** Which attempt of which task this is, on which checkpoint (set for every node). */
  executionInfo?: ExecutionInfo;
  /** The assistant, graph and user the run is for, from the run's configurable or metadata (as LangGraph.js builds it). */
  serverInfo?: ServerInfo;
  /** The run's drain switch: `control.requestDrain(reason)` stops the run at its next step boundary (`GraphDrained`). */
  control?: RunControl;
}

/** Which attempt of which task runs (`config.executionInfo`, set for every node). */
export interface ExecutionInfo extends Readonly<TaskExecutionInfo> {
  /** LangGraph.js copies `config.runId` here; Interlude does not. */
  readonly runId?: undefined;
}

/** What LangGraph Server tells a node of its deployment (LangGraph.js's type). */
export interface ServerInfo {
  readonly assistantId: string;
  readonly graphId: string;
  readonly user?: Record<string, any>;
}

/** The `config` a node gets as its second argument. */
export interface LangGraphRunnableConfig<ContextType extends Record<string, any> = Record<string, any>>
  extends RunnableConfig,
    Partial<Omit<Runtime<ContextType>, "configurable">> {
  tags?: string[];
  metadata?: Record<string, unknown>;
  /** LangChain's callbacks (typed loosely: so that a node's config is a LangChain `RunnableConfig`). */
  callbacks?: any;
  runName?: string;
  runId?: string;
}

/**
 * The `config` a node function written inline in `addNode` is given, as LangGraph.js types it
 * (its `Runtime`): `writer`, `interrupt` and `signal` are there, `context` is typed by the graph's
 * context schema (`any` without one). It is a `LangGraphRunnableConfig` too, and a LangChain
 * `RunnableConfig`. The context is typed as given, since a run checks it against the schema
 * before it starts (LangGraph.js types it optional: a run given none, whose `configurable`
 * passed the check instead, leaves it undefined). `signal` is typed as there, as LangGraph.js
 * gives every run one; Interlude's runs have one when given a `signal`, a `timeout` or a
 * `stepTimeout`.
 */
export type NodeRuntime<ContextType extends Record<string, any> = any> = LangGraphRunnableConfig<ContextType> & {
  // `any`, as a node typed `(state, runtime: Runtime<Context>)` declares `configurable?: Context`.
  configurable: any;
  context: ContextType;
  writer: (chunk: unknown) => void;
  interrupt: (value: unknown, options?: any) => any;
  signal: AbortSignal;
};

/**
 * The config of the node running now, or undefined outside a node (as in LangGraph.js, so code
 * shared between nodes and plain callers can test for it; `getStore()`/`getWriter()` throw there).
 * Typed as LangGraph.js types it, for the code inside nodes that calls it.
 */
export function getConfig(): LangGraphRunnableConfig {
  return currentTask()?.config as LangGraphRunnableConfig;
}

/** The graph's store (`compile({ store })`), or undefined when it has none. */
export function getStore(config?: LangGraphRunnableConfig): BaseStore | undefined {
  if (config) return config.store;
  const scope = currentTask();
  if (!scope) throw new OutsideNodeError("getStore()");
  return scope.config.store as BaseStore | undefined;
}

/**
 * What the running node was called with: the graph's state (or a `Send`'s argument). Tools run
 * by a node read the state this way.
 */
export function getCurrentTaskInput<T = unknown>(_config?: LangGraphRunnableConfig): T {
  const scope = currentTask();
  if (!scope) throw new OutsideNodeError("getCurrentTaskInput()");
  return scope.input as T;
}

/** The writer of the `custom` stream mode. */
export function getWriter(config?: LangGraphRunnableConfig): ((chunk: unknown) => void) | undefined {
  if (config) return config.writer;
  const scope = currentTask();
  if (!scope) throw new OutsideNodeError("getWriter()");
  return scope.config.writer as ((chunk: unknown) => void) | undefined;
}

/** Sends `chunk` to the run's "custom" stream from inside a node; does nothing when nobody streams that mode. */
export function writer(chunk: unknown): void {
  getWriter()?.(chunk);
}
