/**
 * The compiled form of a graph that the pure algorithm works on: nodes with their trigger
 * channels and the writes they make after running. Built once by `compile()`.
 */
import type { BaseCache, CachePolicy } from "../cache/base.js";
import type { Channel } from "../channels/base.js";
import type { Reducer } from "../channels/binop.js";
import type { BaseCheckpointSaver } from "../checkpoint/base.js";
import type { NodeError } from "../errors/node.js";
import type { RetryPolicy } from "../runner/retry.js";
import type { TimeoutPolicy } from "../runner/timeout.js";
import type { BaseStore } from "../store/base.js";
import type { Breakpoints } from "./breakpoints.js";

/** A value written to a channel by a task, an input or an update. */
export type Write = readonly [channel: string, value: unknown];

/**
 * What a node's `readInput` gives when the node is not to run though triggered: a channel it is
 * triggered by is empty (a low-level node triggered by one of several channels), as in LangGraph.js.
 */
export const NO_TASK: unique symbol = Symbol("interlude.noTask");

/** A channel write decided at compile time (an edge). */
export interface StaticWrite {
  channel: string;
  value: unknown;
}

export interface BranchSpec {
  path: (state: any, config: any) => unknown;
  /** Return value -> node name. */
  pathMap?: Record<string, string>;
  /** A Runnable given as the path: it reports its own LangChain run (a function gets one made for it). */
  runnable?: boolean;
}

export interface NodeSpec {
  name: string;
  /** The user's function, or the subgraph's entry. */
  run: (input: any, config: any) => unknown;
  /** Channels whose update makes this node run. */
  triggers: readonly string[];
  /** Writes made after every successful run (static edges). */
  edges: readonly StaticWrite[];
  branches: readonly BranchSpec[];
  retryPolicy?: RetryPolicy;
  /** Limits on each attempt; an attempt past them fails with NodeTimeoutError. */
  timeout?: TimeoutPolicy;
  /** Runs once the retries are spent; its writes (under its `name`) stand for the node's. */
  errorHandler?: ErrorHandlerSpec;
  /** Results are kept in the graph's cache and reused for the same input. */
  cachePolicy?: CachePolicy;
  /** Set when the node has its own input schema: a pulled task's input is these keys of the state. */
  inputKeys?: readonly string[];
  /** Possible `Command({ goto })` destinations, for drawing and validation. */
  ends?: readonly string[];
  /** Set when the node is a compiled subgraph. */
  subgraph?: GraphInternals;
  /** The graphs a function node declared it runs (`addNode(name, fn, { subgraphs })`). */
  declaredSubgraphs?: readonly unknown[];
  /** The node's own `metadata`, added to its config's. */
  metadata?: Record<string, unknown>;
  /**
   * A node's input read from the channels it reads (a low-level node's, a one-channel state's),
   * instead of the state; NO_TASK when the node is not to run.
   */
  readInput?: (channels: ReadonlyMap<string, Channel>) => unknown;
  /** What `updateState(values, node)` writes for a low-level node: its writers run on the values. */
  updateWrites?: (values: unknown, config: unknown) => Promise<Write[]>;
}

export interface ErrorHandlerSpec {
  /** `__error_handler__<node>`, or `__default_error_handler__` for `setNodeDefaults`'s. */
  name: string;
  run: (state: any, error: NodeError, config: any) => unknown;
  /** The default handler runs under the graph's default retry policy (as LangGraph.js's); a node's own, once. */
  retryPolicy?: RetryPolicy;
}

export interface GraphSpec {
  nodes: ReadonlyMap<string, NodeSpec>;
  /** A fresh, empty channel for every channel name. */
  channelFactories: ReadonlyMap<string, () => Channel>;
  /** State keys, in declaration order. */
  stateKeys: readonly string[];
  stateKeySet: ReadonlySet<string>;
  /** State keys no checkpoint or pending write stores (`UntrackedValue`). */
  untrackedKeys: ReadonlySet<string>;
  reducers: ReadonlyMap<string, Reducer<any, any>>;
  /** Channels cleared when not written in a step (triggers, sends, the input). */
  ephemeralChannels: readonly string[];
  ephemeralSet: ReadonlySet<string>;
  /** Triggers of deferred nodes (`AfterFinish`): released when a step triggers no other node. */
  finishChannels: readonly string[];
  /** Channels of one's own, told of each step that does not update them (channels/instance.ts, `InstanceRoles`). */
  noticingChannels: readonly string[];
  /** channel -> nodes it triggers. */
  triggerIndex: ReadonlyMap<string, readonly string[]>;
  /** The input node (`__start__`), also in `nodes`: maps the run's input to writes. */
  start?: NodeSpec;
  /**
   * A low-level graph's input, written straight to its input channels in the "input"
   * checkpoint (it has no `__start__` node); else the input waits in `__start__`.
   */
  inputWrites?: (input: unknown) => Write[];
  /** What a snapshot's values show, when not every state key (a low-level graph: its stream channels). */
  snapshotKeys?: readonly string[];
  /** The state is this one channel (`__root__`): values read and written are its value itself. */
  rootKey?: string;
  /** A reducer needs `@langchain/core` (messages state): runs load it before their first step. */
  usesLangChain: boolean;
}

/** What a run, and a reader of its thread, need from a compiled graph (a subgraph's too). */
/** What LangGraph calls a graph compiled without a name (its runs and traces). */
export const DEFAULT_GRAPH_NAME = "LangGraph";

export interface GraphInternals {
  /** `compile({ name })`; runs and traces are named "LangGraph" when it was not given, as in LangGraph. */
  readonly name: string | undefined;
  readonly spec: GraphSpec;
  readonly checkpointer?: BaseCheckpointSaver;
  /** Long-term memory given to nodes as `config.store` (a subgraph without one uses its parent's). */
  readonly store?: BaseStore;
  /** Where nodes' and tasks' results with a cache policy are kept (`compile({ cache })`); subgraphs keep their own. */
  readonly cache?: BaseCache;
  readonly interruptBefore?: Breakpoints;
  readonly interruptAfter?: Breakpoints;
  /** LangGraph's positional answer matching, without checking the question (opt-in). */
  readonly positional: boolean;
  /**
   * How this graph keeps checkpoints when it runs as a subgraph (`compile({ checkpointer })`):
   * undefined, one history per parent task (the default); `"persistent"` (`checkpointer: true`),
   * one history under the node's name that carries over between the parent's runs; `"none"`
   * (`checkpointer: false`), no checkpoints at all.
   */
  readonly subgraphCheckpoints?: SubgraphCheckpoints;
  /** The longest a step may take (ms), LangGraph's `graph.stepTimeout`: set on the compiled graph. */
  readonly stepTimeout?: number;
}

type SubgraphCheckpoints = "persistent" | "none";

/** channel -> the nodes it triggers (`GraphSpec.triggerIndex`), in node order. */
export function indexTriggers(nodes: Iterable<NodeSpec>): Map<string, string[]> {
  const index = new Map<string, string[]>();
  for (const node of nodes) {
    for (const channel of node.triggers) {
      const list = index.get(channel);
      if (list) list.push(node.name);
      else index.set(channel, [node.name]);
    }
  }
  return index;
}

export function triggerChannel(node: string): string {
  return `branch:to:${node}`;
}

export function joinChannel(sources: readonly string[], target: string): string {
  return `join:${sources.join("+")}:${target}`;
}
