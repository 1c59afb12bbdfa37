/**
 * What a `StateGraph` (or a non-state `Graph`) declares (its state, nodes, edges and branches),
 * as `compile()`, the compiled graph and its drawing read it. Kept apart from the builders so
 * that they need not import them (the builders import them).
 */
import type { GraphInternals } from "../algo/spec.js";
import type { CachePolicy } from "../cache/base.js";
import { END, NS_END, NS_SEP, START } from "../constants.js";
import { GraphValidationError } from "../errors/graph.js";
import type { NodeError } from "../errors/node.js";
import type { StandardSchemaV1 } from "../interrupt/standard-schema.js";
import type { RetryPolicy } from "../runner/retry.js";
import { type TimeoutPolicy, timeoutPolicy } from "../runner/timeout.js";
import type { StateSpec } from "./annotation.js";
import { asRunnable, isRunnable, type RunnableLike } from "./runnable.js";

/** Called with the failed node's input once its retries are spent; returns an update or a Command instead. */
export type NodeErrorHandler = (state: any, error: NodeError, config: any) => unknown;

/** What `addNode` and `setNodeDefaults` both set (a node's own value wins over the default). */
export interface NodePolicyOptions {
  retryPolicy?: RetryPolicy;
  /** Keep the node's results in the graph's cache (`compile({ cache })`); `true` for the defaults, `false` to opt out. */
  cachePolicy?: CachePolicy | boolean;
  /** Limits on each attempt, in ms (a number is `runTimeout`). */
  timeout?: number | TimeoutPolicy;
  errorHandler?: NodeErrorHandler;
}

export interface AddNodeOptions extends NodePolicyOptions {
  /** Nodes this node may route to with `Command({ goto })` (for drawing and validation). */
  ends?: readonly string[];
  /** Added to the `metadata` of the node's config (after the `langgraph_*` keys, which it may override). */
  metadata?: Record<string, unknown>;
  /** Compiled graphs a function node runs, for `getSubgraphs()`. */
  subgraphs?: readonly unknown[];
  /** Not supported (LangSmith's per-node redaction): refused with UnsupportedFeatureError rather than ignored. */
  tracePolicy?: unknown;
  /** Run the node only once nothing else is left to run (after the other branches finished). */
  defer?: boolean;
  /**
   * The node's own input schema: it is called with only these keys, and keys the graph's state
   * lacks become private channels (in the thread's state, not in the run's input or output).
   */
  input?: unknown;
}

/** A compiled graph added as a node: it runs through its `invoke`, as a subgraph of the run. */
interface SubgraphNode extends GraphInternals {
  invoke(input: unknown, config?: any): Promise<unknown>;
}

/**
 * A node as the builder keeps it (`builder.nodes[name]`): what compile reads, and the fields of
 * LangGraph.js's node spec a program may read (the node's own options, never the defaults of
 * `setNodeDefaults`, which compile applies without writing them here).
 */
export interface NodeDefinition {
  readonly name: string;
  readonly action: ((state: any, config: any) => unknown) | SubgraphNode;
  readonly options: AddNodeOptions;
  /** The keys of its `input` schema, when it has one. */
  readonly inputKeys?: readonly string[];
  /** What was added (LangGraph.js's name): `action`, or the Runnable `action` calls. */
  readonly runnable: unknown;
  readonly retryPolicy?: RetryPolicy;
  /** As LangGraph.js keeps it: `true` is `{}`, `false` stays `false` (the node opts out of a default). */
  readonly cachePolicy?: CachePolicy | false;
  readonly timeout?: TimeoutPolicy;
  readonly metadata?: Record<string, unknown>;
  readonly subgraphs?: readonly unknown[];
  readonly ends?: readonly string[];
  readonly defer?: boolean;
  readonly input?: unknown;
}

/** The builder's record of a node added with `addNode(name, runnable, options)`, run through `action`. */
export function nodeDefinition(
  name: string,
  action: NodeDefinition["action"],
  options: AddNodeOptions,
  inputKeys?: readonly string[],
  runnable: unknown = action,
): NodeDefinition {
  const { retryPolicy, cachePolicy, metadata, ends, defer, input } = options;
  const subgraphs = typeof action === "function" ? options.subgraphs : [action];
  return {
    name,
    action,
    options,
    inputKeys,
    runnable,
    retryPolicy,
    cachePolicy: cachePolicy === true ? {} : cachePolicy,
    timeout: timeoutPolicy(name, options.timeout),
    metadata,
    subgraphs,
    ends,
    defer,
    input,
  };
}

export interface BranchDefinition {
  source: string;
  path: (state: any, config: any) => unknown;
  pathMap?: Record<string, string>;
  /** The path was a Runnable (see BranchSpec.runnable). */
  runnable?: boolean;
}

export interface GraphDeclaration {
  readonly spec: StateSpec;
  /** Keys taken from a run's input and returned by `invoke`, when input / output schemas were given. */
  readonly inputKeys?: readonly string[];
  /** One key: `invoke` returns that key's value (a low-level graph with one output channel). */
  readonly outputKeys?: string | readonly string[];
  /**
   * The state is one channel, `__root__` (a `MessageGraph`'s messages): the input, what nodes
   * and branches are given, what they return and what a reader sees are its value itself.
   */
  readonly rootKey?: string;
  /** Validators of state keys (zod and StateSchema fields): inputs and node updates are checked. */
  readonly validators: ReadonlyMap<string, StandardSchemaV1>;
  readonly contextSchema?: unknown;
  /** By name, in the order they were added (LangGraph.js's `builder.nodes`). */
  readonly nodes: Readonly<Record<string, NodeDefinition>>;
  /** Set once a node's input schema added private channels: the keys the other nodes are called with. */
  readonly sharedKeys?: readonly string[];
  /** `setNodeDefaults`: what nodes without their own value get. */
  readonly nodeDefaults?: NodePolicyOptions;
  readonly edges: ReadonlyArray<{ sources: string[]; target: string }>;
  readonly branches: readonly BranchDefinition[];
}

/** Where a conditional edge may lead: return value -> node, or the node names themselves. */
export type PathMap = Record<string, string> | readonly string[];

/** A conditional edge as a builder keeps it: a function or a Runnable's `invoke`, and its path map as an object. */
export function branchDefinition(source: string, path: unknown, pathMap?: PathMap): BranchDefinition {
  const runnable = typeof path !== "function";
  if (runnable && !isRunnable(path))
    throw new GraphValidationError(
      `The conditional edge from "${source}" needs a function or a Runnable (an object with invoke(input, config)) as its path.`,
      source,
    );
  return {
    source,
    path: runnable ? asRunnable(path as RunnableLike) : (path as BranchDefinition["path"]),
    pathMap: Array.isArray(pathMap)
      ? Object.fromEntries(pathMap.map((name) => [name, name]))
      : (pathMap as Record<string, string> | undefined),
    runnable,
  };
}

/** Refuses a name that cannot be a new node of `nodes`: reserved, holding a namespace separator, or taken. */
export function checkNewNodeName(nodes: Readonly<Record<string, unknown>>, name: string): void {
  if (name === START || name === END)
    throw new GraphValidationError(`"${name}" is reserved and cannot be a node name.`, name);
  if (name.includes(NS_SEP) || name.includes(NS_END))
    throw new GraphValidationError(
      `Node name "${name}" may not contain "${NS_SEP}" or "${NS_END}" (they separate checkpoint namespaces).`,
      name,
    );
  if (Object.hasOwn(nodes, name))
    throw new GraphValidationError(`Node "${name}" is already defined. Node names must be unique.`, name);
}

/** LangGraph's `allEdges`: each edge as `[source, target]`, an edge that waits for several sources once per source. */
export function allEdgesOf(declaration: GraphDeclaration): Set<[string, string]> {
  const edges = new Set<[string, string]>();
  for (const { sources, target } of declaration.edges) for (const source of sources) edges.add([source, target]);
  return edges;
}
