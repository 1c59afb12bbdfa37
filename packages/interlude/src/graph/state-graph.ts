/**
 * The graph builder: nodes over a typed state, edges, conditional edges; `compile()` turns
 * it into a runnable graph.
 */
import { END, ROOT, START } from "../constants.js";
import { GraphValidationError } from "../errors/graph.js";
import { UnsupportedFeatureError } from "../errors/unsupported.js";
import type { StandardSchemaV1 } from "../interrupt/standard-schema.js";
import type { CommandInstance } from "../primitives/command.js";
import type { AnnotationRoot, ChannelSpec, StateSpec, StateType, UpdateType } from "./annotation.js";
import { buildSpec, validateDeclaration } from "./build-spec.js";
import { CompiledStateGraph, type CompileOptions } from "./compiled.js";
import {
  type AddNodeOptions,
  allEdgesOf,
  type BranchDefinition,
  branchDefinition,
  checkNewNodeName,
  type GraphDeclaration,
  type NodeDefinition,
  type NodePolicyOptions,
  nodeDefinition,
  type PathMap,
} from "./declaration.js";
import { ADD_NODE_OPTIONS, checkPolicies } from "./node-policies.js";
import { asRunnable, isRunnable, type RunnableLike } from "./runnable.js";
import type { NodeRuntime } from "./runtime.js";
import { part, resolveState } from "./state-definition.js";
import type { StateSchema, StateSchemaFields } from "./state-schema.js";

/**
 * What a node function may return: an update (as LangGraph.js types it, keys the state lacks are
 * let through, and ignored), a Command, a list holding Commands, or nothing.
 */
// biome-ignore lint/suspicious/noConfusingVoidType: a node function with no `return` (`() => {}`) returns void
export type NodeReturn<U> = (U & Record<string, any>) | CommandInstance<any, any, any> | null | undefined | void;

/** A node function: the state and the node's runtime config in, an update (or a Command) out. */
export type NodeAction<S, U, C extends Record<string, any> = any> = (
  state: S,
  config: NodeRuntime<C>,
) => NodeReturn<U> | Promise<NodeReturn<U>>;

/** A node function whose update `Out` is inferred (for the `updates` stream chunks' types). */
type NodeFunction<S, Out, C extends Record<string, any>> = (state: S, config: NodeRuntime<C>) => Out | Promise<Out>;

/**
 * The update a node function adds to the `updates` chunks' types, as LangGraph.js infers it:
 * what it returns, else (a Command, or updates of several shapes) the state's update type.
 */
type NodeUpdateOf<Out, U> = [Out] extends [U] ? Out : U;

/** What a node of `addNode({ a: fn, ... })` returns, as LangGraph.js infers it there. */
type ReturnOfNode<T> = T extends (...args: any[]) => infer Out
  ? Awaited<Out>
  : T extends CompiledStateGraph<infer Out, any, any, any, any>
    ? Out
    : T extends RunnableLike<any, infer Out>
      ? Awaited<Out>
      : never;

/** Any node of a state `S`, as `addNode` takes it in a record or a list. */
type AnyNode<S extends StateSpec, C extends Record<string, any>> =
  | NodeAction<StateType<S>, UpdateType<S>, C>
  | CompiledStateGraph<any, any, any, any, any>
  | RunnableLike;

type NodeEntry<S extends StateSpec, C extends Record<string, any>> = [
  name: string,
  action: AnyNode<S, C>,
  options?: AddNodeOptions,
];

/** The update each node returns, by name, as LangGraph.js collects them (the `updates` stream chunks' types). */
type MergeReturn<Prev, Curr> = Prev & Curr extends infer T ? { [K in keyof T]: T[K] } & unknown : never;

/** LangGraph options Interlude refuses, with what to do instead; policies checked as they are given. */
function checkOptions(name: string, options: AddNodeOptions): void {
  checkPolicies(`addNode("${name}")`, name, options, ADD_NODE_OPTIONS);
  // Ignoring it would send to tracers what the option says to redact.
  if (options.tracePolicy !== undefined)
    throw new UnsupportedFeatureError(
      `addNode("${name}", fn, { tracePolicy })`,
      "Redact in the callback handler that sends the traces (LangChain's handleChainStart/End).",
    );
}

export type { PathMap } from "./declaration.js";

/** Any schema LangGraph 1.x accepts as a state, input or output definition. */
export type StateDefinitionInit = AnnotationRoot<any> | StateSchema<StateSchemaFields> | StandardSchemaV1 | StateSpec;

/** `new StateGraph({ state, input, output, context })`, or the options after the state. */
export interface StateGraphInit {
  state?: StateDefinitionInit;
  /** Former name of `state`. */
  stateSchema?: StateDefinitionInit;
  input?: StateDefinitionInit;
  output?: StateDefinitionInit;
  /** Schema of `config.context`, the run's read-only context (checked when a run starts). */
  context?: unknown;
}

/** A state's values as channel specs: how a state declared by a validator (a zod object) types its nodes. */
type SpecOfValues<V> = { [K in keyof V]-?: ChannelSpec<V[K], any> };

/** The type checker cannot tell a generic schema's channels are a StateSpec: said once, here. */
type AsSpec<T> = T extends StateSpec ? T : StateSpec;

/** The channels a state definition declares, as the type checker reads them (none for undefined). */
export type SpecOfDefinition<D> = AsSpec<
  D extends AnnotationRoot<infer S>
    ? S
    : D extends { "~spec": infer S extends StateSpec }
      ? S
      : D extends StandardSchemaV1<any, infer V>
        ? SpecOfValues<V>
        : D extends { channels: infer S extends StateSpec }
          ? S
          : D extends StateSpec
            ? D
            : Record<never, never>
>;

/** Where `new StateGraph(init)` declares its state. */
type StateOfInit<I> = I extends { state: infer D }
  ? D
  : I extends { stateSchema: infer D }
    ? D
    : I extends { input: infer D }
      ? D
      : undefined;

/** What `invoke` resolves to: the output schema's state when one is given, else the whole state. */
type OutputOf<Options, S extends StateSpec> = Options extends { output: infer D }
  ? D extends undefined
    ? StateType<S>
    : StateType<SpecOfDefinition<D>>
  : StateType<S>;

/** What `invoke` takes: the input schema's update when one is given, else the whole state's. */
type InputOf<Options, S extends StateSpec> = Options extends { input: infer D }
  ? D extends undefined
    ? UpdateType<S>
    : UpdateType<SpecOfDefinition<D>>
  : UpdateType<S>;

/** The run's context as a context schema (an Annotation or a validator) declares it; `any` without one. */
type ContextOfSchema<D> =
  D extends AnnotationRoot<infer Spec>
    ? StateType<Spec>
    : D extends StandardSchemaV1<any, infer V extends Record<string, any>>
      ? V
      : any;

/** The context schema of `new StateGraph(state, options)` (`{ context }`, or the schema itself) or of `{ state, context }`. */
type ContextOf<Options> = Options extends { context: infer D }
  ? ContextOfSchema<D>
  : Options extends AnnotationRoot<any> | StandardSchemaV1
    ? ContextOfSchema<Options>
    : any;

/**
 * `new StateGraph(...)` as the type checker sees it (the exported `StateGraph`): the state typed
 * from whatever declares it (an Annotation, a StateSchema, a zod object's output), `invoke`'s
 * input and result from the input and output schemas and the nodes' `context` from the context
 * schema, as LangGraph.js types them, which a class's own constructor overloads (they take no
 * type parameters of their own) cannot infer.
 */
export interface StateGraphConstructor {
  new <D extends StateDefinitionInit | { channels: StateSpec }, O = undefined>(
    state: D,
    options?: O,
  ): StateGraph<
    SpecOfDefinition<D>,
    typeof START,
    OutputOf<O, SpecOfDefinition<D>>,
    InputOf<O, SpecOfDefinition<D>>,
    ContextOf<O>
  >;
  new <const I extends StateGraphInit>(
    init: I,
  ): StateGraph<
    SpecOfDefinition<StateOfInit<I>>,
    typeof START,
    OutputOf<I, SpecOfDefinition<StateOfInit<I>>>,
    InputOf<I, SpecOfDefinition<StateOfInit<I>>>,
    ContextOf<I>
  >;
  readonly prototype: StateGraph<any, any, any, any, any, any>;
}

/**
 * `O`: what `invoke` resolves to (the output schema's state, else the whole state); `I`: what it
 * takes (the input schema's update, else the state's); `C`: the nodes' `context`; `R`: the update
 * each node returns, by name (the `updates` stream chunks' types). Types only.
 */
export class StateGraph<
  S extends StateSpec,
  N extends string = typeof START,
  O = StateType<S>,
  I = UpdateType<S>,
  C extends Record<string, any> = any,
  R = unknown,
> implements GraphDeclaration
{
  /** The state's channels, and the private channels of nodes' input schemas. */
  spec: S;
  /** Keys taken from a run's input and returned by `invoke`, when input / output schemas or private channels were given. */
  inputKeys?: readonly string[];
  outputKeys?: string | readonly string[];
  rootKey?: string;
  /** Once a node's input schema added private channels: the state's own keys, which other nodes are called with. */
  sharedKeys?: readonly string[];
  /** Validators of state keys (zod and StateSchema fields): inputs and node updates are checked. */
  readonly validators: Map<string, StandardSchemaV1>;
  readonly contextSchema?: unknown;
  readonly nodes: Record<string, NodeDefinition> = {};
  readonly edges: Array<{ sources: string[]; target: string }> = [];
  readonly branches: BranchDefinition[] = [];
  nodeDefaults?: NodePolicyOptions;

  constructor(state: AnnotationRoot<S> | S | { channels: S } | { "~spec": S }, options?: StateGraphInit | unknown);
  constructor(state: StateDefinitionInit | StateGraphInit, options?: StateGraphInit | unknown);
  constructor(state: unknown, options?: unknown) {
    const resolved = resolveState(state, options);
    this.spec = resolved.spec as S;
    this.inputKeys = resolved.inputKeys;
    this.outputKeys = resolved.outputKeys;
    this.validators = new Map(resolved.validators);
    this.contextSchema = resolved.contextSchema;
    // As LangGraph: a state of the one channel `__root__` is that channel's value (MessageGraph's).
    const keys = Object.keys(this.spec);
    if (keys.length === 1 && keys[0] === ROOT) this.outputKeys = this.rootKey = ROOT;
  }

  /**
   * One node, or several: `addNode({ a: fn, b: fn })`, `addNode([["a", fn, options], ...])`. A
   * function's update is checked against the state's update type, as LangGraph.js checks it.
   */
  addNode<K extends string, D extends StateDefinitionInit, Out extends NodeReturn<UpdateType<S>> = UpdateType<S>>(
    name: K,
    action: NodeFunction<StateType<SpecOfDefinition<D>>, Out, C>,
    options: AddNodeOptions & { input: D },
  ): StateGraph<S, N | K, O, I, C, MergeReturn<R, { [key in K]: NodeUpdateOf<Out, UpdateType<S>> }>>;
  addNode<K extends string, Out extends NodeReturn<UpdateType<S>> = UpdateType<S>>(
    name: K,
    action: NodeFunction<StateType<S>, Out, C>,
    options?: AddNodeOptions,
  ): StateGraph<S, N | K, O, I, C, MergeReturn<R, { [key in K]: NodeUpdateOf<Out, UpdateType<S>> }>>;
  addNode<K extends string>(
    name: K,
    action: CompiledStateGraph<any, any, any, any, any> | RunnableLike,
    options?: AddNodeOptions,
  ): StateGraph<S, N | K, O, I, C, R>;
  addNode<M extends Record<string, AnyNode<S, C>>>(
    nodes: M,
  ): StateGraph<S, N | (keyof M & string), O, I, C, MergeReturn<R, { [key in keyof M]: ReturnOfNode<M[key]> }>>;
  addNode<K extends string>(nodes: NodeEntry<S, C>[]): StateGraph<S, N | K, O, I, C, R>;
  addNode<K extends string>(
    name: K | Record<K, AnyNode<S, C>> | NodeEntry<S, C>[],
    action?: AnyNode<S, C>,
    options: AddNodeOptions = {},
  ): StateGraph<S, N | K, O, I, C, any> {
    if (typeof name !== "string") {
      const entries = Array.isArray(name) ? name : (Object.entries(name) as NodeEntry<S, C>[]);
      if (entries.length === 0)
        throw new GraphValidationError("addNode was given no nodes: pass at least one [name, node] entry.");
      for (const [key, fn, opts] of entries) this.addOne(key, fn, opts ?? {});
      return this as never;
    }
    this.addOne(name, action!, options);
    return this as never;
  }

  private addOne(name: string, action: AnyNode<S, C>, options: AddNodeOptions): void {
    checkNewNodeName(this.nodes, name);

    if (typeof action !== "function" && !(action instanceof CompiledStateGraph)) {
      if (!isRunnable(action))
        throw new GraphValidationError(
          `Node "${name}" must be a function, a compiled graph or a Runnable (an object with invoke(input, config)).`,
          name,
        );
      checkOptions(name, options);
      this.nodes[name] = nodeDefinition(name, asRunnable(action), options, this.nodeInput(name, options), action);
      return;
    }
    checkOptions(name, options);
    this.nodes[name] = nodeDefinition(name, action, options, this.nodeInput(name, options));
  }

  /**
   * The keys of a node's own input schema. Keys the state lacks are added as private channels,
   * which the run's input and `invoke`'s result leave out (LangGraph's private state).
   */
  private nodeInput(name: string, options: AddNodeOptions): string[] | undefined {
    if (options.input === undefined) return undefined;
    const own = part(options.input, `addNode("${name}", fn, { input })`);
    const added: StateSpec = {};
    for (const [key, channel] of Object.entries(own.spec)) {
      const existing = this.spec[key];
      if (!existing) added[key] = channel;
      else if (channel?.reducer && channel.reducer !== existing.reducer)
        throw new GraphValidationError(
          `addNode("${name}", fn, { input }) declares "${key}" with another reducer than the state's. Declare it once, in the state.`,
          name,
        );
    }
    if (Object.keys(added).length) {
      this.sharedKeys ??= Object.keys(this.spec);
      this.inputKeys ??= this.sharedKeys;
      this.outputKeys ??= this.sharedKeys;
      this.spec = { ...this.spec, ...added };
      for (const [key, validator] of own.validators) if (key in added) this.validators.set(key, validator);
    }
    return Object.keys(own.spec);
  }

  /** An edge from one node, or (with an array) a join that waits for all of them. */
  addEdge(from: N | N[], to: N | typeof END): this {
    const sources = Array.isArray(from) ? [...from] : [from];
    if (sources.length === 0) throw new GraphValidationError("addEdge needs at least one source node.");
    this.edges.push({ sources, target: to });
    return this;
  }

  /** A branch after `source`: `path` names the next node(s); also as `addConditionalEdges({ source, path, pathMap })`. */
  addConditionalEdges(
    source: N,
    path: ((state: StateType<S>, config: any) => unknown) | RunnableLike,
    pathMap?: PathMap,
  ): this;
  addConditionalEdges(branch: {
    source: N;
    path: ((state: StateType<S>, config: any) => unknown) | RunnableLike;
    pathMap?: PathMap;
  }): this;
  addConditionalEdges(
    sourceOrBranch:
      | N
      | { source: N; path: ((state: StateType<S>, config: any) => unknown) | RunnableLike; pathMap?: PathMap },
    pathArg?: ((state: StateType<S>, config: any) => unknown) | RunnableLike,
    pathMapArg?: PathMap,
  ): this {
    const { source, path, pathMap } =
      typeof sourceOrBranch === "object"
        ? sourceOrBranch
        : { source: sourceOrBranch, path: pathArg!, pathMap: pathMapArg };
    this.branches.push(branchDefinition(source, path, pathMap));
    return this;
  }

  /** Adds nodes and chains them with edges in order. */
  addSequence(
    nodes:
      | Array<[string, NodeAction<StateType<S>, UpdateType<S>, C>]>
      | Record<string, NodeAction<StateType<S>, UpdateType<S>, C>>,
  ): StateGraph<S, string, O, I, C, MergeReturn<R, Record<string, UpdateType<S>>>> {
    const list = Array.isArray(nodes) ? nodes : Object.entries(nodes);
    if (list.length === 0) throw new GraphValidationError("addSequence needs at least one node.");
    let previous: string | undefined;
    for (const [name, action] of list) {
      this.addNode(name, action);
      if (previous) this.edges.push({ sources: [previous], target: name });
      previous = name;
    }
    return this as never;
  }

  /**
   * Policies for every node without its own (applied at compile, so before or after `addNode`);
   * fields merge across calls, the later call winning. `cachePolicy: false` on a node opts out.
   */
  setNodeDefaults(defaults: NodePolicyOptions): this {
    checkPolicies("setNodeDefaults", undefined, defaults);
    const merged: NodePolicyOptions = { ...this.nodeDefaults };
    for (const [key, value] of Object.entries(defaults))
      if (value !== undefined) Object.assign(merged, { [key]: value });
    this.nodeDefaults = merged;
    return this;
  }

  setEntryPoint(name: N): this {
    return this.addEdge(START as N, name);
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

  compile(options: CompileOptions = {}): CompiledStateGraph<O, UpdateType<S>, N, I, R> {
    const cache = options.cache as Partial<Record<string, unknown>> | undefined;
    if (cache && !["get", "set", "clear"].every((verb) => typeof cache[verb] === "function"))
      throw new GraphValidationError(
        "compile({ cache }) needs a BaseCache (get, set and clear), such as new InMemoryCache().",
      );
    const spec = buildSpec(this, options);
    return new CompiledStateGraph(this, spec, options);
  }
}
