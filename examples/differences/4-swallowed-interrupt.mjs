// interrupt() inside try/catch: LangGraph loses the pause. Interlude still pauses.
import assert from "node:assert/strict";
import { Annotation, Command, interrupt, MemorySaver, START, StateGraph } from "@interlude/core";

const State = Annotation.Root({ plan: Annotation(), approved: Annotation() });
const graph = new StateGraph(State)
  .addNode("approval_node", (state) => {
    try {
      return { approved: interrupt({ plan: state.plan }) };
    } catch {
      return { approved: false }; // the seed's wrong example
    }
  })
  .addEdge(START, "approval_node")
  .compile({ checkpointer: new MemorySaver() });
const config = { configurable: { thread_id: "t" } };
const paused = await graph.invoke({ plan: "refund" }, config);
assert.equal(paused.__interrupt__.length, 1);
console.log("still paused:", paused.__interrupt__[0].value);
console.log(await graph.invoke(new Command({ resume: true }), config));
