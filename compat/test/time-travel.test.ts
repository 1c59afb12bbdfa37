/**
 * History, replay and fork from a checkpoint of a thread (subgraphs are in subgraphs tests),
 * and the deliberate differences around resuming.
 */
import { compare, historyOf, list, type Runtime } from "./harness.js";

function askPipeline(lib: Runtime, called: string[]) {
  const { Annotation, StateGraph, START, interrupt, MemorySaver } = lib;
  const State = Annotation.Root({ log: list(lib) });
  return new StateGraph(State)
    .addNode("a", () => {
      called.push("a");
      return { log: ["a"] };
    })
    .addNode("ask", () => {
      called.push("ask");
      return { log: [`human:${interrupt("input?")}`] };
    })
    .addNode("b", () => {
      called.push("b");
      return { log: ["b"] };
    })
    .addEdge(START, "a")
    .addEdge("a", "ask")
    .addEdge("ask", "b")
    .compile({ checkpointer: new MemorySaver() });
}

compare("time travel", {
  "replay from before an interrupt asks again, without the old answer": {
    from: "time_travel.test.ts: should replay from checkpoint before interrupt and strip stale RESUME writes",
    async run(lib) {
      const called: string[] = [];
      const graph = askPipeline(lib, called);
      const config = { configurable: { thread_id: "t" } };
      await graph.invoke({ log: [] }, config);
      const done = await graph.invoke(new lib.Command({ resume: "old" }), config);
      const before = (await historyOf(graph, config)).find((s) => s.next.includes("ask"));
      called.length = 0;
      const replayed = await graph.invoke(null, before.config);
      return { done, replayed, called: [...called] };
    },
  },

  "replay then resume with a new answer": {
    from: "time_travel.test.ts: should create fork checkpoint on replay from before interrupt then resume",
    async run(lib) {
      const called: string[] = [];
      const graph = askPipeline(lib, called);
      const config = { configurable: { thread_id: "t" } };
      await graph.invoke({ log: [] }, config);
      await graph.invoke(new lib.Command({ resume: "old" }), config);
      const before = (await historyOf(graph, config)).find((s) => s.next.includes("ask"));
      await graph.invoke(null, before.config);
      const done = await graph.invoke(new lib.Command({ resume: "new" }), config);
      const history = (await historyOf(graph, config)).map((s) => [s.metadata.source, s.metadata.step, s.next]);
      return { done, history };
    },
  },

  "history: sources, steps, next and values of every checkpoint": {
    from: "python_port/checkpoint.test.ts: should test invoke checkpoint functionality",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addNode("one", () => ({ log: ["one"] }))
        .addNode("two", () => ({ log: ["two"] }))
        .addEdge(START, "one")
        .addEdge("one", "two")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      await graph.invoke({ log: ["x"] }, config);
      await graph.invoke({ log: ["y"] }, config);
      return (await historyOf(graph, config)).map((s) => [
        s.metadata.source,
        s.metadata.step,
        s.next,
        s.values,
        s.tasks.map((t: any) => t.name),
        !!s.parentConfig,
      ]);
    },
  },

  "getStateHistory with a limit and before": {
    from: "python_port/checkpoint.test.ts: should test invoke checkpoint functionality with multiple operations",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addNode("one", () => ({ log: ["one"] }))
        .addNode("two", () => ({ log: ["two"] }))
        .addEdge(START, "one")
        .addEdge("one", "two")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      await graph.invoke({ log: [] }, config);
      const all = await historyOf(graph, config);
      const limited: any[] = [];
      for await (const s of graph.getStateHistory(config, { limit: 2 })) limited.push(s.metadata.step);
      const before: any[] = [];
      for await (const s of graph.getStateHistory(config, { before: all[1].config })) before.push(s.metadata.step);
      return { limited, before };
    },
  },

  "getState of an older checkpoint by id": {
    from: "python_port/checkpoint.test.ts: should test invoke checkpoint functionality",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addNode("one", () => ({ log: ["one"] }))
        .addNode("two", () => ({ log: ["two"] }))
        .addEdge(START, "one")
        .addEdge("one", "two")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      await graph.invoke({ log: [] }, config);
      const all = await historyOf(graph, config);
      const old = await graph.getState(all[2].config);
      return [old.values, old.next, old.metadata];
    },
  },

  "invoke from an older checkpoint forks: later checkpoints stay in history": {
    from: "python_port/checkpoint.test.ts: should test that running from a checkpoint ID retains previous writes",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver } = lib;
      const State = Annotation.Root({ log: list(lib) });
      let runs = 0;
      const graph = new StateGraph(State)
        .addNode("one", () => ({ log: [`one${++runs}`] }))
        .addNode("two", () => ({ log: ["two"] }))
        .addEdge(START, "one")
        .addEdge("one", "two")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      await graph.invoke({ log: [] }, config);
      const before = (await historyOf(graph, config)).find((s) => s.next.includes("one"));
      const forked = await graph.invoke(null, before.config);
      const history = (await historyOf(graph, config)).map((s) => [s.metadata.source, s.metadata.step, s.values]);
      return { forked, history };
    },
  },

  "updateState on an older checkpoint forks from it": {
    from: "python_port/checkpoint.test.ts: should test invoke checkpoint functionality with multiple operations",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addNode("one", () => ({ log: ["one"] }))
        .addNode("two", () => ({ log: ["two"] }))
        .addEdge(START, "one")
        .addEdge("one", "two")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      await graph.invoke({ log: [] }, config);
      const before = (await historyOf(graph, config)).find((s) => s.next.includes("two"));
      const forkConfig = await graph.updateState(before.config, { log: ["edited"] });
      const fork = await graph.getState(forkConfig);
      const done = await graph.invoke(null, config);
      return { fork: [fork.values, fork.next, fork.metadata.source, fork.metadata.step], done };
    },
  },

  "pending writes of a finished sibling survive a resume": {
    from: "python_port/checkpoint.test.ts: should test pending writes resume functionality",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver } = lib;
      const State = Annotation.Root({ log: list(lib) });
      let fail = true;
      let okRuns = 0;
      const graph = new StateGraph(State)
        .addNode("ok", () => {
          okRuns++;
          return { log: ["ok"] };
        })
        .addNode("flaky", () => {
          if (fail) throw new Error("flaky");
          return { log: ["flaky"] };
        })
        .addEdge(START, "ok")
        .addEdge(START, "flaky")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      await graph.invoke({ log: [] }, config).catch(() => undefined);
      const state = await graph.getState(config);
      fail = false;
      const done = await graph.invoke(null, config);
      return {
        values: state.values,
        next: state.next,
        // (LangGraph also marks the finished sibling with an "aborted" error.)
        error: state.tasks.find((t: any) => t.name === "flaky").error?.message,
        done,
        okRuns,
      };
    },
  },

  "a plain answer while two interrupts wait: refused (LangGraph gives it to both)": {
    from: "pregel.test.ts: resume multiple interrupts",
    differs: "#an-ambiguous-answer",
    async run(lib) {
      const { Annotation, StateGraph, START, interrupt, Command, MemorySaver } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addNode("x", () => ({ log: [`x:${interrupt("x?")}`] }))
        .addNode("y", () => ({ log: [`y:${interrupt("y?")}`] }))
        .addEdge(START, "x")
        .addEdge(START, "y")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      await graph.invoke({ log: [] }, config);
      return graph.invoke(new Command({ resume: "same" }), config);
    },
  },

  "a plain answer while two interrupts wait, with positional matching: as LangGraph": {
    from: "pregel.test.ts: resume multiple interrupts",
    async run(lib) {
      const { Annotation, StateGraph, START, interrupt, Command, MemorySaver } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addNode("x", () => ({ log: [`x:${interrupt("x?")}`] }))
        .addNode("y", () => ({ log: [`y:${interrupt("y?")}`] }))
        .addEdge(START, "x")
        .addEdge(START, "y")
        .compile({ checkpointer: new MemorySaver(), resumeMatching: "positional" } as any);
      const config = { configurable: { thread_id: "t" } };
      await graph.invoke({ log: [] }, config);
      return graph.invoke(new Command({ resume: "same" }), config);
    },
  },

  "an answer to a finished thread: refused (LangGraph returns the state)": {
    from: "pregel.test.ts: should handle dynamic interrupt",
    differs: "#nothing-to-resume",
    async run(lib) {
      const { Annotation, StateGraph, START, Command, MemorySaver } = lib;
      const State = Annotation.Root({ v: Annotation() });
      const graph = new StateGraph(State)
        .addNode("n", () => ({ v: 1 }))
        .addEdge(START, "n")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      await graph.invoke({ v: 0 }, config);
      return graph.invoke(new Command({ resume: "late" }), config);
    },
  },

  "an answer to a finished thread, with positional matching: as LangGraph": {
    from: "pregel.test.ts: should handle dynamic interrupt",
    async run(lib) {
      const { Annotation, StateGraph, START, Command, MemorySaver } = lib;
      const State = Annotation.Root({ v: Annotation() });
      const graph = new StateGraph(State)
        .addNode("n", () => ({ v: 1 }))
        .addEdge(START, "n")
        .compile({ checkpointer: new MemorySaver(), resumeMatching: "positional" } as any);
      const config = { configurable: { thread_id: "t" } };
      await graph.invoke({ v: 0 }, config);
      return graph.invoke(new Command({ resume: "late" }), config);
    },
  },

  "an answer given for a question that changed on replay: refused": {
    from: "pregel.test.ts: can throw a node interrupt multiple times in a single node",
    differs: "#an-answer-to-a-changed-question",
    async run(lib) {
      const { Annotation, StateGraph, START, interrupt, Command, MemorySaver } = lib;
      const State = Annotation.Root({ name: Annotation(), age: Annotation() });
      const graph = new StateGraph(State)
        .addNode("human", (s: any) => {
          const name = s.name ? s.name : interrupt("name?");
          const age = interrupt("age?");
          return { name, age };
        })
        .addEdge(START, "human")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      await graph.invoke({}, config);
      return graph.invoke(new Command({ resume: "John", update: { name: "foo" } }), config);
    },
  },

  "snapshot metadata carries thread_id; a subgraph's config carries checkpoint_map": {
    from: "pregel.test.ts: nested graph state",
    async run({ Annotation, StateGraph, START, interrupt, MemorySaver }) {
      const State = Annotation.Root({ v: Annotation() });
      const child = new StateGraph(State)
        .addNode("ask", () => ({ v: interrupt("q") }))
        .addEdge(START, "ask")
        .compile();
      const graph = new StateGraph(State)
        .addNode("child", child)
        .addEdge(START, "child")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      await graph.invoke({ v: 1 }, config);
      const state = await graph.getState(config, { subgraphs: true });
      const sub = state.tasks[0].state;
      const map = sub.config.configurable.checkpoint_map;
      const rootId = state.config.configurable.checkpoint_id;
      return {
        metadata: state.metadata,
        subThread: sub.metadata.thread_id,
        mapKeys: Object.keys(map).map((k) => k.split(":")[0]),
        mapRoot: map[""] === rootId,
        mapOwn: map[sub.config.configurable.checkpoint_ns] === sub.config.configurable.checkpoint_id,
        subParents: Object.keys(sub.metadata.parents),
        subParentIsRoot: sub.metadata.parents[""] === rootId,
      };
    },
  },
});
