/**
 * Stream mode `events`: the run goes through `graph.streamEvents(..., { version: "v2" })`, which
 * gives LangChain's events of everything inside (nodes, chat models, tools) and, as the root run's
 * `on_chain_stream` chunks, the graph's own `[namespace, mode, chunk]` triples. The triples are
 * handed on like `graph.stream()`'s; every other event is sent as an `events` event, as LangGraph
 * Server does.
 */
import type { CompiledStateGraph, StreamConfig, StreamEvent } from "@interlude/core";

export type Triple = [string[], string, unknown];

export async function* chunksWithEvents(
  graph: CompiledStateGraph,
  input: unknown,
  config: StreamConfig,
  onEvent: (event: StreamEvent) => void,
): AsyncGenerator<Triple> {
  let root: string | undefined;
  for await (const event of graph.streamEvents(input, { ...config, version: "v2" })) {
    root ??= event.run_id;
    if (event.event === "on_chain_stream" && event.run_id === root) yield event.data.chunk as Triple;
    else onEvent(event);
  }
}
