/**
 * getState reads a SQLite file synchronously and builds the snapshot in the same turn; a thread
 * holding LangChain messages, read by a process that has not loaded @langchain/core yet, still
 * loads it and reads again.
 */
import { expect, it } from "vitest";
import { childProcesses } from "./child-node.js";

const { sqliteFile, node } = childProcesses("interlude-get-state-");

it("reads a thread holding a message in a process that has not loaded @langchain/core", () => {
  const file = sqliteFile("messages.sqlite");
  const graph = `
    const { Annotation, START, StateGraph, interrupt } = await import("@interlude/core");
    const { SqliteSaver } = await import("@interlude/checkpoint-sqlite");
    // A plain state key (no messages reducer), so nothing loads @langchain/core before the read.
    const State = Annotation.Root({ last: Annotation(), answer: Annotation() });
    const graph = (reply) => new StateGraph(State)
      .addNode("reply", reply)
      .addNode("ask", (s) => ({ answer: interrupt({ about: s.last }) }))
      .addEdge(START, "reply")
      .addEdge("reply", "ask")
      .compile({ checkpointer: new SqliteSaver(${file}) });
    const config = { configurable: { thread_id: "t" } };`;
  node(`${graph}
    const { AIMessage } = await import("@langchain/core/messages");
    await graph(() => ({ last: new AIMessage({ content: "stored", id: "m1" }) })).invoke({}, config);`);
  const read = node(`${graph}
    const state = await graph(() => ({})).getState(config);
    const [question] = state.interrupts;
    const name = (message) => message.constructor.name + ":" + message.content;
    process.stdout.write(JSON.stringify([name(state.values.last), name(question.value.about), state.next]));`);
  expect(JSON.parse(read)).toEqual(["AIMessage:stored", "AIMessage:stored", ["ask"]]);
});
