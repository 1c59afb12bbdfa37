/**
 * Options checked by name where a graph is built or steered: a misspelt one is refused, naming
 * what the call takes, and a run option's value is checked. LangGraph.js ignores both, so
 * `interruptBefor` would run past its breakpoint and `streamMode: "update"` stream nothing.
 */
import {
  Annotation,
  Command,
  entrypoint,
  Graph,
  InMemoryCache,
  InvalidRunOptionError,
  InvalidSaverOptionError,
  MemorySaver,
  START,
  StateGraph,
  task,
} from "@interlude/core";
import { LastValue } from "@interlude/core/channels";
import { ToolNode } from "@interlude/core/prebuilt";
import { Channel, Pregel } from "@interlude/core/pregel";
import { describe, expect, it } from "vitest";

const State = Annotation.Root({ v: Annotation<number>() });
const builder = () => new StateGraph(State).addNode("n", () => ({ v: 1 })).addEdge(START, "n");
const pregelOf = (extra: Record<string, unknown>) =>
  new Pregel({
    nodes: {
      n: Channel.subscribeTo("in")
        .pipe((v: number) => v + 1)
        .pipe(Channel.writeTo(["out"])),
    },
    channels: { in: new LastValue<number>(), out: new LastValue<number>() },
    inputChannels: "in",
    outputChannels: "out",
    ...extra,
  });

/** What a refusal of `option` by `call` says: the code, the call, the option, and an option it takes. */
const refusal = (call: string, option: string, takes: string) =>
  expect.objectContaining({
    code: "GRAPH_VALIDATION",
    message: expect.stringMatching(
      new RegExp(`^${escapeRegExp(`${call} has no option "${option}". It takes `)}.*\\b${escapeRegExp(takes)}\\b`),
    ) as unknown,
  });
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

describe("an option a graph-building call does not take", () => {
  it("compile() refuses a misspelt breakpoint or saver, on a StateGraph and a Graph", () => {
    expect(() => builder().compile({ interruptBefor: ["n"] } as never)).toThrow(
      refusal("compile()", "interruptBefor", "interruptBefore"),
    );
    expect(() => builder().compile({ checkpointor: new MemorySaver() } as never)).toThrow(
      refusal("compile()", "checkpointor", "checkpointer"),
    );
    const graph = new Graph().addNode("n", (v: number) => v).addEdge(START, "n");
    expect(() => graph.compile({ debug: true } as never)).toThrow(refusal("compile()", "debug", "checkpointer"));
  });

  it("compile() takes every option it documents, and one set to undefined", async () => {
    const graph = builder().compile({
      checkpointer: new MemorySaver(),
      store: undefined,
      cache: new InMemoryCache(),
      interruptBefore: ["n"],
      interruptAfter: [],
      name: "g",
      description: "d",
      resumeMatching: "checked",
      transformers: [],
    });
    // The breakpoint was kept: the run stops before n.
    const config = { configurable: { thread_id: "t" } };
    expect(await graph.invoke({ v: 0 }, config)).toEqual({ v: 0, __interrupt__: [] });
    expect((await graph.getState(config)).next).toEqual(["n"]);
  });

  it("addNode and setNodeDefaults refuse LangGraph's task option names for a node's policies", () => {
    expect(() => builder().addNode("m", () => ({}), { retry: { maxAttempts: 2 } } as never)).toThrow(
      refusal('addNode("m")', "retry", "retryPolicy"),
    );
    expect(() => new Graph().addNode("m", (v: number) => v, { retry: {} } as never)).toThrow(
      refusal('Graph.addNode("m")', "retry", "retryPolicy"),
    );
    expect(() => builder().setNodeDefaults({ retry: {} } as never)).toThrow(
      refusal("setNodeDefaults", "retry", "retryPolicy"),
    );
  });

  it("new Pregel() refuses a misspelt option, and takes LangGraph's streamTransformers after transformers", () => {
    expect(() => pregelOf({ checkpointor: new MemorySaver() })).toThrow(
      refusal("new Pregel()", "checkpointor", "checkpointer"),
    );
    const first = () => ({ init: () => ({}), process: () => true });
    const second = () => ({ init: () => ({}), process: () => true });
    const graph = pregelOf({ transformers: [first], streamTransformers: [second], triggerToNodes: { in: ["n"] } });
    expect(graph.streamTransformers).toEqual([first, second]);
  });

  it("task() and entrypoint() refuse a misspelt option", () => {
    expect(() => task({ name: "t", retryPolicy: {} } as never, async () => 1)).toThrow(
      refusal('task("t")', "retryPolicy", "retry"),
    );
    expect(() => entrypoint({ name: "e", checkpoint: new MemorySaver() } as never, async () => 1)).toThrow(
      refusal('entrypoint("e")', "checkpoint", "checkpointer"),
    );
  });
});

describe("a misspelt key of what a graph is built from, or steered with", () => {
  it("new StateGraph() refuses a misspelt key of its options object, first argument or second", () => {
    const Output = Annotation.Root({ v: Annotation<number>() });
    expect(() => new StateGraph({ state: State, ouput: Output } as never)).toThrow(
      refusal("new StateGraph()", "ouput", "output"),
    );
    expect(() => new StateGraph(State, { input: State, ouput: Output } as never)).toThrow(
      refusal("new StateGraph()", "ouput", "output"),
    );
    // Spelt right, the output schema is kept: the graph's output keys are its.
    expect(new StateGraph({ state: State, output: Output }).outputKeys).toEqual(["v"]);
  });

  it("Annotation(), new Command() and new ToolNode() refuse it, naming what they take", () => {
    expect(() => Annotation({ reduce: (a: number, b: number) => a + b } as never)).toThrow(
      refusal("Annotation()", "reduce", "reducer"),
    );
    expect(() => new Command({ resum: "yes" } as never)).toThrow(refusal("new Command()", "resum", "resume"));
    expect(() => new ToolNode([], { handleToolError: false } as never)).toThrow(
      refusal("new ToolNode()", "handleToolError", "handleToolErrors"),
    );
  });

  it("a Command spread into another keeps working (its lg_name tag comes along)", () => {
    const answer = new Command({ resume: "yes", update: { v: 1 } });
    expect(new Command({ ...answer, goto: "n" })).toMatchObject({ resume: "yes", update: { v: 1 }, goto: ["n"] });
  });
});

describe("getStateHistory()'s options", () => {
  it("a misspelt limit is refused rather than listing the whole history", async () => {
    const compiled = builder().compile({ checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: "history" } };
    await compiled.invoke({ v: 0 }, config);
    const list = async (options: Record<string, unknown>) => {
      const snapshots = [];
      for await (const snapshot of compiled.getStateHistory(config, options)) snapshots.push(snapshot);
      return snapshots;
    };
    await expect(list({ limt: 1 })).rejects.toThrow(refusal("getStateHistory()", "limt", "limit"));
    expect(await list({ limit: 1 })).toHaveLength(1);
  });

  it("a saver's own list() refuses it too, with InvalidSaverOptionError", async () => {
    const saver = new MemorySaver();
    const config = { configurable: { thread_id: "saver-list" } };
    await builder().compile({ checkpointer: saver }).invoke({ v: 0 }, config);
    const list = async (options: Record<string, unknown>) => {
      const tuples = [];
      for await (const tuple of saver.list(config, options)) tuples.push(tuple);
      return tuples;
    };
    const refused = await list({ limt: 1 }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(InvalidSaverOptionError);
    expect((refused as Error).message).toMatch(/limt .*list\(\) takes limit, before, filter/);
    expect(await list({ limit: 1 })).toHaveLength(1);
    expect((await list({})).length).toBeGreaterThan(1);
  });
});

describe("a run option given a value that is not one", () => {
  const graph = () => builder().compile({ checkpointer: new MemorySaver() });

  it("a misspelt stream mode is refused, not streamed as nothing, and the thread runs after", async () => {
    const compiled = graph();
    const config = { configurable: { thread_id: "modes" } };
    await expect(async () => {
      for await (const _ of await compiled.stream({ v: 0 }, { ...config, streamMode: "update" as never }));
    }).rejects.toThrow(
      expect.objectContaining({
        code: "INVALID_RUN_OPTION",
        message: expect.stringMatching(/streamMode is "update"; it must be one of .*"updates"/) as unknown,
      }),
    );
    await expect(compiled.invoke({ v: 0 }, { ...config, streamMode: ["values", "updat"] as never })).rejects.toThrow(
      InvalidRunOptionError,
    );
    expect(await compiled.invoke({ v: 0 }, config)).toEqual({ v: 1 });
  });

  it("a misspelt durability is refused before anything is saved", async () => {
    const compiled = graph();
    const config = { configurable: { thread_id: "durability" } };
    await expect(compiled.invoke({ v: 0 }, { ...config, durability: "synch" as never })).rejects.toThrow(
      /durability is "synch"; it must be one of "sync", "async", "exit"/,
    );
    expect((await compiled.getState(config)).values).toEqual({});
    expect(await compiled.invoke({ v: 0 }, { ...config, durability: "exit" })).toEqual({ v: 1 });
  });
});

describe("a run's limits", () => {
  const graph = () => builder().compile({ checkpointer: new MemorySaver() });

  it("a recursion limit or timeout that is not one is refused", async () => {
    const compiled = graph();
    const config = { configurable: { thread_id: "limits" } };
    for (const recursionLimit of [0, 2.5, "10"])
      await expect(compiled.invoke({ v: 0 }, { ...config, recursionLimit: recursionLimit as never })).rejects.toThrow(
        /recursionLimit is .*; it must be a whole number of 1 or more/,
      );
    await expect(compiled.invoke({ v: 0 }, { ...config, timeout: -5 })).rejects.toThrow(
      /timeout is -5; it must be a number of milliseconds, 0 or more/,
    );
    expect(await compiled.invoke({ v: 0 }, { ...config, recursionLimit: 5, timeout: 5_000 })).toEqual({ v: 1 });
  });
});

describe("task({ cache })", () => {
  it("is LangGraph.js's older name of cachePolicy: a second call with the same argument is served from the cache", async () => {
    let calls = 0;
    const double = task({ name: "double", cache: { ttl: 60 } }, async (v: number) => {
      calls++;
      return v * 2;
    });
    const workflow = entrypoint({ name: "w", cache: new InMemoryCache() }, async (v: number) => {
      return (await double(v)) + (await double(v));
    });
    expect(await workflow.invoke(3)).toBe(12);
    expect(await workflow.invoke(3)).toBe(12);
    expect(calls).toBe(1);
  });
});
