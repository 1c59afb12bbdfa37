/** Stream mode `lifecycle` as a pure function of the core's chunks: which subgraph started, and how it ended. */
import { describe, expect, it } from "vitest";
import { SubgraphLifecycle } from "../dist/runs/subgraph-lifecycle.js";

const start = (id: string, name: string, input: unknown = {}) => ({ id, name, input, triggers: [], interrupts: [] });
const result = (id: string, name: string, extra: object = {}) => ({
  id,
  name,
  result: {},
  error: null,
  interrupts: [],
  ...extra,
});

describe("subgraph lifecycle events", () => {
  it.each([
    ["a result", {}, "completed"],
    ["an error", { error: { name: "TypeError", message: "bad" } }, "failed"],
    ["interrupts", { interrupts: [{ id: "i", value: "q?" }] }, "interrupted"],
  ])("a subgraph is started by its first chunk and ended by its parent task's result with %s", (_, extra, status) => {
    const life = new SubgraphLifecycle();
    expect(life.observe([], "tasks", start("t1", "sub"))).toEqual([]);
    expect(life.observe(["sub:t1"], "updates", {})).toEqual([
      ["lifecycle|sub:t1", { event: "started", namespace: ["sub:t1"] }],
    ]);
    expect(life.observe(["sub:t1"], "tasks", start("x", "a"))).toEqual([]);
    const [ended] = life.observe([], "tasks", result("t1", "sub", extra));
    expect(ended).toEqual(["lifecycle|sub:t1", expect.objectContaining({ event: status, namespace: ["sub:t1"] })]);
    if (status === "failed") expect(ended![1].error).toEqual({ error: "TypeError", message: "bad" });
    expect(life.ended()).toEqual([]);
  });

  it("nested subgraphs start outermost first and end innermost first", () => {
    const life = new SubgraphLifecycle();
    expect(life.observe(["a:1", "b:2"], "messages", {}).map(([name, d]) => [name, d.event])).toEqual([
      ["lifecycle|a:1", "started"],
      ["lifecycle|a:1|b:2", "started"],
    ]);
    expect(life.ended({ error: "Error", message: "boom" }).map(([name, d]) => [name, d.event, d.error])).toEqual([
      ["lifecycle|a:1|b:2", "failed", { error: "Error", message: "boom" }],
      ["lifecycle|a:1", "failed", { error: "Error", message: "boom" }],
    ]);
  });

  it.each([
    ["a Send of one tool call", { tool_call: { id: "call_9", name: "search" }, state: {} }],
    [
      "a list of tool calls",
      [
        { name: "search", args: {} },
        { id: "call_9", name: "search" },
      ],
    ],
    ["a tools node's state whose last message asks one call", { messages: [{ tool_calls: [{ id: "call_9" }] }] }],
  ])("a subgraph started by %s carries its tool call id", (_, input) => {
    const life = new SubgraphLifecycle();
    life.observe([], "tasks", start("t1", "tools", input));
    expect(life.observe(["tools:t1"], "tasks", start("x", "model"))).toEqual([
      ["lifecycle|tools:t1", { event: "started", namespace: ["tools:t1"], tool_call_id: "call_9" }],
    ]);
  });

  it("a tools node asked for two calls at once names neither", () => {
    const life = new SubgraphLifecycle();
    life.observe([], "tasks", start("t1", "tools", { messages: [{ tool_calls: [{ id: "c1" }, { id: "c2" }] }] }));
    expect(life.observe(["tools:t1"], "custom", 1)[0]![1]).not.toHaveProperty("tool_call_id");
  });
});
