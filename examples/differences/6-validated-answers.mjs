// Answers checked against a Standard Schema validator (zod, valibot, arktype... or hand-written).
import assert from "node:assert/strict";
import { Annotation, Command, InvalidResumeError, interrupt, MemorySaver, START, StateGraph } from "@interlude/core";

const approval = {
  "~standard": {
    version: 1,
    vendor: "example",
    validate: (v) =>
      typeof v?.approved === "boolean"
        ? { value: v }
        : { issues: [{ message: "must be true or false", path: ["approved"] }] },
  },
  toJSONSchema: () => ({ type: "object", properties: { approved: { type: "boolean" } }, required: ["approved"] }),
};
const State = Annotation.Root({ decision: Annotation() });
const graph = new StateGraph(State)
  .addNode("review", () => ({ decision: interrupt({ plan: "refund" }, { responseSchema: approval }) }))
  .addEdge(START, "review")
  .compile({ checkpointer: new MemorySaver() });
const config = { configurable: { thread_id: "t" } };
const paused = await graph.invoke({}, config);
console.log("form schema:", JSON.stringify(paused.__interrupt__[0].responseSchema));
try {
  await graph.invoke(new Command({ resume: { approved: "sure" } }), config);
} catch (error) {
  assert.ok(error instanceof InvalidResumeError);
  console.log(`${error.code}:`, error.issues);
}
console.log(await graph.invoke(new Command({ resume: { approved: true } }), config));
