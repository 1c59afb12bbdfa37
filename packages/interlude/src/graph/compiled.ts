/**
 * A compiled graph: run it (`invoke`, `stream`), read a thread (`getState`,
 * `getStateHistory`) and write to it (`updateState`).
 */
import type { Breakpoints } from "../algo/breakpoints.js";
import type { GraphSpec } from "../algo/spec.js";
import { createMessagesHandler } from "../callbacks/messages-handler.js";
import { type EventFilters, type StreamEvent, streamGraphEvents } from "../callbacks/stream-events.js";
import { addHandler } from "../callbacks/trace.js";
import { type BaseCheckpointSaver, checkpointIdOf } from "../checkpoint/base.js";
import { LangChainNotLoadedError, readingLangChain } from "../checkpoint/serde-langchain.js";
import type { CheckpointListOptions, RunnableConfig } from "../checkpoint/types.js";
import { type COPY, END, INTERRUPT, START } from "../constants.js";
import { MissingCheckpointerError } from "../errors/graph.js";
import type { Interrupt } from "../interrupt/record.js";
import { loadLangChain } from "../langchain/load.js";
import { loadTypedLangChain } from "../langchain/typed.js";
import { ChunkQueue, queueEmitter, type StreamMode } from "../run/emitter.js";
import type { Durability, GraphInternals, SubgraphCheckpoints } from "../run/graph-internals.js";
import { GraphRun } from "../run/run.js";
import { currentTask } from "../runner/scope.js";
import type { BaseStore } from "../store/base.js";
import { graphAtNamespace } from "../thread/namespace.js";
import { emptySnapshot, type StateSnapshot, snapshotOf } from "../thread/snapshot.js";
import { type Superstep, updateThreadState } from "../thread/update-state.js";
import type { StateGraph } from "./state-graph.js";
import { checkContext } from "./state-validation.js";

export interface CompileOptions {
  /**
   * The saver of this graph's threads. For a graph used as a subgraph: `true` keeps its state
   * across the parent's runs (under `checkpoint_ns` = its node name), `false` saves nothing.
   */
  checkpointer?: BaseCheckpointSaver | boolean;
  /** Long-term memory shared across threads: nodes reach it as `config.store` or `getStore()`. */
  store?: BaseStore;
  interruptBefore?: string[] | "*";
  interruptAfter?: string[] | "*";
  name?: string;
  /**
   * How answers are matched to `interrupt()` calls when a node runs again. `"checked"`
   * (default): by position, refusing an answer whose question changed (InterruptMismatchError).
   * `"positional"`: LangGraph's behaviour, by position only.
   */
  resumeMatching?: "checked" | "positional";
}

export interface RunConfig extends RunnableConfig {
  recursionLimit?: number;
  durability?: Durability;
  interruptBefore?: string[] | "*";
  interruptAfter?: string[] | "*";
  signal?: AbortSignal;
  /**
   * How long this run's claim on its thread lasts without renewal (default 30 s). A process
   * that dies while running leaves the thread busy for at most this long.
   */
  claimTtlMs?: number;
  /**
   * Interlude: once `signal` aborts, how long the run waits for running nodes to stop (they get
   * the signal as `config.signal`) before abandoning them; what they return later is dropped.
   * Default 5 s.
   */
  abortGraceMs?: number;
  /**
   * Interlude: called once the run has stopped (finished or paused, not failed) with the
   * thread's state as `getState()` would return it, built from what the run holds instead of
   * read back from the checkpointer. Not called when the run cannot tell it exactly (it saved
   * no checkpoint, or the checkpoint it stopped at carries an update sent with the answer): read
   * `getState()` then.
   */
  onFinalState?: (state: StateSnapshot) => void;
}

export interface StreamConfig extends RunConfig {
  streamMode?: StreamMode | StreamMode[];
  subgraphs?: boolean;
}

export type InvokeResult<S> = S & { [INTERRUPT]?: Interrupt[] };

function breakpoints(list: string[] | "*" | undefined): Breakpoints | undefined {
  if (list === undefined) return undefined;
  return list === "*" ? "*" : new Set(list);
}

const RUN_KEYS = new Set([
  "recursionLimit",
  "durability",
  "interruptBefore",
  "interruptAfter",
  "signal",
  "streamMode",
  "subgraphs",
  "claimTtlMs",
  "abortGraceMs",
  "onFinalState",
]);

export class CompiledStateGraph<S = Record<string, unknown>, U = Partial<S>, N extends string = string>
  implements GraphInternals
{
  readonly name: string;
  readonly checkpointer?: BaseCheckpointSaver;
  readonly store?: BaseStore;
  readonly interruptBefore?: Breakpoints;
  readonly interruptAfter?: Breakpoints;
  readonly positional: boolean;
  readonly subgraphCheckpoints?: SubgraphCheckpoints;
  declare readonly "~types": { state: S; update: U; nodes: N };

  constructor(
    readonly builder: StateGraph<any, any>,
    readonly spec: GraphSpec,
    options: CompileOptions,
  ) {
    this.name = options.name ?? "LangGraph";
    const saver = options.checkpointer;
    this.checkpointer = typeof saver === "object" && saver !== null ? saver : undefined;
    if (saver === true) this.subgraphCheckpoints = "persistent";
    else if (saver === false) this.subgraphCheckpoints = "none";
    this.store = options.store;
    this.interruptBefore = breakpoints(options.interruptBefore);
    this.interruptAfter = breakpoints(options.interruptAfter);
    this.positional = options.resumeMatching === "positional";
  }

  private runOptions(config: RunConfig) {
    return {
      recursionLimit: config.recursionLimit,
      durability: config.durability,
      interruptBefore: breakpoints(config.interruptBefore),
      interruptAfter: breakpoints(config.interruptAfter),
      signal: config.signal,
      claimTtlMs: config.claimTtlMs,
      abortGraceMs: config.abortGraceMs,
      onFinalState: config.onFinalState,
    };
  }

  private baseConfig(config: RunConfig): RunnableConfig {
    const out: RunnableConfig = {};
    for (const key in config) if (!RUN_KEYS.has(key)) out[key] = config[key];
    return out;
  }

  /** Config merged under every call's own (`withConfig`). */
  private defaults?: RunConfig;

  /** A graph that runs with `config` under every call's own config, as a Runnable's `withConfig`. */
  withConfig(config: RunConfig): this {
    const bound = Object.create(this) as this;
    bound.defaults = mergeConfig(this.defaults, config);
    return bound;
  }

  /** Runs the graph until it finishes or pauses. A paused result carries `__interrupt__`. */
  async invoke(input: U | S | unknown, config: RunConfig = {}): Promise<InvokeResult<S>> {
    if (this.defaults) config = mergeConfig(this.defaults, config);
    if (this.builder.contextSchema) await checkContext(this.builder.contextSchema, config.context);
    const run = new GraphRun(this, input, this.baseConfig(config), this.runOptions(config));
    const result = await run.execute();
    const { interrupts, paused } = result;
    const values = this.builder.outputKeys ? pick(result.values, this.builder.outputKeys) : result.values;
    // Paused at a static breakpoint: an empty list, as LangGraph.js returns.
    if (paused && !currentTask()) return { ...values, [INTERRUPT]: interrupts } as InvokeResult<S>;
    return values as InvokeResult<S>;
  }

  /** Runs the graph and yields chunks as it goes (`for await (const chunk of await graph.stream(...))`). */
  async stream(input: U | S | unknown, config: StreamConfig = {}): Promise<AsyncIterableIterator<any>> {
    if (this.defaults) config = mergeConfig(this.defaults, config);
    if (this.builder.contextSchema) await checkContext(this.builder.contextSchema, config.context);
    // LangGraph.js 1.7 streams "updates" when no mode is given (whatever its docs say).
    const modes =
      config.streamMode === undefined
        ? ["updates" as const]
        : Array.isArray(config.streamMode)
          ? config.streamMode
          : [config.streamMode];
    const queue = new ChunkQueue<unknown>();
    const emitter = queueEmitter(queue, modes, Array.isArray(config.streamMode), config.subgraphs === true);
    let base = this.baseConfig(config);
    if (modes.includes("messages")) {
      // Tokens reach the stream through a callback handler that chat models called with the node's config report to.
      const lc = await loadTypedLangChain('Stream mode "messages"');
      const handler = createMessagesHandler(
        lc,
        (ns, chunk) => emitter.emit(ns, "messages", chunk),
        (ns) => ns === "" || emitter.subgraphs,
      );
      base = { ...base, callbacks: addHandler(base.callbacks, handler) };
    }
    const run = new GraphRun(this, input, base, this.runOptions(config), emitter);
    run.execute().then(
      () => queue.close(),
      (error) => queue.close(error),
    );
    return queue;
  }

  /**
   * LangChain's event stream of a run (`version: "v2"`): the graph, each node, and the chat
   * models and tools they call, started, streaming and ended. Needs `@langchain/core`.
   */
  streamEvents(
    input: U | S | unknown,
    options: StreamConfig & { version: "v1" | "v2" },
    streamOptions?: EventFilters,
  ): AsyncGenerator<StreamEvent> {
    return streamGraphEvents(this, input, options, streamOptions);
  }

  private saverFor(what: string): BaseCheckpointSaver {
    const saver = currentTask()?.run.saver ?? this.checkpointer;
    if (!saver) throw new MissingCheckpointerError(what);
    return saver;
  }

  async getState(config: RunnableConfig, options: { subgraphs?: boolean } = {}): Promise<StateSnapshot> {
    const saver = this.saverFor("getState()");
    return this.owner(config).stateFrom(saver, config, options.subgraphs === true);
  }

  /** The graph whose checkpoints `config` addresses: this one, or a subgraph by `checkpoint_ns`. */
  private owner(config: RunnableConfig): CompiledStateGraph {
    return graphAtNamespace(this, config.configurable?.checkpoint_ns as string | undefined) as CompiledStateGraph;
  }

  /** The snapshot stored in `saver` (a subgraph's state lives in its parent's saver). */
  async stateFrom(saver: BaseCheckpointSaver, config: RunnableConfig, subgraphs: boolean): Promise<StateSnapshot> {
    const tuple = await readingLangChain(() => saver.getTuple(config));
    if (!tuple) return emptySnapshot(config);
    return snapshotOf(
      this,
      tuple,
      subgraphs,
      (graph, childConfig, deep) => (graph as CompiledStateGraph).stateFrom(saver, childConfig, deep),
      !checkpointIdOf(config),
    );
  }

  async *getStateHistory(config: RunnableConfig, options: CheckpointListOptions = {}): AsyncGenerator<StateSnapshot> {
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
          yield await snapshotOf(graph, tuple, false, (graph, childConfig, deep) =>
            (graph as CompiledStateGraph).stateFrom(saver, childConfig, deep),
          );
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

  /** Nodes and edges, for drawing. */
  getGraph(): GraphDrawing {
    return drawingOf(this.builder);
  }
}

function mergeConfig<C extends RunConfig>(base: RunConfig | undefined, over: C): C {
  if (!base) return over;
  return { ...base, ...over, configurable: { ...base.configurable, ...over.configurable } } as C;
}

function pick(values: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of keys) if (key in values) out[key] = values[key];
  return out;
}

export interface GraphDrawing {
  nodes: Array<{ id: string; subgraph: boolean }>;
  edges: Array<{ source: string; target: string; conditional: boolean }>;
  /** Mermaid flowchart source, as LangGraph's `getGraph().drawMermaid()`. */
  drawMermaid(): string;
}

function mermaid(nodes: GraphDrawing["nodes"], edges: GraphDrawing["edges"]): string {
  const id = (name: string) => name.replace(/[^A-Za-z0-9_]/g, "_");
  const lines = ["graph TD;"];
  for (const node of nodes)
    lines.push(`\t${id(node.id)}${node.id === START || node.id === END ? `([${node.id}])` : `[${node.id}]`};`);
  for (const edge of edges) lines.push(`\t${id(edge.source)} ${edge.conditional ? "-.->" : "-->"} ${id(edge.target)};`);
  return lines.join("\n");
}

function drawingOf(builder: StateGraph<any, any>): GraphDrawing {
  const nodes = [
    { id: START, subgraph: false },
    ...[...builder.nodes.values()].map((n) => ({ id: n.name, subgraph: typeof n.action !== "function" })),
    { id: END, subgraph: false },
  ];
  const edges: GraphDrawing["edges"] = [];
  for (const { sources, target } of builder.edges)
    for (const source of sources) edges.push({ source, target, conditional: false });
  for (const branch of builder.branches) {
    const targets = branch.pathMap ? [...new Set(Object.values(branch.pathMap))] : [...builder.nodes.keys(), END];
    for (const target of targets) edges.push({ source: branch.source, target, conditional: true });
  }
  for (const node of builder.nodes.values())
    for (const end of node.options.ends ?? []) edges.push({ source: node.name, target: end, conditional: true });
  // A node reached by a plain edge and leading nowhere ends the run: drawn with an edge to END, as
  // LangGraph draws it (branch targets are left as they are).
  const sources = new Set(edges.map((edge) => edge.source));
  const sinks = new Set(
    edges.filter((e) => !e.conditional && e.target !== END && !sources.has(e.target)).map((e) => e.target),
  );
  for (const sink of [...sinks].sort()) edges.push({ source: sink, target: END, conditional: false });
  return { nodes, edges, drawMermaid: () => mermaid(nodes, edges) };
}
