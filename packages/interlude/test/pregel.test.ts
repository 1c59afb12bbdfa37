/** Pregel super-steps: concurrency, reducers, joins, fan-out, limits. */

import {
  Annotation,
  END,
  GraphRecursionError,
  GraphValueError,
  InvalidUpdateError,
  MemorySaver,
  Send,
  START,
  StateGraph,
} from "@interlude/core";
import { describe, expect, it } from "vitest";

const concat = { reducer: (a: string[], b: string[] | string) => a.concat(b), default: () => [] as string[] };

describe("super-steps", () => {
  it("runs the tasks of a step concurrently, all seeing the state as of the step's start", async () => {
    const State = Annotation.Root({ n: Annotation<number>(), seen: Annotation<string[]>(concat) });
    const started: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const graph = new StateGraph(State)
      .addNode("a", async (s) => {
        started.push("a");
        await gate;
        return { seen: [`a saw n=${s.n}`], n: 10 };
      })
      .addNode("b", async (s) => {
        started.push("b");
        // b starts while a is still waiting: both run in the same step.
        expect(started).toEqual(["a", "b"]);
        release();
        return { seen: [`b saw n=${s.n}`] };
      })
      .addEdge(START, "a")
      .addEdge(START, "b")
      .compile();
    const result = await graph.invoke({ n: 1 });
    expect(result).toEqual({ n: 10, seen: ["a saw n=1", "b saw n=1"] });
  });

  it("applies writes through each key's reducer in task order (nodes by name), whatever order tasks finish in", async () => {
    const State = Annotation.Root({ log: Annotation<string[]>(concat) });
    const graph = new StateGraph(State)
      .addNode("b_fast", () => ({ log: ["b_fast"] }))
      .addNode("a_slow", async () => {
        await new Promise((r) => setTimeout(r, 20));
        return { log: ["a_slow"] };
      })
      .addEdge(START, "b_fast")
      .addEdge(START, "a_slow")
      .compile();
    expect((await graph.invoke({})).log).toEqual(["a_slow", "b_fast"]);
  });

  it("rejects two writes to a key without reducer in one step with InvalidUpdateError", async () => {
    const State = Annotation.Root({ value: Annotation<string>() });
    const graph = new StateGraph(State)
      .addNode("a", () => ({ value: "a" }))
      .addNode("b", () => ({ value: "b" }))
      .addEdge(START, "a")
      .addEdge(START, "b")
      .compile();
    const error = await graph.invoke({}).catch((e) => e);
    expect(error).toBeInstanceOf(InvalidUpdateError);
    expect(error.code).toBe("INVALID_UPDATE");
    expect(error.message).toContain('"value"');
  });

  it("ignores keys outside the state in a node's update, as LangGraph does", async () => {
    const State = Annotation.Root({ value: Annotation<string>() });
    const graph = new StateGraph(State)
      .addNode("a", () => ({ value: "kept", scratch: "dropped" }) as never)
      .addEdge(START, "a")
      .compile();
    expect(await graph.invoke({})).toEqual({ value: "kept" });
  });

  it("raises GraphRecursionError past recursionLimit", async () => {
    const State = Annotation.Root({ n: Annotation<number>() });
    const graph = new StateGraph(State)
      .addNode("loop", (s) => ({ n: s.n + 1 }))
      .addEdge(START, "loop")
      .addConditionalEdges("loop", () => "loop")
      .compile();
    const error = await graph.invoke({ n: 0 }, { recursionLimit: 5 }).catch((e) => e);
    expect(error).toBeInstanceOf(GraphRecursionError);
    expect(error.code).toBe("GRAPH_RECURSION_LIMIT");
  });

  it("an edge from several sources waits for all of them", async () => {
    const State = Annotation.Root({ log: Annotation<string[]>(concat) });
    const graph = new StateGraph(State)
      .addNode("a", () => ({ log: ["a"] }))
      .addNode("b1", () => ({ log: ["b1"] }))
      .addNode("b2", () => ({ log: ["b2"] }))
      .addNode("join", (s) => ({ log: [`join after ${s.log.join(",")}`] }))
      .addEdge(START, "a")
      .addEdge(START, "b1")
      .addEdge("b1", "b2")
      .addEdge(["a", "b2"], "join")
      .addEdge("join", END)
      .compile();
    expect((await graph.invoke({})).log).toEqual(["a", "b1", "b2", "join after a,b1,b2"]);
  });

  it("conditional edges route by return value, through a path map, and can end", async () => {
    const State = Annotation.Root({ n: Annotation<number>(), log: Annotation<string[]>(concat) });
    const graph = new StateGraph(State)
      .addNode("inc", (s) => ({ n: s.n + 1, log: [`inc ${s.n + 1}`] }))
      .addNode("done", () => ({ log: ["done"] }))
      .addEdge(START, "inc")
      .addConditionalEdges("inc", (s) => (s.n >= 3 ? "stop" : "again"), { stop: "done", again: "inc" })
      .addEdge("done", END)
      .compile();
    expect((await graph.invoke({ n: 0 })).log).toEqual(["inc 1", "inc 2", "inc 3", "done"]);
  });

  it("a node's branches add their routes in order, whether each returns a value or a promise", async () => {
    const State = Annotation.Root({
      results: Annotation<number[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
    });
    const build = (second: () => Promise<Send[]>) =>
      new StateGraph(State)
        .addNode("split", () => ({}))
        .addNode("worker", (arg: any) => ({ results: [arg.item] }))
        .addEdge(START, "split")
        .addConditionalEdges("split", () => [new Send("worker", { item: 1 })])
        .addConditionalEdges("split", second)
        .addConditionalEdges("split", () => [new Send("worker", { item: 3 })])
        .compile();
    // The sends' order is the workers' task order, which orders their writes.
    expect((await build(async () => [new Send("worker", { item: 2 })]).invoke({})).results).toEqual([1, 2, 3]);
    await expect(
      build(async () => {
        throw new Error("no route");
      }).invoke({}),
    ).rejects.toThrow("no route");
  });

  it("Send fans out one task per item, each with its own input", async () => {
    const State = Annotation.Root({
      items: Annotation<number[]>(),
      results: Annotation<number[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
    });
    const graph = new StateGraph(State)
      .addNode("worker", (arg: any) => ({ results: [arg.item * 10] }))
      .addConditionalEdges(START, (s) => s.items.map((item) => new Send("worker", { item })))
      .compile({ checkpointer: new MemorySaver() });
    const result = await graph.invoke({ items: [1, 2, 3] }, { configurable: { thread_id: "send" } });
    expect(result.results).toEqual([10, 20, 30]);
  });

  it("addSequence chains nodes in order", async () => {
    const State = Annotation.Root({ log: Annotation<string[]>(concat) });
    const graph = new StateGraph(State)
      .addSequence([
        ["one", () => ({ log: ["one"] })],
        ["two", () => ({ log: ["two"] })],
      ])
      .addEdge(START, "one")
      .compile();
    expect((await graph.invoke({})).log).toEqual(["one", "two"]);
  });

  it("a node may be sync or async and may return nothing", async () => {
    const State = Annotation.Root({ v: Annotation<number>() });
    const graph = new StateGraph(State)
      .addNode("sync", () => undefined)
      .addNode("async", async () => ({ v: 2 }))
      .addEdge(START, "sync")
      .addEdge("sync", "async")
      .compile();
    expect(await graph.invoke({ v: 1 })).toEqual({ v: 2 });
  });

  it("gives each step's writes a version above every earlier one, however many keys the state has", async () => {
    // Forty keys written one per step, and the loop's route forgotten after each step: the
    // version map grows past the size at which it is no longer scanned for its newest version.
    const keys = Array.from({ length: 40 }, (_, i) => `k${i}`);
    const State = Annotation.Root({
      i: Annotation<number>(),
      ...Object.fromEntries(keys.map((key) => [key, Annotation<number>()])),
    });
    const saver = new MemorySaver();
    const graph = new StateGraph(State)
      .addNode("step", (s) => ({ i: s.i + 1, [`k${s.i}`]: s.i }))
      .addEdge(START, "step")
      .addConditionalEdges("step", (s) => (s.i < keys.length ? "step" : END))
      .compile({ checkpointer: saver });
    const config = { configurable: { thread_id: "versions" }, recursionLimit: 100 };
    await graph.invoke({ i: 0 }, config);
    const newest: number[] = [];
    for await (const { checkpoint } of saver.list(config)) {
      const versions = Object.values(checkpoint.channel_versions) as number[];
      if (versions.length) newest.unshift(Math.max(...versions));
    }
    expect(newest.length).toBeGreaterThan(keys.length);
    for (let n = 1; n < newest.length; n++) expect(Math.floor(newest[n]!)).toBe(Math.floor(newest[n - 1]!) + 1);
  });

  it("retries a failing node per its retry policy", async () => {
    const State = Annotation.Root({ v: Annotation<number>() });
    let attempts = 0;
    const graph = new StateGraph(State)
      .addNode(
        "flaky",
        () => {
          attempts += 1;
          if (attempts < 3) throw new Error("transient");
          return { v: attempts };
        },
        { retryPolicy: { maxAttempts: 3, initialInterval: 1, jitter: false } },
      )
      .addEdge(START, "flaky")
      .compile();
    expect(await graph.invoke({})).toEqual({ v: 3 });
  });
});

describe("maxConcurrency", () => {
  it("is refused unless a whole number above 0, before anything runs", async () => {
    let ran = false;
    const graph = new StateGraph(Annotation.Root({ n: Annotation<number>() }))
      .addNode("a", () => {
        ran = true;
        return { n: 1 };
      })
      .addEdge(START, "a")
      .compile();
    for (const maxConcurrency of [0, 1.5, "2"]) {
      const error = await graph.invoke({ n: 0 }, { maxConcurrency } as never).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(GraphValueError);
      expect((error as GraphValueError).message).toMatch(/maxConcurrency must be a whole number above 0/);
    }
    expect(ran).toBe(false);
  });
});

it("outputKeys naming a key the state does not have is refused, naming the keys it has", async () => {
  const graph = new StateGraph(Annotation.Root({ n: Annotation<number>(), m: Annotation<number>() }))
    .addNode("a", () => ({ n: 1 }))
    .addEdge(START, "a")
    .compile();
  const error = await graph.invoke({ n: 0 }, { outputKeys: ["n", "total"] }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(GraphValueError);
  expect((error as Error).message).toBe(
    'outputKeys names "total", which is not a key of the graph\'s state. Its keys: n, m.',
  );
});
