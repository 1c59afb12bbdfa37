// Two resumes of one thread at once: LangGraph runs both. Interlude runs one; the other is refused
// before any node runs. (Across processes too: see packages/checkpoint-sqlite/test/cross-process.test.ts.)
import assert from "node:assert/strict";
import { Annotation, Command, interrupt, MemorySaver, START, StateGraph, ThreadBusyError } from "@interlude/core";

let payments = 0;
const State = Annotation.Root({ paid: Annotation() });
const graph = new StateGraph(State)
  .addNode("pay", async () => {
    const ok = interrupt("Pay the invoice?");
    payments++;
    await new Promise((r) => setTimeout(r, 50));
    return { paid: ok };
  })
  .addEdge(START, "pay")
  .compile({ checkpointer: new MemorySaver() });
const config = { configurable: { thread_id: "t" } };
await graph.invoke({}, config);
const results = await Promise.allSettled([
  graph.invoke(new Command({ resume: true }), config),
  graph.invoke(new Command({ resume: true }), config),
]);
const refused = results.find((r) => r.status === "rejected");
assert.ok(refused.reason instanceof ThreadBusyError);
assert.equal(payments, 1);
console.log(`${refused.reason.code}: ${refused.reason.message}`);
console.log(`payments made: ${payments}`);
