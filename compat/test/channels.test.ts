/**
 * State channels through whole graphs: reducers and their defaults, map-reduce with Send, loops
 * routed by a path map to END, writes that clash, the custom stream written from nodes.
 */
import { collect, compare, list } from "./harness.js";

compare("channels", {
  "a reducer's default fills a key the input leaves out": {
    from: "channels.test.ts: should initialize with default value from factory",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const State = Annotation.Root({
        total: Annotation({ reducer: (a: number, b: number) => a + b, default: () => 10 }),
        log: list(lib),
      });
      const graph = new StateGraph(State)
        .addNode("add", () => ({ total: 5, log: ["added"] }))
        .addEdge(START, "add")
        .compile();
      return graph.invoke({});
    },
  },

  "a reducer that keeps the largest value, written by parallel nodes": {
    from: "graph.test.ts: should allow reducers with different argument types",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const State = Annotation.Root({
        best: Annotation({ reducer: (a: number, b: number) => Math.max(a, b), default: () => 0 }),
      });
      const graph = new StateGraph(State)
        .addNode("low", () => ({ best: 3 }))
        .addNode("high", () => ({ best: 9 }))
        .addNode("mid", () => ({ best: 5 }))
        .addEdge(START, "low")
        .addEdge(START, "high")
        .addEdge(START, "mid")
        .compile();
      return graph.invoke({ best: 1 });
    },
  },

  "two nodes writing one plain key in the same step is an error": {
    from: "pregel.test.ts: should raise InvalidUpdateError when the same LastValue channel is updated twice in one iteration",
    throws: true,
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const State = Annotation.Root({ value: Annotation() });
      const graph = new StateGraph(State)
        .addNode("a", () => ({ value: "a" }))
        .addNode("b", () => ({ value: "b" }))
        .addEdge(START, "a")
        .addEdge(START, "b")
        .compile();
      return graph.invoke({ value: "start" });
    },
  },

  "map-reduce: Send one task per item, a reducer gathers the results": {
    from: "pregel.test.ts: Allow map reduce flows",
    async run(lib) {
      const { Annotation, StateGraph, START, END, Send } = lib;
      const State = Annotation.Root({ subjects: Annotation(), jokes: list(lib), best: Annotation() });
      const graph = new StateGraph(State)
        .addNode("joke", (arg: any) => ({ jokes: [`a joke about ${arg.subject}`] }))
        .addNode("pick", (s: any) => ({ best: [...s.jokes].sort()[0] }))
        .addConditionalEdges(START, (s: any) => s.subjects.map((subject: string) => new Send("joke", { subject })))
        .addEdge("joke", "pick")
        .addEdge("pick", END)
        .compile();
      const result = await graph.invoke({ subjects: ["cats", "dogs", "bats"] });
      return { ...result, jokes: [...result.jokes].sort() };
    },
  },

  "Sends to several different nodes in one step": {
    from: "python_port/graph_structure.test.ts: should handle concurrent emit sends",
    async run(lib) {
      const { Annotation, StateGraph, START, Send } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addNode("email", (arg: any) => ({ log: [`email ${arg.to}`] }))
        .addNode("sms", (arg: any) => ({ log: [`sms ${arg.to}`] }))
        .addConditionalEdges(START, () => [
          new Send("email", { to: "ada" }),
          new Send("sms", { to: "alan" }),
          new Send("email", { to: "grace" }),
        ])
        .compile();
      return graph.invoke({ log: [] });
    },
  },

  "a loop routed by a path map until it maps to END": {
    from: "pregel.test.ts: StateGraph branch then node",
    async run(lib) {
      const { Annotation, StateGraph, START, END } = lib;
      const State = Annotation.Root({ n: Annotation(), log: list(lib) });
      const graph = new StateGraph(State)
        .addNode("count", (s: any) => ({ n: s.n + 1, log: [`count ${s.n + 1}`] }))
        .addEdge(START, "count")
        .addConditionalEdges("count", (s: any) => (s.n >= 3 ? "stop" : "again"), { again: "count", stop: END })
        .compile();
      return collect(await graph.stream({ n: 0, log: [] }, { streamMode: "updates" }));
    },
  },

  "a conditional edge that fans out to a list of nodes": {
    from: "python_port/graph_structure.test.ts: should test in-one-fan-out with waiting edge and multiple conditional edges",
    async run(lib) {
      const { Annotation, StateGraph, START, END } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addNode("begin", () => ({ log: ["begin"] }))
        .addNode("x", () => ({ log: ["x"] }))
        .addNode("y", () => ({ log: ["y"] }))
        .addNode("z", () => ({ log: ["z"] }))
        .addEdge(START, "begin")
        .addConditionalEdges("begin", () => ["x", "z"], ["x", "y", "z"])
        .addEdge("x", END)
        .compile();
      return graph.invoke({ log: [] });
    },
  },

  "custom chunks from several nodes, streamed with updates": {
    from: "pregel.stream.test.ts: emits custom events written via config.writer",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addNode("a", (_s: any, config: any) => {
          config.writer({ progress: "a half" });
          config.writer({ progress: "a done" });
          return { log: ["a"] };
        })
        .addNode("b", (_s: any, config: any) => {
          config.writer("b says hi");
          return { log: ["b"] };
        })
        .addEdge(START, "a")
        .addEdge("a", "b")
        .compile();
      return collect(await graph.stream({ log: [] }, { streamMode: ["custom", "updates"] }));
    },
  },

  "getWriter() inside a node writes to the custom stream": {
    from: "pregel.stream.test.ts: emits custom events written via config.writer",
    async run(lib) {
      const { Annotation, StateGraph, START, getWriter } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addNode("a", () => {
          getWriter()?.({ step: "inside a" });
          return { log: ["a"] };
        })
        .addEdge(START, "a")
        .compile();
      return collect(await graph.stream({ log: [] }, { streamMode: "custom" }));
    },
  },

  "a channel keeps its value across runs of a thread; a reducer adds to it": {
    from: "python_port/checkpoint.test.ts: verifies that a run's configurable fields are merged with checkpoint config",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver } = lib;
      const State = Annotation.Root({ last: Annotation(), log: list(lib) });
      const graph = new StateGraph(State)
        .addNode("note", (s: any) => ({ last: s.last, log: [`saw ${s.last}`] }))
        .addEdge(START, "note")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      await graph.invoke({ last: "one" }, config);
      return graph.invoke({ last: "two" }, config);
    },
  },
  "Overwrite replaces a reduced value instead of adding to it": {
    from: "pregel.test.ts: Overwrite bypasses the reducer",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver, Overwrite } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addNode("a", () => ({ log: ["a"] }))
        .addNode("reset", () => ({ log: new Overwrite(["reset"]) }))
        .addNode("c", () => ({ log: ["c"] }))
        .addEdge(START, "a")
        .addEdge("a", "reset")
        .addEdge("reset", "c")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      const updates = await collect(await graph.stream({ log: ["input"] }, { ...config, streamMode: "updates" }));
      const state = await graph.getState(config);
      return { updates: JSON.parse(JSON.stringify(updates)), values: state.values };
    },
  },

  "an Overwrite and a plain write in one step: the overwrite wins": {
    from: "pregel.test.ts: Overwrite bypasses the reducer",
    async run(lib) {
      const { Annotation, StateGraph, START, Overwrite } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addNode("add", () => ({ log: ["added"] }))
        .addNode("reset", () => ({ log: new Overwrite(["reset"]) }))
        .addEdge(START, "add")
        .addEdge(START, "reset")
        .compile();
      return graph.invoke({ log: ["input"] });
    },
  },

  "Overwrite in its wire form, in Command.update and in updateState": {
    from: "pregel.test.ts: Overwrite bypasses the reducer",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver, Command, Overwrite } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addNode("wire", () => ({ log: { __overwrite__: ["wire"] } }))
        .addNode("command", () => new Command({ update: { log: new Overwrite(["command"]) }, goto: "last" }), {
          ends: ["last"],
        })
        .addNode("last", () => ({ log: ["last"] }))
        .addEdge(START, "wire")
        .addEdge("wire", "command")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      const result = await graph.invoke({ log: ["input"] }, config);
      await graph.updateState(config, { log: new Overwrite(["edited"]) });
      return { result, edited: (await graph.getState(config)).values };
    },
  },

  "two Overwrites of one key in the same step is an error": {
    from: "pregel.test.ts: Overwrite bypasses the reducer",
    throws: true,
    async run(lib) {
      const { Annotation, StateGraph, START, Overwrite } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addNode("a", () => ({ log: new Overwrite(["a"]) }))
        .addNode("b", () => ({ log: new Overwrite(["b"]) }))
        .addEdge(START, "a")
        .addEdge(START, "b")
        .compile();
      return graph.invoke({ log: [] });
    },
  },

  "an Overwrite written before an interrupt is applied on resume": {
    from: "pregel.test.ts: Overwrite bypasses the reducer",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver, Command, Overwrite, interrupt } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addNode("reset", () => ({ log: new Overwrite(["reset"]) }))
        .addNode("ask", () => ({ log: [interrupt("next?")] }))
        .addEdge(START, "reset")
        .addEdge(START, "ask")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      await graph.invoke({ log: ["input"] }, config);
      return graph.invoke(new Command({ resume: "answer" }), config);
    },
  },

  "writer() sends to the custom stream from inside a node": {
    from: "pregel.stream.test.ts: emits custom events written via config.writer",
    differs: "#writer-reaches-the-custom-stream",
    async run(lib) {
      const { Annotation, StateGraph, START, writer } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addNode("a", () => {
          writer({ step: "inside a" });
          return { log: ["a"] };
        })
        .addEdge(START, "a")
        .compile();
      return collect(await graph.stream({ log: [] }, { streamMode: "custom" }));
    },
  },
  "an untracked key is seen within a run, never stored": {
    from: "state/schema.test.ts: should handle UntrackedValue with ReducedValue",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver, Command, interrupt, UntrackedValueChannel } = lib;
      const State = Annotation.Root({
        log: list(lib),
        scratch: new UntrackedValueChannel(),
        session: new UntrackedValueChannel({ initialValueFactory: () => "fresh" }),
      });
      const seen: unknown[] = [];
      const graph = new StateGraph(State)
        .addNode("a", (s: any) => {
          seen.push(["a", s.scratch, s.session]);
          return { scratch: "token-1", session: "used", log: ["a"] };
        })
        .addNode("b", (s: any) => {
          seen.push(["b", s.scratch, s.session]);
          return { log: [interrupt("go on?")] };
        })
        .addNode("c", (s: any) => {
          seen.push(["c", s.scratch, s.session]);
          return { log: ["c"] };
        })
        .addEdge(START, "a")
        .addEdge("a", "b")
        .addEdge("b", "c")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      const paused = await graph.invoke({ log: [], scratch: "from input" }, config);
      const pausedState = (await graph.getState(config)).values;
      const done = await graph.invoke(new Command({ resume: "yes" }), config);
      const state = (await graph.getState(config)).values;
      return { paused, pausedState, done, state, seen };
    },
  },

  "an untracked key refuses two writes in one step unless its guard is off": {
    from: "channels.test.ts: should throw when multiple updates are provided with guard: true (default)",
    async run(lib) {
      const { Annotation, StateGraph, START, UntrackedValueChannel } = lib;
      const run = (guard: boolean) => {
        const State = Annotation.Root({ t: new UntrackedValueChannel({ guard }) });
        return new StateGraph(State)
          .addNode("x", () => ({ t: "x" }))
          .addNode("y", () => ({ t: "y" }))
          .addEdge(START, "x")
          .addEdge(START, "y")
          .compile()
          .invoke({})
          .catch((e: Error) => e.name);
      };
      return { guarded: await run(true), open: await run(false) };
    },
  },

  "a DeltaChannel folds each step's writes with its batch reducer, through pauses and history": async (lib) => {
    const { Annotation, StateGraph, START, MemorySaver, Command, interrupt, DeltaChannel, Overwrite } = lib;
    const batches: number[] = [];
    const State = Annotation.Root({
      log: new DeltaChannel((state: string[], writes: string[][]) => {
        batches.push(writes.length);
        return [...state, ...writes.flat()];
      }),
    });
    const graph = new StateGraph(State)
      .addNode("a", () => ({ log: ["a"] }))
      .addNode("b", () => ({ log: ["b"] }))
      .addNode("ask", () => ({ log: [`answer ${interrupt("?")}`] }))
      .addNode("reset", () => ({ log: new Overwrite(["reset"]) }))
      .addEdge(START, "a")
      .addEdge(START, "b")
      .addEdge(["a", "b"], "ask")
      .addEdge("ask", "reset")
      .compile({ checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: "t" } };
    const paused = await graph.invoke({ log: ["in"] }, config);
    const done = await graph.invoke(new Command({ resume: "yes" }), config);
    const history = [];
    for await (const snapshot of graph.getStateHistory(config)) history.push(snapshot.values.log);
    return { paused, done, history, batchesSeen: batches.includes(2) };
  },

  "MessagesDeltaValue keeps messages as MessagesValue does: by id, removals, message-likes": async (lib) => {
    const { StateGraph, StateSchema, START, MemorySaver, MessagesDeltaValue, REMOVE_ALL_MESSAGES } = lib;
    const { AIMessage, HumanMessage, RemoveMessage } = await import("@langchain/core/messages");
    const State = new StateSchema({ messages: MessagesDeltaValue });
    const graph = new StateGraph(State)
      .addNode("reply", () => ({
        messages: [new AIMessage({ id: "a1", content: "first" }), { role: "assistant", content: "a like" }],
      }))
      .addNode("edit", () => ({
        messages: [new AIMessage({ id: "a1", content: "edited" }), new RemoveMessage({ id: "h1" })],
      }))
      .addEdge(START, "reply")
      .addEdge("reply", "edit")
      .compile({ checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: "t" } };
    const out = await graph.invoke({ messages: [new HumanMessage({ id: "h1", content: "hi" }), "plain"] }, config);
    const shape = (messages: any[]) => messages.map((m) => [m.constructor.name, m.content, typeof m.id]);
    const state = await graph.getState(config);
    await graph.invoke({ messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), "after clear"] }, config);
    return {
      out: shape(out.messages),
      state: shape(state.values.messages),
      cleared: shape((await graph.getState(config)).values.messages),
    };
  },

  "a DeltaChannel with messagesDeltaReducer in Annotation.Root, and updateState on it": async (lib) => {
    const { Annotation, StateGraph, START, MemorySaver, DeltaChannel, messagesDeltaReducer } = lib;
    const { AIMessage, HumanMessage } = await import("@langchain/core/messages");
    const State = Annotation.Root({ messages: new DeltaChannel(messagesDeltaReducer) });
    const graph = new StateGraph(State)
      .addNode("reply", () => ({ messages: new AIMessage({ id: "a", content: "answer" }) }))
      .addEdge(START, "reply")
      .compile({ checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: "t" } };
    await graph.invoke({ messages: [new HumanMessage({ id: "q", content: "question" })] }, config);
    await graph.updateState(config, { messages: [new AIMessage({ id: "a", content: "corrected" })] });
    const state = await graph.getState(config);
    return state.values.messages.map((m: any) => [m.id, m.content]);
  },
});
