/** stream(): modes, several modes at once, subgraph namespaces, interrupts. */

import {
  Annotation,
  Command,
  interrupt,
  MemorySaver,
  START,
  StateGraph,
  UnsupportedFeatureError,
} from "@interlude/core";
import { describe, expect, it } from "vitest";

const concat = { reducer: (a: string[], b: string[]) => a.concat(b), default: () => [] as string[] };
const thread = (id: string) => ({ configurable: { thread_id: id } });

async function collect(stream: AsyncIterable<unknown>): Promise<any[]> {
  const out: any[] = [];
  for await (const chunk of stream) out.push(chunk);
  return out;
}

const State = Annotation.Root({ log: Annotation<string[]>(concat) });
function twoSteps() {
  return new StateGraph(State)
    .addNode("a", (_s, config) => {
      config.writer({ progress: "a half-way" });
      return { log: ["a"] };
    })
    .addNode("b", () => ({ log: ["b"] }))
    .addEdge(START, "a")
    .addEdge("a", "b")
    .compile({ checkpointer: new MemorySaver() });
}

describe("stream", () => {
  it("defaults to updates, as LangGraph.js 1.7 does", async () => {
    expect(await collect(await twoSteps().stream({ log: ["in"] }, thread("default")))).toEqual([
      { a: { log: ["a"] } },
      { b: { log: ["b"] } },
    ]);
  });

  it("values: the state after the input and after each step", async () => {
    expect(
      await collect(await twoSteps().stream({ log: ["in"] }, { ...thread("values"), streamMode: "values" })),
    ).toEqual([{ log: ["in"] }, { log: ["in", "a"] }, { log: ["in", "a", "b"] }]);
  });

  it("updates: what each node returned", async () => {
    expect(await collect(await twoSteps().stream({}, { ...thread("updates"), streamMode: "updates" }))).toEqual([
      { a: { log: ["a"] } },
      { b: { log: ["b"] } },
    ]);
  });

  it("custom: what nodes wrote with config.writer", async () => {
    expect(await collect(await twoSteps().stream({}, { ...thread("custom"), streamMode: "custom" }))).toEqual([
      { progress: "a half-way" },
    ]);
  });

  it("several modes at once yield [mode, chunk]", async () => {
    const chunks = await collect(
      await twoSteps().stream({}, { ...thread("multi"), streamMode: ["updates", "custom"] }),
    );
    expect(chunks).toEqual([
      ["custom", { progress: "a half-way" }],
      ["updates", { a: { log: ["a"] } }],
      ["updates", { b: { log: ["b"] } }],
    ]);
  });

  it("checkpoints, tasks and debug report saves and task starts/results", async () => {
    const chunks = await collect(
      await twoSteps().stream({}, { ...thread("ckpt"), streamMode: ["checkpoints", "tasks"] }),
    );
    const checkpoints = chunks.filter(([mode]) => mode === "checkpoints").map(([, c]) => c);
    expect(checkpoints.map((c) => c.metadata.step)).toEqual([-1, 0, 1, 2]);
    expect(checkpoints[3].values).toEqual({ log: ["a", "b"] });
    const tasks = chunks.filter(([mode]) => mode === "tasks").map(([, c]) => c);
    expect(tasks.map((t) => ("result" in t ? `done ${t.name}` : `start ${t.name}`))).toEqual([
      "start a",
      "done a",
      "start b",
      "done b",
    ]);
  });

  it("tasks: every task of a step reports its start before any reports its end, as LangGraph streams them", async () => {
    const graph = new StateGraph(State)
      .addNode("a", () => ({ log: ["a"] }))
      .addNode("b", () => ({ log: ["b"] }))
      .addEdge(START, "a")
      .addEdge(START, "b")
      .compile({ checkpointer: new MemorySaver() });
    const chunks = await collect(await graph.stream({}, { ...thread("siblings"), streamMode: "tasks" }));
    expect(chunks.map((c) => `${c.name} ${"result" in c ? "end" : "start"}`)).toEqual([
      "a start",
      "b start",
      "a end",
      "b end",
    ]);
  });

  it("yields { __interrupt__ } when the run pauses", async () => {
    const graph = new StateGraph(State)
      .addNode("ask", () => ({ log: [interrupt<unknown, string>("q")] }))
      .addEdge(START, "ask")
      .compile({ checkpointer: new MemorySaver() });
    const chunks = await collect(await graph.stream({}, { ...thread("paused"), streamMode: "updates" }));
    expect(chunks).toEqual([{ __interrupt__: [expect.objectContaining({ value: "q" })] }]);
    expect(
      await collect(await graph.stream(new Command({ resume: "x" }), { ...thread("paused"), streamMode: "updates" })),
    ).toEqual([{ ask: { log: ["x"] } }]);
  });

  it("with subgraphs: true, chunks carry their namespace", async () => {
    const child = new StateGraph(State)
      .addNode("inner", () => ({ log: ["inner"] }))
      .addEdge(START, "inner")
      .compile();
    const graph = new StateGraph(State)
      .addNode("child", child)
      .addEdge(START, "child")
      .compile({ checkpointer: new MemorySaver() });
    const chunks = await collect(await graph.stream({}, { ...thread("sub"), streamMode: "updates", subgraphs: true }));
    expect(chunks).toEqual([
      [[expect.stringMatching(/^child:/)], { inner: { log: ["inner"] } }],
      [[], { child: { log: ["inner"] } }],
    ]);
  });

  it("surfaces a node's error to the reader", async () => {
    const graph = new StateGraph(State)
      .addNode("bad", () => {
        throw new Error("nope");
      })
      .addEdge(START, "bad")
      .compile();
    await expect(collect(await graph.stream({}))).rejects.toThrow("nope");
  });
});

describe("a stream left early", () => {
  // Leaving with break, then continuing at once, is compared with LangGraph.js in
  // compat/test/cancellation-retry-tracing.test.ts; here, a node that ignores the signal.
  it("cancel() waits for its run to stop, for a node that ignores the signal up to abortGraceMs", async () => {
    let deafRuns = 0;
    const graph = new StateGraph(State)
      .addNode("a", () => ({ log: ["a"] }))
      .addNode("deaf", async () => {
        deafRuns++;
        await new Promise((resolve) => setTimeout(resolve, 2_000));
        return { log: ["deaf"] };
      })
      .addEdge(START, "a")
      .addEdge("a", "deaf")
      .compile({ checkpointer: new MemorySaver() });
    const config = thread("cancel");
    const stream = await graph.stream({ log: [] }, { ...config, streamMode: "updates", abortGraceMs: 30 });
    expect((await stream.next()).value).toEqual({ a: { log: ["a"] } });
    while (deafRuns === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    const started = Date.now();
    await stream.cancel();
    expect(Date.now() - started).toBeLessThan(1_000);
    // Abandoned, its writes dropped: the thread is free and stands after a.
    expect((await graph.getState(config)).next).toEqual(["deaf"]);
    expect(await graph.invoke(null, config)).toEqual({ log: ["a", "deaf"] });
  }, 10_000);
});

describe("debug mode", () => {
  it("wraps checkpoint and task events with type, step and timestamp", async () => {
    const chunks = await collect(await twoSteps().stream({}, { ...thread("debug"), streamMode: "debug" }));
    expect(chunks.map((c) => c.type)).toEqual([
      "checkpoint",
      "checkpoint",
      "task",
      "task_result",
      "checkpoint",
      "task",
      "task_result",
      "checkpoint",
    ]);
    expect(chunks.every((c) => typeof c.timestamp === "string" && typeof c.step === "number" && c.payload)).toBe(true);
  });
});

it('a stream encoding other than "text/event-stream" is refused, naming the one there is', async () => {
  const graph = new StateGraph(Annotation.Root({ n: Annotation<number>() }))
    .addNode("a", () => ({ n: 1 }))
    .addEdge(START, "a")
    .compile();
  const error = await graph.stream({ n: 0 }, { encoding: "application/json" } as never).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(UnsupportedFeatureError);
  expect((error as Error).message).toContain('"text/event-stream"');
});
