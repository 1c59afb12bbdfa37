// Every answer is recorded with who gave it, when, and why, in the thread's history.
import { Annotation, Command, interrupt, MemorySaver, START, StateGraph } from "@interlude/core";

const State = Annotation.Root({ approved: Annotation() });
const graph = new StateGraph(State)
  .addNode("review", () => ({ approved: interrupt("Approve?") }))
  .addEdge(START, "review")
  .compile({ checkpointer: new MemorySaver() });
const config = { configurable: { thread_id: "t" } };
await graph.invoke({}, config);
await graph.invoke(new Command({ resume: true, by: "alice@example.com", reason: "checked the invoice" }), config);
for await (const snapshot of graph.getStateHistory(config)) {
  for (const record of snapshot.metadata.resume ?? []) console.log(record);
}
