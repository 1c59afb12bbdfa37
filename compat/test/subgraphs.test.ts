/**
 * Subgraphs: breakpoints and interrupts inside a child graph pause the parent, a child compiled
 * with `checkpointer: true` keeps its own state across the parent's runs, snapshots and streams
 * name the child's namespace, and `Command.PARENT` routes in the caller.
 */
import { collect, compare, type Runtime, thread } from "./harness.js";

/** A namespace segment is `node:<task id>`; the task id differs between runtimes. */
const nodeOf = (segment: string) => segment.split(":")[0];
const namespaces = (chunks: unknown[]) =>
  chunks.map((c) => (Array.isArray(c) && Array.isArray(c[0]) ? [c[0].map(nodeOf), ...c.slice(1)] : c));

const concat = (lib: Runtime) =>
  lib.Annotation({ reducer: (a: string[], b: string[]) => a.concat(b), default: () => [] as string[] });

/** A child graph of three steps c1 → c2 → c3 that log into `log`. */
function threeSteps(lib: Runtime, compile: Record<string, unknown> = {}) {
  const { Annotation, StateGraph, START } = lib;
  const State = Annotation.Root({ log: concat(lib) });
  return new StateGraph(State)
    .addNode("c1", () => ({ log: ["c1"] }))
    .addNode("c2", () => ({ log: ["c2"] }))
    .addNode("c3", () => ({ log: ["c3"] }))
    .addEdge(START, "c1")
    .addEdge("c1", "c2")
    .addEdge("c2", "c3")
    .compile(compile);
}

/** Parent: p1 → child → p2, with a memory checkpointer. */
function around(lib: Runtime, child: unknown, compile: Record<string, unknown> = {}) {
  const { Annotation, StateGraph, START, MemorySaver } = lib;
  const State = Annotation.Root({ log: concat(lib) });
  return new StateGraph(State)
    .addNode("p1", () => ({ log: ["p1"] }))
    .addNode("child", child)
    .addNode("p2", () => ({ log: ["p2"] }))
    .addEdge(START, "p1")
    .addEdge("p1", "child")
    .addEdge("child", "p2")
    .compile({ checkpointer: new MemorySaver(), ...compile });
}

/** The parts of a snapshot both runtimes fill the same way. */
function brief(s: any): unknown {
  if (!s) return s;
  return {
    values: s.values,
    next: s.next,
    tasks: s.tasks?.map((t: any) => ({
      name: t.name,
      interrupts: t.interrupts?.map((i: any) => i.value),
      state: t.state && "values" in t.state ? brief(t.state) : t.state ? "config" : undefined,
    })),
  };
}

/** A child that asks a question in `ask`, between `before` and `after`. */
function asking(lib: Runtime, compile: Record<string, unknown> = {}) {
  const { Annotation, StateGraph, START, interrupt } = lib;
  const State = Annotation.Root({ log: concat(lib) });
  return new StateGraph(State)
    .addNode("before", () => ({ log: ["before"] }))
    .addNode("ask", () => ({ log: [`answer:${interrupt("question?")}`] }))
    .addNode("after", () => ({ log: ["after"] }))
    .addEdge(START, "before")
    .addEdge("before", "ask")
    .addEdge("ask", "after")
    .compile(compile);
}

compare("subgraph breakpoints", {
  "interruptBefore in a child pauses the parent": {
    from: "pregel.test.ts: nested graph state",
    async run(lib) {
      const graph = around(lib, threeSteps(lib, { interruptBefore: ["c2"] }));
      const config = thread();
      const paused = await graph.invoke({ log: [] }, config);
      const done = await graph.invoke(null, config);
      return { paused, done };
    },
  },
  "interruptAfter in a child pauses the parent": {
    from: "pregel.test.ts: nested graph state",
    async run(lib) {
      const graph = around(lib, threeSteps(lib, { interruptAfter: ["c1"] }));
      const config = thread();
      const paused = await graph.invoke({ log: [] }, config);
      const done = await graph.invoke(null, config);
      return { paused, done };
    },
  },
  "getState of a parent paused at a child's breakpoint": {
    from: "pregel.test.ts: nested graph state",
    async run(lib) {
      const graph = around(lib, threeSteps(lib, { interruptBefore: ["c2"] }));
      const config = thread();
      await graph.invoke({ log: [] }, config);
      return [brief(await graph.getState(config)), brief(await graph.getState(config, { subgraphs: true }))];
    },
  },
  "getState with subgraphs after resuming past a child's breakpoint": {
    from: "pregel.test.ts: nested graph state",
    async run(lib) {
      const graph = around(lib, threeSteps(lib, { interruptBefore: ["c2"] }));
      const config = thread();
      await graph.invoke({ log: [] }, config);
      await graph.invoke(null, config);
      return brief(await graph.getState(config, { subgraphs: true }));
    },
  },
  "two breakpoints in a child: three parent invocations": {
    from: "pregel.test.ts: nested graph state",
    async run(lib) {
      const graph = around(lib, threeSteps(lib, { interruptBefore: ["c2", "c3"] }));
      const config = thread();
      const out = [await graph.invoke({ log: [] }, config)];
      out.push(await graph.invoke(null, config));
      out.push(await graph.invoke(null, config));
      out.push(brief(await graph.getState(config)));
      return out;
    },
  },
  "interruptAfter the child's last node": {
    from: "pregel.test.ts: nested graph state",
    async run(lib) {
      const graph = around(lib, threeSteps(lib, { interruptAfter: ["c3"] }));
      const config = thread();
      const paused = await graph.invoke({ log: [] }, config);
      const state = brief(await graph.getState(config, { subgraphs: true }));
      const done = await graph.invoke(null, config);
      return { paused, state, done };
    },
  },
  "breakpoints in both parent and child": {
    from: "pregel.test.ts: nested graph state",
    async run(lib) {
      const graph = around(lib, threeSteps(lib, { interruptBefore: ["c2"] }), { interruptBefore: ["p2"] });
      const config = thread();
      const out = [await graph.invoke({ log: [] }, config)];
      out.push(await graph.invoke(null, config));
      out.push(brief(await graph.getState(config)));
      out.push(await graph.invoke(null, config));
      return out;
    },
  },
  "interruptBefore '*' in a child": {
    from: "pregel.test.ts: nested graph state",
    async run(lib) {
      const graph = around(lib, threeSteps(lib, { interruptBefore: "*" }));
      const config = thread();
      const out = [await graph.invoke({ log: [] }, config)];
      for (let i = 0; i < 4; i++) out.push(await graph.invoke(null, config));
      return out;
    },
  },
  "stream updates with subgraphs through a child's breakpoint": {
    from: "pregel.test.ts: nested graph state",
    async run(lib) {
      const graph = around(lib, threeSteps(lib, { interruptBefore: ["c2"] }));
      const config = { ...thread(), subgraphs: true };
      const first = namespaces(await collect(await graph.stream({ log: [] }, config)));
      const second = namespaces(await collect(await graph.stream(null, config)));
      return { first, second };
    },
  },
  "stream values without subgraphs through a child's breakpoint": {
    from: "pregel.test.ts: nested graph state",
    async run(lib) {
      const graph = around(lib, threeSteps(lib, { interruptBefore: ["c2"] }));
      const config = { ...thread(), streamMode: "values" as const };
      const first = await collect(await graph.stream({ log: [] }, config));
      const second = await collect(await graph.stream(null, config));
      return { first, second };
    },
  },
  "parent breakpoint before the child node": {
    from: "pregel.test.ts: nested graph state",
    async run(lib) {
      const graph = around(lib, threeSteps(lib), { interruptBefore: ["child"] });
      const config = thread();
      const paused = await graph.invoke({ log: [] }, config);
      const state = brief(await graph.getState(config, { subgraphs: true }));
      const done = await graph.invoke(null, config);
      return { paused, state, done };
    },
  },
  "updateState on the parent while paused at a child's breakpoint": {
    from: "pregel.test.ts: nested graph state",
    async run(lib) {
      const graph = around(lib, threeSteps(lib, { interruptBefore: ["c2"] }));
      const config = thread();
      await graph.invoke({ log: [] }, config);
      await graph.updateState(config, { log: ["edited"] });
      const done = await graph.invoke(null, config);
      return done;
    },
  },
  "history of a parent paused at a child's breakpoint": {
    from: "pregel.test.ts: nested graph state",
    async run(lib) {
      const graph = around(lib, threeSteps(lib, { interruptBefore: ["c2"] }));
      const config = thread();
      await graph.invoke({ log: [] }, config);
      await graph.invoke(null, config);
      const history: unknown[] = [];
      for await (const s of graph.getStateHistory(config))
        history.push([s.metadata.source, s.metadata.step, s.next, s.values]);
      return history;
    },
  },
  "a child's breakpoint without a parent checkpointer fails": {
    from: "pregel.test.ts: nested graph state",
    differs: "#a-breakpoint-with-no-checkpointer",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const State = Annotation.Root({ log: concat(lib) });
      const graph = new StateGraph(State)
        .addNode("child", threeSteps(lib, { interruptBefore: ["c2"] }))
        .addEdge(START, "child")
        .compile();
      return graph.invoke({ log: [] });
    },
  },
  "doubly nested breakpoint": {
    from: "pregel.test.ts: doubly nested graph state",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const State = Annotation.Root({ log: concat(lib) });
      const middle = new StateGraph(State)
        .addNode("m1", () => ({ log: ["m1"] }))
        .addNode("grandchild", threeSteps(lib, { interruptBefore: ["c3"] }))
        .addEdge(START, "m1")
        .addEdge("m1", "grandchild")
        .compile();
      const graph = around(lib, middle);
      const config = thread();
      const paused = await graph.invoke({ log: [] }, config);
      const state = brief(await graph.getState(config, { subgraphs: true }));
      const done = await graph.invoke(null, config);
      return { paused, state, done };
    },
  },
});

compare("subgraph interrupts", {
  "interrupt in a child, resumed with a Command": {
    from: "pregel.test.ts: should interrupt and resume with Command inside a subgraph",
    async run(lib) {
      const graph = around(lib, asking(lib));
      const config = thread();
      const paused = await graph.invoke({ log: [] }, config);
      const done = await graph.invoke(new lib.Command({ resume: "yes" }), config);
      return { paused, done };
    },
  },
  "getState with subgraphs at a child's interrupt": {
    from: "pregel.test.ts: nested graph state",
    async run(lib) {
      const graph = around(lib, asking(lib));
      const config = thread();
      await graph.invoke({ log: [] }, config);
      return [brief(await graph.getState(config)), brief(await graph.getState(config, { subgraphs: true }))];
    },
  },
  "doubly nested interrupt": {
    from: "pregel.test.ts: doubly nested graph interrupts",
    async run(lib) {
      const { Annotation, StateGraph, START, Command } = lib;
      const State = Annotation.Root({ log: concat(lib) });
      const middle = new StateGraph(State)
        .addNode("m1", () => ({ log: ["m1"] }))
        .addNode("grandchild", asking(lib))
        .addNode("m2", () => ({ log: ["m2"] }))
        .addEdge(START, "m1")
        .addEdge("m1", "grandchild")
        .addEdge("grandchild", "m2")
        .compile();
      const graph = around(lib, middle);
      const config = thread();
      const paused = await graph.invoke({ log: [] }, config);
      const state = brief(await graph.getState(config, { subgraphs: true }));
      const done = await graph.invoke(new Command({ resume: "deep" }), config);
      return { paused, state, done };
    },
  },
  "interrupt in a child called inside a node function": {
    from: "python_port/interrupt.test.ts: should handle dynamic interrupts with nested subgraphs",
    async run(lib) {
      const child = asking(lib);
      const graph = around(lib, async (_s: any, c: any) => ({ log: (await child.invoke({ log: [] }, c)).log }));
      const config = thread();
      const paused = await graph.invoke({ log: [] }, config);
      const done = await graph.invoke(new lib.Command({ resume: "inside" }), config);
      return { paused, done };
    },
  },
  "two children asking in parallel, answered by id": {
    from: "time_travel_extended.test.ts: should load correct state for parallel sibling subgraphs on replay",
    async run(lib) {
      const { Annotation, StateGraph, START, Command, MemorySaver } = lib;
      const State = Annotation.Root({ log: concat(lib) });
      const graph = new StateGraph(State)
        .addNode("left", asking(lib))
        .addNode("right", asking(lib))
        .addEdge(START, "left")
        .addEdge(START, "right")
        .compile({ checkpointer: new MemorySaver() });
      const config = thread();
      const paused = await graph.invoke({ log: [] }, config);
      const state = await graph.getState(config);
      const ids = state.tasks.flatMap((t: any) => t.interrupts.map((i: any) => [i.id, t.name]));
      const done = await graph.invoke(new Command({ resume: Object.fromEntries(ids) }), config);
      return { paused: paused.__interrupt__.length, next: state.next, done };
    },
  },
  "stream with subgraphs through a child's interrupt": {
    from: "pregel.test.ts: should interrupt and resume with Command inside a subgraph",
    async run(lib) {
      const graph = around(lib, asking(lib));
      const config = { ...thread(), subgraphs: true };
      const first = namespaces(await collect(await graph.stream({ log: [] }, config)));
      const second = namespaces(await collect(await graph.stream(new lib.Command({ resume: "s" }), config)));
      return { first, second };
    },
  },
  "doubly nested interrupt streamed with subgraphs": {
    from: "pregel.test.ts: doubly nested graph interrupts",
    async run(lib) {
      const { Annotation, StateGraph, START, Command } = lib;
      const State = Annotation.Root({ log: concat(lib) });
      const middle = new StateGraph(State)
        .addNode("m1", () => ({ log: ["m1"] }))
        .addNode("grandchild", asking(lib))
        .addEdge(START, "m1")
        .addEdge("m1", "grandchild")
        .compile();
      const graph = around(lib, middle);
      const config = { ...thread(), subgraphs: true, streamMode: ["updates", "values"] as const };
      const first = namespaces(await collect(await graph.stream({ log: [] }, config)));
      const second = namespaces(await collect(await graph.stream(new Command({ resume: "deep" }), config)));
      return { first, second };
    },
  },
  "stream values and updates with subgraphs": {
    from: "pregel.test.ts: debug nested subgraph",
    async run(lib) {
      const graph = around(lib, threeSteps(lib));
      const config = { ...thread(), subgraphs: true, streamMode: ["values", "updates"] as const };
      return namespaces(await collect(await graph.stream({ log: [] }, config)));
    },
  },
  "checkpoint_ns and thread_id inside a child's node": {
    from: "time_travel_extended.test.ts: should expose checkpoint_ns and thread_id inside subgraph nodes",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const seen: unknown[] = [];
      const State = Annotation.Root({ log: concat(lib) });
      const child = new StateGraph(State)
        .addNode("inner", (_s: any, c: any) => {
          seen.push([c.configurable.thread_id, String(c.configurable.checkpoint_ns).split("|").map(nodeOf)]);
          return { log: ["inner"] };
        })
        .addEdge(START, "inner")
        .compile();
      const graph = around(lib, child);
      await graph.invoke({ log: [] }, thread("ns"));
      return seen;
    },
  },
});

compare("subgraph with checkpointer: true", {
  "state accumulates across the parent's loop": {
    from: "pregel.test.ts: checkpointer: true",
    async run(lib) {
      const { Annotation, StateGraph, START, END, MemorySaver } = lib;
      const inner = new StateGraph(Annotation.Root({ text: Annotation({ reducer: (a: string, b: string) => a + b }) }))
        .addNode("i1", () => ({ text: "+1" }))
        .addNode("i2", () => ({ text: "+2" }))
        .addEdge(START, "i1")
        .addEdge("i1", "i2")
        .compile({ checkpointer: true });
      const graph = new StateGraph(Annotation.Root({ text: Annotation() }))
        .addNode("inner", inner)
        .addEdge(START, "inner")
        .addConditionalEdges("inner", (s: any) => (s.text.split("+2").length > 2 ? END : "inner"))
        .compile({ checkpointer: new MemorySaver() });
      const chunks = await collect(await graph.stream({ text: "" }, { ...thread(), subgraphs: true }));
      return namespaces(chunks);
    },
  },
  "the child's state read with checkpoint_ns = its node name": {
    from: "pregel.test.ts: checkpointer: true",
    async run(lib) {
      const graph = around(lib, threeSteps(lib, { checkpointer: true }));
      const config = thread();
      await graph.invoke({ log: [] }, config);
      await graph.invoke({ log: ["again"] }, config);
      const child = await graph.getState({ configurable: { thread_id: "t", checkpoint_ns: "child" } });
      return { values: child.values, next: child.next, ns: child.config.configurable.checkpoint_ns };
    },
  },
  "the child's history under its node name": {
    from: "pregel.test.ts: checkpointer: true",
    async run(lib) {
      const graph = around(lib, threeSteps(lib, { checkpointer: true }));
      const config = thread();
      await graph.invoke({ log: [] }, config);
      await graph.invoke({ log: ["again"] }, config);
      const history: unknown[] = [];
      for await (const s of graph.getStateHistory({ configurable: { thread_id: "t", checkpoint_ns: "child" } }))
        history.push([s.metadata.source, s.metadata.step, s.next, s.values]);
      return history;
    },
  },
  "a child's interrupt, resumed, then the parent run again": {
    from: "time_travel.test.ts: should time travel to subgraph checkpoint at first interrupt",
    async run(lib) {
      const graph = around(lib, asking(lib, { checkpointer: true }));
      const config = thread();
      const out = [await graph.invoke({ log: [] }, config)];
      out.push(await graph.invoke(new lib.Command({ resume: "one" }), config));
      out.push(await graph.invoke({ log: ["second"] }, config));
      out.push(await graph.invoke(new lib.Command({ resume: "two" }), config));
      const child = await graph.getState({ configurable: { thread_id: "t", checkpoint_ns: "child" } });
      out.push(child.values);
      return out;
    },
  },
  "getState with subgraphs at a persistent child's interrupt": {
    from: "time_travel.test.ts: should time travel to subgraph checkpoint at first interrupt",
    async run(lib) {
      const graph = around(lib, asking(lib, { checkpointer: true }));
      const config = thread();
      await graph.invoke({ log: [] }, config);
      const state = await graph.getState(config, { subgraphs: true });
      return [brief(state), state.tasks[0].state.config.configurable.checkpoint_ns];
    },
  },
  "a persistent child in a loop sees its earlier state": {
    from: "time_travel_extended.test.ts: should load subgraph state correctly when subgraph runs in a loop",
    async run(lib) {
      const { Annotation, StateGraph, START, END, MemorySaver } = lib;
      const seen: unknown[] = [];
      const Sub = Annotation.Root({ items: concat(lib) });
      const sub = new StateGraph(Sub)
        .addNode("add", (s: any) => {
          seen.push([...s.items]);
          return { items: ["x"] };
        })
        .addEdge(START, "add")
        .compile({ checkpointer: true });
      const Parent = Annotation.Root({
        items: concat(lib),
        round: Annotation({ reducer: (a: number, b: number) => a + b, default: () => 0 }),
      });
      const graph = new StateGraph(Parent)
        .addNode("sub", async (s: any, c: any) => {
          await sub.invoke({ items: [`r${s.round}`] }, c);
          return { round: 1 };
        })
        .addEdge(START, "sub")
        .addConditionalEdges("sub", (s: any) => (s.round < 3 ? "sub" : END))
        .compile({ checkpointer: new MemorySaver() });
      const out = await graph.invoke({ items: [] }, thread());
      return { out, seen };
    },
  },
  "checkpointer: false child runs without saving": {
    from: "time_travel_extended.test.ts: should complete flow when subgraph has no checkpointer",
    async run(lib) {
      const graph = around(lib, threeSteps(lib, { checkpointer: false }));
      const config = thread();
      const out = await graph.invoke({ log: [] }, config);
      const state = brief(await graph.getState(config, { subgraphs: true }));
      return { out, state };
    },
  },
});

compare("Command.PARENT", {
  "a child routes to a sibling in the parent": {
    from: "pregel.test.ts: test_parent_command",
    async run(lib) {
      const { Annotation, StateGraph, START, Command, MemorySaver } = lib;
      const State = Annotation.Root({ log: concat(lib) });
      const child = new StateGraph(State)
        .addNode("hop", () => new Command({ graph: Command.PARENT, goto: "target", update: { log: ["hop"] } }))
        .addEdge(START, "hop")
        .compile();
      const graph = new StateGraph(State)
        .addNode("child", child, { ends: ["target"] })
        .addNode("target", () => ({ log: ["target"] }))
        .addEdge(START, "child")
        .compile({ checkpointer: new MemorySaver() });
      const config = thread();
      const out = await graph.invoke({ log: [] }, config);
      const history: unknown[] = [];
      for await (const s of graph.getStateHistory(config)) history.push([s.metadata.step, s.next, s.values]);
      return { out, history };
    },
  },
  "Command.PARENT from a grandchild reaches its parent only": {
    from: "pregel.test.ts: test_parent_command from grandchild graph",
    async run(lib) {
      const { Annotation, StateGraph, START, Command } = lib;
      const State = Annotation.Root({ log: concat(lib) });
      const grandchild = new StateGraph(State)
        .addNode("hop", () => new Command({ graph: Command.PARENT, goto: "m2", update: { log: ["hop"] } }))
        .addEdge(START, "hop")
        .compile();
      const middle = new StateGraph(State)
        .addNode("gc", grandchild, { ends: ["m2"] })
        .addNode("m2", () => ({ log: ["m2"] }))
        .addEdge(START, "gc")
        .compile();
      const graph = new StateGraph(State)
        .addNode("middle", middle)
        .addNode("end", () => ({ log: ["end"] }))
        .addEdge(START, "middle")
        .addEdge("middle", "end")
        .compile();
      return graph.invoke({ log: [] });
    },
  },
  "two children updating different keys with Command.PARENT": {
    from: "pregel.test.ts: should handle non-overlapping parent command updates",
    async run(lib) {
      const { Annotation, StateGraph, START, Command } = lib;
      const State = Annotation.Root({ a: Annotation(), b: Annotation() });
      const make = (key: string) =>
        new StateGraph(State)
          .addNode("n", () => new Command({ graph: Command.PARENT, update: { [key]: key.toUpperCase() } }))
          .addEdge(START, "n")
          .compile();
      const graph = new StateGraph(State)
        .addNode("ca", make("a"))
        .addNode("cb", make("b"))
        .addEdge(START, "ca")
        .addEdge(START, "cb")
        .compile();
      return graph.invoke({});
    },
  },
  "Command.PARENT from a child called inside a node": {
    from: "pregel.test.ts: should handle Command.PARENT as described in the docs",
    async run(lib) {
      const { Annotation, StateGraph, START, Command } = lib;
      const State = Annotation.Root({ log: concat(lib) });
      const child = new StateGraph(State)
        .addNode("hop", () => new Command({ graph: Command.PARENT, goto: "b", update: { log: ["hop"] } }))
        .addEdge(START, "hop")
        .compile();
      const graph = new StateGraph(State)
        .addNode("a", (s: any, c: any) => child.invoke(s, c), { ends: ["b"] })
        .addNode("b", () => ({ log: ["b"] }))
        .addEdge(START, "a")
        .compile();
      return graph.invoke({ log: [] });
    },
  },
});

compare("subgraph shapes", {
  "a child with private keys": {
    from: "pregel.test.ts: can invoke a nested graph",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const child = new StateGraph(Annotation.Root({ log: concat(lib), scratch: Annotation() }))
        .addNode("c1", () => ({ scratch: "private", log: ["c1"] }))
        .addNode("c2", (s: any) => ({ log: [`c2:${s.scratch}`] }))
        .addEdge(START, "c1")
        .addEdge("c1", "c2")
        .compile();
      const graph = around(lib, child);
      const config = thread();
      const out = await graph.invoke({ log: [] }, config);
      return { out, state: brief(await graph.getState(config)) };
    },
  },
  "Send to a subgraph node": {
    from: "pregel.test.ts: send to nested graphs",
    async run(lib) {
      const { Annotation, StateGraph, START, Send } = lib;
      const Child = Annotation.Root({ subject: Annotation(), jokes: concat(lib) });
      const child = new StateGraph(Child)
        .addNode("write", (s: any) => ({ jokes: [`joke about ${s.subject}`] }))
        .addEdge(START, "write")
        .compile();
      const State = Annotation.Root({ subjects: Annotation(), jokes: concat(lib) });
      const graph = new StateGraph(State)
        .addNode("child", child)
        .addConditionalEdges(START, (s: any) => s.subjects.map((subject: string) => new Send("child", { subject })))
        .compile();
      return graph.invoke({ subjects: ["cats", "dogs"] });
    },
  },
  "a child invoked twice inside one node": {
    from: "time_travel_extended.test.ts: should load subgraph state from first invocation on replay",
    async run(lib) {
      const child = threeSteps(lib);
      const graph = around(lib, async (_s: any, c: any) => {
        const a = await child.invoke({ log: ["first"] }, c);
        const b = await child.invoke({ log: ["second"] }, c);
        return { log: [...a.log, ...b.log] };
      });
      const config = thread();
      return graph.invoke({ log: [] }, config);
    },
  },
  "subgraph state snapshot after completion has no subgraph task": {
    from: "time_travel_extended.test.ts: should return subgraph state from getState with subgraphs option",
    async run(lib) {
      const graph = around(lib, threeSteps(lib));
      const config = thread();
      await graph.invoke({ log: [] }, config);
      return brief(await graph.getState(config, { subgraphs: true }));
    },
  },
});

/**
 * A snapshot without ids: values, next, metadata, tasks, and its namespace by node names.
 * History entries leave out the tasks' `result` (LangGraph.js records every task's writes with
 * the checkpoint; Interlude only those of a step that stopped: not about subgraphs).
 */
function full(s: any, results = true): unknown {
  if (!s || !("values" in s)) return s ? { config: nsOf(s) } : s;
  return {
    ns: nsOf(s.config),
    values: s.values,
    next: s.next,
    source: s.metadata?.source,
    step: s.metadata?.step,
    parent: s.parentConfig ? nsOf(s.parentConfig) : null,
    tasks: s.tasks.map((t: any) => ({
      name: t.name,
      path: t.path,
      interrupts: t.interrupts.map((i: any) => i.value),
      result: results ? t.result : undefined,
      state: full(t.state, results),
    })),
  };
}

function nsOf(config: any): string {
  return String(config?.configurable?.checkpoint_ns ?? "")
    .split("|")
    .map(nodeOf)
    .join("|");
}

/** child1 is a grandchild graph with a breakpoint before g2. */
function doublyNested(lib: Runtime) {
  const { Annotation, StateGraph, START, MemorySaver } = lib;
  const State = Annotation.Root({ myKey: Annotation() });
  const grandchild = new StateGraph(State)
    .addNode("g1", (s: any) => ({ myKey: `${s.myKey} here` }))
    .addNode("g2", (s: any) => ({ myKey: `${s.myKey} and there` }))
    .addEdge(START, "g1")
    .addEdge("g1", "g2")
    .compile({ interruptBefore: ["g2"] });
  const child = new StateGraph(State).addNode("child1", grandchild).addEdge(START, "child1").compile();
  return new StateGraph(State)
    .addNode("parent1", (s: any) => ({ myKey: `hi ${s.myKey}` }))
    .addNode("child", child)
    .addNode("parent2", (s: any) => ({ myKey: `${s.myKey} and back again` }))
    .addEdge(START, "parent1")
    .addEdge("parent1", "child")
    .addEdge("child", "parent2")
    .compile({ checkpointer: new MemorySaver() });
}

async function all(iterable: AsyncIterable<unknown>): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const item of iterable) out.push(full(item, false));
  return out;
}

compare("subgraph snapshots and history", {
  "full snapshot of a parent paused in a child, with and without subgraphs": {
    from: "pregel.test.ts: nested graph state",
    async run(lib) {
      const graph = around(lib, threeSteps(lib, { interruptBefore: ["c2"] }));
      const config = thread();
      await graph.invoke({ log: [] }, config);
      return [full(await graph.getState(config)), full(await graph.getState(config, { subgraphs: true }))];
    },
  },
  "the child's history from the config of the parent's task": {
    from: "pregel.test.ts: nested graph state",
    async run(lib) {
      const graph = around(lib, threeSteps(lib, { interruptBefore: ["c2"] }));
      const config = thread();
      await graph.invoke({ log: [] }, config);
      const parent = await all(graph.getStateHistory(config));
      const head = await graph.getState(config);
      const child = await all(graph.getStateHistory(head.tasks[0].state));
      return { parent, child };
    },
  },
  "history after continuing through a child's breakpoint": {
    from: "pregel.test.ts: nested graph state",
    async run(lib) {
      const graph = around(lib, threeSteps(lib, { interruptBefore: ["c2"] }));
      const config = thread();
      await graph.invoke({ log: [] }, config);
      await graph.invoke(null, config);
      return all(graph.getStateHistory(config));
    },
  },
  "doubly nested: stream with subgraphs, then each level's state": {
    from: "pregel.test.ts: doubly nested graph state",
    async run(lib) {
      const graph = doublyNested(lib);
      const config = thread();
      const chunks = namespaces(
        await collect(await graph.stream({ myKey: "my value" }, { ...config, subgraphs: true })),
      );
      const outer = await graph.getState(config);
      const child = await graph.getState(outer.tasks[0].state);
      const grandchild = await graph.getState(child.tasks[0].state);
      return { chunks, outer: full(outer), child: full(child), grandchild: full(grandchild) };
    },
  },
  "doubly nested: getState with subgraphs": {
    from: "pregel.test.ts: doubly nested graph state",
    async run(lib) {
      const graph = doublyNested(lib);
      const config = thread();
      await graph.invoke({ myKey: "my value" }, config);
      return full(await graph.getState(config, { subgraphs: true }));
    },
  },
  "doubly nested: continue, and every level's history": {
    from: "pregel.test.ts: doubly nested graph state",
    async run(lib) {
      const graph = doublyNested(lib);
      const config = thread();
      await graph.invoke({ myKey: "my value" }, config);
      const outer = await graph.getState(config);
      const childConfig = outer.tasks[0].state;
      const grandchildConfig = (await graph.getState(childConfig)).tasks[0].state;
      const resumed = namespaces(await collect(await graph.stream(null, { ...config, subgraphs: true })));
      return {
        resumed,
        final: full(await graph.getState(config)),
        outer: await all(graph.getStateHistory(config)),
        child: await all(graph.getStateHistory(childConfig)),
        grandchild: await all(graph.getStateHistory(grandchildConfig)),
      };
    },
  },
  "updateState into a paused child's namespace, then continue": {
    from: "pregel.test.ts: nested graph state",
    async run(lib) {
      const graph = around(lib, threeSteps(lib, { interruptBefore: ["c2"] }));
      const config = thread();
      await graph.invoke({ log: [] }, config);
      const childConfig = (await graph.getState(config, { subgraphs: true })).tasks[0].state.config;
      await graph.updateState(childConfig, { log: ["edited"] });
      const child = full(await graph.getState(config, { subgraphs: true }));
      const done = await graph.invoke(null, config);
      return { child, done };
    },
  },
  "updateState into a child's namespace as one of its nodes": {
    from: "pregel.test.ts: nested graph state",
    async run(lib) {
      const graph = around(lib, threeSteps(lib, { interruptBefore: ["c2"] }));
      const config = thread();
      await graph.invoke({ log: [] }, config);
      const childConfig = (await graph.getState(config, { subgraphs: true })).tasks[0].state.config;
      await graph.updateState(childConfig, { log: ["as c2"] }, "c2");
      const child = full(await graph.getState(config, { subgraphs: true }));
      const done = await graph.invoke(null, config);
      return { child, done };
    },
  },
  "a persistent child's snapshot after two parent runs": {
    from: "pregel.test.ts: checkpointer: true",
    async run(lib) {
      const graph = around(lib, threeSteps(lib, { checkpointer: true }));
      const config = thread();
      await graph.invoke({ log: [] }, config);
      await graph.invoke({ log: ["second"] }, config);
      return full(await graph.getState({ configurable: { thread_id: "t", checkpoint_ns: "child" } }));
    },
  },
});

compare("subgraph edge cases", {
  "an interrupt in a child without any checkpointer fails with a GraphValueError": {
    from: "python_port/interrupt.test.ts: should handle dynamic interrupts with nested subgraphs",
    async run(lib) {
      const { Annotation, StateGraph, START, GraphValueError } = lib;
      const State = Annotation.Root({ log: concat(lib) });
      const graph = new StateGraph(State).addNode("child", asking(lib)).addEdge(START, "child").compile();
      // Interlude's class is MissingCheckpointerError, a GraphValueError: the check users write holds on both.
      return graph.invoke({ log: [] }).then(
        () => "ran",
        (e: unknown) => e instanceof GraphValueError,
      );
    },
  },
  "a child that does not interrupt needs no checkpointer": {
    from: "python_port/interrupt.test.ts: should handle dynamic interrupts with nested subgraphs",
    async run(lib) {
      const { Annotation, StateGraph, START, interrupt } = lib;
      const Sub = Annotation.Root({ my_key: Annotation(), market: Annotation() });
      const sub = new StateGraph(Sub)
        .addNode("do", (s: any) => ({ my_key: s.market === "DE" ? interrupt("Just because...") : " all good" }))
        .addEdge(START, "do")
        .compile();
      const State = Annotation.Root({
        my_key: Annotation({ reducer: (a: string, b: string) => (a || "") + b }),
        market: Annotation(),
      });
      const graph = new StateGraph(State).addNode("tool_two", sub).addEdge(START, "tool_two").compile();
      return graph.invoke({ my_key: "value", market: "US" });
    },
  },
  "stream (updates) stops at a child's interrupt; the answer completes it": {
    from: "python_port/interrupt.test.ts: should handle dynamic interrupts with nested subgraphs",
    async run(lib) {
      const { Annotation, StateGraph, START, interrupt, MemorySaver, Command } = lib;
      const Sub = Annotation.Root({ my_key: Annotation(), market: Annotation() });
      const sub = new StateGraph(Sub)
        .addNode("do", (s: any) => ({ my_key: s.market === "DE" ? interrupt("Just because...") : " all good" }))
        .addEdge(START, "do")
        .compile();
      const State = Annotation.Root({
        my_key: Annotation({ reducer: (a: string, b: string) => (a || "") + b }),
        market: Annotation(),
      });
      const graph = new StateGraph(State)
        .addNode("tool_two", sub)
        .addEdge(START, "tool_two")
        .compile({ checkpointer: new MemorySaver() });
      const config = thread();
      const first = await collect(await graph.stream({ my_key: "value", market: "DE" }, config));
      const second = await collect(await graph.stream(new Command({ resume: " my answer" }), config));
      return { first, second, values: (await graph.getState(config)).values };
    },
  },
  "updateState(null, END) clears a child's pending interrupt": {
    from: "python_port/interrupt.test.ts: should handle dynamic interrupts with nested subgraphs",
    async run(lib) {
      const graph = around(lib, asking(lib));
      const config = { configurable: { thread_id: "t", checkpoint_ns: "" } };
      await graph.invoke({ log: [] }, config);
      await graph.updateState(config, null, lib.END);
      return brief(await graph.getState(config));
    },
  },
  "two questions in one child node, answered one at a time": {
    from: "pregel.test.ts: should interrupt and resume with Command inside a subgraph",
    async run(lib) {
      const { Annotation, StateGraph, START, interrupt, Command } = lib;
      const State = Annotation.Root({ log: concat(lib) });
      const child = new StateGraph(State)
        .addNode("form", () => ({ log: [`${interrupt("name?")}/${interrupt("age?")}`] }))
        .addEdge(START, "form")
        .compile();
      const graph = around(lib, child);
      const config = thread();
      const out = [await graph.invoke({ log: [] }, config)];
      out.push(await graph.invoke(new Command({ resume: "Ada" }), config));
      out.push(await graph.invoke(new Command({ resume: "36" }), config));
      return out;
    },
  },
  "Send to a child that asks; answers by id": {
    from: "pregel.test.ts: send to nested graphs",
    async run(lib) {
      const { Annotation, StateGraph, START, Send, MemorySaver, Command, interrupt } = lib;
      const Child = Annotation.Root({ subject: Annotation(), jokes: concat(lib) });
      const child = new StateGraph(Child)
        .addNode("write", (s: any) => ({ jokes: [`${s.subject}: ${interrupt(`joke about ${s.subject}?`)}`] }))
        .addEdge(START, "write")
        .compile();
      const State = Annotation.Root({ subjects: Annotation(), jokes: concat(lib) });
      const graph = new StateGraph(State)
        .addNode("child", child)
        .addConditionalEdges(START, (s: any) => s.subjects.map((subject: string) => new Send("child", { subject })))
        .compile({ checkpointer: new MemorySaver() });
      const config = thread();
      const paused = await graph.invoke({ subjects: ["cats", "dogs"] }, config);
      const answers = Object.fromEntries(paused.__interrupt__.map((i: any) => [i.id, `ha ${i.value}`]));
      const done = await graph.invoke(new Command({ resume: answers }), config);
      return { questions: paused.__interrupt__.map((i: any) => i.value).sort(), done };
    },
  },
  "Command with resume and update while a child is paused": {
    from: "pregel.test.ts: should interrupt and resume with Command inside a subgraph",
    async run(lib) {
      const graph = around(lib, asking(lib));
      const config = thread();
      await graph.invoke({ log: [] }, config);
      return graph.invoke(new lib.Command({ resume: "yes", update: { log: ["edit"] } }), config);
    },
  },
  "a persistent child called inside a node function": {
    from: "pregel.test.ts: checkpointer: true",
    async run(lib) {
      const child = threeSteps(lib, { checkpointer: true });
      const graph = around(lib, async (s: any, c: any) => {
        const out = await child.invoke({ log: [`from ${s.log.length}`] }, c);
        return { log: [`child saw ${out.log.length}`] };
      });
      const config = thread();
      await graph.invoke({ log: [] }, config);
      const second = await graph.invoke({ log: [] }, config);
      const child_ = await graph.getState({ configurable: { thread_id: "t", checkpoint_ns: "child" } });
      return { second, child: child_.values };
    },
  },
  "a child with checkpointer: false that asks a question": {
    from: "time_travel_extended.test.ts: should complete flow when subgraph has no checkpointer",
    differs: "#a-question-in-a-subgraph-compiled-with-checkpointer-false",
    async run(lib) {
      const graph = around(lib, asking(lib, { checkpointer: false }));
      const config = thread();
      const paused = await graph.invoke({ log: [] }, config);
      const done = await graph.invoke(new lib.Command({ resume: "ok" }), config);
      return { paused, done };
    },
  },
  "interruptBefore passed at invoke applies to the parent's nodes only": {
    from: "pregel.test.ts: nested graph state",
    async run(lib) {
      const graph = around(lib, threeSteps(lib));
      const config = { ...thread(), interruptBefore: ["c2", "p2"] };
      const paused = await graph.invoke({ log: [] }, config);
      const next = (await graph.getState(config)).next;
      return { paused, next };
    },
  },
});

compare("subgraphs with durability exit", {
  "a finished subgraph's last checkpoint is kept": {
    from: "pregel.test.ts: doubly nested graph state",
    differs: "#a-finished-subgraphs-checkpoint-with-durability-exit",
    async run(lib) {
      const graph = around(lib, threeSteps(lib, { interruptBefore: ["c2"] }));
      const config = { ...thread(), durability: "exit" as const };
      await graph.invoke({ log: [] }, config);
      const childConfig = (await graph.getState(config)).tasks[0].state;
      await graph.invoke(null, config);
      return all(graph.getStateHistory(childConfig));
    },
  },
  "a node that runs a subgraph, then asks: the subgraph runs once": {
    from: "pregel.test.ts: doubly nested graph state",
    differs: "#a-finished-subgraphs-checkpoint-with-durability-exit",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver, interrupt, Command } = lib;
      let runs = 0;
      const State = Annotation.Root({ v: Annotation() });
      const sub = new StateGraph(State)
        .addNode("effect", () => {
          runs++;
          return { v: "done" };
        })
        .addEdge(START, "effect")
        .compile();
      const graph = new StateGraph(State)
        .addNode("n", async (s: any, c: any) => {
          await sub.invoke(s, c);
          return { v: interrupt("ok?") };
        })
        .addEdge(START, "n")
        .compile({ checkpointer: new MemorySaver() });
      const config = { ...thread(), durability: "exit" as const };
      await graph.invoke({ v: 1 }, config);
      const done = await graph.invoke(new Command({ resume: "yes" }), config);
      return { done, runs };
    },
  },
  "parent and child pause and continue the same way": {
    from: "pregel.test.ts: doubly nested graph state",
    async run(lib) {
      const graph = around(lib, threeSteps(lib, { interruptBefore: ["c2"] }));
      const config = { ...thread(), durability: "exit" as const };
      const paused = await graph.invoke({ log: [] }, config);
      const state = full(await graph.getState(config, { subgraphs: true }));
      const done = await graph.invoke(null, config);
      return { paused, state, done, history: await all(graph.getStateHistory(config)) };
    },
  },
});
