/**
 * What a channel holds before it triggers anything is saved with the checkpoint: a join that has
 * heard from one source, and a deferred node's trigger waiting for the run to end. A process that
 * takes the paused thread over finishes both (before, neither was saved and the nodes never ran).
 */
import { expect, it } from "vitest";
import { childProcesses } from "./child-node.js";

const { sqliteFile, node } = childProcesses("interlude-held-channels-");

it("a join and a deferred node pending at a pause run in the process that resumes the thread", () => {
  const file = sqliteFile("held.sqlite");
  const graph = `
    const { Annotation, START, StateGraph } = await import("@interlude/core");
    const { SqliteSaver } = await import("@interlude/checkpoint-sqlite");
    const log = Annotation({ reducer: (a, b) => a.concat(b), default: () => [] });
    const node = (name) => () => ({ log: [name] });
    const graph = new StateGraph(Annotation.Root({ log }))
      .addNode("a", node("a")).addNode("x", node("x")).addNode("b", node("b"))
      .addNode("joined", node("joined")).addNode("last", node("last"), { defer: true })
      .addEdge(START, "a").addEdge(START, "x").addEdge("x", "b")
      .addEdge(["a", "b"], "joined").addEdge("a", "last")
      .compile({ checkpointer: new SqliteSaver(${file}), interruptAfter: ["x"] });
    const config = { configurable: { thread_id: "t" } };`;
  const paused = node(`${graph}
    const state = await graph.invoke({ log: [] }, config);
    process.stdout.write(JSON.stringify(state.log));`);
  expect(JSON.parse(paused)).toEqual(["a", "x"]);
  const resumed = node(`${graph}
    const state = await graph.invoke(null, config);
    process.stdout.write(JSON.stringify(state.log));`);
  expect(JSON.parse(resumed)).toEqual(["a", "x", "b", "joined", "last"]);
});
