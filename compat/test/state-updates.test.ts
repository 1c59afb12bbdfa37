/**
 * updateState, bulkUpdateState and Command({ update }): writing to a thread from outside a run.
 */
import { collect, compare, list } from "./harness.js";

compare("state updates", {
  "updateState while paused at an interrupt: the answer resumes the node, which sees the edit": {
    from: "pregel.test.ts: should handle dynamic interrupt",
    async run(lib) {
      const { Annotation, StateGraph, START, interrupt, Command, MemorySaver } = lib;
      const State = Annotation.Root({ topic: Annotation(), answer: Annotation() });
      const graph = new StateGraph(State)
        .addNode("ask", (s: any) => ({ answer: `${s.topic}:${interrupt("approve?")}` }))
        .addEdge(START, "ask")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      await graph.invoke({ topic: "cats" }, config);
      await graph.updateState(config, { topic: "dogs" });
      const state = await graph.getState(config);
      const done = await graph.invoke(new Command({ resume: "yes" }), config);
      return { next: state.next, values: state.values, source: state.metadata.source, done };
    },
  },

  "updateState while paused at an interrupt: the question stays visible in the snapshot": {
    from: "pregel.test.ts: should handle dynamic interrupt",
    differs: "#nothing-to-resume",
    async run(lib) {
      const { Annotation, StateGraph, START, interrupt, MemorySaver } = lib;
      const State = Annotation.Root({ topic: Annotation(), answer: Annotation() });
      const graph = new StateGraph(State)
        .addNode("ask", (s: any) => ({ answer: `${s.topic}:${interrupt("approve?")}` }))
        .addEdge(START, "ask")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      await graph.invoke({ topic: "cats" }, config);
      await graph.updateState(config, { topic: "dogs" });
      const state = await graph.getState(config);
      return state.tasks.map((t: any) => t.interrupts);
    },
  },

  "updateState changes the question of the paused node: the old answer is refused": {
    from: "pregel.test.ts: should handle dynamic interrupt",
    differs: "#an-answer-to-a-changed-question",
    async run(lib) {
      const { Annotation, StateGraph, START, interrupt, Command, MemorySaver } = lib;
      const State = Annotation.Root({ topic: Annotation(), answer: Annotation() });
      const graph = new StateGraph(State)
        .addNode("ask", (s: any) => ({ answer: `${s.topic}:${interrupt(`about ${s.topic}?`)}` }))
        .addEdge(START, "ask")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      await graph.invoke({ topic: "cats" }, config);
      await graph.updateState(config, { topic: "dogs" });
      return graph.invoke(new Command({ resume: "yes" }), config);
    },
  },

  "updateState changes the question, with positional matching: as LangGraph": {
    from: "pregel.test.ts: should handle dynamic interrupt",
    async run(lib) {
      const { Annotation, StateGraph, START, interrupt, Command, MemorySaver } = lib;
      const State = Annotation.Root({ topic: Annotation(), answer: Annotation() });
      const graph = new StateGraph(State)
        .addNode("ask", (s: any) => ({ answer: `${s.topic}:${interrupt(`about ${s.topic}?`)}` }))
        .addEdge(START, "ask")
        .compile({ checkpointer: new MemorySaver(), resumeMatching: "positional" } as any);
      const config = { configurable: { thread_id: "t" } };
      await graph.invoke({ topic: "cats" }, config);
      await graph.updateState(config, { topic: "dogs" });
      return graph.invoke(new Command({ resume: "yes" }), config);
    },
  },

  "a node returning keys outside the state: they are ignored": {
    from: "pregel.test.ts: should allow private state passing between nodes",
    async run({ Annotation, StateGraph, START }) {
      const State = Annotation.Root({ v: Annotation() });
      const graph = new StateGraph(State)
        .addNode("a", () => ({ v: 1, private: "x" }))
        .addNode("b", (s: any) => ({ v: s.v + 1, other: 2 }))
        .addEdge(START, "a")
        .addEdge("a", "b")
        .compile();
      return graph.invoke({ v: 0 });
    },
  },

  "Command({ update }) with keys outside the state: they are ignored": {
    from: "pregel.test.ts: test_parent_command",
    async run({ Annotation, StateGraph, START, Command }) {
      const State = Annotation.Root({ v: Annotation() });
      const graph = new StateGraph(State)
        .addNode("a", () => new Command({ update: { v: 1, stray: true }, goto: "b" }), { ends: ["b"] })
        .addNode("b", (s: any) => ({ v: s.v * 10 }))
        .addEdge(START, "a")
        .compile();
      return graph.invoke({ v: 0 });
    },
  },

  "a subgraph node with private keys returns them to a parent that ignores them": {
    from: "pregel.test.ts: should allow private state passing between nodes",
    async run({ Annotation, StateGraph, START }) {
      const Child = Annotation.Root({ v: Annotation(), scratch: Annotation() });
      const child = new StateGraph(Child)
        .addNode("c", (s: any) => ({ scratch: "tmp", v: s.v + 1 }))
        .addEdge(START, "c")
        .compile();
      const Parent = Annotation.Root({ v: Annotation() });
      const graph = new StateGraph(Parent)
        .addNode("call", (s: any, c: any) => child.invoke(s, c))
        .addEdge(START, "call")
        .compile();
      return graph.invoke({ v: 1 });
    },
  },

  "updateState asNode routes the next step through that node's edges": {
    from: "pregel.test.ts: should handle checkpoints correctly",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addNode("a", () => ({ log: ["a"] }))
        .addNode("b", () => ({ log: ["b"] }))
        .addNode("c", () => ({ log: ["c"] }))
        .addEdge(START, "a")
        .addEdge("a", "b")
        .addEdge("b", "c")
        .compile({ checkpointer: new MemorySaver(), interruptBefore: ["b"] });
      const config = { configurable: { thread_id: "t" } };
      await graph.invoke({ log: ["in"] }, config);
      await graph.updateState(config, { log: ["as-b"] }, "b");
      const state = await graph.getState(config);
      const done = await graph.invoke(null, config);
      return { next: state.next, values: state.values, source: state.metadata.source, done };
    },
  },

  "updateState to __end__ while paused finishes the thread": {
    from: "pregel.test.ts: can interrupt then update state with asNode of __end__",
    async run(lib) {
      const { Annotation, StateGraph, START, END, interrupt, MemorySaver } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addNode("ask", () => ({ log: [interrupt("q")] }))
        .addNode("after", () => ({ log: ["after"] }))
        .addEdge(START, "ask")
        .addEdge("ask", "after")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      await graph.invoke({ log: [] }, config);
      await graph.updateState(config, null, END);
      const state = await graph.getState(config);
      return { next: state.next, values: state.values, tasks: state.tasks.length };
    },
  },

  "Command({ update }) at a static breakpoint applies the update and continues": {
    from: "pregel.test.ts: test_command_with_static_breakpoints",
    async run(lib) {
      const { Annotation, StateGraph, START, Command, MemorySaver } = lib;
      const State = Annotation.Root({ foo: Annotation(), log: list(lib) });
      const graph = new StateGraph(State)
        .addNode("n1", (s: any) => ({ foo: `${s.foo}|n1`, log: ["n1"] }))
        .addNode("n2", (s: any) => ({ foo: `${s.foo}|n2`, log: ["n2"] }))
        .addEdge(START, "n1")
        .addEdge("n1", "n2")
        .compile({ checkpointer: new MemorySaver(), interruptBefore: ["n1"] });
      const config = { configurable: { thread_id: "t" } };
      const paused = await graph.invoke({ foo: "in" }, config);
      const done = await graph.invoke(new Command({ update: { foo: "edited" } }), config);
      return { paused, done };
    },
  },

  "bulkUpdateState applies supersteps in order": {
    from: "pregel.test.ts: should handle bulk state updates",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver } = lib;
      const State = Annotation.Root({ a: Annotation(), b: Annotation() });
      const graph = new StateGraph(State)
        .addNode("one", () => ({ a: "one" }))
        .addNode("two", () => ({ b: "two" }))
        .addEdge(START, "one")
        .addEdge("one", "two")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      await graph.bulkUpdateState(config, [
        { updates: [{ values: { a: "x" }, asNode: "one" }] },
        { updates: [{ values: { b: "y" }, asNode: "two" }] },
      ]);
      const state = await graph.getState(config);
      const history: unknown[] = [];
      for await (const s of graph.getStateHistory(config)) history.push([s.metadata.source, s.metadata.step, s.values]);
      return { values: state.values, next: state.next, history };
    },
  },

  "bulkUpdateState with two updates in one superstep": {
    from: "pregel.test.ts: should handle bulk state updates",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver } = lib;
      const State = Annotation.Root({ a: Annotation(), b: Annotation() });
      const graph = new StateGraph(State)
        .addNode("one", () => ({ a: "one" }))
        .addNode("two", () => ({ b: "two" }))
        .addEdge(START, "one")
        .addEdge(START, "two")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      await graph.invoke({ a: "", b: "" }, config);
      await graph.bulkUpdateState(config, [
        {
          updates: [
            { values: { a: "x" }, asNode: "one" },
            { values: { b: "y" }, asNode: "two" },
          ],
        },
      ]);
      const state = await graph.getState(config);
      return { values: state.values, next: state.next, step: state.metadata.step };
    },
  },

  "updateState(config, null, '__copy__') copies the checkpoint and runs it again": {
    from: "python_port/checkpoint.test.ts: should test copy checkpoint functionality",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addNode("a", () => ({ log: ["a"] }))
        .addEdge(START, "a")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      await graph.invoke({ log: ["in"] }, config);
      const history: any[] = [];
      for await (const s of graph.getStateHistory(config)) history.push(s);
      const before = history.find((s) => s.next.includes("a"));
      await graph.updateState(before.config, null, "__copy__");
      const state = await graph.getState(config);
      const again = await graph.invoke(null, config);
      return { copied: [state.values, state.next, state.metadata.source, state.metadata.step], again };
    },
  },

  "updateState on a thread that never ran starts it": {
    from: "pregel.test.ts: should handle checkpoints correctly",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addNode("a", () => ({ log: ["a"] }))
        .addNode("b", () => ({ log: ["b"] }))
        .addEdge(START, "a")
        .addEdge("a", "b")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      await graph.updateState(config, { log: ["seed"] }, "a");
      const state = await graph.getState(config);
      const done = await graph.invoke(null, config);
      return { next: state.next, values: state.values, step: state.metadata.step, done };
    },
  },

  "updateState with a reducer adds to the value": {
    from: "pregel.test.ts: should handle checkpoints correctly",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver } = lib;
      const State = Annotation.Root({ log: list(lib), n: Annotation() });
      const graph = new StateGraph(State)
        .addNode("a", () => ({ log: ["a"], n: 1 }))
        .addEdge(START, "a")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      await graph.invoke({ log: ["in"] }, config);
      await graph.updateState(config, { log: ["more"], n: 2 });
      const state = await graph.getState(config);
      return { values: state.values, next: state.next, step: state.metadata.step };
    },
  },

  "updateState while paused at a breakpoint: the edit is seen by the node": {
    from: "pregel.test.ts: should invoke two processes with input/output and interrupt",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver } = lib;
      const State = Annotation.Root({ n: Annotation() });
      const graph = new StateGraph(State)
        .addNode("inc", (s: any) => ({ n: s.n + 1 }))
        .addNode("double", (s: any) => ({ n: s.n * 2 }))
        .addEdge(START, "inc")
        .addEdge("inc", "double")
        .compile({ checkpointer: new MemorySaver(), interruptAfter: ["inc"] });
      const config = { configurable: { thread_id: "t" } };
      const paused = await graph.invoke({ n: 1 }, config);
      await graph.updateState(config, { n: 10 });
      const state = await graph.getState(config);
      const done = await graph.invoke(null, config);
      return { paused, next: state.next, values: state.values, done };
    },
  },

  "Command with update and resume together": {
    from: "python_port/interrupt.test.ts: should handle dynamic interrupts with state graphs",
    async run(lib) {
      const { Annotation, StateGraph, START, interrupt, Command, MemorySaver } = lib;
      const State = Annotation.Root({ note: Annotation(), answer: Annotation() });
      const graph = new StateGraph(State)
        .addNode("ask", (s: any) => ({ answer: `${interrupt("ok?")} (${s.note})` }))
        .addEdge(START, "ask")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      await graph.invoke({ note: "first" }, config);
      return graph.invoke(new Command({ resume: "yes", update: { note: "edited" } }), config);
    },
  },

  "a finished thread's stream after updateState runs the remaining nodes": {
    from: "pregel.test.ts: should handle checkpoints correctly",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addNode("a", () => ({ log: ["a"] }))
        .addNode("b", () => ({ log: ["b"] }))
        .addEdge(START, "a")
        .addEdge("a", "b")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      await graph.invoke({ log: [] }, config);
      await graph.updateState(config, { log: ["again"] }, "a");
      return collect(await graph.stream(null, { ...config, streamMode: "updates" }));
    },
  },
});
