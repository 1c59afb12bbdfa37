// A side effect before interrupt() runs again on every resume in LangGraph; in task() it runs once.
import assert from "node:assert/strict";
import { Annotation, Command, interrupt, MemorySaver, START, StateGraph, task } from "@interlude/core";

let apiCalls = 0;
const apiCall = task("api_call", async (question) => {
  apiCalls++;
  return `context for ${question}`;
});
const State = Annotation.Root({ question: Annotation(), answer: Annotation() });
const graph = new StateGraph(State)
  .addNode("human_node", async (state) => {
    const context = await apiCall(state.question);
    return { answer: `${interrupt({ question: state.question, context })} (${context})` };
  })
  .addEdge(START, "human_node")
  .compile({ checkpointer: new MemorySaver() });

const config = { configurable: { thread_id: "once" } };
await graph.invoke({ question: "refund?" }, config);
const result = await graph.invoke(new Command({ resume: "yes" }), config);
assert.equal(apiCalls, 1);
console.log(result, `api_call ran ${apiCalls} time`);
