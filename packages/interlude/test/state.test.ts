/** Breakpoints, getState, updateState, history, replay and fork. */

import { Annotation, Command, interrupt, MemorySaver, START, StateGraph } from "@interlude/core";
import { describe, expect, it } from "vitest";
import { collector } from "../../../test/setup/collector.js";

const concat = { reducer: (a: string[], b: string[]) => a.concat(b), default: () => [] as string[] };
const thread = (id: string) => ({ configurable: { thread_id: id } });

function pipeline(options: Parameters<StateGraph<any>["compile"]>[0] = {}, calls: string[] = []) {
  const State = Annotation.Root({ log: Annotation<string[]>(concat), draft: Annotation<string>() });
  return new StateGraph(State)
    .addNode("write", () => {
      calls.push("write");
      return { log: ["write"], draft: "v1" };
    })
    .addNode("review", (s) => {
      calls.push("review");
      return { log: [`review ${s.draft}`] };
    })
    .addNode("publish", () => {
      calls.push("publish");
      return { log: ["publish"] };
    })
    .addEdge(START, "write")
    .addEdge("write", "review")
    .addEdge("review", "publish")
    .compile({ checkpointer: new MemorySaver(), ...options });
}

describe("static breakpoints", () => {
  it("interruptBefore pauses before the node; invoke(null) continues", async () => {
    const graph = pipeline({ interruptBefore: ["review"] });
    const config = thread("before");
    const paused = await graph.invoke({}, config);
    expect(paused.log).toEqual(["write"]);
    expect((await graph.getState(config)).next).toEqual(["review"]);
    expect((await graph.invoke(null, config)).log).toEqual(["write", "review v1", "publish"]);
  });

  it("interruptAfter pauses after the node", async () => {
    const graph = pipeline({ interruptAfter: ["write"] });
    const config = thread("after");
    await graph.invoke({}, config);
    expect((await graph.getState(config)).next).toEqual(["review"]);
    expect((await graph.invoke(null, config)).log).toEqual(["write", "review v1", "publish"]);
  });

  it("updateState while paused edits the state the next node sees", async () => {
    const graph = pipeline({ interruptBefore: ["review"] });
    const config = thread("edit");
    await graph.invoke({}, config);
    await graph.updateState(config, { draft: "v2 (edited)" });
    const state = await graph.getState(config);
    expect(state.values.draft).toBe("v2 (edited)");
    expect(state.next).toEqual(["review"]);
    expect((await graph.invoke(null, config)).log).toEqual(["write", "review v2 (edited)", "publish"]);
  });

  it("breakpoints can also be given per run", async () => {
    const graph = pipeline();
    const config = thread("per-run");
    await graph.invoke({}, { ...config, interruptBefore: ["publish"] });
    expect((await graph.getState(config)).next).toEqual(["publish"]);
  });
});

describe("getState", () => {
  it("returns values, next, config, metadata, createdAt, parentConfig, tasks and interrupts", async () => {
    const State = Annotation.Root({ q: Annotation<string>(), a: Annotation<string>() });
    const graph = new StateGraph(State)
      .addNode("ask", (s) => ({ a: interrupt({ q: s.q }) }))
      .addEdge(START, "ask")
      .compile({ checkpointer: new MemorySaver() });
    const config = thread("snapshot");
    await graph.invoke({ q: "why?" }, config);
    const s = await graph.getState(config);
    expect(s.values).toEqual({ q: "why?" });
    expect(s.next).toEqual(["ask"]);
    expect(s.config.configurable).toMatchObject({
      thread_id: "snapshot",
      checkpoint_ns: "",
      checkpoint_id: expect.any(String),
    });
    expect(s.metadata).toMatchObject({ source: "loop", step: 0 });
    expect(new Date(s.createdAt!).getTime()).toBeGreaterThan(0);
    expect(s.parentConfig!.configurable!.checkpoint_id).toEqual(expect.any(String));
    expect(s.tasks).toHaveLength(1);
    expect(s.tasks[0]).toMatchObject({
      id: expect.any(String),
      name: "ask",
      path: ["__pregel_pull", "ask"],
      interrupts: [{ id: expect.any(String), value: { q: "why?" } }],
    });
    // snapshot.interrupts (an Interlude addition) also says which task asked.
    expect(s.interrupts).toEqual(s.tasks[0]!.interrupts.map((i) => ({ ...i, ns: expect.stringMatching(/^ask:/) })));
  });

  it("hands each snapshot its own values, defaults included: changing one changes no later snapshot", async () => {
    const graph = pipeline({ interruptBefore: ["write"] });
    const config = thread("own values");
    await graph.invoke({}, config);
    for (let read = 0; read < 3; read++) {
      const s = await graph.getState(config);
      expect(s.values).toEqual({ log: [] }); // the default of a key the checkpoint holds no value for
      expect(s.next).toEqual(["write"]);
      s.values.log.push("changed by the caller");
    }
  });

  it("reads through a saver subclass's own getTuple, and rejects when the saver's read throws", async () => {
    const reads: unknown[] = [];
    class Audited extends MemorySaver {
      override async getTuple(config: Parameters<MemorySaver["getTuple"]>[0]) {
        reads.push(config.configurable?.thread_id);
        return super.getTuple(config);
      }
    }
    const graph = pipeline({ interruptBefore: ["review"], checkpointer: new Audited() });
    const config = thread("audited");
    await graph.invoke({}, config);
    reads.length = 0;
    expect((await graph.getState(config)).next).toEqual(["review"]);
    expect(reads).toEqual(["audited"]);

    class Unreadable extends MemorySaver {
      protected override loadTuple(): never {
        throw new Error("storage unreadable");
      }
    }
    await expect(pipeline({ checkpointer: new Unreadable() }).getState(thread("unreadable"))).rejects.toThrow(
      "storage unreadable",
    );
  });

  it("of an unknown thread is empty", async () => {
    const graph = pipeline();
    const s = await graph.getState(thread("nobody"));
    expect(s.values).toEqual({});
    expect(s.next).toEqual([]);
  });
});

describe("history and time travel", () => {
  it("lists checkpoints newest first, with limit and before", async () => {
    const graph = pipeline();
    const config = thread("history");
    await graph.invoke({}, config);
    const all = [];
    for await (const s of graph.getStateHistory(config)) all.push(s);
    // As in LangGraph: the input checkpoint (step -1, next __start__), then one per step.
    expect(all.map((s) => s.metadata!.step)).toEqual([3, 2, 1, 0, -1]);
    expect(all.map((s) => s.metadata!.source)).toEqual(["loop", "loop", "loop", "loop", "input"]);
    expect(all.map((s) => s.next)).toEqual([[], ["publish"], ["review"], ["write"], ["__start__"]]);
    expect(all[0]!.parentConfig!.configurable!.checkpoint_id).toBe(all[1]!.config.configurable!.checkpoint_id);
    const limited = [];
    for await (const s of graph.getStateHistory(config, { limit: 2, before: all[0]!.config }))
      limited.push(s.metadata!.step);
    expect(limited).toEqual([2, 1]);
  });

  it("replays from a checkpoint: the steps after it run again, the original history stays", async () => {
    const calls: string[] = [];
    const graph = pipeline({}, calls);
    const config = thread("replay");
    await graph.invoke({}, config);
    const history = [];
    for await (const s of graph.getStateHistory(config)) history.push(s);
    const beforeReview = history.find((s) => s.next[0] === "review")!;
    calls.length = 0;
    const replayed = await graph.invoke(null, beforeReview.config);
    expect(calls).toEqual(["review", "publish"]);
    expect(replayed.log).toEqual(["write", "review v1", "publish"]);
    const after = [];
    for await (const s of graph.getStateHistory(config)) after.push(s);
    // A "fork" copy of the replayed checkpoint, then one checkpoint per step run again.
    expect(after.length).toBe(history.length + 3);
    expect(after[2]!.metadata).toMatchObject({ source: "fork" });
    expect(after[2]!.parentConfig!.configurable!.checkpoint_id).toBe(beforeReview.config.configurable!.checkpoint_id);
    // The original checkpoints are all still there, unchanged.
    for (const old of history) {
      const again = await graph.getState(old.config);
      expect(again.values).toEqual(old.values);
    }
  });

  it("forks: updateState on an old checkpoint, then continue from the fork", async () => {
    const graph = pipeline();
    const config = thread("fork");
    await graph.invoke({}, config);
    const history = [];
    for await (const s of graph.getStateHistory(config)) history.push(s);
    const beforeReview = history.find((s) => s.next[0] === "review")!;
    const forkConfig = await graph.updateState(beforeReview.config, { draft: "v9" });
    const fork = await graph.getState(forkConfig);
    expect(fork.parentConfig!.configurable!.checkpoint_id).toBe(beforeReview.config.configurable!.checkpoint_id);
    expect(fork.next).toEqual(["review"]);
    const result = await graph.invoke(null, forkConfig);
    expect(result.log).toEqual(["write", "review v9", "publish"]);
    // The first run's final state is untouched.
    expect((await graph.getState(history[0]!.config)).values.log).toEqual(["write", "review v1", "publish"]);
  });

  it("records who answered in the metadata of the checkpoint that follows", async () => {
    const State = Annotation.Root({ ok: Annotation<boolean>() });
    const graph = new StateGraph(State)
      .addNode("ask", () => ({ ok: interrupt<unknown, boolean>("approve?") }))
      .addEdge(START, "ask")
      .compile({ checkpointer: new MemorySaver() });
    const config = thread("audit");
    const paused = await graph.invoke({}, config);
    await graph.invoke(new Command({ resume: true, by: "alice@example.com", reason: "looks right" }), config);
    const trail = [];
    for await (const s of graph.getStateHistory(config)) if (s.metadata?.resume) trail.push(...s.metadata.resume);
    expect(trail).toEqual([
      {
        by: "alice@example.com",
        reason: "looks right",
        at: expect.any(String),
        answers: { [paused.__interrupt__![0]!.id]: true },
      },
    ]);
  });
});

describe("durability", () => {
  it('"exit" saves only the final checkpoint of the run; "sync" and "async" save every step', async () => {
    const counts: Record<string, number> = {};
    for (const durability of ["sync", "async", "exit"] as const) {
      const graph = pipeline();
      const config = thread(`durability-${durability}`);
      const result = await graph.invoke({}, { ...config, durability });
      expect(result.log).toEqual(["write", "review v1", "publish"]);
      let n = 0;
      for await (const _ of graph.getStateHistory(config)) n++;
      counts[durability] = n;
      expect((await graph.getState(config)).values.log).toEqual(["write", "review v1", "publish"]);
    }
    expect(counts).toEqual({ sync: 5, async: 5, exit: 1 });
  });

  it('"sync" saves the input checkpoint without waiting for its commit: the next save, before any node runs, waits for both', async () => {
    const saves: string[] = [];
    const calls: string[] = [];
    class Recording extends MemorySaver {
      override put(...args: Parameters<MemorySaver["put"]>) {
        const [, , metadata, , options] = args;
        saves.push(`${metadata.source} ${metadata.step} durable=${options?.durable !== false} nodes=${calls.length}`);
        return super.put(...args);
      }
    }
    const graph = pipeline({ checkpointer: new Recording() }, calls);
    await graph.invoke({}, thread("input-with-next"));
    expect(saves.slice(0, 3)).toEqual([
      "input -1 durable=false nodes=0",
      "loop 0 durable=true nodes=0",
      "loop 1 durable=true nodes=1",
    ]);
    expect(saves.slice(3).every((save) => save.includes("durable=true"))).toBe(true);
  });

  it('"exit" still saves the paused checkpoint, which resumes', async () => {
    const State = Annotation.Root({ a: Annotation<string>(), b: Annotation<string>() });
    const graph = new StateGraph(State)
      .addNode("first", () => ({ a: "done" }))
      .addNode("ask", () => ({ b: interrupt<unknown, string>("q") }))
      .addEdge(START, "first")
      .addEdge("first", "ask")
      .compile({ checkpointer: new MemorySaver() });
    const config = thread("exit-pause");
    await graph.invoke({}, { ...config, durability: "exit" });
    expect((await graph.getState(config)).next).toEqual(["ask"]);
    expect(await graph.invoke(new Command({ resume: "x" }), { ...config, durability: "exit" })).toEqual({
      a: "done",
      b: "x",
    });
  });
});

describe("cancellation", () => {
  it("a signal aborted before the run begins: RunCancelledError, and nothing is claimed or saved", async () => {
    const State = Annotation.Root({ log: Annotation<string[]>(concat) });
    let ran = 0;
    const graph = new StateGraph(State)
      .addNode("one", () => (ran++, { log: ["one"] }))
      .addEdge(START, "one")
      .compile({ checkpointer: new MemorySaver() });
    const config = thread("aborted-before");
    const controller = new AbortController();
    controller.abort("the user left");
    const error = await graph.invoke({ log: ["in"] }, { ...config, signal: controller.signal }).catch((e) => e);
    expect(error.code).toBe("RUN_CANCELLED");
    expect(error.reason).toBe("the user left");
    expect(ran).toBe(0);
    // No input checkpoint either: the thread has never run.
    expect((await graph.getState(config)).values).toEqual({});
    expect(await graph.invoke({ log: ["in"] }, config)).toEqual({ log: ["in", "one"] });
  });

  it("an aborted run stops at the next step with RunCancelledError; the thread continues from its last checkpoint", async () => {
    const controller = new AbortController();
    const State = Annotation.Root({ log: Annotation<string[]>(concat) });
    const graph = new StateGraph(State)
      .addNode("one", () => {
        controller.abort("operator stop");
        return { log: ["one"] };
      })
      .addNode("two", () => ({ log: ["two"] }))
      .addEdge(START, "one")
      .addEdge("one", "two")
      .compile({ checkpointer: new MemorySaver() });
    const config = thread("cancel");
    const error = await graph.invoke({}, { ...config, signal: controller.signal }).catch((e) => e);
    expect(error.code).toBe("RUN_CANCELLED");
    expect((await graph.getState(config)).next).toEqual(["two"]);
    expect((await graph.invoke(null, config)).log).toEqual(["one", "two"]);
  });

  it("a run's timeout fires while the garbage collector runs, with or without a signal of the caller's", async () => {
    const gc = collector();
    const State = Annotation.Root({ log: Annotation<string[]>(concat) });
    const graph = new StateGraph(State)
      // Gives up when its signal aborts, else takes 5 s: the test ends as soon as the timeout works.
      .addNode("slow", (_s, config) => {
        return new Promise<{ log: string[] }>((resolve, reject) => {
          const timer = setTimeout(() => resolve({ log: ["slow"] }), 5000);
          config.signal?.addEventListener("abort", () => {
            clearTimeout(timer);
            reject(new Error("gave up"));
          });
        });
      })
      .addEdge(START, "slow")
      .compile();
    const collecting = setInterval(gc, 10);
    try {
      for (const signal of [undefined, new AbortController().signal]) {
        const started = performance.now();
        const error = await graph.invoke({}, { timeout: 100, signal }).catch((e) => e);
        expect(error.code).toBe("RUN_CANCELLED");
        expect(error.message).toMatch(/timeout/);
        expect(performance.now() - started).toBeLessThan(4000);
      }
    } finally {
      clearInterval(collecting);
    }
  });

  it("a node that ignores the signal is abandoned after the grace period; what it returns later is dropped", async () => {
    const controller = new AbortController();
    let release!: () => void;
    const late = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const started = new Promise<void>((resolve) => (entered = resolve));
    let calls = 0;
    const State = Annotation.Root({ log: Annotation<string[]>(concat) });
    const graph = new StateGraph(State)
      .addNode("stuck", async () => {
        if (calls++ === 0) {
          entered();
          await late; // ignores the signal
          return { log: ["late"] };
        }
        return { log: ["stuck"] };
      })
      .addEdge(START, "stuck")
      .compile({ checkpointer: new MemorySaver() });
    const config = thread("abandon");
    const running = graph.invoke({}, { ...config, signal: controller.signal, abortGraceMs: 10 }).catch((e) => e);
    await started;
    controller.abort("operator stop");
    expect((await running).code).toBe("RUN_CANCELLED");
    release();
    await late;
    // The thread's claim was given back and the late result never saved: the node runs again.
    expect((await graph.invoke(null, config)).log).toEqual(["stuck"]);
  });
});
