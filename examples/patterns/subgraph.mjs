// A subgraph called inside a node: on resume the parent node runs again from its start, the
// subgraph skips its finished node and re-runs only the interrupted one.
import assert from "node:assert/strict";
import { Annotation, Command, interrupt, MemorySaver, START, StateGraph } from "@interlude/core";

const counts = { parent: 0, someNode: 0, humanNode: 0 };
const State = Annotation.Root({ state_counter: Annotation() });
const subgraph = new StateGraph(State)
  .addNode("some_node", () => void counts.someNode++)
  .addNode("human_node", () => {
    counts.humanNode++;
    console.log(`Got an answer of ${interrupt("what is your name?")}`);
  })
  .addEdge(START, "some_node")
  .addEdge("some_node", "human_node")
  .compile();
const graph = new StateGraph(State)
  .addNode("parent_node", async (state) => {
    counts.parent++;
    return await subgraph.invoke(state);
  })
  .addEdge(START, "parent_node")
  .compile({ checkpointer: new MemorySaver() });

const config = { configurable: { thread_id: "sub" } };
for await (const chunk of await graph.stream({ state_counter: 1 }, { ...config, streamMode: "updates" }))
  console.log(chunk);
console.log("--- Resuming ---");
for await (const chunk of await graph.stream(new Command({ resume: "35" }), { ...config, streamMode: "updates" }))
  console.log(chunk);
assert.deepEqual(counts, { parent: 2, someNode: 1, humanNode: 2 });
console.log(counts);
