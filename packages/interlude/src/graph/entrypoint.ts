/**
 * The functional API: a workflow written as one async function instead of a graph. Inside
 * it, `interrupt()` pauses and `task()` calls run once across resumes, exactly as in a node.
 *
 *   const review = entrypoint({ name: "review", checkpointer }, async (draft: string) => {
 *     const verdict = interrupt({ draft });
 *     return { draft, verdict };
 *   });
 *
 * The workflow is a graph of one node named after it. Its state is the input, the output of
 * the last run, and what the last run saved for the next (`getPreviousState()`).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { BaseCache } from "../cache/base.js";
import type { EventFilters, StreamEvent } from "../callbacks/stream-events.js";
import type { BaseCheckpointSaver } from "../checkpoint/base.js";
import type { CheckpointListOptions, RunnableConfig } from "../checkpoint/types.js";
import { INTERRUPT, START } from "../constants.js";
import { refuseGenerator } from "../errors/graph.js";
import { everyName, refuseUnknownGraphOptions } from "../errors/options.js";
import { type Command, isCommand } from "../primitives/command.js";
import type { GraphRunStream } from "../protocol/run-stream.js";
import { PROTOCOL_STREAM, type StreamEventsV3Options, streamProtocolEvents } from "../protocol/stream-events.js";
import { asGraphStream, type GraphStream } from "../run/emitter.js";
import { defaultStreamMode } from "../run/stream-run.js";
import type { TimeoutPolicy } from "../runner/timeout.js";
import type { BaseStore } from "../store/base.js";
import type { StateSnapshot } from "../thread/snapshot.js";
import { Annotation } from "./annotation.js";
import type { CompiledStateGraph, RunConfig, StreamConfig } from "./compiled.js";
import { StateGraph } from "./state-graph.js";
import { workflowChunks } from "./workflow-chunks.js";

export interface EntrypointOptions {
  name: string;
  checkpointer?: BaseCheckpointSaver;
  /** Long-term memory: the workflow reaches it as `config.store` or `getStore()`. */
  store?: BaseStore;
  /** Where the results of its `task()`s with a `cachePolicy` are kept. */
  cache?: BaseCache;
  /** Limits on each attempt of the workflow, as a node's `timeout`. */
  timeout?: number | TimeoutPolicy;
}

/** `entrypoint()`'s options by name. */
const ENTRYPOINT_OPTIONS = everyName<keyof EntrypointOptions>({
  name: 1,
  checkpointer: 1,
  store: 1,
  cache: 1,
  timeout: 1,
});

const WorkflowState = Annotation.Root({
  input: Annotation<unknown>(),
  output: Annotation<unknown>(),
  previous: Annotation<unknown>(),
});

const FINAL = Symbol.for("interlude.entrypoint.final");

/** What `entrypoint.final` returns: `value` to the caller, `save` for the next run's `getPreviousState()`. */
/** What a workflow returning `Output` gives its caller: an `entrypoint.final`'s value, else the output. */
export type EntrypointResult<Output> = Output extends EntrypointFinal<infer Value, any> ? Value : Output;

export interface EntrypointFinal<Value, Save> {
  readonly [FINAL]: true;
  readonly value: Value;
  readonly save: Save;
}

function isFinal(value: unknown): value is EntrypointFinal<unknown, unknown> {
  return typeof value === "object" && value !== null && FINAL in value;
}

const previousStorage = new AsyncLocalStorage<{ previous: unknown }>();

/** Inside an entrypoint: what the last run on this thread returned (or saved with `entrypoint.final`). */
export function getPreviousState<T = unknown>(): T {
  return previousStorage.getStore()?.previous as T;
}

export class Entrypoint<Input, Output> {
  readonly graph: CompiledStateGraph<{ input: unknown; output: unknown; previous: unknown }>;
  readonly name: string;
  constructor(options: EntrypointOptions, fn: (input: Input, config: RunnableConfig) => Output | Promise<Output>) {
    const { name, checkpointer, store, cache, timeout } = options;
    this.name = name;
    this.graph = new StateGraph(WorkflowState)
      .addNode(
        name,
        async (state, config) => {
          const result = await previousStorage.run({ previous: state.previous }, () =>
            fn(state.input as Input, config),
          );
          return isFinal(result)
            ? { output: result.value, previous: result.save }
            : { output: result, previous: result };
        },
        { timeout },
      )
      .addEdge(START, name)
      .compile({ checkpointer, name, store, cache }) as never;
  }

  /** Empties the cache of the workflow's tasks. */
  clearCache(): Promise<void> {
    return this.graph.clearCache();
  }

  private wrap(input: Input | unknown): unknown {
    return isCommand(input) || input === null || input === undefined ? input : { input };
  }

  /**
   * Runs the workflow; returns its result (an `entrypoint.final`'s value), or `{ __interrupt__ }`
   * when it paused. Typed as LangGraph.js types it: the result (`isInterrupted()` tells a pause).
   */
  async invoke(input: Input | Command | null, config: RunConfig = {}): Promise<EntrypointResult<Output>> {
    const result = await this.graph.invoke(this.wrap(input), config);
    if (result[INTERRUPT]) return { [INTERRUPT]: result[INTERRUPT] } as EntrypointResult<Output>;
    return result.output as EntrypointResult<Output>;
  }

  /**
   * Streams as LangGraph's functional API does: an `updates` chunk per `task()` call that
   * finished, then `{ [name]: output }`; `values` is the output, once (workflow-chunks.ts).
   */
  async stream(input: Input | unknown, config: StreamConfig = {}): Promise<GraphStream<unknown>> {
    const asked = config.streamMode === undefined ? [defaultStreamMode()] : [config.streamMode].flat();
    // A v3 run needs the inner values, for the checkpoint envelope each one comes with.
    const envelopes = (config as Record<symbol, unknown>)[PROTOCOL_STREAM] === true;
    const inner = envelopes ? [...asked] : [...new Set(asked.map((mode) => (mode === "values" ? "updates" : mode)))];
    const source = await this.graph.stream(this.wrap(input), { ...config, streamMode: inner });
    return asGraphStream(
      workflowChunks(source, this.name, asked, {
        multi: Array.isArray(config.streamMode),
        subgraphs: config.subgraphs === true,
        innerValues: envelopes,
      }),
    );
  }

  /** `version: "v3"`: the run's protocol events and projections; `"v2"`: LangChain's event stream. */
  streamEvents(
    input: Input | unknown,
    options: StreamConfig & StreamEventsV3Options,
  ): Promise<GraphRunStream<any, any>>;
  streamEvents(
    input: Input | unknown,
    options: StreamConfig & { version: "v1" | "v2" },
    filters?: EventFilters,
  ): AsyncGenerator<StreamEvent>;
  streamEvents(input: Input | unknown, options: any, filters?: EventFilters): any {
    if (options?.version !== "v3") return this.graph.streamEvents(this.wrap(input), options, filters);
    const workflow = { streamTransformers: this.graph.streamTransformers, stream: this.stream.bind(this) };
    try {
      return Promise.resolve(streamProtocolEvents(workflow, input, options));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** The thread's state; its values are the workflow's last output. */
  async getState(config: RunnableConfig): Promise<StateSnapshot> {
    return outputSnapshot(await this.graph.getState(config));
  }

  async *getStateHistory(config: RunnableConfig, options?: CheckpointListOptions): AsyncGenerator<StateSnapshot> {
    for await (const snapshot of this.graph.getStateHistory(config, options)) yield outputSnapshot(snapshot);
  }

  /** Sets what the next run's `getPreviousState()` returns. */
  updateState(config: RunnableConfig, values: unknown): Promise<RunnableConfig> {
    return this.graph.updateState(config, { output: values, previous: values }, this.name);
  }
}

function outputSnapshot(snapshot: StateSnapshot): StateSnapshot {
  return { ...snapshot, values: snapshot.values.output as Record<string, unknown> };
}

type EntrypointFunction = <Input, Output>(
  options: EntrypointOptions | string,
  fn: (input: Input, config: RunnableConfig) => Output | Promise<Output>,
) => Entrypoint<Input, Output>;

export const entrypoint: EntrypointFunction & {
  /** Return `value` to the caller and keep `save` for the next run's `getPreviousState()`. */
  final<Value, Save>(result: { value?: Value; save?: Save }): EntrypointFinal<Value, Save>;
} = Object.assign(
  <Input, Output>(
    options: EntrypointOptions | string,
    fn: (input: Input, config: RunnableConfig) => Output | Promise<Output>,
  ): Entrypoint<Input, Output> => {
    const settings = typeof options === "string" ? { name: options } : options;
    refuseUnknownGraphOptions(`entrypoint("${settings.name}")`, settings, ENTRYPOINT_OPTIONS);
    refuseGenerator(fn, "an entrypoint", settings.name);
    return new Entrypoint(settings, fn);
  },
  {
    final<Value, Save>(result: { value?: Value; save?: Save }): EntrypointFinal<Value, Save> {
      return { [FINAL]: true, value: result.value as Value, save: result.save as Save };
    },
  },
);
