/**
 * Behaviours of LangGraph.js's pregel.test.ts, graph.test.ts and diagrams.test.ts that the other
 * compat files do not restate yet: the legacy `{ channels }` state, builder refusals, addSequence,
 * branch targets behind breakpoints, the store in nodes and subgraphs, withConfig, zod states
 * (3 and 4) with subgraphs, input/output and context schemas, messages that must not be streamed,
 * forks that rewrite a task's result, a run-scoped context object, and Mermaid drawings.
 */

import { awaitAllCallbacks } from "@langchain/core/callbacks/promises";
import { AIMessage, type BaseMessage, HumanMessage, isAIMessage, ToolMessage } from "@langchain/core/messages";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { z } from "zod";
import { z as z3 } from "zod/v3";
import { collect, compare, cutIds, list, prebuiltOf, type Runtime, sleep, thread, zodOf } from "./harness.js";

// --- Helpers -----------------------------------------------------------------------------------

/**
 * Whether building something is refused. The error's class and wording are not compared:
 * LangGraph.js throws a plain `Error` where Interlude throws a `GraphValidationError`.
 */
function refused(build: () => unknown) {
  try {
    build();
    return { refused: false };
  } catch (error) {
    return { refused: error instanceof Error };
  }
}

/** Whether a run is rejected (the error's class is not compared: see `refused`). */
const rejects = (run: Promise<unknown>) =>
  run.then(
    () => false,
    () => true,
  );

/**
 * Scenarios that patch `console.warn` run one at a time: the harness runs both runtimes at once,
 * and each must see only its own warnings.
 */
let consoleQueue: Promise<unknown> = Promise.resolve();
function alone<T>(fn: () => Promise<T>): Promise<T> {
  const run = consoleQueue.then(fn);
  consoleQueue = run.catch(() => undefined);
  return run;
}

/** A message as both runtimes can give it: its type, content, and whether it has an id. */
const plain = (m: BaseMessage) => [m.getType(), m.content, typeof m.id];

/** A `{ foo: string[] }` state and two steps for addSequence (pregel.test.ts's fixture). */
function sequenceState(lib: Runtime) {
  const { Annotation } = lib;
  const State = Annotation.Root({ foo: list(lib), bar: Annotation() });
  const step1 = () => ({ foo: ["step1"], bar: "baz" });
  const step2 = () => ({ foo: ["step2"] });
  return { State, step1, step2 };
}

/** A graph's invoke result and its updates stream, for the same input. */
async function invokeAndStream(graph: any, input: unknown) {
  return { result: await graph.invoke(input), updates: await collect(await graph.stream(input)) };
}

/**
 * A thread's history as a tree, as pregel.test.ts's "fork and update task results" draws it:
 * each checkpoint's values and tasks (name, result), then the checkpoints made from it.
 */
async function historyTree(graph: any, config: object) {
  const history: any[] = await collect(graph.getStateHistory(config));
  const idOf = (c: any): string | undefined => c?.configurable?.checkpoint_id;
  const children = new Map<string | undefined, any[]>();
  for (const snapshot of [...history].reverse()) {
    const parent = idOf(snapshot.parentConfig);
    children.set(parent, [...(children.get(parent) ?? []), snapshot]);
  }
  const walk = (s: any): unknown => [
    s.values,
    s.tasks.map((t: any) => [t.name, t.result]),
    (children.get(idOf(s.config)) ?? []).map(walk),
  ];
  return (children.get(undefined) ?? []).map(walk);
}

/** A subgraph that asks a question, between two parent nodes, on a zod state with a reducer. */
async function zodSubgraphInterrupt(lib: Runtime, schema: unknown) {
  const { StateGraph, START, END, interrupt, Command, MemorySaver } = lib;
  const subgraph = new StateGraph(schema)
    .addNode("subnode", () => {
      const answer = interrupt("<INTERRUPTED>");
      return { foo: `subgraph ${answer}`, items: ["sub"] };
    })
    .addEdge(START, "subnode")
    .compile();
  let entered = 0;
  const graph = new StateGraph(schema)
    .addNode("one", () => {
      entered += 1;
      return { foo: "start", items: ["one"] };
    })
    .addNode("subgraph", subgraph)
    .addNode("two", (s: any) => ({ foo: `done after ${s.foo}`, items: ["two"] }))
    .addEdge(START, "one")
    .addEdge("one", "subgraph")
    .addEdge("subgraph", "two")
    .addEdge("two", END)
    .compile({ checkpointer: new MemorySaver() });
  const config = thread("t");
  await graph.invoke({ foo: "input", items: ["zero"] }, config);
  const paused = (await graph.getState(config)).tasks.map((t: any) => [t.name, t.interrupts.map((i: any) => i.value)]);
  const result = await graph.invoke(new Command({ resume: "<RESUMED>" }), config);
  // The subgraph hands back its whole state, which the parent's reducer appends again.
  return { paused, result, entered, tasksAfter: (await graph.getState(config)).tasks.length };
}

/** A state with a reducer and a default, run through two nodes (pregel.test.ts's zod "basic usage"). */
async function zodReducerAndDefault(lib: Runtime, schema: unknown) {
  const { StateGraph } = lib;
  const graph = new StateGraph(schema)
    .addNode("agent", () => ({ foo: "agent", items: ["a", "b"] }))
    .addNode("tool", () => ({ foo: "tool", items: ["c", "d"] }))
    .addEdge("__start__", "agent")
    .addEdge("agent", "tool")
    .compile();
  return graph.invoke({ foo: "input" }, thread("1"));
}

/** A zod state with an input and an output schema picked from it; an input outside the input schema. */
async function zodInputOutput(lib: Runtime, state: any) {
  const { StateGraph } = lib;
  const graph = new StateGraph({
    state,
    input: state.pick({ counter: true }),
    output: state.pick({ hey: true }),
  })
    .addNode("agent", (s: any) => ({ hey: `agent saw ${s.counter}`, counter: 1 }))
    .addNode("tool", (s: any) => ({ hey: `tool saw ${s.counter}`, counter: 2 }))
    .addEdge("__start__", "agent")
    .addEdge("agent", "tool")
    .compile();
  return {
    result: await graph.invoke({ counter: 123 }, thread("1")),
    negativeRejected: await rejects(graph.invoke({ counter: -1 }, thread("2"))),
  };
}

/** A zod state and a zod context schema with a non-empty `prompt`. */
async function zodContextSchema(lib: Runtime, state: unknown, context: unknown) {
  const { StateGraph } = lib;
  const graph = new StateGraph(state, context)
    .addNode("agent", () => ({ foo: "agent" }))
    .addNode("tool", () => ({ foo: "tool" }))
    .addEdge("__start__", "agent")
    .addEdge("agent", "tool")
    .compile();
  return {
    result: await graph.invoke({ foo: "input" }, { configurable: { thread_id: "1", prompt: "user input" } }),
    emptyPromptRejected: await rejects(
      graph.invoke({ foo: "input" }, { configurable: { thread_id: "1", prompt: "" } }),
    ),
  };
}

/** Input and output schemas that overlap the state: the first node reads a key the input lacks. */
async function zodOverlap(lib: Runtime, state: any) {
  const { StateGraph } = lib;
  const graph = new StateGraph({ state, input: state.pick({ question: true }), output: state.pick({ answer: true }) })
    .addNode("agent", (s: any) => ({ answer: `agent: ${s.question}`, language: s.language ?? "none" }))
    .addNode("tool", (s: any) => ({ answer: `tool after ${s.answer} in ${s.language}` }))
    .addEdge("__start__", "agent")
    .addEdge("agent", "tool")
    .compile();
  return graph.invoke({ question: "hey" }, thread("1"));
}

/**
 * A subgraph node that returns a message, then leaves for the parent's `node2` with
 * Command.PARENT; `node2` returns the whole state. Only the subgraph's message is streamed.
 */
function parentHandOff(lib: Runtime, replies: AIMessage[], checkpointer?: unknown) {
  const { MessagesAnnotation, StateGraph, START, Command } = lib;
  const subgraph = new StateGraph(MessagesAnnotation)
    .addNode("callModel", async () => ({ messages: replies.shift() }))
    .addNode("route", async () => new Command({ goto: "node2", graph: Command.PARENT }))
    .addEdge(START, "callModel")
    .addEdge("callModel", "route")
    .compile();
  return new StateGraph(MessagesAnnotation)
    .addNode("node1", subgraph, { ends: ["node2"] })
    .addNode("node2", async (state: unknown) => state)
    .addEdge(START, "node1")
    .compile({ checkpointer });
}

/** A messages chunk streamed with subgraphs: true, without task ids. */
const messageChunk = ([ns, [message, metadata]]: [string[], [BaseMessage, Record<string, unknown>]]) => [
  cutIds(ns),
  message.getType(),
  message.content,
  { messageId: message.id },
  metadata.langgraph_node,
];

// --- pregel.test.ts: building and routing --------------------------------------------------------

compare("pregel, more: building and routing", {
  "a conditional edge without a path map, on a state declared with { channels }; nodes change it in place": {
    from: "pregel.test.ts: Conditional edges is optional",
    async run({ StateGraph, START, END }) {
      const set = (value: number) => (s: any) => {
        s.keys.value = value;
        return { keys: s.keys };
      };
      const graph = new StateGraph({ channels: { keys: null } })
        .addNode("one", set(1))
        .addNode("two", set(2))
        .addNode("three", set(3))
        .addEdge(START, "one")
        .addConditionalEdges("one", () => "two")
        .addEdge("two", "three")
        .addEdge("three", END)
        .compile();
      return graph.invoke({ keys: { value: 0 } });
    },
  },

  "addSequence with an object of steps: invoke and the updates stream": {
    from: "pregel.test.ts: should work with dictionary",
    async run(lib) {
      const { StateGraph } = lib;
      const { State, step1, step2 } = sequenceState(lib);
      const graph = new StateGraph(State).addSequence({ step1, step2 }).addEdge("__start__", "step1").compile();
      return invokeAndStream(graph, { foo: [] });
    },
  },

  "addSequence with a list of [name, step] tuples: invoke and the updates stream": {
    from: "pregel.test.ts: should work with list of tuples",
    async run(lib) {
      const { StateGraph } = lib;
      const { State, step1, step2 } = sequenceState(lib);
      const graph = new StateGraph(State)
        .addSequence([
          ["meow1", step1],
          ["meow2", step2],
        ])
        .addEdge("__start__", "meow1")
        .compile();
      return invokeAndStream(graph, { foo: [] });
    },
  },

  "two addSequence calls joined by an edge": {
    from: "pregel.test.ts: should work with two sequences",
    async run(lib) {
      const { StateGraph } = lib;
      const { State } = sequenceState(lib);
      const graph = new StateGraph(State)
        .addSequence({ a: () => ({ foo: ["a"] }) })
        .addSequence({ b: () => ({ foo: ["b"] }) })
        .addEdge("__start__", "a")
        .addEdge("a", "b")
        .compile();
      return invokeAndStream(graph, { foo: [] });
    },
  },

  "addSequence refuses a repeated step name, and an empty sequence": {
    from: "pregel.test.ts: should raise error if duplicate step names",
    async run(lib) {
      const { StateGraph } = lib;
      const { State, step1 } = sequenceState(lib);
      return {
        repeated: refused(() =>
          new StateGraph(State).addSequence([
            ["foo", step1],
            ["foo", step1],
          ]),
        ),
        empty: refused(() => new StateGraph(State).addSequence([])),
      };
    },
  },

  "Sends and a node name from one edge, Sends from another, in the same step: the order of writes": {
    from: "pregel.test.ts: test_concurrent_emit_sends",
    async run(lib) {
      const { Annotation, StateGraph, Send } = lib;
      const State = Annotation.Root({ foo: list(lib) });
      const node = (name: string) =>
        [name, (s: any) => (typeof s === "number" ? { foo: [`${name}|${s}`] } : { foo: [name] })] as const;
      const graph = new StateGraph(State)
        .addNode([node("1"), node("1.1"), node("2"), node("3"), node("3.1")])
        .addEdge("__start__", "1")
        .addEdge("__start__", "1.1")
        .addConditionalEdges("1", () => [new Send("2", 1), new Send("2", 2), "3.1"])
        .addConditionalEdges("1.1", () => [new Send("2", 3), new Send("2", 4)])
        .addConditionalEdges("2", () => "3")
        .compile();
      return graph.invoke({ foo: ["0"] });
    },
  },

  "a branch from START to nodes behind breakpoints: checkpoints, snapshots, updateState while paused": {
    from: "pregel.test.ts: should handle start branch then end",
    async run(lib) {
      const { Annotation, StateGraph, START, END, MemorySaver, InMemoryStore } = lib;
      const State = Annotation.Root({
        my_key: Annotation({ reducer: (a: string, b: string) => a + b }),
        market: Annotation(),
      });
      const builder = new StateGraph(State)
        .addNode("tool_two_slow", () => ({ my_key: " slow" }))
        .addNode("tool_two_fast", () => ({ my_key: " fast" }))
        .addConditionalEdges(START, (s: any) => (s.market === "DE" ? "tool_two_slow" : "tool_two_fast"))
        .addEdge("tool_two_slow", END)
        .addEdge("tool_two_fast", END);
      const plainRuns = [
        await builder.compile().invoke({ my_key: "value", market: "DE" }),
        await builder.compile().invoke({ my_key: "value", market: "US" }),
      ];
      const checkpointer = new MemorySaver();
      const graph = builder.compile({
        store: new InMemoryStore(),
        checkpointer,
        interruptBefore: ["tool_two_fast", "tool_two_slow"],
      });
      const snapshot = async (config: object) => {
        const s = await graph.getState(config);
        return [s.values, s.next, s.tasks.map((t: any) => t.name), s.metadata.source, s.metadata.step];
      };
      const metadataOf = async (config: object) =>
        (await collect(checkpointer.list(config))).map((c: any) => [c.metadata.source, c.metadata.step]);
      const one = { configurable: { thread_id: "1", assistant_id: "a" } };
      const three = { configurable: { thread_id: "3", assistant_id: "b" } };
      return {
        plainRuns,
        one: [
          await graph.invoke({ my_key: "value ⛰️", market: "DE" }, one),
          await metadataOf(one),
          await snapshot(one),
          await graph.invoke(null, one),
          await snapshot(one),
        ],
        three: [
          await graph.invoke({ my_key: "value", market: "US" }, three),
          await graph.updateState(three, { my_key: "key" }).then(() => snapshot(three)),
          await graph.invoke(null, three),
          await snapshot(three),
        ],
      };
    },
  },

  "a node added under a name the state already uses for a key is refused": {
    from: "graph.test.ts: should validate a new node key correctly",
    differs: "#a-node-may-share-a-state-keys-name",
    async run({ StateGraph }) {
      const graph = new StateGraph({ channels: { existingStateAttributeKey: null } });
      return {
        stateKey: refused(() => graph.addNode("existingStateAttributeKey", () => ({}))),
        newKey: refused(() => graph.addNode("newNodeKey", () => ({}))),
      };
    },
  },

  "addNode with a list or object naming one node twice is refused": {
    from: "graph.test.ts: should throw error when adding duplicate nodes in parallel",
    async run(lib) {
      const { Annotation, StateGraph } = lib;
      const State = Annotation.Root({ messages: list(lib) });
      return refused(() =>
        new StateGraph(State).addNode([
          ["duplicate", () => ({ messages: ["from node1"] })],
          ["duplicate", () => ({ messages: ["from node2"] })],
        ]),
      );
    },
  },

  "addNode with an empty list or an empty object is refused": {
    from: "graph.test.ts: should throw error when adding empty node list",
    async run(lib) {
      const { Annotation, StateGraph } = lib;
      const State = Annotation.Root({ messages: list(lib) });
      return {
        emptyList: refused(() => new StateGraph(State).addNode([])),
        emptyObject: refused(() => new StateGraph(State).addNode({})),
      };
    },
  },

  "a NodeInterrupt thrown in a conditional edge: a warning, and how the run ends": {
    from: "pregel.test.ts: Should log a warning if a NodeInterrupt is thrown in a conditional edge",
    differs: "#a-question-from-a-conditional-edge-pauses-its-node-whole",
    run: (lib) =>
      alone(async () => {
        const { Annotation, StateGraph, START, END, NodeInterrupt } = lib;
        const State = Annotation.Root({ count: Annotation({ reducer: (a: number, b: number) => a + b }) });
        const graph = new StateGraph(State)
          .addNode("nodeOne", () => ({ count: 1 }))
          .addNode("nodeTwo", () => ({ count: 1 }))
          .addEdge(START, "nodeOne")
          .addEdge("nodeTwo", "nodeOne")
          .addConditionalEdges("nodeOne", () => {
            throw new NodeInterrupt("Interrupted");
          }, [END, "nodeTwo"])
          .compile();
        const warnings: unknown[][] = [];
        const warn = console.warn;
        console.warn = (...args: unknown[]) => warnings.push(args);
        try {
          const result = await graph.invoke({ count: 0 }).catch((e: Error) => ({ threw: e.name }));
          return { result, warnings: warnings.length };
        } finally {
          console.warn = warn;
        }
      }),
  },
});

// --- pregel.test.ts: config, context and the store ----------------------------------------------

compare("pregel, more: config, context and the store", {
  "a context annotation as StateGraph's second argument: configurable values, declared or not, reach nodes and edges": {
    from: "pregel.test.ts: should expose config schema as a type",
    async run({ Annotation, StateGraph, START, MemorySaver }) {
      const State = Annotation.Root({ hello: Annotation() });
      const Configurable = Annotation.Root({ shouldExist: Annotation() });
      const seen: unknown[] = [];
      const look = (where: string, config: any) =>
        seen.push([where, config.configurable?.shouldExist, config.configurable?.shouldAlsoExist]);
      const graph = new StateGraph(State, Configurable)
        .addNode("a", (_s: unknown, config: any) => {
          look("a", config);
          return { hello: "again" };
        })
        .addNode("b", () => ({}))
        .addEdge(START, "a")
        .addConditionalEdges("a", async (_s: unknown, config: any) => {
          look("edge", config);
          return "__end__";
        })
        .compile({ checkpointer: new MemorySaver() });
      const result = await graph.invoke(
        { hello: "there" },
        { configurable: { shouldExist: "I exist", shouldAlsoExist: "I should also exist", thread_id: "foo" } },
      );
      return { result, seen };
    },
  },

  "config.store in nodes is a BaseStore: what one node puts, the next gets": {
    from: "pregel.test.ts: Can write and read to the store inside nodes",
    async run({ MessagesAnnotation, StateGraph, START, END, MemorySaver, InMemoryStore, BaseStore }) {
      const store = new InMemoryStore();
      const graph = new StateGraph(MessagesAnnotation)
        .addNode("nodeOne", async (_s: unknown, config: any) => {
          const { assistant_id, namespace } = config.configurable;
          await config.store.put(namespace, assistant_id, { includeHashtags: true });
          return {};
        })
        .addNode("nodeTwo", async (_s: unknown, config: any) => {
          const { assistant_id, namespace } = config.configurable;
          const item = await config.store.get(namespace, assistant_id);
          const isBaseStore = config.store instanceof BaseStore;
          return { messages: [new AIMessage(JSON.stringify({ isBaseStore, value: item?.value, key: item?.key }))] };
        })
        .addEdge(START, "nodeOne")
        .addEdge("nodeOne", "nodeTwo")
        .addEdge("nodeTwo", END)
        .compile({ store, checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "1", assistant_id: "a", namespace: ["rules", "style"] } };
      const out = await graph.invoke({ messages: [new HumanMessage("what is weather in sf")] }, config);
      return out.messages.map(plain);
    },
  },

  "a store with no checkpointer reaches the node as config.store": {
    from: "pregel.test.ts: Can access store inside a node",
    async run({ MessagesAnnotation, StateGraph, START, InMemoryStore, BaseStore }) {
      const store = new InMemoryStore();
      await store.put(["facts"], "sky", { color: "blue" });
      const graph = new StateGraph(MessagesAnnotation)
        .addNode("one", async (_s: unknown, config: any) => {
          const item = await config.store.get(["facts"], "sky");
          return { messages: [new AIMessage(`${config.store instanceof BaseStore} ${item?.value.color}`)] };
        })
        .addEdge(START, "one")
        .compile({ store });
      return (await graph.invoke({ messages: [] })).messages.map(plain);
    },
  },

  "config.store inside a subgraph compiled with its own store and checkpointer": {
    from: "pregel.test.ts: should not throw when you try to access config.store inside a subgraph",
    async run({ Annotation, StateGraph, START, END, MemorySaver, InMemoryStore }) {
      // LangGraph's test searches with a `query`, which Interlude refuses (COMPATIBILITY.md
      // "Store: no semantic search"); a search by prefix is what both runtimes share.
      const State = Annotation.Root({ query: Annotation(), found: Annotation() });
      const checkpointer = new MemorySaver();
      const store = new InMemoryStore();
      await store.put(["namespace"], "k", { text: "remembered" });
      const inner = new StateGraph(State)
        .addNode("initial_reasoning_minimal", async (s: any, config: any) => {
          const items = await config.store.search(["namespace"]);
          return { found: items.map((i: any) => `${s.query}: ${i.value.text}`) };
        })
        .addEdge(START, "initial_reasoning_minimal")
        .addEdge("initial_reasoning_minimal", END)
        .compile({ store, checkpointer });
      const graph = new StateGraph(State)
        .addNode("reasoning_subgraph", inner)
        .addEdge(START, "reasoning_subgraph")
        .addEdge("reasoning_subgraph", END)
        .compile({ store, checkpointer });
      return graph.invoke({ query: "test" }, thread("1"));
    },
  },

  "withConfig({ recursionLimit }) applies to the graph's runs": {
    from: "pregel.test.ts: should pass recursion limit set via .withConfig",
    async run({ Annotation, StateGraph, GraphRecursionError }) {
      const State = Annotation.Root({ prop: Annotation() });
      const graph = new StateGraph(State)
        .addNode("first", async () => ({ prop: "foo" }))
        .addNode("second", async () => ({}))
        .addEdge("__start__", "first")
        .addEdge("first", "second")
        .compile();
      const limited = await graph
        .withConfig({ recursionLimit: 1 })
        .invoke({})
        .catch((e: any) => ({ recursion: e instanceof GraphRecursionError, code: e.lc_error_code }));
      return { plain: await graph.invoke({}), limited };
    },
  },

  "withConfig({ callbacks }) with a plain object of handler methods, told by streamEvents v2": {
    from: "pregel.test.ts: should pass custom callbacks set via .withConfig",
    async run({ Annotation, StateGraph, START }) {
      const seen: string[] = [];
      const graph = new StateGraph(Annotation.Root({ prop: Annotation() }))
        .addNode("one", () => ({ prop: "foo" }))
        .addEdge(START, "one")
        .compile()
        .withConfig({
          callbacks: [
            {
              handleChainStart: () => seen.push("handleChainStart"),
              handleChainEnd: () => seen.push("handleChainEnd"),
            },
          ],
        });
      await collect(graph.streamEvents({ prop: "bar" }, { version: "v2" }));
      await awaitAllCallbacks();
      return [...new Set(seen)].sort();
    },
  },

  "withConfig({ context }) with an object of a class: every node of the run gets the same instance": {
    from: "pregel.test.ts: dynamic runtime object",
    async run({ Annotation, StateGraph, START }) {
      class RunScopedStore {
        private data: string[] = [];
        push(value: string) {
          this.data.push(value);
        }
        get() {
          return this.data;
        }
      }
      const graph = new StateGraph(
        Annotation.Root({
          visits: Annotation({ default: () => "", reducer: (a: string, b: string) => [a, b].join(", ") }),
          collect: Annotation(),
        }),
        Annotation.Root({ myStore: Annotation() }),
      )
        .addSequence({
          one: (_s: unknown, runtime: any) => {
            runtime.context?.myStore.push("one");
            return { visits: "one" };
          },
          two: (_s: unknown, runtime: any) => {
            runtime.context?.myStore.push("two");
            return { visits: "two" };
          },
          check: (_s: unknown, runtime: any) => ({ collect: runtime.context?.myStore.get() }),
        })
        .addEdge(START, "one")
        .compile()
        .withConfig({ context: { myStore: new RunScopedStore() } });
      return graph.invoke({ visits: "one" });
    },
  },

  "graph.nodes.<name>.invoke runs that node alone": {
    from: "pregel.test.ts: should be able to invoke a single node on a graph",
    async run({ MessagesAnnotation, StateGraph, START, END }) {
      const graph = new StateGraph(MessagesAnnotation)
        .addNode("one", (s: any) => ({ messages: [...s.messages, { role: "user", content: "success" }] }))
        .addNode("two", () => {
          throw new Error("Should not be called");
        })
        .addEdge(START, "one")
        .addEdge("one", "two")
        .addEdge("two", END)
        .compile();
      const result = await graph.nodes.one.invoke({ messages: [new HumanMessage("start")] });
      return result.messages.map((m: any) => [m.role ?? m.getType?.(), m.content]);
    },
  },

  "three graphs nested as nodes, each with its own keys, passed with { input }": {
    from: "pregel.test.ts: Can have three graphs with different keys",
    async run({ Annotation, StateGraph, START, END }) {
      const one = Annotation.Root({ inputOne: Annotation() });
      const two = Annotation.Root({ inputOne: Annotation(), inputTwo: Annotation() });
      const three = Annotation.Root({ inputTwo: Annotation(), inputThree: Annotation() });
      const graphThree = new StateGraph(three)
        .addNode("returns", (s: any) => ({ inputThree: `three after ${s.inputTwo}` }))
        .addEdge(START, "returns")
        .compile();
      const graphTwo = new StateGraph(two)
        .addNode("one", (s: any) => ({ inputTwo: `two after ${s.inputOne}` }))
        .addNode("callGraphThree", graphThree, { input: three })
        .addEdge(START, "one")
        .addEdge("one", "callGraphThree")
        .addEdge("callGraphThree", END)
        .compile();
      const graphOne = new StateGraph(one)
        .addNode("one", () => ({ inputOne: "one" }))
        .addNode("callGraphTwo", graphTwo, { input: two })
        .addEdge(START, "one")
        .addEdge("one", "callGraphTwo")
        .addEdge("callGraphTwo", END)
        .compile();
      return collect(await graphOne.stream({ inputOne: "start" }, { streamMode: "updates" }));
    },
  },

  "Command({ resume }) to a graph with no checkpointer is refused": {
    from: "pregel.test.ts: should throw when resuming without a checkpointer",
    async run({ Annotation, StateGraph, START, Command }) {
      // LangGraph's test builds a low-level Pregel; a StateGraph gives the same check.
      const graph = new StateGraph(Annotation.Root({ v: Annotation() }))
        .addNode("chain", () => ({ v: "ran" }))
        .addEdge(START, "chain")
        .compile();
      return rejects(graph.invoke(new Command({ resume: "hello" })));
    },
  },
});

// --- pregel.test.ts: streaming -----------------------------------------------------------------

compare("pregel, more: streaming", {
  "a subgraph's updates stream as they come, before its slow node ends": {
    from: "pregel.test.ts: streams updates as soon as they are available",
    async run({ Annotation, StateGraph }) {
      const State = Annotation.Root({
        foo: Annotation({ reducer: (a: string, b: string) => a + b, default: () => "" }),
      });
      let slowDone = false;
      const subgraph = new StateGraph(State)
        .addNode("fast", async () => ({ foo: "b" }))
        .addNode("slow", async () => {
          await sleep(300);
          slowDone = true;
          return { foo: "a" };
        })
        .addEdge("__start__", "fast")
        .addEdge("fast", "slow")
        .compile();
      const graph = new StateGraph(State)
        .addNode("subgraph", subgraph)
        .addNode("after", async () => ({ foo: "r" }))
        .addEdge("__start__", "subgraph")
        .addEdge("subgraph", "after")
        .compile();
      const chunks: unknown[] = [];
      for await (const [ns, update] of await graph.stream({}, { subgraphs: true })) {
        chunks.push([cutIds(ns), update, slowDone ? "after slow" : "before slow"]);
      }
      return chunks;
    },
  },

  'tokens stream from a model called without config; a node tagged "nostream" streams none': {
    from: "pregel.test.ts: Supports automatic streaming with streamMode messages",
    async run({ Annotation, StateGraph }) {
      const llm = new FakeListChatModel({ responses: ["foobar", "hidden"] });
      const State = Annotation.Root({ question: Annotation(), answer: Annotation() });
      const generate = async (s: any) => ({ answer: (await llm.invoke(s.question)).content as string });
      const graph = new StateGraph(State)
        .addNode("generate", generate)
        .addNode("nostream_generate", RunnableLambda.from(generate).withConfig({ tags: ["nostream"] }))
        .addEdge("__start__", "generate")
        .addEdge("generate", "nostream_generate")
        .compile();
      const chunks = await collect(await graph.stream({ question: "How are you?" }, { streamMode: "messages" }));
      return chunks.map(([message, metadata]: [BaseMessage, Record<string, unknown>]) => [
        message.content,
        metadata.langgraph_node,
      ]);
    },
  },

  "tool messages a node returns: streamed as they are, kept in the state": {
    from: "pregel.test.ts: should not assign message ID for tool messages",
    async run({ MessagesAnnotation, StateGraph, START, MemorySaver }) {
      const graph = new StateGraph(MessagesAnnotation)
        .addNode("one", async () => ({
          messages: [
            new ToolMessage({ content: "Tool 1", tool_call_id: "1" }),
            new ToolMessage({ content: "Tool 2", tool_call_id: "2" }),
          ],
        }))
        .addEdge(START, "one")
        .compile({ checkpointer: new MemorySaver() });
      const chunks = await collect(await graph.stream({ messages: [] }, { ...thread("1"), streamMode: "messages" }));
      const state = await graph.getState(thread("1"));
      const shape = (m: ToolMessage) => [m.content, m.tool_call_id, typeof m.id];
      return { streamed: chunks.map(([m]: [ToolMessage]) => shape(m)), kept: state.values.messages.map(shape) };
    },
  },

  "streamMode messages: the parent's input and a node returning the state are not streamed": {
    from: "pregel.test.ts: should not stream input messages in streamMode: messages",
    async run(lib) {
      const graph = parentHandOff(lib, [new AIMessage({ content: "Hi", id: "123" })]);
      const chunks = await collect(await graph.stream({ messages: "hi" }, { streamMode: "messages", subgraphs: true }));
      return chunks.map(messageChunk);
    },
  },

  "streamMode messages on a checkpointed thread: the second run streams only its new message": {
    from: "pregel.test.ts: should not stream input messages in streamMode: messages when continuing checkpointed thread",
    async run(lib) {
      const replies = [new AIMessage({ content: "bye", id: "1" }), new AIMessage({ content: "bye again", id: "2" })];
      const graph = parentHandOff(lib, replies, new lib.MemorySaver());
      const options = { streamMode: "messages", subgraphs: true, ...thread("1") };
      const first = await collect(await graph.stream({ messages: "hi" }, options));
      const second = await collect(await graph.stream({ messages: "bye" }, options));
      return { first: first.map(messageChunk), second: second.map(messageChunk) };
    },
  },

  'a ToolNode streamed without "tools" in streamMode gives no tools chunks': {
    from: "pregel.test.ts: streamMode without tools does not emit tools chunks",
    async run(lib) {
      const { Annotation, StateGraph, messagesStateReducer } = lib;
      const { ToolNode } = prebuiltOf(lib);
      const State = Annotation.Root({
        messages: Annotation({ reducer: messagesStateReducer, default: () => [] as BaseMessage[] }),
      });
      const weather = tool(async ({ query }: { query: string }) => String(query), {
        name: "weather",
        schema: z.object({ query: z.string() }),
      });
      const call = new AIMessage({
        content: "",
        tool_calls: [{ id: "call_1", args: { query: "x" }, name: "weather", type: "tool_call" }],
      });
      const graph = new StateGraph(State)
        .addNode("agent", (s: any) => ({ messages: [s.messages.length === 0 ? call : new AIMessage("done")] }))
        .addNode("tools", new ToolNode([weather]))
        .addEdge("__start__", "agent")
        .addConditionalEdges("agent", (s: any) => {
          const last = s.messages.at(-1);
          return isAIMessage(last) && (last.tool_calls?.length ?? 0) > 0 ? "tools" : "__end__";
        })
        .addEdge("tools", "agent")
        .compile();
      const chunks = await collect(await graph.stream({ messages: [] }, { streamMode: ["updates"] }));
      return chunks.map(([mode, chunk]: [string, Record<string, unknown>]) => [mode, Object.keys(chunk)]);
    },
  },
});

// --- pregel.test.ts: zod states ----------------------------------------------------------------

/** `{ foo, items }` in zod `zz` (3 or 4), `items` a list appended to by its reducer (a string or a list). */
function listState(lib: Runtime, zz: any) {
  const { withLangGraph } = zodOf(lib);
  return zz.object({
    foo: zz.string(),
    items: withLangGraph(zz.array(zz.string()), {
      reducer: {
        schema: zz.union([zz.string(), zz.array(zz.string())]),
        fn: (a: string[], b: string | string[]) => a.concat(Array.isArray(b) ? b : [b]),
      },
      default: (): string[] => [],
    }),
  });
}

compare("pregel, more: zod states", {
  "zod 4 state: a subgraph's question answered with Command({ resume }); its whole state goes back through the reducer":
    {
      from: "pregel.test.ts: with zod v4 schemas",
      run: (lib) => zodSubgraphInterrupt(lib, listState(lib, z)),
    },

  "zod 3 state: a subgraph's question answered with Command({ resume }); its whole state goes back through the reducer":
    {
      from: "pregel.test.ts: with zod v3 schemas",
      // LangGraph's test uses zod 3's `.langgraph.reducer()`, which only importing
      // @langchain/langgraph/zod installs; withLangGraph is the name both runtimes export.
      run: (lib) => zodSubgraphInterrupt(lib, listState(lib, z3)),
    },

  "zod 4 state: a reducer whose default starts the list": {
    from: "pregel.test.ts: with zod v4",
    async run(lib) {
      const { withLangGraph } = zodOf(lib);
      const schema = z.object({
        foo: z.string(),
        items: withLangGraph(z.array(z.string()), {
          reducer: {
            fn: (a: string[], b: string | string[]) => a.concat(Array.isArray(b) ? b : [b]),
            schema: z.union([z.string(), z.array(z.string())]),
          },
          default: () => ["default"],
        }),
      });
      return zodReducerAndDefault(lib, schema);
    },
  },

  "zod 3 state: zod's .default() starts the reducer's list": {
    from: "pregel.test.ts: with zod v3",
    async run(lib) {
      const { withLangGraph } = zodOf(lib);
      const schema = z3.object({
        foo: z3.string(),
        items: withLangGraph(
          z3.array(z3.string()).default(() => ["default"]),
          {
            reducer: {
              fn: (a: string[], b: string | string[]) => a.concat(Array.isArray(b) ? b : [b]),
              schema: z3.union([z3.string(), z3.array(z3.string())]),
            },
          },
        ),
      });
      return zodReducerAndDefault(lib, schema);
    },
  },

  "zod 4 { state, input, output }: the result has the output's keys; an input failing its check is rejected": {
    from: "pregel.test.ts: with zod v4",
    async run(lib) {
      const { withLangGraph } = zodOf(lib);
      const state = z.object({
        hey: z.string(),
        counter: z.number().gt(0),
        messages: withLangGraph(z.array(z.string()), {
          reducer: {
            schema: z.union([z.string(), z.array(z.string())]),
            fn: (a: string[], b: string | string[]) => a.concat(Array.isArray(b) ? b : [b]),
          },
          default: () => ["default"],
        }),
      });
      return zodInputOutput(lib, state);
    },
  },

  "zod 3 { state, input, output }: the result has the output's keys; an input failing its check is rejected": {
    from: "pregel.test.ts: with zod v3",
    async run(lib) {
      const { withLangGraph } = zodOf(lib);
      const state = z3.object({
        hey: z3.string(),
        counter: z3.number().gt(0),
        messages: withLangGraph(z3.array(z3.string()), {
          reducer: {
            schema: z3.union([z3.string(), z3.array(z3.string())]),
            fn: (a: string[], b: string | string[]) => [...a, ...(Array.isArray(b) ? b : [b])],
          },
        }),
      });
      return zodInputOutput(lib, state);
    },
  },

  "zod 4 context schema as StateGraph's second argument: configurable values checked against it": {
    from: "pregel.test.ts: with zod v4",
    async run(lib) {
      const { withLangGraph } = zodOf(lib);
      const context = z.object({
        prompt: withLangGraph(z.string().min(1), {
          jsonSchemaExtra: { langgraph_nodes: ["agent"], langgraph_type: "prompt" },
        }),
      });
      return zodContextSchema(lib, z.object({ foo: z.string() }), context);
    },
  },

  "zod 3 context schema as StateGraph's second argument: configurable values checked against it": {
    from: "pregel.test.ts: with zod v3",
    async run(lib) {
      return zodContextSchema(lib, z3.object({ foo: z3.string() }), z3.object({ prompt: z3.string().min(1) }));
    },
  },

  "StateSchema with MessagesValue and a zod context schema": {
    from: "pregel.test.ts: with StateSchema and zod context",
    async run(lib) {
      const { StateSchema, MessagesValue, StateGraph } = lib;
      const state = new StateSchema({
        messages: MessagesValue,
        agentId: z.string().describe("Agent ID from the dashboard"),
      });
      const context = z.object({ prompt: z.string().min(1) });
      const graph = new StateGraph(state, context)
        .addNode("agent", () => ({ messages: [{ role: "assistant", content: "Hi" }] }))
        .addEdge("__start__", "agent")
        .compile();
      const out = await graph.invoke(
        { agentId: "agent-1" },
        { configurable: { thread_id: "1", prompt: "user input" } },
      );
      return { agentId: out.agentId, messages: out.messages.map(plain) };
    },
  },

  "zod 4 input and output schemas overlapping the state": {
    from: "pregel.test.ts: with zod v4",
    async run(lib) {
      return zodOverlap(lib, z.object({ question: z.string(), answer: z.string(), language: z.string() }));
    },
  },

  "zod 3 input and output schemas overlapping the state": {
    from: "pregel.test.ts: with zod v3",
    async run(lib) {
      return zodOverlap(lib, z3.object({ question: z3.string(), answer: z3.string(), language: z3.string() }));
    },
  },
});

// --- pregel.test.ts: forks ---------------------------------------------------------------------

compare("pregel, more: forks", {
  "getStateHistory: each finished task's result, a step's lone task's too": {
    from: "pregel.test.ts: fork and update task results",
    differs: "#a-lone-tasks-result-is-its-next-checkpoint",
    async run({ Annotation, StateGraph, START, Command, Send, MemorySaver }) {
      // The tree below reads task results from the history; this isolates that reading.
      const graph = new StateGraph(
        Annotation.Root({ name: Annotation({ reducer: (a: string, b: string) => [a, b].join(" > ") }) }),
      )
        .addSequence({
          one: () => new Command({ goto: [new Send("two", {})], update: { name: "one" } }),
          two: () => ({ name: "two" }),
          three: () => ({ name: "three" }),
        })
        .addEdge(START, "one")
        .compile({ checkpointer: new MemorySaver() });
      await graph.invoke({ name: "start" }, thread("1"));
      const history: any[] = await collect(graph.getStateHistory(thread("1")));
      return history.map((s) => s.tasks.map((t: any) => [t.name, t.result]));
    },
  },

  "updateState(config, [[values, node], ...], '__copy__') rewrites a step's task results in a fork": {
    from: "pregel.test.ts: fork and update task results",
    differs: "#a-lone-tasks-result-is-its-next-checkpoint",
    async run({ Annotation, StateGraph, START, Command, Send, MemorySaver }) {
      let twoCount = 0;
      const graph = new StateGraph(
        Annotation.Root({ name: Annotation({ reducer: (a: string, b: string) => [a, b].join(" > ") }) }),
      )
        .addSequence({
          one: () => new Command({ goto: [new Send("two", {})], update: { name: "one" } }),
          two: () => {
            twoCount += 1;
            return { name: `two ${twoCount}` };
          },
          three: () => ({ name: "three" }),
        })
        .addEdge(START, "one")
        .compile({ checkpointer: new MemorySaver() });
      const config = thread("1");
      await graph.invoke({ name: "start" }, config);
      let history: any[] = await collect(graph.getStateHistory(config));
      // Fork at the input: the __start__ task's result changed.
      await graph.invoke(
        null,
        await graph.updateState(history[4].config, [[{ name: "start*" }, "__start__"]], "__copy__"),
      );
      const afterStart = await historyTree(graph, config);
      // Fork again before "one" of the new branch: one's result changed.
      history = await collect(graph.getStateHistory(config));
      await graph.invoke(null, await graph.updateState(history[3].config, [[{ name: "one*" }, "one"]], "__copy__"));
      const afterOne = await historyTree(graph, config);
      // A new thread, forked before the two "two" tasks: both results given.
      twoCount = 0;
      const other = thread("2");
      await graph.invoke({ name: "start" }, other);
      history = await collect(graph.getStateHistory(other));
      await graph.invoke(
        null,
        await graph.updateState(
          history[2].config,
          [
            [{ name: "two 3" }, "two"],
            [{ name: "two 4" }, "two"],
          ],
          "__copy__",
        ),
      );
      return { afterStart, afterOne, afterTwo: await historyTree(graph, other) };
    },
  },
});

// --- diagrams.test.ts --------------------------------------------------------------------------

/** inner1, then a branch to inner2 or inner3, and no edge to END: a graph with two sinks. */
function twoSinks(lib: Runtime) {
  const { Annotation, StateGraph } = lib;
  return new StateGraph(Annotation.Root({}))
    .addNode("inner1", async () => {})
    .addNode("inner2", async () => {})
    .addNode("inner3", async () => {})
    .addEdge("__start__", "inner1")
    .addConditionalEdges("inner1", async () => "inner2", ["inner2", "inner3"])
    .compile();
}

compare("pregel, more: Mermaid drawings", {
  "a node whose error handler routes with a Command: implicit edges to __end__ drawn": {
    from: "diagrams.test.ts: implicit end edge for terminal nodes",
    async run(lib) {
      const { StateSchema, StateGraph, START, END, Command } = lib;
      await lib.loadLangChain?.();
      const State = new StateSchema({ status: z.string() });
      const graph = new StateGraph(State)
        .addNode(
          "riskyNode",
          (s: any) => {
            if (s.status === "fail") throw new Error("fail");
            return { status: "ok" };
          },
          { errorHandler: () => new Command({ update: { status: "recovered" }, goto: "recover" }) },
        )
        .addNode("recover", (s: any) => ({ status: `${s.status}_final` }))
        .addEdge(START, "riskyNode")
        .addEdge("recover", END)
        .compile();
      return graph.getGraph().drawMermaid();
    },
  },

  "a graph whose conditional edge ends in two sinks, with no edge to __end__": {
    from: "diagrams.test.ts: graph with multiple sinks",
    async run(lib) {
      await lib.loadLangChain?.();
      return twoSinks(lib).getGraph().drawMermaid();
    },
  },

  "xray drawing: a branch into a subgraph, and a node behind interruptBefore": {
    from: "diagrams.test.ts: graph with subgraphs",
    async run(lib) {
      const { Annotation, StateGraph } = lib;
      await lib.loadLangChain?.();
      const subgraph = twoSinks(lib);
      const graph = new StateGraph(Annotation.Root({}))
        .addNode("starter", async () => {})
        .addNode("inner", subgraph)
        .addNode("final", async () => {})
        .addEdge("__start__", "starter")
        .addConditionalEdges("starter", async () => "final", ["inner", "final"])
        .compile({ interruptBefore: ["starter"] });
      return graph.getGraph({ xray: true }).drawMermaid();
    },
  },
});
