/**
 * `Graph`, LangGraph's graph without a state: each node is called with what the node before
 * it returned, and the run returns what the last node returned. Compiled to a low-level
 * `Pregel` graph: one single-step channel per node holds its output, and edges subscribe the
 * next node to it.
 */

import { cachePolicyOf } from "../cache/base.js";
import { EphemeralValue } from "../channels/ephemeral.js";
import { END, START } from "../constants.js";
import { GraphValidationError } from "../errors/graph.js";
import { UnsupportedFeatureError } from "../errors/unsupported.js";
import { BranchWrite, branchChannel } from "../pregel/branch-write.js";
import { ChannelWrite, PASSTHROUGH } from "../pregel/channel-write.js";
import { PregelNode } from "../pregel/node.js";
import { Pregel } from "../pregel/pregel.js";
import { checkCompileOptions, validateDeclaration } from "./build-spec.js";
import type { CompileOptions } from "./compiled.js";
import {
  type AddNodeOptions,
  allEdgesOf,
  type BranchDefinition,
  branchDefinition,
  checkNewNodeName,
  type GraphDeclaration,
  type NodeDefinition,
  nodeDefinition,
  type PathMap,
} from "./declaration.js";
import { ADD_NODE_OPTIONS, checkPolicies } from "./node-policies.js";
import { asRunnable, isRunnable, type RunnableLike } from "./runnable.js";

type GraphNodeAction = ((input: any, config?: any) => unknown) | RunnableLike;

/** What a node of a non-state graph may be given: LangGraph.js's options that apply to it. */
type GraphNodeOptions = Pick<
  AddNodeOptions,
  "metadata" | "subgraphs" | "ends" | "retryPolicy" | "cachePolicy" | "timeout"
>;

const UNSUPPORTED_OPTIONS = ["errorHandler", "defer", "input", "tracePolicy"] as const;

export class Graph<N extends string = typeof START> implements GraphDeclaration {
  readonly spec = {};
  readonly validators = new Map();
  readonly nodes: Record<string, NodeDefinition> = {};
  readonly edges: Array<{ sources: string[]; target: string }> = [];
  readonly branches: BranchDefinition[] = [];

  addNode<K extends string>(name: K, action: GraphNodeAction, options?: GraphNodeOptions): Graph<N | K>;
  addNode<K extends string>(
    nodes: Record<K, GraphNodeAction> | Array<[K, GraphNodeAction, GraphNodeOptions?]>,
  ): Graph<N | K>;
  addNode(
    name: string | Record<string, GraphNodeAction> | Array<[string, GraphNodeAction, GraphNodeOptions?]>,
    action?: GraphNodeAction,
    options: GraphNodeOptions = {},
  ): Graph<any> {
    if (typeof name === "string") return this.addOne(name, action!, options);
    const entries = Array.isArray(name) ? name : Object.entries(name);
    if (entries.length === 0)
      throw new GraphValidationError("addNode was given no nodes: pass at least one [name, node] entry.");
    for (const [key, fn, opts] of entries) this.addOne(key, fn, opts ?? {});
    return this;
  }

  private addOne(name: string, action: GraphNodeAction, options: GraphNodeOptions): this {
    checkNewNodeName(this.nodes, name);
    for (const option of UNSUPPORTED_OPTIONS)
      if ((options as Record<string, unknown>)[option] !== undefined)
        throw new UnsupportedFeatureError(
          `Graph.addNode("${name}", fn, { ${option} })`,
          "A Graph without state has no updates for it to act on: use a StateGraph.",
        );
    checkPolicies(`Graph.addNode("${name}")`, name, options, ADD_NODE_OPTIONS);
    if (typeof action !== "function" && !isRunnable(action))
      throw new GraphValidationError(`Node "${name}" must be a function or a Runnable (an object with invoke).`, name);
    const run = typeof action === "function" ? action : asRunnable(action);
    this.nodes[name] = nodeDefinition(name, run, options, undefined, action);
    return this;
  }

  /** Passes `from`'s output to `to`. A node has one way out: several are for a StateGraph, as in LangGraph.js. */
  addEdge(from: N | typeof START, to: N | typeof END): this {
    if (from === END) throw new GraphValidationError("END cannot be the start of an edge.", from);
    if (to === START) throw new GraphValidationError("START cannot be the end of an edge.", to);
    if (from === START && to === END) throw new GraphValidationError("An edge from START to END would run nothing.");
    if (this.edges.some((edge) => edge.sources[0] === from))
      throw new GraphValidationError(
        `"${from}" already has an edge. A Graph passes a node's output along one edge; for several, use a StateGraph.`,
        from,
      );
    this.edges.push({ sources: [from], target: to });
    return this;
  }

  /** After `source`, `path` (given its output) names the next node(s), through `pathMap` when given. */
  addConditionalEdges(source: N | typeof START, path: GraphNodeAction, pathMap?: PathMap): this {
    if (this.branches.some((branch) => branch.source === source))
      throw new GraphValidationError(`"${source}" already has a conditional edge.`, source);
    this.branches.push(branchDefinition(source, path, pathMap));
    return this;
  }

  setEntryPoint(name: N): this {
    return this.addEdge(START, name);
  }

  setFinishPoint(name: N): this {
    return this.addEdge(name, END);
  }

  /** Each edge as `[source, target]` (LangGraph's `allEdges`). */
  get allEdges(): Set<[string, string]> {
    return allEdgesOf(this);
  }

  /** Checks the graph as `compile()` does, and that the `interrupt` nodes exist; throws what compile would (LangGraph's `validate`). */
  validate(interrupt?: string[]): void {
    validateDeclaration(this, { interruptBefore: interrupt });
  }

  compile(options: CompileOptions = {}): Pregel {
    checkCompileOptions(options);
    validateDeclaration(this, options);
    const channels: Record<string, EphemeralValue> = { [START]: new EphemeralValue(), [END]: new EphemeralValue() };
    for (const name of Object.keys(this.nodes)) channels[name] = new EphemeralValue();
    const reads = new Map<string, string[]>(Object.keys(this.nodes).map((name) => [name, []]));
    const writers = new Map<string, ChannelWrite[]>([
      [START, []],
      ...Object.keys(this.nodes).map((name) => [name, []] as [string, ChannelWrite[]]),
    ]);
    for (const { sources, target } of this.edges) {
      const source = sources[0]!;
      if (target === END) writers.get(source)!.push(new ChannelWrite([{ channel: END, value: PASSTHROUGH }]));
      else reads.get(target)!.push(source);
    }
    for (const { source, path, pathMap } of this.branches) {
      const targets = pathMap ? [...new Set(Object.values(pathMap))] : [...Object.keys(this.nodes), END];
      for (const target of targets) {
        if (target === END) continue;
        channels[branchChannel(source, target)] = new EphemeralValue();
        reads.get(target)!.push(branchChannel(source, target));
      }
      writers.get(source)!.push(new BranchWrite(source, path, pathMap, targets));
    }
    const nodes: Record<string, PregelNode> = {};
    // A conditional edge from START runs in a node of its own, which streams nothing (as in LangGraph.js).
    if (writers.get(START)!.length)
      nodes[START] = new PregelNode({ channels: [START], triggers: [START], writers: writers.get(START) });
    for (const [name, { action, metadata, subgraphs, retryPolicy, cachePolicy, timeout }] of Object.entries(
      this.nodes,
    )) {
      nodes[name] = new PregelNode({
        channels: reads.get(name)!,
        triggers: reads.get(name)!,
        steps: [action as (input: unknown, config: unknown) => unknown],
        writers: [new ChannelWrite([{ channel: name, value: PASSTHROUGH }]), ...writers.get(name)!],
        metadata,
        subgraphs,
        retryPolicy,
        cachePolicy: cachePolicyOf(cachePolicy),
        timeout,
      });
    }
    return new Pregel(
      {
        ...options,
        nodes,
        channels,
        inputChannels: START,
        outputChannels: END,
        streamChannels: Object.keys(this.nodes),
      },
      this,
    );
  }
}
