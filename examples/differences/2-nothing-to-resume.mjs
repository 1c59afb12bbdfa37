// LangGraph returns {} for a resume that answers nothing. Interlude says why.
import assert from "node:assert/strict";
import {
  Annotation,
  Command,
  interrupt,
  MemorySaver,
  NothingToResumeError,
  START,
  StateGraph,
  UnknownInterruptError,
} from "@interlude/core";

const State = Annotation.Root({ ok: Annotation() });
const graph = new StateGraph(State)
  .addNode("ask", () => ({ ok: interrupt("ok?") }))
  .addEdge(START, "ask")
  .compile({ checkpointer: new MemorySaver() });
for (const [thread, resume] of [
  ["never-ran", true],
  ["t", { ["0".repeat(32)]: true }],
]) {
  if (thread === "t") await graph.invoke({}, { configurable: { thread_id: thread } });
  try {
    await graph.invoke(new Command({ resume }), { configurable: { thread_id: thread } });
  } catch (error) {
    assert.ok(error instanceof NothingToResumeError || error instanceof UnknownInterruptError);
    console.log(`${error.code}: ${error.message.split("\n")[0]}`);
  }
}
