/**
 * The graph builder: nodes over a typed state, edges, conditional edges; `compile()` turns
 * it into a runnable graph.
 */
import { END, NS_END, NS_SEP, START } from "../constants.js";
import { GraphValidationError } from "../errors/graph.js";
import type { RetryPolicy } from "../runner/retry.js";
import {
  type AnnotationRoot,
  isAnnotationRoot,
  type StateSpec,
  type StateType,
  type UpdateType,
} from "./annotation.js";
import { buildSpec } from "./build-spec.js";
import { CompiledStateGraph, type CompileOptions } from "./compiled.js";

export type NodeAction<S, U> = (state: S, config: any) => U | undefined | unknown | Promise<U | undefined | unknown>;

export interface AddNodeOptions {
  /** Nodes this node may route to with `Command({ goto })` (for drawing and validation). */
  ends?: readonly string[];
  retryPolicy?: RetryPolicy;
}

export interface NodeDefinition {
  name: string;
  action: ((state: any, config: any) => unknown) | CompiledStateGraph<any, any, any>;
  options: AddNodeOptions;
}

export interface BranchDefinition {
  source: string;
  path: (state: any, config: any) => unknown;
  pathMap?: Record<string, string>;
}

export type PathMap = Record<string, string> | readonly string[];

export class StateGraph<S extends StateSpec, N extends string = typeof START> {
  readonly spec: S;
  readonly nodes = new Map<string, NodeDefinition>();
  readonly edges: Array<{ sources: string[]; target: string }> = [];
  readonly branches: BranchDefinition[] = [];

  constructor(state: AnnotationRoot<S> | S | { channels: S }) {
    if (isAnnotationRoot(state)) this.spec = state.spec as S;
    else if (
      typeof state === "object" &&
      state !== null &&
      "channels" in state &&
      typeof (state as { channels: unknown }).channels === "object"
    )
      this.spec = (state as { channels: S }).channels;
    else this.spec = state as S;
  }

  addNode<K extends string>(
    name: K,
    action: NodeAction<StateType<S>, UpdateType<S>> | CompiledStateGraph<any, any, any>,
    options: AddNodeOptions = {},
  ): StateGraph<S, N | K> {
    if (name === START || name === END)
      throw new GraphValidationError(`"${name}" is reserved and cannot be a node name.`, name);
    if (name.includes(NS_SEP) || name.includes(NS_END))
      throw new GraphValidationError(
        `Node name "${name}" may not contain "${NS_SEP}" or "${NS_END}" (they separate checkpoint namespaces).`,
        name,
      );
    if (this.nodes.has(name))
      throw new GraphValidationError(`Node "${name}" is already defined. Node names must be unique.`, name);
    if (typeof action !== "function" && !(action instanceof CompiledStateGraph)) {
      throw new GraphValidationError(`Node "${name}" must be a function or a compiled graph.`, name);
    }
    this.nodes.set(name, { name, action, options });
    return this as unknown as StateGraph<S, N | K>;
  }

  /** An edge from one node, or (with an array) a join that waits for all of them. */
  addEdge(from: N | N[], to: N | typeof END): this {
    const sources = Array.isArray(from) ? [...from] : [from];
    if (sources.length === 0) throw new GraphValidationError("addEdge needs at least one source node.");
    this.edges.push({ sources, target: to });
    return this;
  }

  addConditionalEdges(source: N, path: (state: StateType<S>, config: any) => unknown, pathMap?: PathMap): this {
    const map = Array.isArray(pathMap)
      ? Object.fromEntries(pathMap.map((n) => [n, n]))
      : (pathMap as Record<string, string> | undefined);
    this.branches.push({ source, path, pathMap: map });
    return this;
  }

  /** Adds nodes and chains them with edges in order. */
  addSequence(
    nodes:
      | Array<[string, NodeAction<StateType<S>, UpdateType<S>>]>
      | Record<string, NodeAction<StateType<S>, UpdateType<S>>>,
  ): StateGraph<S, string> {
    const list = Array.isArray(nodes) ? nodes : Object.entries(nodes);
    if (list.length === 0) throw new GraphValidationError("addSequence needs at least one node.");
    let previous: string | undefined;
    for (const [name, action] of list) {
      this.addNode(name, action);
      if (previous) this.edges.push({ sources: [previous], target: name });
      previous = name;
    }
    return this as unknown as StateGraph<S, string>;
  }

  setEntryPoint(name: N): this {
    return this.addEdge(START as N, name);
  }

  setFinishPoint(name: N): this {
    return this.addEdge(name, END);
  }

  compile(options: CompileOptions = {}): CompiledStateGraph<StateType<S>, UpdateType<S>, N> {
    const spec = buildSpec(this, options);
    return new CompiledStateGraph(this, spec, options);
  }
}
