/**
 * The functional API: a workflow written as one async function instead of a graph. Inside
 * it, `interrupt()` pauses and `task()` calls run once across resumes, exactly as in a node.
 *
 *   const review = entrypoint({ name: "review", checkpointer }, async (draft: string) => {
 *     const verdict = interrupt({ draft });
 *     return { draft, verdict };
 *   });
 */
import type { EventFilters, StreamEvent } from "../callbacks/stream-events.js";
import type { BaseCheckpointSaver } from "../checkpoint/base.js";
import type { RunnableConfig } from "../checkpoint/types.js";
import { INTERRUPT, START } from "../constants.js";
import type { StateSnapshot } from "../loop/snapshot.js";
import { isCommand } from "../primitives/command.js";
import type { Interrupt } from "../primitives/interrupt-record.js";
import type { BaseStore } from "../store/base.js";
import { Annotation } from "./annotation.js";
import type { CompiledStateGraph, RunConfig, StreamConfig } from "./compiled.js";
import { StateGraph } from "./state-graph.js";

export interface EntrypointOptions {
  name: string;
  checkpointer?: BaseCheckpointSaver;
  /** Long-term memory: the workflow reaches it as `config.store` or `getStore()`. */
  store?: BaseStore;
}

const WorkflowState = Annotation.Root({
  input: Annotation<unknown>(),
  output: Annotation<unknown>(),
});

export class Entrypoint<Input, Output> {
  readonly graph: CompiledStateGraph<{ input: unknown; output: unknown }>;
  constructor(
    readonly name: string,
    fn: (input: Input, config: RunnableConfig) => Output | Promise<Output>,
    checkpointer?: BaseCheckpointSaver,
    store?: BaseStore,
  ) {
    this.graph = new StateGraph(WorkflowState)
      .addNode(name, async (state, config) => ({ output: await fn(state.input as Input, config) }))
      .addEdge(START, name)
      .compile({ checkpointer, name, store }) as never;
  }

  private wrap(input: Input | unknown): unknown {
    return isCommand(input) || input === null || input === undefined ? input : { input };
  }

  /** Runs the workflow; returns its result, or `{ __interrupt__ }` when it paused. */
  async invoke(input: Input | unknown, config: RunConfig = {}): Promise<Output | { [INTERRUPT]: Interrupt[] }> {
    const result = await this.graph.invoke(this.wrap(input), config);
    if (result[INTERRUPT]) return { [INTERRUPT]: result[INTERRUPT] };
    return result.output as Output;
  }

  /** Streams like a graph (the workflow is a single node named after it). */
  stream(input: Input | unknown, config: StreamConfig = {}): Promise<AsyncIterableIterator<unknown>> {
    return this.graph.stream(this.wrap(input), config);
  }

  /** LangChain's event stream of a run (`version: "v2"`), as for a graph; needs `@langchain/core`. */
  streamEvents(
    input: Input | unknown,
    options: StreamConfig & { version: "v1" | "v2" },
    filters?: EventFilters,
  ): AsyncGenerator<StreamEvent> {
    return this.graph.streamEvents(this.wrap(input), options, filters);
  }

  getState(config: RunnableConfig): Promise<StateSnapshot> {
    return this.graph.getState(config);
  }

  getStateHistory(config: RunnableConfig): AsyncGenerator<StateSnapshot> {
    return this.graph.getStateHistory(config);
  }
}

export function entrypoint<Input, Output>(
  options: EntrypointOptions | string,
  fn: (input: Input, config: RunnableConfig) => Output | Promise<Output>,
): Entrypoint<Input, Output> {
  const { name, checkpointer, store } =
    typeof options === "string" ? { name: options } : (options as EntrypointOptions);
  return new Entrypoint(name, fn, checkpointer, store);
}
