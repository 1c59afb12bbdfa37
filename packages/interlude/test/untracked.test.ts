/** An untracked key reaches no storage: neither a checkpoint nor a pending write of a paused step holds it. */
import {
  Annotation,
  interrupt,
  MemorySaver,
  START,
  StateGraph,
  UntrackedValue,
  UntrackedValueChannel,
} from "@interlude/core";
import { expect, it } from "vitest";
import { z } from "zod";

it("a secret in an untracked key is in no stored checkpoint or pending write", async () => {
  const saver = new MemorySaver();
  const State = Annotation.Root({ token: new UntrackedValueChannel<string>(), done: Annotation<string>() });
  const graph = new StateGraph(State)
    .addNode("login", () => ({ token: "s3cr3t" }))
    // A finished sibling of the paused task: its writes are stored as pending writes, the token's are not.
    .addNode("use", (s) => ({ token: "rotated-s3cr3t", done: `a token of ${s.token.length} chars` }))
    .addNode("ask", () => ({ done: interrupt("continue?") }))
    .addEdge(START, "login")
    .addEdge("login", "use")
    .addEdge("login", "ask")
    .compile({ checkpointer: saver });
  const config = { configurable: { thread_id: "t" } };
  const paused = await graph.invoke({}, config);
  expect(paused.token).toBe("rotated-s3cr3t");
  const stored: unknown[] = [];
  for await (const tuple of saver.list(config)) stored.push(tuple.checkpoint.channel_values, tuple.pendingWrites);
  expect(stored.length).toBeGreaterThan(0);
  expect(JSON.stringify(stored)).not.toContain("s3cr3t");
  expect(JSON.stringify(stored)).toContain("a token of 6 chars");
});

it("a StateSchema field declared UntrackedValue starts from its schema's default and is validated", async () => {
  const State = new (await import("@interlude/core")).StateSchema({
    cache: new UntrackedValue(z.record(z.string(), z.number()).default({})),
    n: z.number(),
  });
  const graph = new StateGraph(State)
    .addNode("a", (s: any) => ({ cache: { ...s.cache, a: 1 }, n: s.n + 1 }))
    .addNode("b", () => ({ cache: "not a record" as never }))
    .addEdge(START, "a")
    .addConditionalEdges("a", (s: any) => (s.n > 1 ? "b" : "__end__"), ["b", "__end__"])
    .compile({ checkpointer: new MemorySaver() });
  const config = { configurable: { thread_id: "t" } };
  expect(await graph.invoke({ n: 0 }, config)).toEqual({ n: 1, cache: { a: 1 } });
  expect((await graph.getState(config)).values).toEqual({ n: 1, cache: {} });
  await expect(graph.invoke({ n: 1 }, { configurable: { thread_id: "u" } })).rejects.toMatchObject({
    code: "INVALID_STATE_INPUT",
  });
});
