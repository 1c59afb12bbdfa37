/**
 * `entrypoint()` workflows (the functional API) served like graphs. A workflow runs as a graph of
 * one node over the state `{ input, output, previous }`; clients see what LangGraph Server shows
 * of a functional workflow: the run's input is the workflow's argument, the thread's values are
 * its last output, `values` streams that output once, when the workflow returns, and `updates`
 * names the workflow (and each `task()`) with its result.
 *
 * The served graph delegates to the workflow's own graph (bound to the server's saver) and
 * overrides only what crosses the API: input, stream chunks, state. It expects the executor's
 * stream shape: a list of modes with subgraphs (chunks `[namespace, mode, chunk]`).
 */
import {
  asGraphStream,
  type CompiledStateGraph,
  INTERRUPT,
  isCommand,
  type RunnableConfig,
  type StateSnapshot,
  type StreamConfig,
  type StreamEvent,
  type StreamMode,
} from "@interlude/core";

import type { GraphStorage } from "./graphs.js";

type Triple = [string[], string, unknown];

/** What the server needs of an `Entrypoint` (duck-typed: a graph module may resolve its own copy of the core). */
export interface Workflow {
  readonly name: string;
  readonly graph: CompiledStateGraph;
}

const wrap = (input: unknown) => (isCommand(input) || input === null || input === undefined ? input : { input });

/** A workflow that has not returned yet shows `{}`, as a graph with no values does. */
const output = (values: unknown) => (values as { output?: unknown } | undefined)?.output ?? {};

const outputOf = (snapshot: StateSnapshot): StateSnapshot => ({
  ...snapshot,
  values: output(snapshot.values) as Record<string, unknown>,
});

function askedModes(config: StreamConfig): Set<string> {
  if (config.subgraphs !== true || !Array.isArray(config.streamMode))
    throw new Error("A served workflow streams with subgraphs and a list of modes (runs/executor.ts).");
  return new Set(config.streamMode);
}

/** The workflow's graph streams `updates` too when `values` is asked: its output is told from its update. */
function innerConfig(config: StreamConfig, asked: Set<string>): StreamConfig {
  const modes = new Set(asked as Set<StreamMode>);
  if (asked.has("values")) modes.add("updates");
  const onFinalState = config.onFinalState;
  return {
    ...config,
    streamMode: [...modes],
    onFinalState: onFinalState && ((state) => onFinalState(outputOf(state))),
  };
}

/** One chunk of the workflow's graph as the API shows it (none, one or two chunks). */
function workflowChunks(name: string, asked: Set<string>, [ns, mode, chunk]: Triple): Triple[] {
  if (ns.length) return [[ns, mode, chunk]];
  const record = chunk as Record<string, unknown>;
  switch (mode) {
    case "values":
      // The state object is not shown; an interrupt is.
      return INTERRUPT in record ? [[ns, mode, chunk]] : [];
    case "updates": {
      if (!(name in record)) return asked.has("updates") ? [[ns, mode, chunk]] : [];
      const output = (record[name] as { output?: unknown } | undefined)?.output;
      const out: Triple[] = [];
      if (asked.has("updates")) out.push([ns, "updates", { [name]: output }]);
      if (asked.has("values")) out.push([ns, "values", output]);
      return out;
    }
    case "checkpoints":
      return [[ns, mode, outputOfRecord(record)]];
    case "debug":
      return record.type === "checkpoint"
        ? [[ns, mode, { ...record, payload: outputOfRecord(record.payload as Record<string, unknown>) }]]
        : [[ns, mode, chunk]];
    default:
      return [[ns, mode, chunk]];
  }
}

const outputOfRecord = (record: Record<string, unknown>) => ({ ...record, values: output(record.values) });

async function* mapped(source: AsyncIterable<Triple>, name: string, asked: Set<string>): AsyncGenerator<Triple> {
  for await (const triple of source) yield* workflowChunks(name, asked, triple);
}

export function serveWorkflow(workflow: Workflow, { saver, store }: GraphStorage): CompiledStateGraph {
  const { name } = workflow;
  const inner = workflow.graph.builder.compile({
    checkpointer: saver,
    store,
    name,
    cache: workflow.graph.cache,
  }) as CompiledStateGraph;
  const overrides: Partial<CompiledStateGraph> = {
    async stream(input: unknown, config: StreamConfig = {}) {
      const asked = askedModes(config);
      const source = (await inner.stream(wrap(input), innerConfig(config, asked))) as AsyncIterable<Triple>;
      return asGraphStream(mapped(source, name, asked));
    },
    // The server asks for LangChain's events (v2) only: the run's own stream serves the rest.
    streamEvents: async function* (input: unknown, options: StreamConfig & { version: "v1" | "v2" }) {
      const asked = askedModes(options);
      let root: string | undefined;
      for await (const event of inner.streamEvents(wrap(input), {
        ...innerConfig(options, asked),
        version: options.version,
      })) {
        root ??= event.run_id;
        if (event.event !== "on_chain_stream" || event.run_id !== root) yield event;
        else
          for (const chunk of workflowChunks(name, asked, event.data.chunk as Triple))
            yield { ...event, data: { chunk } } as StreamEvent;
      }
    } as CompiledStateGraph["streamEvents"],
    async getState(config: RunnableConfig, options?: { subgraphs?: boolean }) {
      return outputOf(await inner.getState(config, options));
    },
    async *getStateHistory(config: RunnableConfig, options?: Parameters<CompiledStateGraph["getStateHistory"]>[1]) {
      for await (const snapshot of inner.getStateHistory(config, options)) yield outputOf(snapshot);
    },
    // What the next run's getPreviousState() returns, and the thread's values, as Entrypoint.updateState.
    updateState(config: RunnableConfig, values: unknown) {
      return inner.updateState(config, { output: values, previous: values }, name);
    },
  };
  // Everything else (drawing, schema, spec) is the workflow graph's own.
  return Object.assign(Object.create(inner) as CompiledStateGraph, overrides);
}
