// Validating human input inside the graph: one node asks again until the answer is valid.
import assert from "node:assert/strict";
import { Annotation, Command, interrupt, MemorySaver, START, StateGraph } from "@interlude/core";

const State = Annotation.Root({ age: Annotation() });
const graph = new StateGraph(State)
  .addNode("get_valid_age", () => {
    let prompt = "Please enter your age (a non-negative integer).";
    for (;;) {
      const input = interrupt(prompt);
      const age = /^\d+$/.test(String(input).trim()) ? Number(input) : NaN;
      if (Number.isInteger(age)) return { age };
      prompt = `'${input}' is not valid; enter a non-negative integer.`;
    }
  })
  .addNode("report_age", (state) => console.log(`Human is ${state.age} years old.`))
  .addEdge(START, "get_valid_age")
  .addEdge("get_valid_age", "report_age")
  .compile({ checkpointer: new MemorySaver() });

const config = { configurable: { thread_id: "age" } };
console.log((await graph.invoke({}, config)).__interrupt__[0].value);
console.log((await graph.invoke(new Command({ resume: "not a number" }), config)).__interrupt__[0].value);
console.log((await graph.invoke(new Command({ resume: "-10" }), config)).__interrupt__[0].value);
const final = await graph.invoke(new Command({ resume: "25" }), config);
assert.deepEqual(final, { age: 25 });
console.log(final);
