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
  /** a -> slow -> b; slow takes 2 s, or stops at the run's signal as a model call does (unless `deaf`). */
  function leftEarly(deaf = false) {
    const runs: Record<string, number> = { a: 0, slow: 0, b: 0 };
    const graph = new StateGraph(State)
      .addNode("a", () => (runs.a++, { log: ["a"] }))
      .addNode("slow", async (_s, config) => {
        runs.slow++;
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(resolve, 2_000);
          if (!deaf)
            config.signal?.addEventListener("abort", () => (clearTimeout(timer), reject(new Error("aborted"))));
        });
        return { log: ["slow"] };
      })
      .addNode("b", () => (runs.b++, { log: ["b"] }))
      .addEdge(START, "a")
      .addEdge("a", "slow")
      .addEdge("slow", "b")
      .compile({ checkpointer: new MemorySaver() });
    const slowStarted = async () => {
      while (runs.slow === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    };
    return { graph, runs, slowStarted };
  }

  it("returns from break once its run has stopped: the thread is free at once, and the old run does nothing more", async () => {
    const { graph, runs, slowStarted } = leftEarly();
    const started = Date.now();
    for await (const chunk of await graph.stream({ log: [] }, { ...thread("brk"), streamMode: "updates" })) {
      expect(chunk).toEqual({ a: { log: ["a"] } });
      await slowStarted();
      break;
    }
    expect(Date.now() - started).toBeLessThan(1_500);
    // The run is over: its last checkpoint is the one after a, and nothing holds the thread.
    expect((await graph.getState(thread("brk"))).next).toEqual(["slow"]);
    expect(await graph.invoke(null, thread("brk"))).toEqual({ log: ["a", "slow", "b"] });
    // slow was cancelled once and run again; b ran once (the stopped run never reached it).
    expect(runs).toEqual({ a: 1, slow: 2, b: 1 });
  });

  it("cancel() waits as break does, for a node that ignores the signal only up to abortGraceMs", async () => {
    const { graph, runs, slowStarted } = leftEarly(true);
    const stream = await graph.stream({ log: [] }, { ...thread("cancel"), streamMode: "updates", abortGraceMs: 30 });
    await stream.next();
    await slowStarted();
    const started = Date.now();
    await stream.cancel();
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(await graph.invoke(null, thread("cancel"))).toEqual({ log: ["a", "slow", "b"] });
    expect(runs.b).toBe(1);
  });
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
