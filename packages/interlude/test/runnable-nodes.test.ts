/** Point 4 of issue 12: Runnables as nodes and conditional-edge paths; withConfig. */
import { Annotation, GraphValidationError, MemorySaver, START, StateGraph } from "@interlude/core";
import { RunnableLambda } from "@langchain/core/runnables";
import { describe, expect, it } from "vitest";

const State = Annotation.Root({ n: Annotation<number>(), route: Annotation<string>(), seen: Annotation<unknown>() });

describe("Runnables in graphs", () => {
  it("a RunnableLambda is a node and a path, and receives the node's config", async () => {
    const graph = new StateGraph(State)
      .addNode(
        "double",
        RunnableLambda.from((s: { n: number }, config) => ({ n: s.n * 2, seen: config?.configurable?.thread_id })),
      )
      .addNode("big", () => ({ route: "big" }))
      .addNode("small", () => ({ route: "small" }))
      .addEdge(START, "double")
      .addConditionalEdges(
        "double",
        RunnableLambda.from((s: { n: number }) => (s.n > 5 ? "big" : "small")),
        ["big", "small"],
      )
      .compile({ checkpointer: new MemorySaver() });
    expect(await graph.invoke({ n: 4 }, { configurable: { thread_id: "t1" } })).toEqual({
      n: 8,
      route: "big",
      seen: "t1",
    });
    expect((await graph.invoke({ n: 1 }, { configurable: { thread_id: "t2" } })).route).toBe("small");
  });

  it("any object with invoke(input, config) is a node", async () => {
    const runnable = { invoke: async (s: { n: number }) => ({ n: s.n + 1 }) };
    const graph = new StateGraph(State).addNode("inc", runnable).addEdge(START, "inc").compile();
    expect((await graph.invoke({ n: 1 })).n).toBe(2);
  });

  it("an object without invoke is refused, naming the node", () => {
    expect(() => new StateGraph(State).addNode("bad", { run: () => ({}) } as never)).toThrow(GraphValidationError);
    expect(() => new StateGraph(State).addNode("bad", { run: () => ({}) } as never)).toThrow(/"bad".*Runnable/);
  });

  it("withConfig binds config under every call's own", async () => {
    const graph = new StateGraph(State)
      .addNode("who", (_s, config) => ({ seen: `${config.configurable.thread_id}/${config.configurable.user}` }))
      .addEdge(START, "who")
      .compile({ checkpointer: new MemorySaver() })
      .withConfig({ configurable: { thread_id: "bound", user: "ada" } });
    expect((await graph.invoke({})).seen).toBe("bound/ada");
    expect((await graph.invoke({}, { configurable: { user: "bob" } })).seen).toBe("bound/bob");
  });
});
