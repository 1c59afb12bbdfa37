/**
 * A low-level graph (`Pregel`, the non-state `Graph`) on a SQLite file: it pauses in one process
 * and is answered in another, which builds the same graph and finds the thread where it stopped.
 */
import { expect, it } from "vitest";
import { childProcesses } from "./child-node.js";

const { sqliteFile, node } = childProcesses("interlude-low-level-");

it("a Pregel paused by interrupt() in one process is answered in another", () => {
  const file = sqliteFile("pregel.sqlite");
  const app = `
    const { Command, interrupt } = await import("@interlude/core");
    const { Pregel, Channel } = await import("@interlude/core/pregel");
    const { LastValue } = await import("@interlude/core/channels");
    const { SqliteSaver } = await import("@interlude/checkpoint-sqlite");
    let entered = 0;
    const app = new Pregel({
      nodes: {
        double: Channel.subscribeTo("input").pipe((x) => x * 2).pipe(Channel.writeTo(["doubled"])),
        review: Channel.subscribeTo("doubled")
          .pipe((x) => { entered++; return x + interrupt({ add: "how much?", to: x }); })
          .pipe(Channel.writeTo(["output"])),
      },
      channels: { input: new LastValue(), doubled: new LastValue(), output: new LastValue() },
      inputChannels: "input",
      outputChannels: "output",
      checkpointer: new SqliteSaver(${file}),
    });
    const config = { configurable: { thread_id: "t" } };`;
  const first = node(`${app}
    const paused = await app.invoke(21, config);
    process.stdout.write(JSON.stringify([paused.__interrupt__.map((i) => i.value), entered]));`);
  expect(JSON.parse(first)).toEqual([[{ add: "how much?", to: 42 }], 1]);
  const second = node(`${app}
    const state = await app.getState(config);
    const done = await app.invoke(new Command({ resume: 8 }), config);
    process.stdout.write(JSON.stringify([state.next, state.values.doubled, done, entered]));`);
  expect(JSON.parse(second)).toEqual([["review"], 42, 50, 1]);
});

it("a non-state Graph stopped at a breakpoint in one process goes on in another", () => {
  const file = sqliteFile("graph.sqlite");
  const graph = `
    const { Graph, START, END } = await import("@interlude/core");
    const { SqliteSaver } = await import("@interlude/checkpoint-sqlite");
    const graph = new Graph()
      .addNode("draft", (topic) => "a draft about " + topic)
      .addNode("publish", (text) => text.toUpperCase())
      .addEdge(START, "draft")
      .addEdge("draft", "publish")
      .addEdge("publish", END)
      .compile({ checkpointer: new SqliteSaver(${file}), interruptBefore: ["publish"] });
    const config = { configurable: { thread_id: "g" } };`;
  node(`${graph} await graph.invoke("owls", config);`);
  const out = node(`${graph}
    const before = await graph.getState(config);
    const done = await graph.invoke(null, config);
    process.stdout.write(JSON.stringify([before.next, before.values, done]));`);
  expect(JSON.parse(out)).toEqual([["publish"], { draft: "a draft about owls" }, "A DRAFT ABOUT OWLS"]);
});
