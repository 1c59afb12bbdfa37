/** compile() and run-time validation: every mistake named, with what to do. */

import {
  Annotation,
  EmptyInputError,
  END,
  GraphValidationError,
  interrupt,
  MemorySaver,
  MissingCheckpointerError,
  MissingThreadIdError,
  START,
  StateGraph,
} from "@interlude/core";
import { describe, expect, it } from "vitest";

const State = Annotation.Root({ v: Annotation<number>() });

function expectInvalid(build: () => unknown, node: string, pattern: RegExp) {
  try {
    build();
  } catch (error) {
    expect(error).toBeInstanceOf(GraphValidationError);
    expect((error as GraphValidationError).code).toBe("GRAPH_VALIDATION");
    expect((error as GraphValidationError).node).toBe(node);
    expect((error as Error).message).toMatch(pattern);
    return;
  }
  throw new Error("expected a GraphValidationError");
}

describe("compile", () => {
  it("rejects an edge to a node that does not exist", () => {
    expectInvalid(
      () =>
        new StateGraph(State)
          .addNode("a", () => ({}))
          .addEdge(START, "a")
          .addEdge("a", "ghost" as never)
          .compile(),
      "ghost",
      /Edge target .*"ghost"/,
    );
  });
  it("rejects an edge from a node that does not exist", () => {
    expectInvalid(
      () =>
        new StateGraph(State)
          .addNode("a", () => ({}))
          .addEdge(START, "a")
          .addEdge("nope" as never, "a")
          .compile(),
      "nope",
      /Edge source "nope"/,
    );
  });
  it("rejects a graph without entry point", () => {
    expectInvalid(
      () =>
        new StateGraph(State)
          .addNode("a", () => ({}))
          .addEdge("a", END)
          .compile(),
      START,
      /no entry point.*addEdge\(START, "a"\)/,
    );
  });
  it("rejects breakpoints naming unknown nodes", () => {
    expectInvalid(
      () =>
        new StateGraph(State)
          .addNode("a", () => ({}))
          .addEdge(START, "a")
          .compile({ interruptBefore: ["aa"] }),
      "aa",
      /interruptBefore breakpoint "aa"/,
    );
    expectInvalid(
      () =>
        new StateGraph(State)
          .addNode("a", () => ({}))
          .addEdge(START, "a")
          .compile({ interruptAfter: ["zz"] }),
      "zz",
      /interruptAfter/,
    );
  });
  it("rejects conditional edges to unknown nodes and from unknown sources", () => {
    expectInvalid(
      () =>
        new StateGraph(State)
          .addNode("a", () => ({}))
          .addEdge(START, "a")
          .addConditionalEdges("a", () => "x", { x: "missing" })
          .compile(),
      "missing",
      /Conditional edge target/,
    );
    expectInvalid(
      () =>
        new StateGraph(State)
          .addNode("a", () => ({}))
          .addEdge(START, "a")
          .addConditionalEdges("b" as never, () => "a")
          .compile(),
      "b",
      /Conditional edge source "b"/,
    );
  });
  it("rejects duplicate and reserved node names", () => {
    expectInvalid(
      () => new StateGraph(State).addNode("a", () => ({})).addNode("a", () => ({})),
      "a",
      /already defined/,
    );
    expectInvalid(() => new StateGraph(State).addNode(START as never, () => ({})), START, /reserved/);
    expectInvalid(() => new StateGraph(State).addNode("a|b", () => ({})), "a|b", /may not contain/);
  });
  it("rejects an empty graph", () => {
    expect(() => new StateGraph(State).compile()).toThrow(GraphValidationError);
  });
});

describe("running", () => {
  it("interrupt() without a checkpointer says to pass one to compile", async () => {
    const graph = new StateGraph(State)
      .addNode("ask", () => ({ v: interrupt(1) }))
      .addEdge(START, "ask")
      .compile();
    const error = await graph.invoke({}).catch((e) => e);
    expect(error).toBeInstanceOf(MissingCheckpointerError);
    expect(error.code).toBe("MISSING_CHECKPOINTER");
    expect(error.message).toMatch(/compile\(\{ checkpointer/);
  });
  it("a run without thread_id on a graph with a checkpointer fails clearly", async () => {
    const graph = new StateGraph(State)
      .addNode("a", () => ({}))
      .addEdge(START, "a")
      .compile({ checkpointer: new MemorySaver() });
    const error = await graph.invoke({}).catch((e) => e);
    expect(error).toBeInstanceOf(MissingThreadIdError);
    expect(error.message).toMatch(/thread_id/);
    // A thread id under LangGraph's other spellings, or in the wrong place, is pointed at.
    await expect(graph.invoke({}, { configurable: { threadId: "t" } })).rejects.toThrow(
      /configurable has "threadId": the key is thread_id\./,
    );
    await expect(graph.invoke({}, { thread_id: "t" } as never)).rejects.toThrow(
      /"thread_id" at its top level: it goes in configurable/,
    );
    await expect(graph.invoke({}, { configurable: { "thread-id": "t" } })).rejects.toThrow(/has "thread-id"/);
    // Reading or editing the state without one says the same, naming those calls too.
    await expect(graph.updateState({ configurable: {} }, {})).rejects.toThrow(/updateState\(config, values\)/);
  });
  it("invoke(null) on a thread that never ran is an EmptyInputError", async () => {
    const graph = new StateGraph(State)
      .addNode("a", () => ({}))
      .addEdge(START, "a")
      .compile({ checkpointer: new MemorySaver() });
    await expect(graph.invoke(null, { configurable: { thread_id: "never" } })).rejects.toBeInstanceOf(EmptyInputError);
  });
  it("a node returning a non-object is an InvalidUpdateError naming the node", async () => {
    const graph = new StateGraph(State)
      .addNode("bad", () => 42 as never)
      .addEdge(START, "bad")
      .compile();
    await expect(graph.invoke({})).rejects.toThrow(/Node "bad" returned 42/);
  });
  it("routing to an unknown node names it", async () => {
    const graph = new StateGraph(State)
      .addNode("a", () => ({}))
      .addEdge(START, "a")
      .addConditionalEdges("a", () => "nowhere")
      .compile();
    await expect(graph.invoke({})).rejects.toThrow(/routed to unknown node "nowhere"/);
  });
});
