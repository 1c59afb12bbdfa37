// Static breakpoints, editing the state while paused, and time travel (replay and fork).
import assert from "node:assert/strict";
import { Annotation, MemorySaver, START, StateGraph } from "@interlude/core";

const State = Annotation.Root({
  draft: Annotation(),
  log: Annotation({ reducer: (a, b) => a.concat(b), default: () => [] }),
});
const graph = new StateGraph(State)
  .addNode("write", () => ({ draft: "v1", log: ["write"] }))
  .addNode("publish", (s) => ({ log: [`publish ${s.draft}`] }))
  .addEdge(START, "write")
  .addEdge("write", "publish")
  .compile({ checkpointer: new MemorySaver(), interruptBefore: ["publish"] });

const config = { configurable: { thread_id: "bp" } };
await graph.invoke({}, config);
console.log("paused before:", (await graph.getState(config)).next);
await graph.updateState(config, { draft: "v2 (edited by a human)" });
console.log((await graph.invoke(null, config)).log);

const history = [];
for await (const snapshot of graph.getStateHistory(config)) history.push(snapshot);
const beforePublish = history.find((s) => s.next[0] === "publish" && s.metadata.source === "loop");
const fork = await graph.updateState(beforePublish.config, { draft: "v3 (fork)" });
const forked = await graph.invoke(null, fork);
assert.deepEqual(forked.log, ["write", "publish v3 (fork)"]);
console.log("fork:", forked.log);
