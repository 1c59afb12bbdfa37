// LangGraph gives a plain resume value to every pending interrupt. Interlude asks which one.
import assert from "node:assert/strict";
import { AmbiguousResumeError, Annotation, Command, interrupt, MemorySaver, START, StateGraph } from "@interlude/core";

const State = Annotation.Root({ log: Annotation({ reducer: (a, b) => a.concat(b), default: () => [] }) });
const graph = new StateGraph(State)
  .addNode("wire_transfer", () => ({ log: [`transfer: ${interrupt("Send 10,000 EUR?")}`] }))
  .addNode("newsletter", () => ({ log: [`newsletter: ${interrupt("Send the newsletter?")}`] }))
  .addEdge(START, "wire_transfer")
  .addEdge(START, "newsletter")
  .compile({ checkpointer: new MemorySaver() });
const config = { configurable: { thread_id: "t" } };
const paused = await graph.invoke({}, config);
try {
  await graph.invoke(new Command({ resume: "yes" }), config);
} catch (error) {
  assert.ok(error instanceof AmbiguousResumeError);
  console.log(`${error.code}: ${error.message}`);
}
// Each question by what it asks: a step's questions come in its tasks' order (nodes by name, as LangGraph).
const asking = (text) => paused.__interrupt__.find((question) => question.value === text);
const [transfer, newsletter] = [asking("Send 10,000 EUR?"), asking("Send the newsletter?")];
const done = await graph.invoke(new Command({ resume: { [transfer.id]: "no", [newsletter.id]: "yes" } }), config);
// One step's writes reach the reducer in task order: nodes by name (as LangGraph).
assert.deepEqual(done.log, ["newsletter: yes", "transfer: no"]);
console.log(done.log);
