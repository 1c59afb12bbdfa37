import {
  Annotation,
  END,
  InvalidCheckpointerError,
  MemorySaver,
  START,
  StateGraph,
  UnsupportedFeatureError,
} from "@interlude/core";
import { describe, expect, it } from "vitest";

const State = Annotation.Root({ v: Annotation<number>() });

describe("addNode(name, fn, { tracePolicy })", () => {
  it("is refused rather than sending to tracers what it says to redact", () => {
    const add = () =>
      new StateGraph(State).addNode("n", () => ({ v: 1 }), { tracePolicy: { processInputs: () => ({}) } });
    expect(add).toThrow(UnsupportedFeatureError);
    expect(add).toThrow(/tracePolicy/);
  });
});

describe("compile({ cache })", () => {
  it("refuses what is not a cache instead of failing at the first cached node", () => {
    const builder = new StateGraph(State).addNode("n", () => ({ v: 1 })).addEdge(START, "n");
    expect(() => builder.compile({ cache: {} } as never)).toThrow(/compile\(\{ cache \}\) needs a BaseCache/);
  });
});

describe("compile({ checkpointer })", () => {
  const builder = () => new StateGraph(State).addNode("n", () => ({ v: 1 })).addEdge(START, "n");
  /** LangGraph.js's saver contract: reads and writes, no thread claims. */
  const langgraphLike = {
    getTuple: async () => undefined,
    list: async function* () {},
    put: async () => ({}),
    putWrites: async () => undefined,
    deleteThread: async () => undefined,
    getNextVersion: (current?: number) => (current ?? 0) + 1,
  };

  it("refuses a saver without thread claims at compile, naming what it lacks and what to use", () => {
    const compile = () => builder().compile({ checkpointer: langgraphLike as never });
    expect(compile).toThrow(InvalidCheckpointerError);
    expect(compile).toThrow(/no claimThread, releaseThread.*@interlude\/checkpoint-sqlite/);
  });

  it("refuses a saver of Interlude's whose getNextVersion would never be called", () => {
    class Numbered extends MemorySaver {
      getNextVersion(current?: number) {
        return (current ?? 0) + 10;
      }
    }
    const compile = () => builder().compile({ checkpointer: new Numbered() });
    expect(compile).toThrow(expect.objectContaining({ code: "INVALID_CHECKPOINTER" }));
    expect(compile).toThrow(/Numbered defines getNextVersion/);
  });

  it("takes Interlude's own savers, true and false", () => {
    for (const checkpointer of [new MemorySaver(), true, false])
      expect(() => builder().compile({ checkpointer })).not.toThrow();
  });
});

describe("defer", () => {
  it("runs a deferred node once, when nothing else is left, even if one branch is longer", async () => {
    const Log = Annotation.Root({
      log: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
    });
    const graph = new StateGraph(Log)
      .addNode("short", () => ({ log: ["short"] }))
      .addNode("long1", () => ({ log: ["long1"] }))
      .addNode("long2", () => ({ log: ["long2"] }))
      .addNode("summary", (s) => ({ log: [`summary of ${s.log.length}`] }), { defer: true })
      .addEdge(START, "short")
      .addEdge(START, "long1")
      .addEdge("long1", "long2")
      .addEdge("short", "summary")
      .addEdge("long2", "summary")
      .addEdge("summary", END)
      .compile();
    expect((await graph.invoke({})).log).toEqual(["long1", "short", "long2", "summary of 3"]);
  });
});
