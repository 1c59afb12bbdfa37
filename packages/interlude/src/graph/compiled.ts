/**
 * A compiled graph: run it (`invoke`, `stream`), read a thread (`getState`,
 * `getStateHistory`) and write to it (`updateState`).
 */
import { breakpointsOf } from "../algo/breakpoints.js";
import { selectOutput } from "../algo/select-output.js";
import { DEFAULT_GRAPH_NAME, type GraphInternals, type GraphSpec } from "../algo/spec.js";
import type { BaseCache, CachePolicy } from "../cache/base.js";
import { type EventFilters, type StreamEvent, streamGraphEvents, streamGraphLog } from "../callbacks/stream-events.js";
import type { BaseCheckpointSaver } from "../checkpoint/base.js";
import { checkCheckpointer } from "../checkpoint/contract.js";
import { shallowCopy } from "../checkpoint/plain-copy.js";
import { LIST_OPTIONS } from "../checkpoint/query.js";
import { LangChainNotLoadedError } from "../checkpoint/serde-langchain.js";
import type { CheckpointListOptions, RunnableConfig } from "../checkpoint/types.js";
import { type COPY, type END, INTERRUPT, type START } from "../constants.js";
import { MissingCheckpointerError } from "../errors/graph.js";
import { refuseUnknownGraphOptions } from "../errors/options.js";
import type { Interrupt } from "../interrupt/record.js";
import { isInterrupted } from "../interrupt/signal.js";
import { loadLangChain } from "../langchain/load.js";
import { listOf } from "../pregel/spec.js";
import type { CommandInstance } from "../primitives/command.js";
import type { GraphRunStream } from "../protocol/run-stream.js";
import { type StreamEventsV3Options, streamProtocolEvents } from "../protocol/stream-events.js";
import type { InferExtensions, StreamTransformer } from "../protocol/types.js";
import { asGraphStream, type GraphStream, type StreamMode } from "../run/emitter.js";
import { withNodeConfig } from "../run/nested-run.js";
import { configWithoutOptions, type RunOptions, type StreamOptions } from "../run/options.js";
import { GraphRun } from "../run/run.js";
import { streamRun } from "../run/stream-run.js";
import type { RetryPolicy } from "../runner/retry.js";
import { currentTask } from "../runner/scope.js";
import type { TimeoutPolicy } from "../runner/timeout.js";
import type { BaseStore } from "../store/base.js";
import { graphAtNamespace } from "../thread/namespace.js";
import { type StateSnapshot, snapshotOf, stateAt } from "../thread/snapshot.js";
import { type Superstep, updateThreadState } from "../thread/update-state.js";
import { type BatchOptions, inBatch } from "./batch.js";
import type { GraphDeclaration } from "./declaration.js";
import { type Drawing, type DrawingOptions, drawingOf, type GraphDrawing, publicDrawing } from "./drawing.js";
import { transformed, viaLangChain } from "./runnable-interop.js";
import { checkContext } from "./state-validation.js";
import type { StreamOutputMap } from "./stream-output.js";

export interface CompileOptions {
  /**
   * The saver of this graph's threads. For a graph used as a subgraph: `true` keeps its state
   * across the parent's runs (under `checkpoint_ns` = its node name), `false` saves nothing.
   */
  checkpointer?: BaseCheckpointSaver | boolean;
  /** Long-term memory shared across threads: nodes reach it as `config.store` or `getStore()`. */
  store?: BaseStore;
  /** Where results of nodes and `task()`s with a `cachePolicy` are kept, across runs and threads. */
  cache?: BaseCache;
  interruptBefore?: string[] | "*";
  interruptAfter?: string[] | "*";
  name?: string;
  /** What the graph does, for those who list graphs (kept as `graph.description`). */
  description?: string;
  /**
   * How answers are matched to `interrupt()` calls when a node runs again. `"checked"`
   * (default): by position, refusing an answer whose question changed (InterruptMismatchError).
   * `"positional"`: LangGraph's behaviour, by position only.
   */
  resumeMatching?: "checked" | "positional";
  /** Transformer factories every `streamEvents(..., { version: "v3" })` run of the graph uses first. */
  transformers?: ReadonlyArray<() => StreamTransformer<any>>;
}

/** The config of `invoke`: the config nodes receive, and the run's options. */
export interface RunConfig extends RunnableConfig, RunOptions {}

export interface StreamConfig extends RunConfig, StreamOptions {}

/** What `invoke` and `stream` take besides the input's update: a Command (to resume, or route), or null. */
type ResumeInput = CommandInstance<any, any, any> | null;

/** `stream`'s config: the stream mode, subgraphs and encoding as given, which type the chunks. */
type TypedStreamConfig<M, Sub, E> = StreamConfig & {
  streamMode?: M;
  subgraphs?: Sub;
  encoding?: E;
};

/** True for `any`: a graph whose input is `any` (typed loosely, as a Pregel or a bare `CompiledStateGraph`) streams `any` chunks. */
type IsAny<T> = 0 extends 1 & T ? true : false;

/** The builder a compiled graph keeps (`graph.builder`), to compile it again with other options. */
interface GraphBuilder extends GraphDeclaration {
  compile(options?: CompileOptions): CompiledStateGraph<any, any, any>;
}

export type InvokeResult<S> = S & { [INTERRUPT]?: Interrupt[] };

/** What the compile options decide about the graph's runs: the compiled graph's own fields. */
type GraphSettings = Omit<GraphInternals, "spec">;

function settingsOf(options: CompileOptions): GraphSettings {
  const saver = options.checkpointer;
  if (typeof saver === "object" && saver !== null) checkCheckpointer(saver);
  return {
    name: options.name,
    checkpointer: typeof saver === "object" && saver !== null ? saver : undefined,
    store: options.store,
    cache: options.cache,
    interruptBefore: breakpointsOf(options.interruptBefore),
    interruptAfter: breakpointsOf(options.interruptAfter),
    positional: options.resumeMatching === "positional",
    subgraphCheckpoints: saver === true ? "persistent" : saver === false ? "none" : undefined,
  };
}

/** One node of a compiled graph, run on its own (`graph.nodes[name]`). */
export interface NodeHandle {
  readonly name: string;
  readonly retryPolicy?: RetryPolicy;
  readonly cachePolicy?: CachePolicy;
  readonly timeout?: TimeoutPolicy;
  invoke(input: unknown, config?: RunnableConfig): Promise<any>;
}

/**
 * The fields of GraphInternals are declared there, once; the constructor sets each of them.
 * `~types` exists only for the type checker: the state `invoke` resolves to, the update, the node
 * names, what `invoke` takes (`I`: `any` unless given, as LangGraph.js's `CompiledGraph`) and each
 * node's update (`R`, which types `updates` chunks).
 */
export interface CompiledStateGraph<S, U, N extends string, I, R> extends GraphSettings {
  readonly "~types": { state: S; update: U; nodes: N; input: I; nodeReturns: R };
}

// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the constructor assigns every field the interface adds (settingsOf)
export class CompiledStateGraph<
  S = Record<string, unknown>,
  U = Partial<S>,
  N extends string = string,
  I = any,
  R = unknown,
> implements GraphInternals
{
  /** LangGraph.js's brand of a compiled graph, which code telling graphs from other runnables reads (`isPregelLike`). */
  readonly lg_is_pregel = true;

  constructor(
    readonly builder: GraphBuilder,
    readonly spec: GraphSpec,
    options: CompileOptions,
  ) {
    Object.assign(this, settingsOf(options));
    this.description = options.description;
    this.streamTransformers = options.transformers ?? [];
  }

  readonly description?: string;
  /** The longest a step may take (ms); a step over it cancels the run. LangGraph sets it on the compiled graph too. */
  stepTimeout?: number;
  /** Transformers of every v3 event stream of the graph (`compile({ transformers })`, `withConfig({ streamTransformers })`). */
  readonly streamTransformers: ReadonlyArray<() => StreamTransformer<any>>;

  /** LangChain takes the graph as a Runnable (graph/runnable-interop.ts). */
  readonly lc_runnable = true;
  readonly lc_serializable = false;
  readonly lc_namespace = ["langgraph", "pregel"];

  /** What LangChain's tracers record of the graph (it is not serialisable). */
  toJSON(): Record<string, unknown> {
    return { lc: 1, type: "not_implemented", id: [...this.lc_namespace, this.getName()] };
  }

  /** A Runnable's `transform`: the input's chunks read whole, then the graph streamed. */
  transform(chunks: AsyncIterable<unknown>, config?: StreamConfig): AsyncGenerator<unknown> {
    return transformed((input, options) => this.stream(input as I, options), chunks, config);
  }

  /** LangChain's Runnable methods, applied to the graph (`@langchain/core` must be loaded). */
  pipe(next: unknown): any {
    return viaLangChain(this, "pipe", [next]);
  }
  withRetry(fields?: unknown): any {
    return viaLangChain(this, "withRetry", [fields]);
  }
  withFallbacks(fields: unknown): any {
    return viaLangChain(this, "withFallbacks", [fields]);
  }
  withListeners(params: unknown): any {
    return viaLangChain(this, "withListeners", [params]);
  }
  asTool(fields: unknown): any {
    return viaLangChain(this, "asTool", [fields]);
  }
  pick(keys: string | string[]): any {
    return viaLangChain(this, "pick", [keys]);
  }
  assign(mapping: unknown): any {
    return viaLangChain(this, "assign", [mapping]);
  }

  /** The graph was checked when it was compiled: LangGraph's `validate()`, kept for its callers. */
  validate(): this {
    return this;
  }

  /** The channels `values` streams, as given (LangGraph's `streamChannelsAsIs`): the state's keys. */
  get streamChannelsAsIs(): string | readonly string[] {
    return this.spec.rootKey ?? [...this.spec.stateKeys];
  }

  /** The channels `values` streams, as a list (LangGraph's `streamChannelsList`). */
  get streamChannelsList(): string[] {
    return listOf(this.streamChannelsAsIs);
  }

  /** Whether `input` is an output that paused at an interrupt (LangGraph's method; the root's `isInterrupted`). */
  isInterrupted(input: unknown): input is { [INTERRUPT]: Interrupt[] } {
    return isInterrupted(input);
  }

  private nodeHandles?: Record<string, NodeHandle>;

  /**
   * The graph's nodes by name, each runnable alone, as LangGraph.js's `graph.nodes` (to test
   * one node): `graph.nodes.agent.invoke(state)` resolves to the update the node returns.
   */
  get nodes(): Record<string, NodeHandle> {
    if (!this.nodeHandles) {
      this.nodeHandles = {};
      for (const [name, node] of this.spec.nodes)
        this.nodeHandles[name] = {
          name,
          // The policies it runs with (its own, else the graph's defaults), as LangGraph.js shows them.
          retryPolicy: node.retryPolicy,
          cachePolicy: node.cachePolicy,
          timeout: node.timeout,
          invoke: async (input, config = {}) => node.run(input, config),
        };
    }
    return this.nodeHandles;
  }

  /** Config merged under every call's own (`withConfig`). */
  protected defaults?: RunConfig;

  /** A graph that runs with `config` under every call's own config, as a Runnable's `withConfig`. */
  withConfig(config: RunConfig & { streamTransformers?: ReadonlyArray<() => StreamTransformer<any>> }): this {
    const { streamTransformers, ...rest } = config;
    const bound = Object.create(this) as this;
    bound.defaults = mergeConfig(this.defaults, rest);
    if (streamTransformers)
      Object.defineProperty(bound, "streamTransformers", {
        value: [...this.streamTransformers, ...streamTransformers],
      });
    return bound;
  }

  /**
   * Runs the graph until it finishes or pauses. A paused result carries `__interrupt__`. Takes,
   * as LangGraph.js types it, an update of the input schema, a Command, or null.
   */
  async invoke(input: I | ResumeInput, config: RunConfig = {}): Promise<InvokeResult<S>> {
    const given = config;
    if (this.defaults) config = mergeConfig(this.defaults, config);
    const { streamMode, subgraphs } = config as StreamConfig;
    // As LangGraph.js: with another stream mode, or subgraphs, invoke returns what the stream gives.
    if ((streamMode !== undefined && streamMode !== "values") || subgraphs === true)
      return this.invokeAsStream(input, given, streamMode) as Promise<InvokeResult<S>>;
    const runConfig = withNodeConfig(configWithoutOptions(config));
    if (this.builder.contextSchema) await checkContext(this.builder.contextSchema, runConfig);
    const run = new GraphRun(this, input, runConfig, config);
    const result = await run.execute();
    const { interrupts, paused } = result;
    // As LangGraph.js: the last values the run told; one that changed no output key returns none.
    const keys = config.outputKeys ?? this.builder.outputKeys;
    const values = run.lastValues
      ? (run.lastValues.chunk as Record<string, unknown>)
      : run.valuesTold
        ? selectOutput(result.values, keys)
        : undefined;
    // Paused with nothing to return yet (one output channel, still empty): the interrupts alone, as LangGraph.js.
    if (paused && !currentTask() && (values === undefined || values === null))
      return { [INTERRUPT]: interrupts } as never;
    // Paused at a static breakpoint: an empty list, as LangGraph.js returns (not added to one key's value).
    if (paused && !currentTask() && typeof values === "object" && values !== null) {
      // As `{ ...values, [INTERRUPT]: interrupts }`, without a spread's slow path (see shallowCopy).
      const out = shallowCopy(values);
      out[INTERRUPT] = interrupts;
      return out as InvokeResult<S>;
    }
    return values as InvokeResult<S>;
  }

  /** Every chunk of the stream, or for "values" the last (with subgraphs, a `[namespace, values]` pair). */
  private async invokeAsStream(
    input: unknown,
    config: StreamConfig,
    mode: StreamConfig["streamMode"],
  ): Promise<unknown> {
    const chunks: unknown[] = [];
    for await (const chunk of await this.stream(input as I, { ...config, streamMode: mode ?? "values" }))
      chunks.push(chunk);
    return mode === undefined || mode === "values" ? chunks.at(-1) : chunks;
  }

  /**
   * Runs the graph and yields chunks as it goes (`for await (const chunk of await graph.stream(...))`),
   * typed by the stream mode as LangGraph.js types them (`StreamOutputMap`).
   */
  async stream<
    M extends StreamMode | StreamMode[] | undefined,
    Sub extends boolean,
    E extends "text/event-stream" | undefined,
  >(
    input: I | ResumeInput,
    config: TypedStreamConfig<M, Sub, E> = {},
  ): Promise<GraphStream<IsAny<I> extends true ? any : StreamOutputMap<M, Sub, I, S, N, R, any, E>>> {
    if (this.defaults) config = mergeConfig(this.defaults, config);
    // A one-channel state streams that channel's value itself, as LangGraph.js.
    if (this.spec.rootKey && config.outputKeys === undefined) config = { ...config, outputKeys: this.spec.rootKey };
    if (this.builder.contextSchema) await checkContext(this.builder.contextSchema, withNodeConfig(config));
    return streamRun(this, input, config) as Promise<GraphStream<any>>;
  }

  /**
   * `version: "v3"`: the run as protocol events, with projections (values, messages as they
   * stream, subgraphs, lifecycle, interrupts) and the transformers' (protocol/run-stream.ts).
   * `version: "v2"`: LangChain's event stream of a run: the graph, each node, and the chat
   * models and tools they call, started, streaming and ended. Needs `@langchain/core`.
   */
  streamEvents<const T extends ReadonlyArray<() => StreamTransformer<any>> = []>(
    input: U | S | unknown,
    options: StreamConfig & StreamEventsV3Options & { transformers?: T; encoding: "text/event-stream" },
  ): Promise<GraphStream<Uint8Array>>;
  streamEvents<const T extends ReadonlyArray<() => StreamTransformer<any>> = []>(
    input: U | S | unknown,
    options: StreamConfig & StreamEventsV3Options & { transformers?: T; encoding?: undefined },
  ): Promise<GraphRunStream<S, InferExtensions<T>>>;
  streamEvents(
    input: U | S | unknown,
    options: StreamConfig & { version: "v1" | "v2" },
    streamOptions?: EventFilters,
  ): AsyncGenerator<StreamEvent> & GraphStream<StreamEvent>;
  streamEvents(input: unknown, options: any, streamOptions?: EventFilters): any {
    if (options?.version === "v3") {
      try {
        return Promise.resolve(streamProtocolEvents(this, input, options));
      } catch (error) {
        return Promise.reject(error);
      }
    }
    // A web stream too, as LangChain's (`cancel()`, `getReader()`).
    return asGraphStream(streamGraphEvents(this, input, options, streamOptions));
  }

  /** LangChain's run log of a run (`RunLogPatch`es of the graph's and its nodes' runs). Needs `@langchain/core`. */
  streamLog(input: U | S | unknown, options?: StreamConfig, streamOptions?: EventFilters): AsyncGenerator<unknown> {
    return streamGraphLog(this, input, options, streamOptions);
  }

  private saverFor(what: string): BaseCheckpointSaver {
    const saver = currentTask()?.run.saver ?? this.checkpointer;
    if (!saver) throw new MissingCheckpointerError(what);
    return saver;
  }

  /** Not async: handing back stateAt's own promise saves the turns of resolving one promise with another. */
  getState(config: RunnableConfig, options: { subgraphs?: boolean } = {}): Promise<StateSnapshot> {
    try {
      const saver = this.saverFor("getState()");
      return stateAt(this.owner(config), saver, config, options.subgraphs === true);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** The graph whose checkpoints `config` addresses: this one, or a subgraph by `checkpoint_ns`. */
  private owner(config: RunnableConfig): GraphInternals {
    return graphAtNamespace(this, config.configurable?.checkpoint_ns as string | undefined);
  }

  async *getStateHistory(config: RunnableConfig, options: CheckpointListOptions = {}): AsyncGenerator<StateSnapshot> {
    // A misspelt `limit` would list the whole history.
    refuseUnknownGraphOptions("getStateHistory()", options, LIST_OPTIONS);
    const saver = this.saverFor("getStateHistory()");
    if (this.spec.usesLangChain) await loadLangChain();
    const scoped: RunnableConfig = { ...config, configurable: { checkpoint_ns: "", ...config.configurable } };
    const graph = this.owner(config);
    let told = 0;
    // A checkpoint holding LangChain objects read before @langchain/core was loaded: load it,
    // list again, and skip the snapshots already told.
    for (let attempt = 0; ; attempt++) {
      try {
        let index = 0;
        for await (const tuple of saver.list(scoped, options)) {
          if (index++ < told) continue;
          yield snapshotOf(graph, tuple);
          told++;
        }
        return;
      } catch (error) {
        if (attempt > 0 || !(error instanceof LangChainNotLoadedError)) throw error;
        await loadLangChain();
      }
    }
  }

  /**
   * Writes `values` as if `asNode` had returned them (by default the node that ran last);
   * `asNode` `"__copy__"` with `values` null copies the checkpoint, to run its step again.
   */
  async updateState(
    config: RunnableConfig,
    values: U | Record<string, unknown> | null,
    asNode?: N | typeof START | typeof END | typeof COPY,
  ): Promise<RunnableConfig> {
    // The messages reducer coerces message-likes with @langchain/core.
    if (this.spec.usesLangChain) await loadLangChain();
    return updateThreadState(this.owner(config), this.saverFor("updateState()"), config, [
      { updates: [{ values, asNode }] },
    ]);
  }

  /** Several updates, one checkpoint per superstep; the updates of a superstep apply together, as one step's tasks. */
  async bulkUpdateState(config: RunnableConfig, supersteps: readonly Superstep[]): Promise<RunnableConfig> {
    if (this.spec.usesLangChain) await loadLangChain();
    return updateThreadState(this.owner(config), this.saverFor("bulkUpdateState()"), config, supersteps);
  }

  /**
   * Runs the graph on each input, at most `maxConcurrency` at once (in `options` or
   * `batchOptions`), as a LangChain Runnable's `batch`. `options` is one config for all inputs
   * or one per input; with `returnExceptions` a failed run gives its error in its place.
   */
  batch(
    inputs: ReadonlyArray<I | ResumeInput>,
    options?: RunConfig | readonly RunConfig[],
    batchOptions?: BatchOptions,
  ): Promise<Array<InvokeResult<S> | Error>> {
    return inBatch((input, config) => this.invoke(input, config), inputs, options, batchOptions);
  }

  getName(suffix?: string): string {
    const name = this.name ?? DEFAULT_GRAPH_NAME;
    return suffix ? `${name}${suffix}` : name;
  }

  /**
   * The compiled graphs run as nodes, as `[name, graph]`; nested ones with `recurse`, named
   * `parent|child`. With `namespace`, only the graph at that path.
   */
  *getSubgraphs(namespace?: string, recurse = false): Generator<[string, CompiledStateGraph<any, any, any>]> {
    for (const [name, node] of this.spec.nodes) {
      if (namespace !== undefined && namespace !== name && !namespace.startsWith(`${name}|`)) continue;
      const candidates = node.declaredSubgraphs?.length ? node.declaredSubgraphs : [node.subgraph];
      for (const graph of candidates) {
        if (!(graph instanceof CompiledStateGraph)) continue;
        if (namespace === name) {
          yield [name, graph];
          return;
        }
        if (namespace === undefined) yield [name, graph];
        if (!recurse) continue;
        const rest = namespace === undefined ? undefined : namespace.slice(name.length + 1);
        for (const [childName, child] of graph.getSubgraphs(rest, true)) {
          yield [`${name}|${childName}`, child];
          if (namespace !== undefined) return;
        }
      }
    }
  }

  async *getSubgraphsAsync(
    namespace?: string,
    recurse = false,
  ): AsyncGenerator<[string, CompiledStateGraph<any, any, any>]> {
    yield* this.getSubgraphs(namespace, recurse);
  }

  /** Empties the graph's cache (every namespace in it, as LangGraph does). */
  async clearCache(): Promise<void> {
    await this.cache?.clear([]);
  }

  /** Nodes and edges, for drawing; `xray` draws subgraphs inside their nodes. */
  getGraph(options?: DrawingOptions): GraphDrawing {
    return publicDrawing(this.drawing(options));
  }

  /** The drawing as its parent draws it inside the node that runs it (graph/drawing.ts). */
  drawing(options?: DrawingOptions): Drawing {
    return drawingOf(this.builder, options, { before: this.interruptBefore, after: this.interruptAfter });
  }

  async getGraphAsync(options?: DrawingOptions): Promise<GraphDrawing> {
    return this.getGraph(options);
  }
}

/** `withConfig`'s config under a call's own, as LangChain merges them: tags, metadata and callbacks add up. */
function mergeConfig<C extends RunConfig>(base: RunConfig | undefined, over: C): C {
  if (!base) return over;
  const merged: RunConfig = { ...base, ...over, configurable: { ...base.configurable, ...over.configurable } };
  if (base.metadata !== undefined && over.metadata !== undefined)
    merged.metadata = { ...(base.metadata as object), ...(over.metadata as object) };
  if (Array.isArray(base.tags) && Array.isArray(over.tags)) merged.tags = [...new Set([...base.tags, ...over.tags])];
  if (base.callbacks !== undefined && over.callbacks !== undefined)
    merged.callbacks = mergeCallbacks(base.callbacks, over.callbacks);
  return merged as C;
}

interface HandlerList {
  copy(): HandlerList;
  addHandler(handler: unknown, inherit?: boolean): void;
  handlers: unknown[];
}

/** Handlers from both: lists joined, or added to a copy of LangChain's CallbackManager. */
function mergeCallbacks(base: unknown, over: unknown): unknown {
  if (Array.isArray(base) && Array.isArray(over)) return [...base, ...over];
  const manager = (Array.isArray(over) ? base : over) as HandlerList;
  const extra = Array.isArray(over) ? over : Array.isArray(base) ? base : (base as HandlerList).handlers;
  const merged = manager.copy();
  for (const handler of extra) merged.addHandler(handler, true);
  return merged;
}
