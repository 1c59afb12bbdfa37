/** Graphs served with node caching keep it: a compiled graph its own cache, a builder one in the process. */
import { Annotation, InMemoryCache, MemorySaver, START, StateGraph } from "@interlude/core";
import { expect, it } from "vitest";
import { GraphRegistry } from "../dist/config/graphs.js";

it("a served graph's cached node runs once per input, across threads, whether exported compiled or as a builder", async () => {
  const State = Annotation.Root({ q: Annotation<string>(), out: Annotation<string>() });
  const runs = { built: 0, compiled: 0 };
  const builder = (id: keyof typeof runs) =>
    new StateGraph(State)
      .addNode("n", (s) => ({ out: `${s.q}: run ${++runs[id]}` }), { cachePolicy: true })
      .addEdge(START, "n");
  const registry = await GraphRegistry.of(
    { built: builder("built"), compiled: builder("compiled").compile({ cache: new InMemoryCache() }) },
    { saver: new MemorySaver(), store: undefined },
  );
  for (const id of ["built", "compiled"] as const) {
    const graph = registry.get(id)!;
    const first = await graph.invoke({ q: "x" }, { configurable: { thread_id: `${id}-1` } });
    const second = await graph.invoke({ q: "x" }, { configurable: { thread_id: `${id}-2` } });
    expect(second).toEqual(first);
  }
  expect(runs).toEqual({ built: 1, compiled: 1 });
});
