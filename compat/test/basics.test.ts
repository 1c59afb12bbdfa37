/**
 * The first scenarios: the seeds' examples and the core interrupt, breakpoint, Send, Command and
 * subgraph behaviours, each on both runtimes.
 */
import { collect, compare, type Runtime } from "./harness.js";

compare("basics", {
  "getSubgraphsSeenSet: one process-wide set, the same each call, which running a subgraph leaves as it was": {
    async run({ Annotation, StateGraph, START, MemorySaver, getSubgraphsSeenSet }) {
      const seen = getSubgraphsSeenSet();
      const before = seen.size;
      const State = Annotation.Root({ v: Annotation() });
      const inner = new StateGraph(State)
        .addNode("leaf", () => ({ v: 2 }))
        .addEdge(START, "leaf")
        .compile();
      const outer = new StateGraph(State)
        .addNode("sub", inner)
        .addEdge(START, "sub")
        .compile({ checkpointer: new MemorySaver() });
      const result = await outer.invoke({ v: 1 }, { configurable: { thread_id: "t" } });
      return { isSet: seen instanceof Set, same: seen === getSubgraphsSeenSet(), grew: seen.size - before, result };
    },
  },
  async "validate input with a loop of interrupts"({ Annotation, StateGraph, START, interrupt, Command, MemorySaver }) {
    const State = Annotation.Root({ age: Annotation() });
    const graph = new StateGraph(State)
      .addNode("ask", () => {
        let prompt = "age?";
        for (;;) {
          const input = interrupt(prompt);
          if (/^\d+$/.test(input)) return { age: Number(input) };
          prompt = `'${input}' is invalid`;
        }
      })
      .addEdge(START, "ask")
      .compile({ checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: "t" } };
    const out = [await graph.invoke({}, config)];
    for (const answer of ["x", "-1", "25"]) out.push(await graph.invoke(new Command({ resume: answer }), config));
    return out;
  },

  async "parallel interrupts answered by id, state and next"({
    Annotation,
    StateGraph,
    START,
    interrupt,
    Command,
    MemorySaver,
  }) {
    const State = Annotation.Root({
      log: Annotation({ reducer: (a: string[], b: string[]) => a.concat(b), default: () => [] }),
    });
    const graph = new StateGraph(State)
      .addNode("a", () => ({ log: [`a:${interrupt("A?")}`] }))
      .addNode("b", () => ({ log: [`b:${interrupt("B?")}`] }))
      .addEdge(START, "a")
      .addEdge(START, "b")
      .compile({ checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: "t" } };
    await graph.invoke({}, config);
    const state = await graph.getState(config);
    // LangGraph.js 1.7 has no snapshot.interrupts (Interlude adds it); both have them per task.
    const pending = state.tasks.flatMap((t: any) => t.interrupts);
    const map = Object.fromEntries(pending.map((i: any) => [i.id, i.value.toLowerCase()]));
    const done = await graph.invoke(new Command({ resume: map }), config);
    const history: unknown[] = [];
    for await (const s of graph.getStateHistory(config))
      history.push([s.metadata.source, s.metadata.step, s.next, s.values]);
    return {
      next: state.next,
      values: state.values,
      tasks: state.tasks.map((t: any) => [t.name, t.path, t.interrupts]),
      done,
      history,
    };
  },

  async "breakpoint, updateState, continue; history sources"({ Annotation, StateGraph, START, MemorySaver }) {
    const State = Annotation.Root({
      draft: Annotation(),
      log: Annotation({ reducer: (a: string[], b: string[]) => a.concat(b), default: () => [] }),
    });
    const graph = new StateGraph(State)
      .addNode("write", () => ({ draft: "v1", log: ["write"] }))
      .addNode("publish", (s: any) => ({ log: [`publish ${s.draft}`] }))
      .addEdge(START, "write")
      .addEdge("write", "publish")
      .compile({ checkpointer: new MemorySaver(), interruptBefore: ["publish"] });
    const config = { configurable: { thread_id: "t" } };
    const paused = await graph.invoke({}, config);
    const next = (await graph.getState(config)).next;
    await graph.updateState(config, { draft: "v2" });
    const done = await graph.invoke(null, config);
    return { paused, next, done };
  },

  async "stream updates with an interrupt, then resume"({
    Annotation,
    StateGraph,
    START,
    interrupt,
    Command,
    MemorySaver,
  }) {
    const State = Annotation.Root({ name: Annotation(), greeting: Annotation() });
    const graph = new StateGraph(State)
      .addNode("ask", () => ({ name: interrupt("name?") }))
      .addNode("greet", (s: any) => ({ greeting: `hello ${s.name}` }))
      .addEdge(START, "ask")
      .addEdge("ask", "greet")
      .compile({ checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: "t" } };
    const first = await collect(await graph.stream({}, { ...config, streamMode: "updates" }));
    const second = await collect(
      await graph.stream(new Command({ resume: "ada" }), { ...config, streamMode: "updates" }),
    );
    const values = await collect(
      await graph.stream({ name: "bob" }, {
        configurable: { thread_id: "t2" },
        streamMode: "values",
        interruptBefore: ["greet"],
      } as any),
    );
    return { first, second, values };
  },

  async "Send fan-out and conditional routing"({ Annotation, StateGraph, START, END, Send }) {
    const State = Annotation.Root({
      items: Annotation(),
      out: Annotation({ reducer: (a: number[], b: number[]) => a.concat(b), default: () => [] }),
    });
    const graph = new StateGraph(State)
      .addNode("square", (arg: any) => ({ out: [arg.n * arg.n] }))
      .addNode("sum", (s: any) => ({ out: [s.out.reduce((a: number, b: number) => a + b, 0)] }))
      .addConditionalEdges(START, (s: any) => s.items.map((n: number) => new Send("square", { n })))
      .addEdge("square", "sum")
      .addEdge("sum", END)
      .compile();
    return graph.invoke({ items: [1, 2, 3] });
  },

  async "Command goto and update from a node"({ Annotation, StateGraph, START, Command }) {
    const State = Annotation.Root({
      log: Annotation({ reducer: (a: string[], b: string[]) => a.concat(b), default: () => [] }),
    });
    const graph = new StateGraph(State)
      .addNode("route", () => new Command({ update: { log: ["route"] }, goto: "b" }), { ends: ["a", "b"] })
      .addNode("a", () => ({ log: ["a"] }))
      .addNode("b", () => ({ log: ["b"] }))
      .addEdge(START, "route")
      .compile();
    return graph.invoke({});
  },

  async "subgraph node interrupt and resume"({ Annotation, StateGraph, START, interrupt, Command, MemorySaver }) {
    const State = Annotation.Root({
      log: Annotation({ reducer: (a: string[], b: string[]) => a.concat(b), default: () => [] }),
    });
    const child = new StateGraph(State)
      .addNode("prep", () => ({ log: ["prep"] }))
      .addNode("ask", () => ({ log: [`got ${interrupt("child?")}`] }))
      .addEdge(START, "prep")
      .addEdge("prep", "ask")
      .compile();
    const parent = new StateGraph(State)
      .addNode("child", child)
      .addEdge(START, "child")
      .compile({ checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: "t" } };
    const paused = await parent.invoke({ log: ["start"] }, config);
    const done = await parent.invoke(new Command({ resume: "x" }), config);
    return { paused, done };
  },

  async "seed: subgraph called inside a node, streamed, with counters"({
    Annotation,
    StateGraph,
    START,
    interrupt,
    Command,
    MemorySaver,
  }) {
    const counts = { parent: 0, some: 0, human: 0 };
    const State = Annotation.Root({ state_counter: Annotation() });
    const subgraph = new StateGraph(State)
      .addNode("some_node", () => {
        counts.some++;
        return {};
      })
      .addNode("human_node", () => {
        counts.human++;
        interrupt("what is your name?");
        return {};
      })
      .addEdge(START, "some_node")
      .addEdge("some_node", "human_node")
      .compile({ checkpointer: new MemorySaver() });
    const graph = new StateGraph(State)
      .addNode("parent_node", async (state: any) => {
        counts.parent++;
        return await subgraph.invoke(state);
      })
      .addEdge(START, "parent_node")
      .compile({ checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: "t" } };
    const first = await collect(await graph.stream({ state_counter: 1 }, { ...config, streamMode: "updates" }));
    const second = await collect(
      await graph.stream(new Command({ resume: "35" }), { ...config, streamMode: "updates" }),
    );
    return { first, second, counts };
  },

  async "seed: positional answers with a state update (LangGraph's behaviour, opted into)"({
    Annotation,
    StateGraph,
    START,
    interrupt,
    Command,
    MemorySaver,
  }) {
    const State = Annotation.Root({ age: Annotation(), name: Annotation() });
    const graph = new StateGraph(State)
      .addNode("human_node", (state: any) => {
        const name = !state.name ? interrupt("what is your name?") : "N/A";
        const age = !state.age ? interrupt("what is your age?") : "N/A";
        return { age, name };
      })
      .addEdge(START, "human_node")
      .compile({ checkpointer: new MemorySaver(), resumeMatching: "positional" } as any);
    const config = { configurable: { thread_id: "t" } };
    const first = await collect(await graph.stream({ age: null, name: null }, { ...config, streamMode: "updates" }));
    const second = await collect(
      await graph.stream(new Command({ resume: "John", update: { name: "foo" } }), {
        ...config,
        streamMode: "updates",
      }),
    );
    return { first, second };
  },

  async "interruptAfter, values stream, and getState of a subgraph task"({
    Annotation,
    StateGraph,
    START,
    interrupt,
    MemorySaver,
  }) {
    const State = Annotation.Root({
      log: Annotation({ reducer: (a: string[], b: string[]) => a.concat(b), default: () => [] }),
    });
    const child = new StateGraph(State)
      .addNode("ask", () => ({ log: [`got ${interrupt("child?")}`] }))
      .addEdge(START, "ask")
      .compile();
    const graph = new StateGraph(State)
      .addNode("one", () => ({ log: ["one"] }))
      .addNode("child", child)
      .addEdge(START, "one")
      .addEdge("one", "child")
      .compile({ checkpointer: new MemorySaver(), interruptAfter: ["one"] });
    const config = { configurable: { thread_id: "t" } };
    const values = await collect(await graph.stream({ log: ["in"] }, config));
    const more = await collect(await graph.stream(null, config));
    const state = await graph.getState(config);
    return {
      values,
      more,
      next: state.next,
      values2: state.values,
      taskNames: state.tasks.map((t: any) => t.name),
      childNs: typeof state.tasks[0].state?.configurable?.checkpoint_ns,
    };
  },

  async "two writes to a key without reducer fail with InvalidUpdateError"({ Annotation, StateGraph, START }) {
    const State = Annotation.Root({ v: Annotation() });
    const graph = new StateGraph(State)
      .addNode("a", () => ({ v: 1 }))
      .addNode("b", () => ({ v: 2 }))
      .addEdge(START, "a")
      .addEdge(START, "b")
      .compile();
    const error = await graph.invoke({}).catch((e: Error) => e);
    return error.name;
  },

  async "replaying a paused checkpoint from history forks the thread there"({
    Annotation,
    StateGraph,
    START,
    interrupt,
    Command,
    MemorySaver,
  }) {
    const State = Annotation.Root({
      log: Annotation({ reducer: (a: string[], b: string[]) => a.concat(b), default: () => [] }),
    });
    const graph = new StateGraph(State)
      .addNode("one", () => ({ log: ["one"] }))
      .addNode("two", () => ({ log: [`two:${interrupt("q")}`] }))
      .addNode("three", () => ({ log: ["three"] }))
      .addEdge(START, "one")
      .addEdge("one", "two")
      .addEdge("two", "three")
      .compile({ checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: "t" } };
    await graph.invoke({}, config);
    await graph.invoke(new Command({ resume: "x" }), config);
    const history: any[] = [];
    for await (const s of graph.getStateHistory(config)) history.push(s);
    const replayed = await graph.invoke(null, history.find((s) => s.next[0] === "two").config);
    const after: unknown[] = [];
    for await (const s of graph.getStateHistory(config))
      after.push([s.metadata.source, s.metadata.step, s.next, s.values]);
    const head = await graph.getState(config);
    const again = await graph.invoke(new Command({ resume: "y" }), config);
    return { replayed, after, headNext: head.next, again };
  },

  "a step's checkpoint is saved before the next step starts, by default": {
    from: "durability.sync.test.ts: allows the next node to start while prior persistence is pending in async mode",
    differs: "#durability-sync-by-default",
    run: (lib) => savedWhenNodesStart(lib, {}),
  },
  "durability sync: the next node waits for the step's checkpoint": {
    from: "durability.sync.test.ts: sync durability",
    run: (lib) => savedWhenNodesStart(lib, { durability: "sync" }),
  },
  "durability async: the next node does not wait for the step's checkpoint": {
    from: "durability.sync.test.ts: allows the next node to start while prior persistence is pending in async mode",
    run: (lib) => savedWhenNodesStart(lib, { durability: "async" }),
  },
});

/**
 * A two-node graph on a saver slower than its nodes: how many checkpoints each node found saved
 * when it started, and how many were saved by the time invoke returned.
 */
async function savedWhenNodesStart({ Annotation, StateGraph, START, MemorySaver }: Runtime, options: object) {
  let saved = 0;
  class SlowSaver extends MemorySaver {
    async put(...args: unknown[]) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      const config = await super.put(...args);
      saved++;
      return config;
    }
  }
  const found: Record<string, number> = {};
  const State = Annotation.Root({ v: Annotation() });
  const graph = new StateGraph(State)
    .addNode("one", () => {
      found.one = saved;
      return { v: 1 };
    })
    .addNode("two", () => {
      found.two = saved;
      return { v: 2 };
    })
    .addEdge(START, "one")
    .addEdge("one", "two")
    .compile({ checkpointer: new SlowSaver() });
  const result = await graph.invoke({ v: 0 }, { configurable: { thread_id: "t" }, ...options });
  return { result, found, savedByTheEnd: saved };
}
