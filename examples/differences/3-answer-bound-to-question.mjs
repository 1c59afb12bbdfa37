// The seed's pitfall: resuming "John" with update {name: "foo"} makes LangGraph record John as the age.
import assert from "node:assert/strict";
import {
  Annotation,
  Command,
  InterruptMismatchError,
  interrupt,
  MemorySaver,
  START,
  StateGraph,
} from "@interlude/core";

const State = Annotation.Root({ name: Annotation(), age: Annotation() });
const graph = new StateGraph(State)
  .addNode("human_node", (state) => {
    const name = !state.name ? interrupt("what is your name?") : "N/A";
    const age = !state.age ? interrupt("what is your age?") : "N/A";
    return { name, age };
  })
  .addEdge(START, "human_node")
  .compile({ checkpointer: new MemorySaver() });
const config = { configurable: { thread_id: "t" } };
await graph.invoke({ name: null, age: null }, config);
try {
  await graph.invoke(new Command({ resume: "John", update: { name: "foo" } }), config);
} catch (error) {
  assert.ok(error instanceof InterruptMismatchError);
  console.log(`${error.code}: ${error.message.split("\n").slice(0, 3).join(" | ")}`);
}
// Still paused on the name; answered one at a time it works.
await graph.invoke(new Command({ resume: "John" }), config);
const done = await graph.invoke(new Command({ resume: "25" }), config);
assert.deepEqual(done, { name: "John", age: "25" });
console.log(done);
