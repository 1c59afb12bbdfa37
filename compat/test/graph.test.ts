/**
 * Building graphs: call shapes of addNode, addConditionalEdges, addSequence; Send; Command
 * routing; options Interlude refuses instead of ignoring.
 */
import { collect, compare, list, type Runtime } from "./harness.js";

compare("graph building", {
  "a Command is a CommandInstance holding its parameters under COMMAND_SYMBOL": async ({
    Command,
    CommandInstance,
    COMMAND_SYMBOL,
    isCommand,
  }) => {
    const command = new Command({ resume: "yes", goto: "b" });
    return {
      instance: command instanceof CommandInstance,
      params: command[COMMAND_SYMBOL],
      global: COMMAND_SYMBOL === Symbol.for("langgraph.command"),
      isCommand: isCommand(command),
    };
  },

  "addNode with an object of nodes": {
    from: "python_port/graph_structure.test.ts: add nodes from a map",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addNode({ a: () => ({ log: ["a"] }), b: () => ({ log: ["b"] }) })
        .addEdge(START, "a")
        .addEdge("a", "b")
        .compile();
      return graph.invoke({ log: [] });
    },
  },

  "addNode with a list of [name, fn] entries": {
    from: "python_port/graph_structure.test.ts: add nodes from a map",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addNode([
          ["a", () => ({ log: ["a"] })],
          ["b", () => ({ log: ["b"] })],
        ])
        .addEdge(START, "a")
        .addEdge("a", "b")
        .compile();
      return graph.invoke({ log: [] });
    },
  },

  "addConditionalEdges with an object { source, path, pathMap }": {
    from: "pregel.test.ts: StateGraph branch then node",
    async run(lib) {
      const { Annotation, StateGraph, START, END } = lib;
      const State = Annotation.Root({ n: Annotation(), log: list(lib) });
      const graph = new StateGraph(State)
        .addNode("check", () => ({ log: ["check"] }))
        .addNode("big", () => ({ log: ["big"] }))
        .addNode("small", () => ({ log: ["small"] }))
        .addEdge(START, "check")
        .addConditionalEdges({
          source: "check",
          path: (s: any) => (s.n > 10 ? "isBig" : "isSmall"),
          pathMap: { isBig: "big", isSmall: "small" },
        })
        .addEdge("big", END)
        .addEdge("small", END)
        .compile();
      return [await graph.invoke({ n: 50 }), await graph.invoke({ n: 1 })];
    },
  },

  "addConditionalEdges with a list of targets": {
    from: "pregel.test.ts: StateGraph start branch then end",
    async run(lib) {
      const { Annotation, StateGraph, START, END } = lib;
      const State = Annotation.Root({ go: Annotation(), log: list(lib) });
      const graph = new StateGraph(State)
        .addNode("yes", () => ({ log: ["yes"] }))
        .addConditionalEdges(START, (s: any) => (s.go ? "yes" : END), ["yes", END])
        .addEdge("yes", END)
        .compile();
      return [await graph.invoke({ go: true }), await graph.invoke({ go: false })];
    },
  },

  "addSequence chains nodes": {
    from: "pregel.test.ts: should work with mixed nodes and sequences",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addSequence({ one: () => ({ log: ["one"] }), two: () => ({ log: ["two"] }) })
        .addNode("three", () => ({ log: ["three"] }))
        .addEdge(START, "one")
        .addEdge("two", "three")
        .compile();
      return graph.invoke({ log: [] });
    },
  },

  "a join waits for all its sources": {
    from: "pregel.test.ts: In one fan out state graph waiting edge",
    async run(lib) {
      const { Annotation, StateGraph, START, END } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addNode("split", () => ({ log: ["split"] }))
        .addNode("short", () => ({ log: ["short"] }))
        .addNode("long1", () => ({ log: ["long1"] }))
        .addNode("long2", () => ({ log: ["long2"] }))
        .addNode("join", (s: any) => ({ log: [`join after ${s.log.length}`] }))
        .addEdge(START, "split")
        .addEdge("split", "short")
        .addEdge("split", "long1")
        .addEdge("long1", "long2")
        .addEdge(["short", "long2"], "join")
        .addEdge("join", END)
        .compile();
      return graph.invoke({ log: [] });
    },
  },

  "a Send whose argument is a Command, checkpointed": {
    from: "pregel.test.ts: should handle send sequences correctly",
    async run(lib) {
      const { Annotation, StateGraph, START, Send, Command, isCommand, MemorySaver } = lib;
      const State = Annotation.Root({ items: Annotation({ reducer: (a: string[], b: string[]) => a.concat(b) }) });
      const node = (name: string) => (input: any) => {
        const update = Array.isArray(input.items)
          ? { items: [name] }
          : { items: [`${name}|${input.goto ? "cmd" : input}`] };
        if (isCommand(input)) return new Command({ update, goto: input.goto });
        return update;
      };
      const graph = new StateGraph(State)
        .addNode("1", node("1"))
        .addNode("2", node("2"))
        .addNode("3", node("3"))
        .addEdge(START, "1")
        .addConditionalEdges("1", () => [
          new Send("2", new Command({ goto: new Send("2", 3) })),
          new Send("2", new Command({ goto: new Send("2", 4) })),
        ])
        .addConditionalEdges("2", () => "3")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      const result = await graph.invoke({ items: ["0"] }, config);
      const history: unknown[] = [];
      for await (const s of graph.getStateHistory(config)) history.push(s.next);
      return { result, history };
    },
  },

  "Send to a node with a private input": {
    from: "pregel.test.ts: batch update as input (map-reduce)",
    async run(lib) {
      const { Annotation, StateGraph, START, END, Send, MemorySaver } = lib;
      const State = Annotation.Root({ subjects: Annotation(), jokes: list(lib) });
      const graph = new StateGraph(State)
        .addNode("joke", (a: any) => ({ jokes: [`a joke about ${a.subject}`] }))
        .addConditionalEdges(START, (s: any) => s.subjects.map((subject: string) => new Send("joke", { subject })))
        .addEdge("joke", END)
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      const result = await graph.invoke({ subjects: ["cats", "dogs", "owls"] }, config);
      const state = await graph.getState(config);
      return { result, next: state.next, step: state.metadata.step };
    },
  },

  "a conditional edge after a Send": {
    from: "pregel.test.ts: should allow a conditional edge after a send",
    async run(lib) {
      const { Annotation, StateGraph, START, END, Send } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addNode("w", (a: any) => ({ log: [`w${a.n}`] }))
        .addNode("after", () => ({ log: ["after"] }))
        .addConditionalEdges(START, () => [new Send("w", { n: 1 })])
        .addConditionalEdges("w", () => "after")
        .addEdge("after", END)
        .compile();
      return graph.invoke({ log: [] });
    },
  },

  "Command goto with several nodes and an update": {
    from: "pregel.test.ts: test_parent_command with goto with double updates",
    async run(lib) {
      const { Annotation, StateGraph, START, Command } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addNode("route", () => new Command({ update: { log: ["route"] }, goto: ["x", "y"] }), { ends: ["x", "y"] })
        .addNode("x", () => ({ log: ["x"] }))
        .addNode("y", () => ({ log: ["y"] }))
        .addEdge(START, "route")
        .compile();
      return graph.invoke({ log: [] });
    },
  },

  "a node returning a list of Commands": {
    from: "pregel.test.ts: multiple writes to the same channel from same node",
    async run(lib) {
      const { Annotation, StateGraph, START, Command } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addNode("many", () => [new Command({ update: { log: ["one"] } }), new Command({ update: { log: ["two"] } })])
        .addEdge(START, "many")
        .compile();
      return graph.invoke({ log: [] });
    },
  },

  "a falsy value persists": {
    from: "pregel.test.ts: persist a falsy value",
    async run({ Annotation, StateGraph, START, MemorySaver }) {
      const State = Annotation.Root({ number: Annotation(), boolean: Annotation(), string: Annotation() });
      const graph = new StateGraph(State)
        .addNode("node", (s: any) => s)
        .addEdge(START, "node")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      await graph.invoke({ number: 0, boolean: false, string: "" }, config);
      return (await graph.getState(config)).values;
    },
  },

  "a subgraph takes its parent's recursion limit, run as a node or invoked in one, unless given its own": {
    from: "pregel/utils/config.ts ensureLangGraphConfig: recursionLimit comes from the ambient config",
    async run({ Annotation, StateGraph, START, END }) {
      const State = Annotation.Root({ n: Annotation() });
      const counter = new StateGraph(State)
        .addNode("tick", (s: any) => ({ n: s.n + 1 }))
        .addEdge(START, "tick")
        .addConditionalEdges("tick", (s: any) => (s.n < 30 ? "tick" : END))
        .compile();
      const around = (node: any) => new StateGraph(State).addNode("sub", node).addEdge(START, "sub").compile();
      const graphs = {
        asNode: around(counter),
        invoked: around(async (s: any) => counter.invoke(s)),
        ownLimit: around(async (s: any) => counter.invoke(s, { recursionLimit: 10 })),
      };
      const outcomes: Record<string, unknown> = {};
      for (const [name, graph] of Object.entries(graphs)) {
        outcomes[name] = await graph.invoke({ n: 0 }, { recursionLimit: 100 }).then(
          (out: any) => out.n,
          (error: Error) => error.name,
        );
      }
      outcomes.defaultLimit = await graphs.asNode.invoke({ n: 0 }).then(
        (out: any) => out.n,
        (error: Error) => error.name,
      );
      return outcomes;
    },
  },

  "recursion limit reached": {
    from: "pregel.test.ts: should raise error if less than 1 step",
    throws: true,
    async run({ Annotation, StateGraph, START }) {
      const State = Annotation.Root({ n: Annotation() });
      const graph = new StateGraph(State)
        .addNode("loop", (s: any) => ({ n: s.n + 1 }))
        .addEdge(START, "loop")
        .addConditionalEdges("loop", () => "loop")
        .compile();
      return graph.invoke({ n: 0 }, { recursionLimit: 4 });
    },
  },

  "a deferred node runs once, after branches of different lengths (waiting edge)": {
    from: "pregel.test.ts: in_one_fan_out_state_graph_defer_node (waiting edge: true)",
    async run(lib) {
      return deferredGraph(lib, true);
    },
  },

  "a deferred node runs once, after branches of different lengths (plain edges)": {
    from: "pregel.test.ts: in_one_fan_out_state_graph_defer_node (waiting edge: false)",
    async run(lib) {
      return deferredGraph(lib, false);
    },
  },

  "a deferred node with a checkpointer, streamed": {
    from: "pregel.test.ts: in_one_fan_out_state_graph_defer_node (waiting edge: false)",
    async run(lib) {
      const { Annotation, StateGraph, START, END, MemorySaver } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addNode("a", () => ({ log: ["a"] }))
        .addNode("b1", () => ({ log: ["b1"] }))
        .addNode("b2", () => ({ log: ["b2"] }))
        .addNode("last", (s: any) => ({ log: [`last saw ${s.log.length}`] }), { defer: true })
        .addEdge(START, "a")
        .addEdge(START, "b1")
        .addEdge("b1", "b2")
        .addEdge("a", "last")
        .addEdge("b2", "last")
        .addEdge("last", END)
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      const chunks = await collect(await graph.stream({ log: [] }, { ...config, streamMode: "updates" }));
      const history: unknown[] = [];
      for await (const s of graph.getStateHistory(config)) history.push([s.metadata.step, s.next]);
      return { chunks, history };
    },
  },
});

async function deferredGraph(lib: Runtime, waitingEdge: boolean) {
  const { Annotation, StateGraph, START, END } = lib;
  const State = Annotation.Root({
    query: Annotation(),
    answer: Annotation(),
    docs: Annotation({ reducer: (a: string[], b: string[]) => [...a, ...b].sort(), default: () => [] }),
  });
  const builder = new StateGraph(State)
    .addNode("rewrite", (s: any) => ({ query: `query: ${s.query}` }))
    .addNode("analyze", (s: any) => ({ query: `analyzed: ${s.query}` }))
    .addNode("retrieve1", () => ({ docs: ["doc1", "doc2"] }))
    .addNode("retrieve2", () => ({ docs: ["doc3", "doc4"] }))
    .addNode("qa", (s: any) => ({ answer: s.docs.join(",") }), { defer: true })
    .addEdge(START, "rewrite")
    .addEdge("rewrite", "retrieve1")
    .addEdge("retrieve1", "analyze")
    .addEdge("rewrite", "retrieve2");
  if (waitingEdge) builder.addEdge(["retrieve1", "retrieve2"], "qa");
  else builder.addEdge("retrieve1", "qa").addEdge("retrieve2", "qa");
  const graph = builder.addEdge("qa", END).compile();
  return [await graph.invoke({ query: "sf" }), await collect(await graph.stream({ query: "sf" }))];
}
