/**
 * `onFinalState`: the state a run tells when it stops must be exactly what `getState()` reads
 * back, in every way a run can stop; when the run cannot tell it exactly, it must not tell.
 */

import {
  Annotation,
  Command,
  END,
  interrupt,
  MemorySaver,
  START,
  StateGraph,
  type StateSnapshot,
  task,
} from "@interlude/core";
import { describe, expect, it } from "vitest";

const list = () => Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] });

let threads = 0;

/** Runs `input` on a thread and returns what the run told (undefined: nothing) with what getState reads. */
async function stopAndRead(graph: any, input: unknown, threadId: string, extra: Record<string, unknown> = {}) {
  let told: StateSnapshot | undefined;
  let calls = 0;
  const config = { configurable: { thread_id: threadId } };
  const result = await graph
    .invoke(input, { ...config, ...extra, onFinalState: (s: StateSnapshot) => ((told = s), calls++) })
    .catch((error: unknown) => ({ error }));
  expect(calls).toBeLessThanOrEqual(1);
  return { told, read: await graph.getState(config), result };
}

describe("onFinalState tells what getState reads back", () => {
  const loop = new StateGraph(Annotation.Root({ rounds: Annotation<number>(), answers: list() }))
    .addNode("ask", (s) => ({ answers: [interrupt({ n: s.answers.length }) as string] }))
    .addEdge(START, "ask")
    .addConditionalEdges("ask", (s) => (s.answers.length < s.rounds ? "ask" : END), ["ask", END]);

  it.each(["sync", "async", "exit"] as const)(
    "pausing and resuming a loop, to its end (durability %s)",
    async (durability) => {
      const graph = loop.compile({ checkpointer: new MemorySaver() });
      const thread = `t${threads++}`;
      let step = await stopAndRead(graph, { rounds: 3 }, thread, { durability });
      expect(step.told).toEqual(step.read);
      for (let n = 0; n < 3; n++) {
        step = await stopAndRead(graph, new Command({ resume: `a${n}` }), thread, { durability });
        expect(step.told).toBeDefined();
        expect(step.told).toEqual(step.read);
      }
      expect(step.read.values.answers).toEqual(["a0", "a1", "a2"]);
      expect(step.read.next).toEqual([]);
    },
  );

  it("parallel questions answered one at a time, by id", async () => {
    const graph = new StateGraph(Annotation.Root({ a: Annotation<string>(), b: Annotation<string>(), log: list() }))
      .addNode("left", () => ({ a: interrupt("left?") as string, log: ["left"] }))
      .addNode("right", () => ({ b: interrupt("right?") as string, log: ["right"] }))
      .addNode("join", (s) => ({ log: [`join:${s.a}+${s.b}`] }))
      .addEdge(START, "left")
      .addEdge(START, "right")
      .addEdge(["left", "right"], "join")
      .compile({ checkpointer: new MemorySaver() });
    const thread = `t${threads++}`;
    let step = await stopAndRead(graph, {}, thread);
    expect(step.told).toEqual(step.read);
    const [first, second] = step.read.interrupts;
    // One answer: the step stops again, at the checkpoint the run started from, whose earlier
    // writes the run did not save: it cannot tell that state exactly, so it does not tell.
    step = await stopAndRead(graph, new Command({ resume: { [first!.id]: "L" } }), thread);
    expect(step.told).toBeUndefined();
    expect(step.read.next).toEqual(["right"]);
    expect(step.read.interrupts.map((i: { id: string }) => i.id)).toEqual([second!.id]);
    step = await stopAndRead(graph, new Command({ resume: { [second!.id]: "R" } }), thread);
    expect(step.told).toEqual(step.read);
    expect(step.read.values.log).toContain("join:L+R");
  });

  it("a question asked inside a subgraph", async () => {
    const inner = new StateGraph(Annotation.Root({ topic: Annotation<string>(), note: Annotation<string>() }))
      .addNode("ask", (s) => ({ note: interrupt({ about: s.topic }) as string }))
      .addEdge(START, "ask")
      .compile();
    const graph = new StateGraph(Annotation.Root({ topic: Annotation<string>(), note: Annotation<string>() }))
      .addNode("child", inner)
      .addNode("after", (s) => ({ note: `${s.note}!` }))
      .addEdge(START, "child")
      .addEdge("child", "after")
      .compile({ checkpointer: new MemorySaver() });
    const thread = `t${threads++}`;
    let step = await stopAndRead(graph, { topic: "x" }, thread);
    expect(step.told).toEqual(step.read);
    expect(step.read.interrupts).toHaveLength(1);
    step = await stopAndRead(graph, new Command({ resume: "noted" }), thread);
    expect(step.told).toEqual(step.read);
    expect(step.read.values.note).toBe("noted!");
  });

  it("static breakpoints before and after nodes", async () => {
    const build = () =>
      new StateGraph(Annotation.Root({ log: list() }))
        .addNode("one", () => ({ log: ["one"] }))
        .addNode("two", () => ({ log: ["two"] }))
        .addEdge(START, "one")
        .addEdge("one", "two");
    for (const options of [{ interruptBefore: ["two"] }, { interruptAfter: ["one"] }]) {
      const graph = build().compile({ checkpointer: new MemorySaver(), ...options });
      const thread = `t${threads++}`;
      let step = await stopAndRead(graph, {}, thread);
      expect(step.told).toEqual(step.read);
      expect(step.read.next).toEqual(["two"]);
      step = await stopAndRead(graph, null, thread);
      expect(step.told).toEqual(step.read);
      expect(step.read.values.log).toEqual(["one", "two"]);
    }
  });

  it("task() results kept with a question asked after them", async () => {
    const draft = task("draft", async (topic: string) => `draft about ${topic}`);
    const graph = new StateGraph(Annotation.Root({ topic: Annotation<string>(), text: Annotation<string>() }))
      .addNode("write", async (s) => {
        const text = await draft(s.topic);
        return { text: `${text}, ${interrupt("ok?") as string}` };
      })
      .addEdge(START, "write")
      .compile({ checkpointer: new MemorySaver() });
    const thread = `t${threads++}`;
    let step = await stopAndRead(graph, { topic: "cats" }, thread);
    expect(step.told).toEqual(step.read);
    step = await stopAndRead(graph, new Command({ resume: "yes" }), thread);
    expect(step.told).toEqual(step.read);
    expect(step.read.values.text).toBe("draft about cats, yes");
  });

  it("an answer sent with an update, and a failing node", async () => {
    const graph = new StateGraph(Annotation.Root({ note: Annotation<string>(), log: list() }))
      .addNode("ask", () => ({ log: [interrupt("go?") as string] }))
      .addNode("boom", (s) => {
        if (s.note === "fail") throw new Error("kaboom");
        return { log: ["done"] };
      })
      .addEdge(START, "ask")
      .addEdge("ask", "boom")
      .compile({ checkpointer: new MemorySaver() });
    const thread = `t${threads++}`;
    await stopAndRead(graph, {}, thread);
    const step = await stopAndRead(graph, new Command({ resume: "go", update: { note: "fail" } }), thread);
    expect(step.result).toHaveProperty("error");
    expect(step.told).toBeUndefined();
    const again = await stopAndRead(graph, new Command({ update: { note: "ok" } }), thread);
    // Corrected by an update, the failed node runs again on the same thread, and the run tells.
    expect(again.told).toBeDefined();
    expect(again.told).toEqual(again.read);
    expect(again.read.values.log).toEqual(["go", "done"]);
  });
});
