/**
 * A graph's shape and the options around a run: getGraph() nodes and edges, input and output
 * schemas, values a run passes through `configurable`, Command.PARENT from a subgraph,
 * durability modes, interruptBefore "*".
 */
import { collect, compare, list, type Runtime, slowNodes } from "./harness.js";

/** What a drawing says, in a form both runtimes give alike: node ids and [source, target, conditional]. */
function shape(drawing: any) {
  return {
    nodes: Object.values(drawing.nodes)
      .map((node: any) => node.id)
      .sort(),
    edges: drawing.edges.map((edge: any) => [edge.source, edge.target, Boolean(edge.conditional)]).sort(),
  };
}

/** Three nodes that take a while, run in one step under `maxConcurrency`: what they wrote and how many ran at once. */
async function underLimit(lib: Runtime, maxConcurrency: number) {
  const { START } = lib;
  let running = 0;
  let peak = 0;
  const graph = slowNodes(lib, 15, () => {
    peak = Math.max(peak, ++running);
    setTimeout(() => running--, 15);
  })
    .addEdge(START, "a")
    .addEdge(START, "b")
    .addEdge(START, "c")
    .compile();
  const out = await graph.invoke({ log: [] }, { maxConcurrency });
  return { log: out.log, peak };
}

compare("graph structure", {
  "outputKeys picks what invoke returns and values chunks carry; one key gives its value": async (lib) => {
    const { Annotation, StateGraph, START, MemorySaver, interrupt } = lib;
    const State = Annotation.Root({ a: Annotation(), b: Annotation() });
    const graph = new StateGraph(State)
      .addNode("n", (s: any) => ({ a: s.a + 1, b: "set" }))
      .addNode("ask", () => ({ b: interrupt("?") }))
      .addEdge(START, "n")
      .addEdge("n", "ask")
      .compile({ checkpointer: new MemorySaver() });
    const config = (thread: string, outputKeys: unknown) => ({ configurable: { thread_id: thread }, outputKeys });
    return {
      one: await graph.invoke({ a: 1 }, config("1", "a")),
      some: await graph.invoke({ a: 1 }, config("2", ["b"])),
      streamed: await collect(await graph.stream({ a: 1 }, { ...config("3", "a"), streamMode: "values" })),
    };
  },

  "checkpointDuring: false saves only the run's last checkpoint, as durability exit": async (lib) => {
    const { Annotation, StateGraph, START, MemorySaver } = lib;
    const saver = new MemorySaver();
    const graph = new StateGraph(Annotation.Root({ n: Annotation() }))
      .addNode("a", () => ({ n: 1 }))
      .addNode("b", () => ({ n: 2 }))
      .addEdge(START, "a")
      .addEdge("a", "b")
      .compile({ checkpointer: saver });
    const count = async (thread: string, checkpointDuring: boolean) => {
      const config = { configurable: { thread_id: thread } };
      await graph.invoke({ n: 0 }, { ...config, checkpointDuring });
      let saved = 0;
      for await (const _ of saver.list(config)) saved++;
      return saved;
    };
    return { off: await count("off", false), on: await count("on", true) };
  },

  "compile({ name, description }) names and describes the compiled graph": (lib) => {
    const { Annotation, StateGraph, START } = lib;
    const graph = new StateGraph(Annotation.Root({ x: Annotation() }))
      .addNode("a", () => ({}))
      .addEdge(START, "a")
      .compile({ name: "reviewer", description: "asks a person to approve" });
    return Promise.resolve({ name: graph.getName(), description: graph.description });
  },

  "maxConcurrency bounds how many tasks of a step run at once": (lib) => underLimit(lib, 2),

  "maxConcurrency: 1 runs a step's tasks one at a time and keeps their writes": {
    differs: "#maxconcurrency-1-keeps-the-steps-writes",
    run: (lib) => underLimit(lib, 1),
  },

  "invoke with another stream mode, or subgraphs, returns what the stream gives": async (lib) => {
    const { Annotation, StateGraph, START, MemorySaver, interrupt } = lib;
    const State = Annotation.Root({ log: list(lib) });
    const graph = new StateGraph(State)
      .addNode("a", () => ({ log: ["a"] }))
      .addNode("ask", () => ({ log: [interrupt("ok?")] }))
      .addEdge(START, "a")
      .addEdge("a", "ask")
      .compile({ checkpointer: new MemorySaver() });
    const run = (thread: string, options: object) =>
      graph.invoke({ log: [] }, { configurable: { thread_id: thread }, ...options });
    return {
      updates: await run("1", { streamMode: "updates" }),
      several: await run("2", { streamMode: ["values", "updates"] }),
      subgraphs: await run("3", { subgraphs: true }),
      values: await run("4", { streamMode: "values" }),
    };
  },

  "getGraph({ xray }) draws subgraphs inside their nodes, to the depth asked": async (lib) => {
    const { Annotation, StateGraph, START, END } = lib;
    const State = Annotation.Root({ x: Annotation() });
    const leaf = new StateGraph(State)
      .addNode("l1", () => ({}))
      .addNode("l2", () => ({}))
      .addEdge(START, "l1")
      .addEdge("l1", "l2")
      .compile();
    const middle = new StateGraph(State)
      .addNode("m", () => ({}))
      .addNode("leaf", leaf)
      .addNode("other", () => ({}))
      .addEdge(START, "m")
      .addConditionalEdges("m", (s: any) => (s.x ? "leaf" : "other"), ["leaf", "other"])
      .addEdge("leaf", END)
      .addEdge("other", END)
      .compile();
    const graph = new StateGraph(State)
      .addNode("a", () => ({}))
      .addNode("middle", middle)
      .addEdge(START, "a")
      .addEdge("a", "middle")
      .addEdge("middle", END)
      .compile();
    return {
      flat: shape(graph.getGraph()),
      one: shape(await graph.getGraphAsync({ xray: 1 })),
      all: shape(await graph.getGraphAsync({ xray: true })),
    };
  },

  "getGraph().drawMermaid() with @langchain/core loaded: LangChain's Graph, the same text (xray too)": async (lib) => {
    const { Annotation, StateGraph, START, END } = lib;
    await lib.loadLangChain?.();
    const State = Annotation.Root({ v: Annotation() });
    const inner = new StateGraph(State)
      .addNode("x", () => ({}))
      .addNode("y", () => ({}))
      .addEdge(START, "x")
      .addEdge("x", "y")
      .compile();
    const graph = new StateGraph(State)
      .addNode("a", () => ({}))
      .addNode("sub", inner)
      .addEdge(START, "a")
      .addConditionalEdges("a", (s: any) => (s.v ? "sub" : END), ["sub", END])
      .addEdge("sub", END)
      .compile();
    const flat = graph.getGraph();
    return {
      kind: flat.constructor.name,
      ids: Object.keys(flat.nodes),
      mermaid: flat.drawMermaid(),
      xray: graph.getGraph({ xray: true }).drawMermaid(),
      first: flat.firstNode()?.id,
      last: flat.lastNode()?.id,
    };
  },

  "getGraph() of a chain: nodes and edges from START to END": {
    from: "graph.test.ts: should support addSequence",
    async run(lib) {
      const { Annotation, StateGraph, START, END } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addNode("a", () => ({}))
        .addNode("b", () => ({}))
        .addEdge(START, "a")
        .addEdge("a", "b")
        .addEdge("b", END)
        .compile();
      return shape(graph.getGraph());
    },
  },

  "getGraph() of a branch with a path map: conditional edges to each target": {
    from: "pregel.test.ts: StateGraph branch then node",
    async run(lib) {
      const { Annotation, StateGraph, START, END } = lib;
      const State = Annotation.Root({ n: Annotation() });
      const graph = new StateGraph(State)
        .addNode("check", () => ({}))
        .addNode("big", () => ({}))
        .addEdge(START, "check")
        .addConditionalEdges("check", (s: any) => (s.n > 1 ? "yes" : "no"), { yes: "big", no: END })
        .addEdge("big", END)
        .compile();
      return shape(graph.getGraph());
    },
  },

  "getGraph() of a fan-out and join": {
    from: "graph.test.ts: should support addSequence",
    async run(lib) {
      const { Annotation, StateGraph, START, END } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addNode("left", () => ({}))
        .addNode("right", () => ({}))
        .addNode("join", () => ({}))
        .addEdge(START, "left")
        .addEdge(START, "right")
        .addEdge(["left", "right"], "join")
        .addEdge("join", END)
        .compile();
      return shape(graph.getGraph());
    },
  },

  "getGraph() of addSequence": {
    from: "pregel.test.ts: should work with mixed nodes and sequences",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addSequence({ one: () => ({}), two: () => ({}), three: () => ({}) })
        .addEdge(START, "one")
        .compile();
      return shape(graph.getGraph());
    },
  },
});

compare("input and output schemas", {
  "an output schema picks the keys invoke returns": {
    from: "pregel.test.ts: should handle node schemas with custom output",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const State = Annotation.Root({ question: Annotation(), notes: Annotation(), answer: Annotation() });
      const Output = Annotation.Root({ answer: Annotation() });
      const graph = new StateGraph({ stateSchema: State, output: Output })
        .addNode("think", (s: any) => ({ notes: `about ${s.question}` }))
        .addNode("reply", (s: any) => ({ answer: `${s.notes}: 42` }))
        .addEdge(START, "think")
        .addEdge("think", "reply")
        .compile();
      return graph.invoke({ question: "life" });
    },
  },

  "an input schema: the first node reads the input, later nodes the whole state": {
    from: "pregel.test.ts: should handle node schemas with custom output",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const Input = Annotation.Root({ question: Annotation() });
      const State = Annotation.Root({ question: Annotation(), answer: Annotation() });
      const graph = new StateGraph({ input: Input, stateSchema: State })
        .addNode("reply", (s: any) => ({ answer: `you asked ${s.question}` }))
        .addEdge(START, "reply")
        .compile();
      return graph.invoke({ question: "why" });
    },
  },

  "input, output and state schemas together, streamed as values": {
    from: "pregel.test.ts: should handle node schemas with custom output",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const Input = Annotation.Root({ question: Annotation() });
      const Output = Annotation.Root({ answer: Annotation() });
      const State = Annotation.Root({ question: Annotation(), scratch: Annotation(), answer: Annotation() });
      const graph = new StateGraph({ input: Input, output: Output, stateSchema: State })
        .addNode("work", (s: any) => ({ scratch: s.question.toUpperCase() }))
        .addNode("reply", (s: any) => ({ answer: `${s.scratch}!` }))
        .addEdge(START, "work")
        .addEdge("work", "reply")
        .compile();
      return collect(await graph.stream({ question: "hi" }, { streamMode: "values" }));
    },
  },
});

compare("run options", {
  "a node reads the run's configurable values from its config": {
    from: "pregel.test.ts: should allow custom configuration values",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const State = Annotation.Root({ greeting: Annotation() });
      const graph = new StateGraph(State)
        .addNode("greet", (_s: any, config: any) => ({ greeting: `hello ${config.configurable.user}` }))
        .addEdge(START, "greet")
        .compile();
      return [
        await graph.invoke({}, { configurable: { user: "ada" } }),
        await graph.invoke({}, { configurable: { user: "alan" } }),
      ];
    },
  },

  "a conditional edge reads the run's configurable values": {
    from: "pregel.test.ts: should allow custom configuration values",
    async run(lib) {
      const { Annotation, StateGraph, START, END } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addNode("fast", () => ({ log: ["fast"] }))
        .addNode("slow", () => ({ log: ["slow"] }))
        .addConditionalEdges(START, (_s: any, config: any) => (config.configurable.mode === "fast" ? "fast" : "slow"), [
          "fast",
          "slow",
        ])
        .addEdge("fast", END)
        .addEdge("slow", END)
        .compile();
      return [
        await graph.invoke({ log: [] }, { configurable: { mode: "fast" } }),
        await graph.invoke({ log: [] }, { configurable: { mode: "other" } }),
      ];
    },
  },

  "compile-time config is merged with the run's: withConfig": {
    from: "pregel.test.ts: should allow custom configuration values",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const State = Annotation.Root({ seen: Annotation() });
      const graph = new StateGraph(State)
        .addNode("look", (_s: any, config: any) => ({
          seen: [config.configurable.team, config.configurable.user],
        }))
        .addEdge(START, "look")
        .compile()
        .withConfig({ configurable: { team: "blue" } });
      return graph.invoke({}, { configurable: { user: "ada" } });
    },
  },

  "durability exit: one checkpoint for the whole run, the same result": {
    from: "pregel.test.ts: should handle dynamic interrupt",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addSequence({ a: () => ({ log: ["a"] }), b: () => ({ log: ["b"] }) })
        .addEdge(START, "a")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      const result = await graph.invoke({ log: [] }, { ...config, durability: "exit" });
      const state = await graph.getState(config);
      return { result, values: state.values, next: state.next };
    },
  },

  "durability sync and async give the same history": {
    from: "pregel.test.ts: should handle dynamic interrupt",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addSequence({ a: () => ({ log: ["a"] }), b: () => ({ log: ["b"] }) })
        .addEdge(START, "a")
        .compile({ checkpointer: new MemorySaver() });
      const out: unknown[] = [];
      for (const durability of ["sync", "async"]) {
        const config = { configurable: { thread_id: durability } };
        await graph.invoke({ log: [] }, { ...config, durability });
        out.push((await collect(graph.getStateHistory(config))).map((s: any) => [s.values, s.next]));
      }
      return out;
    },
  },

  'interruptAfter "*" stops after every node': {
    from: "pregel.test.ts: should handle dynamic interrupt",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addSequence({ a: () => ({ log: ["a"] }), b: () => ({ log: ["b"] }) })
        .addEdge(START, "a")
        .compile({ checkpointer: new MemorySaver(), interruptAfter: "*" });
      const config = { configurable: { thread_id: "t" } };
      const first = await graph.invoke({ log: [] }, config);
      const second = await graph.invoke(null, config);
      const third = await graph.invoke(null, config);
      return { first, second, third, next: (await graph.getState(config)).next };
    },
  },
});

compare("Command.PARENT", {
  "a subgraph node sends its parent to another node with an update": {
    from: "pregel.test.ts: should handle Command.PARENT as described in the docs",
    async run(lib) {
      const { Annotation, StateGraph, START, Command } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const child = new StateGraph(State)
        .addNode("decide", () => new Command({ graph: Command.PARENT, goto: "other", update: { log: ["child"] } }))
        .addEdge(START, "decide")
        .compile();
      const parent = new StateGraph(State)
        .addNode("child", child, { ends: ["other"] })
        .addNode("other", () => ({ log: ["other"] }))
        .addEdge(START, "child")
        .compile();
      return parent.invoke({ log: ["start"] });
    },
  },

  "Command.PARENT from a subgraph called inside a node": {
    from: "pregel.test.ts: should handle Command.PARENT as described in the docs",
    async run(lib) {
      const { Annotation, StateGraph, START, Command } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const child = new StateGraph(State)
        .addNode("leave", () => new Command({ graph: Command.PARENT, goto: "done", update: { log: ["left"] } }))
        .addEdge(START, "leave")
        .compile();
      const parent = new StateGraph(State)
        .addNode("call", async (s: any, config: any) => child.invoke(s, config), { ends: ["done"] })
        .addNode("done", () => ({ log: ["done"] }))
        .addEdge(START, "call")
        .compile();
      return parent.invoke({ log: [] });
    },
  },

  "Command.PARENT with a checkpointer, streamed as updates": {
    from: "pregel.test.ts: should handle Command.PARENT as described in the docs",
    async run(lib) {
      const { Annotation, StateGraph, START, Command, MemorySaver } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const child = new StateGraph(State)
        .addNode("decide", () => new Command({ graph: Command.PARENT, goto: "other", update: { log: ["child"] } }))
        .addEdge(START, "decide")
        .compile();
      const parent = new StateGraph(State)
        .addNode("child", child, { ends: ["other"] })
        .addNode("other", () => ({ log: ["other"] }))
        .addEdge(START, "child")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      const chunks = await collect(await parent.stream({ log: [] }, { ...config, streamMode: "updates" }));
      return { chunks, values: (await parent.getState(config)).values };
    },
  },
  "a node nothing leads to is refused at compile": {
    from: "graph.test.ts: should throw an error if a node is not reachable",
    throws: true,
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const State = Annotation.Root({ v: Annotation() });
      return new StateGraph(State)
        .addNode("a", () => ({}))
        .addNode("b", () => ({}))
        .addEdge(START, "a")
        .compile();
    },
  },

  "a node reached only through Command({ goto }) compiles when declared in ends": {
    from: "graph.test.ts: should throw an error if a node is not reachable",
    async run(lib) {
      const { Annotation, StateGraph, START, Command } = lib;
      const State = Annotation.Root({ v: Annotation() });
      const graph = new StateGraph(State)
        .addNode("a", () => new Command({ update: { v: "a" }, goto: "b" }), { ends: ["b"] })
        .addNode("b", (s: any) => ({ v: `${s.v}b` }))
        .addEdge(START, "a")
        .compile();
      return graph.invoke({ v: "" });
    },
  },

  "a conditional edge without a path map may lead to any node": {
    from: "graph.test.ts: should throw an error if a node is not reachable",
    async run(lib) {
      const { Annotation, StateGraph, START, END } = lib;
      const State = Annotation.Root({ v: Annotation() });
      const graph = new StateGraph(State)
        .addNode("a", () => ({ v: "a" }))
        .addNode("b", () => ({ v: "b" }))
        .addConditionalEdges(START, (s: any) => (s.v === "go" ? "b" : END))
        .addEdge("b", "a")
        .compile();
      return [await graph.invoke({ v: "go" }), await graph.invoke({ v: "stop" })];
    },
  },
  "a node's own input schema: private keys pass between nodes, outside the run's input and output": {
    from: "pregel.test.ts: should allow private state passing between nodes",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver } = lib;
      const State = Annotation.Root({ hello: Annotation() });
      const Private = Annotation.Root({ hello: Annotation(), privateProp: Annotation() });
      const seen: unknown[] = [];
      const graph = new StateGraph(State)
        .addNode("a", (s: any) => ({ hello: `${s.hello}!`, privateProp: "secret" }))
        .addNode(
          "b",
          (s: any) => {
            seen.push(s);
            return { hello: `again: ${s.privateProp}` };
          },
          { input: Private },
        )
        .addNode("c", (s: any) => {
          seen.push(s);
          return {};
        })
        .addEdge(START, "a")
        .addEdge("a", "b")
        .addEdge("b", "c")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      const result = await graph.invoke({ hello: "there", privateProp: "ignored" }, config);
      const values = await collect(
        await graph.stream({ hello: "there" }, { configurable: { thread_id: "u" }, streamMode: "values" }),
      );
      return { result, seen, state: (await graph.getState(config)).values, values };
    },
  },

  "a node's input schema with a private reducer key and its default": {
    from: "graph/state.test.ts: per-node input with Annotation (with reducer in state)",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const list = () => Annotation({ reducer: (a: string[], b: string[]) => a.concat(b), default: () => ["p0"] });
      const State = Annotation.Root({
        log: Annotation({ reducer: (a: string[], b: string[]) => a.concat(b), default: () => [] }),
      });
      const Notes = Annotation.Root({ notes: list() });
      const seen: unknown[] = [];
      const graph = new StateGraph(State)
        .addNode("a", () => ({ notes: ["from a"], log: ["a"] }))
        .addNode(
          "b",
          (s: any) => {
            seen.push(s);
            return { notes: ["from b"], log: [`b saw ${s.notes.length} notes`] };
          },
          { input: Notes },
        )
        .addEdge(START, "a")
        .addEdge("a", "b")
        .compile();
      return { result: await graph.invoke({ log: [] }), seen };
    },
  },
  "batch runs each input with its own config, errors in place with returnExceptions": {
    from: "pregel.test.ts: should batch many inputs",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver } = lib;
      const State = Annotation.Root({ n: Annotation() });
      const builder = new StateGraph(State)
        .addNode("double", (s: any) => {
          if (s.n < 0) throw new Error(`negative ${s.n}`);
          return { n: s.n * 2 };
        })
        .addEdge(START, "double");
      const graph = builder.compile({ checkpointer: new MemorySaver() });
      const configs = [1, 2, 3].map((i) => ({ configurable: { thread_id: `t${i}` } }));
      const results = await graph.batch([{ n: 1 }, { n: -2 }, { n: 3 }], configs, { returnExceptions: true });
      const failed = await builder
        .compile()
        .batch([{ n: 1 }, { n: -1 }], { maxConcurrency: 1 })
        .catch((e: Error) => e.message);
      const third = (await graph.getState(configs[2])).values;
      return { results: results.map((r: any) => (r instanceof Error ? r.message : r)), failed, third };
    },
  },

  "getSubgraphs lists compiled graphs run as nodes, nested ones with recurse": {
    from: "pregel.test.ts: should get subgraphs",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const State = Annotation.Root({ v: Annotation() });
      const leaf = new StateGraph(State)
        .addNode("l", () => ({}))
        .addEdge(START, "l")
        .compile();
      const middle = new StateGraph(State).addNode("leaf", leaf).addEdge(START, "leaf").compile();
      const graph = new StateGraph(State)
        .addNode("plain", () => ({}))
        .addNode("middle", middle)
        .addEdge(START, "plain")
        .addEdge("plain", "middle")
        .compile({ name: "outer" });
      const names = (pairs: Iterable<[string, unknown]>) => [...pairs].map(([name]) => name);
      return {
        top: names(graph.getSubgraphs()),
        all: names(graph.getSubgraphs(undefined, true)),
        one: names(graph.getSubgraphs("middle|leaf", true)),
        name: graph.getName(),
        suffixed: graph.getName("-v2"),
      };
    },
  },
  "a node's config tells it where it runs: metadata.langgraph_* and executionInfo": {
    from: "execution_info.test.ts: should increment nodeAttempt on retry",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver, Send } = lib;
      const State = Annotation.Root({ n: Annotation() });
      const seen: unknown[] = [];
      const record = (config: any) => {
        const { metadata: m, executionInfo: e } = config;
        seen.push({
          node: m.langgraph_node,
          step: m.langgraph_step,
          triggers: m.langgraph_triggers,
          path: m.langgraph_path,
          nsIsTask: m.langgraph_checkpoint_ns === m.checkpoint_ns && m.checkpoint_ns.startsWith(`${m.langgraph_node}:`),
          mine: m.mine,
          thread: m.thread_id,
          attempt: e.nodeAttempt,
          sameTask: e.checkpointNs === m.checkpoint_ns && m.checkpoint_ns.endsWith(e.taskId),
          threadId: e.threadId,
          firstTime: typeof e.nodeFirstAttemptTime,
          runName: config.runName,
        });
      };
      let attempts = 0;
      const graph = new StateGraph(State)
        .addNode(
          "flaky",
          (_s: unknown, config: any) => {
            record(config);
            if (++attempts < 2) throw new Error("once");
            return { n: 1 };
          },
          { retryPolicy: { maxAttempts: 2, initialInterval: 1, jitter: false } },
        )
        .addNode("fanned", (_arg: unknown, config: any) => {
          record(config);
          return {};
        })
        .addEdge(START, "flaky")
        .addConditionalEdges("flaky", () => [new Send("fanned", { k: 1 })])
        .compile({ checkpointer: new MemorySaver() });
      await graph.invoke({ n: 0 }, { configurable: { thread_id: "t" }, metadata: { mine: "yes" } });
      return seen;
    },
  },
  "addNode's metadata reaches the node's config; its subgraphs are listed": {
    from: "graph.test.ts: should support metadata and subgraphs in parallel node addition",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const State = Annotation.Root({ v: Annotation() });
      const inner = new StateGraph(State)
        .addNode("i", () => ({ v: "inner" }))
        .addEdge(START, "i")
        .compile();
      let seen: unknown;
      const graph = new StateGraph(State)
        .addNode(
          "calls",
          async (s: any, config: any) => {
            seen = { team: config.metadata.team, node: config.metadata.langgraph_node };
            return inner.invoke(s, config);
          },
          { metadata: { team: "billing" }, subgraphs: [inner] },
        )
        .addEdge(START, "calls")
        .compile();
      const result = await graph.invoke({ v: "x" });
      return { result, seen, subgraphs: [...graph.getSubgraphs()].map(([name]: [string]) => name) };
    },
  },
});
