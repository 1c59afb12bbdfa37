// Several pending interrupts (parallel branches) answered in one call, by interrupt id.
import assert from "node:assert/strict";
import { Annotation, Command, interrupt, MemorySaver, START, StateGraph } from "@interlude/core";

const State = Annotation.Root({ approvals: Annotation({ reducer: (a, b) => a.concat(b), default: () => [] }) });
const graph = new StateGraph(State)
  .addNode("legal", () => ({ approvals: [`legal: ${interrupt({ question: "Approve A?" })}`] }))
  .addNode("finance", () => ({ approvals: [`finance: ${interrupt({ question: "Approve B?" })}`] }))
  .addEdge(START, "legal")
  .addEdge(START, "finance")
  .compile({ checkpointer: new MemorySaver() });

const config = { configurable: { thread_id: "many" } };
await graph.invoke({}, config);
const pending = (await graph.getState(config)).interrupts;
console.log(pending.map((i) => `${i.id}: ${i.value.question}`).join("\n"));
const result = await graph.invoke(new Command({ resume: { [pending[0].id]: true, [pending[1].id]: false } }), config);
// One step's writes reach the reducer in task order: nodes by name (as LangGraph).
assert.deepEqual(result.approvals, ["finance: false", "legal: true"]);
console.log(result);
