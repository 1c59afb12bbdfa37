/**
 * Token streaming, streamEvents and the store, on both runtimes: the same graph code with
 * @langchain/core's fake chat models. Task ids differ by design (uuids against hashes), so
 * namespaces are compared with their ids cut off; run ids are left out.
 */
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { collect, compare, type Runtime } from "./harness.js";

/** "agent:1f0c…|inner:9a2b…" -> "agent|inner". */
const withoutIds = (ns: unknown) => (typeof ns === "string" ? ns.replace(/:[^|]+/g, "") : ns);

function metadataOf(metadata: Record<string, unknown>) {
  return {
    ...metadata,
    langgraph_checkpoint_ns: withoutIds(metadata.langgraph_checkpoint_ns),
    checkpoint_ns: withoutIds(metadata.checkpoint_ns),
  };
}

function messagesState({ Annotation }: Runtime) {
  return Annotation.Root({
    messages: Annotation({ reducer: (a: BaseMessage[], b: BaseMessage[]) => a.concat(b), default: () => [] }),
  });
}

function agent(lib: Runtime, responses: string[]) {
  const { StateGraph, START } = lib;
  const model = new FakeListChatModel({ responses });
  return new StateGraph(messagesState(lib))
    .addNode("agent", async (state: { messages: BaseMessage[] }, config: unknown) => ({
      messages: [await model.invoke(state.messages, config as never)],
    }))
    .addEdge(START, "agent")
    .compile();
}

compare("streaming messages", {
  'stream mode "messages": a chat model in a node, token by token, with the node\'s metadata': {
    from: "pregel.test.ts: should stream messages from a chat model",
    async run(lib) {
      const graph = agent(lib, ["hi there"]);
      const chunks = await collect(
        await graph.stream(
          { messages: [new HumanMessage("hello")] },
          { streamMode: "messages", configurable: { thread_id: "t" } },
        ),
      );
      return chunks.map(([message, metadata]: [BaseMessage, Record<string, unknown>]) => [
        message.content,
        message.constructor.name,
        metadataOf(metadata),
      ]);
    },
  },

  "a model called without the node's config still streams (LangChain's ambient config)": async (lib) => {
    const { StateGraph, START } = lib;
    const model = new FakeListChatModel({ responses: ["hi"] });
    const graph = new StateGraph(messagesState(lib))
      .addNode("agent", async (state: { messages: BaseMessage[] }) => ({
        messages: [await model.invoke(state.messages)],
      }))
      .addEdge(START, "agent")
      .compile();
    const chunks = await collect(await graph.stream({ messages: [] }, { streamMode: "messages" }));
    return chunks.map(([message, metadata]: [BaseMessage, Record<string, unknown>]) => [
      message.content,
      metadataOf(metadata),
    ]);
  },

  "functional API: a model called in a task streams under the task's name": async ({ entrypoint, task }) => {
    const model = new FakeListChatModel({ responses: ["hi"] });
    const callModel = task("callModel", async (text: string) => (await model.invoke([new HumanMessage(text)])).content);
    const workflow = entrypoint({ name: "wf" }, async (text: string) => {
      const first = await callModel(text);
      const second = await model.invoke([new HumanMessage("again")]);
      return `${first}${second.content}`;
    });
    const chunks = await collect(await workflow.stream("go", { streamMode: "messages" }));
    return chunks.map(([message, metadata]: [BaseMessage, Record<string, unknown>]) => [
      message.content,
      metadata.langgraph_node,
      metadata.langgraph_path,
      withoutIds(metadata.langgraph_checkpoint_ns),
    ]);
  },

  "Send fan-out: each pushed task's tokens carry its push path": async ({ StateGraph, Annotation, START, Send }) => {
    const model = new FakeListChatModel({ responses: ["x"] });
    const State = Annotation.Root({
      topics: Annotation(),
      out: Annotation({ reducer: (a: string[], b: string[]) => a.concat(b), default: () => [] }),
    });
    const graph = new StateGraph(State)
      .addNode("write", async (arg: { topic: string }, config: unknown) => ({
        out: [(await model.invoke([new HumanMessage(arg.topic)], config as never)).content],
      }))
      .addConditionalEdges(START, (state: { topics: string[] }) =>
        state.topics.map((topic) => new Send("write", { topic })),
      )
      .compile();
    const chunks = await collect(await graph.stream({ topics: ["a", "b"] }, { streamMode: "messages" }));
    // The two tasks run concurrently: compare them in path order.
    return chunks
      .map(([message, metadata]: [BaseMessage, Record<string, any>]) => [
        message.content,
        metadata.langgraph_node,
        metadata.langgraph_path,
        metadata.langgraph_triggers,
        metadata.langgraph_step,
      ])
      .sort((a: any[], b: any[]) => a[2][1] - b[2][1]);
  },

  "a message a node returns without streaming is emitted once; its input messages are not": async (lib) => {
    const { StateGraph, START } = lib;
    const graph = new StateGraph(messagesState(lib))
      .addNode("echo", (state: { messages: BaseMessage[] }) => ({
        messages: [...state.messages, new AIMessage({ content: "done", id: "a1" })],
      }))
      .addEdge(START, "echo")
      .compile();
    const chunks = await collect(
      await graph.stream({ messages: [new HumanMessage({ content: "hi", id: "h1" })] }, { streamMode: "messages" }),
    );
    return chunks.map(([message, metadata]: [BaseMessage, Record<string, unknown>]) => [
      message.id,
      message.content,
      metadataOf(metadata),
    ]);
  },

  "messages and updates in one stream: tokens first, then the node's update": async (lib) => {
    const graph = agent(lib, ["yo"]);
    const chunks = await collect(await graph.stream({ messages: [] }, { streamMode: ["messages", "updates"] }));
    return chunks.map(([mode, chunk]: [string, any]) =>
      mode === "messages" ? [mode, chunk[0].content] : [mode, Object.keys(chunk), chunk.agent.messages[0].content],
    );
  },

  "subgraphs: true streams a subgraph's tokens under the subgraph's namespace": async (lib) => {
    const { StateGraph, START } = lib;
    const model = new FakeListChatModel({ responses: ["ab"] });
    const child = new StateGraph(messagesState(lib))
      .addNode("inner", async (state: { messages: BaseMessage[] }, config: unknown) => ({
        messages: [await model.invoke(state.messages, config as never)],
      }))
      .addEdge(START, "inner")
      .compile();
    const graph = new StateGraph(messagesState(lib)).addNode("child", child).addEdge(START, "child").compile();
    const chunks = await collect(await graph.stream({ messages: [] }, { streamMode: "messages", subgraphs: true }));
    return chunks.map(([ns, [message, metadata]]: [string[], [BaseMessage, Record<string, unknown>]]) => [
      ns.map(withoutIds),
      message.content,
      metadata.langgraph_node,
      withoutIds(metadata.langgraph_checkpoint_ns),
    ]);
  },

  "a subgraph's tokens stay out of the stream without subgraphs: true": async (lib) => {
    const { StateGraph, START } = lib;
    const model = new FakeListChatModel({ responses: ["ab"] });
    const child = new StateGraph(messagesState(lib))
      .addNode("inner", async (state: { messages: BaseMessage[] }, config: unknown) => ({
        messages: [await model.invoke(state.messages, config as never)],
      }))
      .addEdge(START, "inner")
      .compile();
    const graph = new StateGraph(messagesState(lib)).addNode("child", child).addEdge(START, "child").compile();
    return (await collect(await graph.stream({ messages: [] }, { streamMode: "messages" }))).length;
  },

  "streamEvents v2: graph, node and chat model events in order, with names, tags and chunks": async (lib) => {
    const graph = agent(lib, ["hey"]);
    const events = await collect(graph.streamEvents({ messages: [] }, { version: "v2" }));
    return events.map((e: any) => ({
      event: e.event,
      name: e.name,
      tags: e.tags,
      metadata: metadataOf(e.metadata),
      chunk: e.data.chunk?.content ?? (e.data.chunk ? Object.keys(e.data.chunk) : undefined),
      input: e.event === "on_chain_start" ? e.data.input : undefined,
      output: e.event.endsWith("_end") ? JSON.stringify(e.data.output)?.length : undefined,
    }));
  },
});

compare("store", {
  "AsyncBatchedStore, started: operations made together answered each with its own result": {
    from: "store tests: AsyncBatchedStore batches operations",
    async run({ AsyncBatchedStore, InMemoryStore }) {
      const inner = new InMemoryStore();
      const store = new AsyncBatchedStore(new AsyncBatchedStore(inner));
      store.start();
      await Promise.all([store.put(["a"], "1", { v: 1 }), store.put(["a"], "2", { v: 2 })]);
      const [one, found] = await Promise.all([store.get(["a"], "1"), store.search(["a"])]);
      await store.stop();
      return {
        unwrapped: store.store === inner,
        one: one.value,
        found: found.map((item: any) => item.key).sort(),
        name: store.lg_name,
        running: store.isRunning,
      };
    },
  },

  "a search with a query": {
    differs: "#store-no-semantic-search",
    async run({ InMemoryStore }) {
      const store = new InMemoryStore();
      await store.put(["docs"], "a", { text: "cats" });
      return (await store.search(["docs"], { query: "felines" })).map((item: any) => item.key);
    },
  },

  "getConfig() outside a node": {
    async run({ getConfig }) {
      return getConfig() ?? "no config";
    },
  },

  "a node remembers with config.store, another thread reads it": async ({
    Annotation,
    StateGraph,
    START,
    InMemoryStore,
    MemorySaver,
  }) => {
    const store = new InMemoryStore();
    const State = Annotation.Root({ user: Annotation(), seen: Annotation() });
    const graph = new StateGraph(State)
      .addNode("remember", async (state: { user: string }, config: any) => {
        const before = await config.store.search(["memories", state.user]);
        await config.store.put(["memories", state.user], `m${before.length}`, { text: `visit ${before.length}` });
        return { seen: before.map((item: any) => item.value.text) };
      })
      .addEdge(START, "remember")
      .compile({ store, checkpointer: new MemorySaver() });
    await graph.invoke({ user: "ada" }, { configurable: { thread_id: "1" } });
    const second = await graph.invoke({ user: "ada" }, { configurable: { thread_id: "2" } });
    const item = await store.get(["memories", "ada"], "m1");
    return { second, item: { ...item, createdAt: undefined, updatedAt: undefined } };
  },

  "search by prefix and filter, paging, listNamespaces, delete": async ({ InMemoryStore }) => {
    const store = new InMemoryStore();
    await store.put(["users", "alice", "prefs"], "a", { kind: "note", rank: 1 });
    await store.put(["users", "alice", "notes"], "b", { kind: "note", rank: 5 });
    await store.put(["users", "bob"], "c", { kind: "task", rank: 9 });
    const plain = (items: any[]) => items.map((i) => [i.namespace, i.key, i.value, i.score]);
    const out = {
      all: plain(await store.search(["users"])),
      alice: plain(await store.search(["users", "alice"])),
      notes: plain(await store.search(["users"], { filter: { kind: "note" } })),
      ranked: plain(await store.search(["users"], { filter: { rank: { $gt: 1 } } })),
      page: plain(await store.search(["users"], { limit: 1, offset: 1 })),
      namespaces: await store.listNamespaces({ prefix: ["users"] }),
      depth: await store.listNamespaces({ maxDepth: 2 }),
      suffix: await store.listNamespaces({ suffix: ["prefs"] }),
      deleted: undefined as unknown,
    };
    await store.delete(["users", "bob"], "c");
    out.deleted = [await store.get(["users", "bob"], "c"), plain(await store.search(["users"]))];
    return out;
  },

  "getCurrentTaskInput() from a function the node calls, for a pulled node and a Send": async ({
    Annotation,
    StateGraph,
    START,
    Send,
    getCurrentTaskInput,
  }) => {
    const State = Annotation.Root({
      topic: Annotation(),
      seen: Annotation({ reducer: (a: unknown[], b: unknown[]) => a.concat(b), default: () => [] }),
    });
    const lookUp = () => getCurrentTaskInput();
    const graph = new StateGraph(State)
      .addNode("plan", () => ({ seen: [lookUp()] }))
      .addNode("work", () => ({ seen: [lookUp()] }))
      .addEdge(START, "plan")
      .addConditionalEdges("plan", () => [new Send("work", { part: 1 })])
      .compile();
    return graph.invoke({ topic: "t" });
  },

  "getStore() and getConfig() inside a node": async ({
    Annotation,
    StateGraph,
    START,
    InMemoryStore,
    getStore,
    getConfig,
  }) => {
    const store = new InMemoryStore();
    await store.put(["facts"], "sky", { color: "blue" });
    const State = Annotation.Root({ out: Annotation() });
    const graph = new StateGraph(State)
      .addNode("n", async () => {
        const config = getConfig();
        const item = await getStore().get(["facts"], "sky");
        return { out: [item.value.color, config.configurable.thread_id, config.configurable.tenant] };
      })
      .addEdge(START, "n")
      .compile({ store });
    return graph.invoke({}, { configurable: { thread_id: "t", tenant: "acme" } });
  },
});

compare("streaming messages, more", {
  "two model calls in one node": async (lib) => {
    const { StateGraph, START } = lib;
    const model = new FakeListChatModel({ responses: ["ab", "cd"] });
    const graph = new StateGraph(messagesState(lib))
      .addNode("agent", async (state: any, config: any) => {
        const a = await model.invoke(state.messages, config);
        const b = await model.invoke([...state.messages, a], config);
        return { messages: [a, b, new AIMessage("extra")] };
      })
      .addEdge(START, "agent")
      .compile();
    const chunks = await collect(await graph.stream({ messages: [] }, { streamMode: "messages" }));
    return chunks.map(([m, meta]: any) => [m.content, m.constructor.name, meta.langgraph_node, meta.tags, meta.name]);
  },
  "node returns a Command with messages": async (lib) => {
    const { StateGraph, START, Command } = lib;
    const graph = new StateGraph(messagesState(lib))
      .addNode("a", () => new Command({ update: { messages: [new AIMessage("from command")] }, goto: "b" }), {
        ends: ["b"],
      })
      .addNode("b", () => ({ messages: [new AIMessage("from b")] }))
      .addEdge(START, "a")
      .compile();
    const chunks = await collect(await graph.stream({ messages: [] }, { streamMode: "messages" }));
    return chunks.map(([m, meta]: any) => [m.content, meta.langgraph_node, meta.langgraph_step]);
  },
  "interrupt in a node under the messages stream, then resume": async (lib) => {
    const { StateGraph, START, interrupt, Command, MemorySaver, Annotation } = lib;
    const model = new FakeListChatModel({ responses: ["draft"] });
    const State = Annotation.Root({ text: Annotation() });
    const graph = new StateGraph(State)
      .addNode("write", async (_s: any, config: any) => {
        const draft = await model.invoke([new HumanMessage("go")], config);
        const verdict = interrupt({ draft: draft.content });
        return { text: `${draft.content}:${verdict}` };
      })
      .addEdge(START, "write")
      .compile({ checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: "t" } };
    const first = await collect(await graph.stream({ text: "" }, { ...config, streamMode: ["messages", "updates"] }));
    const second = await collect(
      await graph.stream(new Command({ resume: "ok" }), { ...config, streamMode: ["messages", "updates"] }),
    );
    const show = (chunks: any[]) => chunks.map(([mode, c]: any) => (mode === "messages" ? c[0].content : c));
    return [show(first), show(second)];
  },
  "streamLog: the run log's patches (the graph's run, then each node's run and its output)": async (lib) => {
    const { Annotation, StateGraph, START } = lib;
    const State = Annotation.Root({ v: Annotation() });
    const graph = new StateGraph(State)
      .addNode("a", (s: any) => ({ v: s.v + 1 }))
      .addNode("b", (s: any) => ({ v: s.v * 10 }))
      .addEdge(START, "a")
      .addEdge("a", "b")
      .compile();
    const ops = (await collect(graph.streamLog({ v: 1 }))).flatMap((patch: any) => patch.ops);
    // Where a streamed chunk falls among the next node's run is timing (the reader's pace): not compared.
    return {
      runs: ops.filter((op: any) => op.path.startsWith("/logs/")).map((op: any) => `${op.op} ${op.path}`),
      streamed: ops.filter((op: any) => op.path === "/streamed_output/-").map((op: any) => op.value),
      final: ops.filter((op: any) => op.path === "/final_output").map((op: any) => op.value),
    };
  },

  "streamEvents: a custom event a node dispatches": async ({ StateGraph, START, Annotation }) => {
    const { dispatchCustomEvent } = await import("@langchain/core/callbacks/dispatch");
    const graph = new StateGraph(Annotation.Root({ x: Annotation() }))
      .addNode("work", async (_state: unknown, config: any) => {
        await dispatchCustomEvent("progress", { done: 50 }, config);
        return { x: 1 };
      })
      .addEdge(START, "work")
      .compile();
    const events = await collect(graph.streamEvents({ x: 0 }, { version: "v2" }));
    return events
      .filter((e: any) => e.event === "on_custom_event")
      .map((e: any) => [e.name, e.data, e.metadata.langgraph_node]);
  },

  "streamEvents with a subgraph": async (lib) => {
    const { StateGraph, START } = lib;
    const model = new FakeListChatModel({ responses: ["ab"] });
    const child = new StateGraph(messagesState(lib))
      .addNode("inner", async (state: any, config: any) => ({ messages: [await model.invoke(state.messages, config)] }))
      .addEdge(START, "inner")
      .compile();
    const graph = new StateGraph(messagesState(lib)).addNode("child", child).addEdge(START, "child").compile();
    const events = await collect(graph.streamEvents({ messages: [] }, { version: "v2" }));
    return events.map((e: any) => [e.event, e.name, e.tags, withoutIds(e.metadata.langgraph_checkpoint_ns)]);
  },
  "streamEvents with streamMode values": async (lib) => {
    const { StateGraph, START } = lib;
    const model = new FakeListChatModel({ responses: ["ab"] });
    const graph = new StateGraph(messagesState(lib))
      .addNode("agent", async (state: any, config: any) => ({ messages: [await model.invoke(state.messages, config)] }))
      .addEdge(START, "agent")
      .compile();
    const events = await collect(graph.streamEvents({ messages: [] }, { version: "v2", streamMode: "values" }));
    return events.filter((e: any) => e.event === "on_chain_stream").map((e: any) => [e.name, e.data.chunk]);
  },
  "a node that throws under streamEvents: the events up to it, then the error": {
    async run(lib) {
      const { StateGraph, START, Annotation } = lib;
      const graph = new StateGraph(Annotation.Root({ x: Annotation() }))
        .addNode("boom", () => {
          throw new TypeError("bad");
        })
        .addEdge(START, "boom")
        .compile();
      const events: string[] = [];
      try {
        for await (const e of graph.streamEvents({ x: 1 }, { version: "v2" })) events.push(`${e.event} ${e.name}`);
      } catch (error) {
        return { events, error: (error as Error).name };
      }
      return { events };
    },
  },

  "pushMessage shows a message before the node returns, once, and writes it to state": async (lib) => {
    const { StateGraph, START, MessagesAnnotation, pushMessage, MemorySaver } = lib;
    const order: string[] = [];
    const graph = new StateGraph(MessagesAnnotation)
      .addNode("draft", async () => {
        pushMessage(new AIMessage({ id: "draft-1", content: "drafting" }));
        order.push("pushed");
        await new Promise((resolve) => setTimeout(resolve, 5));
        // Returned again, updated: replaced by id, not streamed again.
        return { messages: [new AIMessage({ id: "draft-1", content: "drafted" })] };
      })
      .addNode("quiet", async () => {
        pushMessage(new AIMessage({ id: "note-1", content: "streamed only" }), { stateKey: null });
        return {};
      })
      .addEdge(START, "draft")
      .addEdge("draft", "quiet")
      .compile({ checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: "t" }, streamMode: ["messages", "updates"] };
    const chunks = await collect(
      await graph.stream({ messages: [new HumanMessage({ id: "h", content: "go" })] }, config),
    );
    const missingId = await new StateGraph(MessagesAnnotation)
      .addNode("n", () => {
        pushMessage(new AIMessage("no id"));
        return {};
      })
      .addEdge(START, "n")
      .compile()
      .invoke({ messages: [] })
      .then(
        () => "ran",
        () => "refused",
      );
    return {
      order,
      chunks: chunks.map(([mode, chunk]: [string, any]) =>
        mode === "messages"
          ? [mode, chunk[0].content, chunk[1].langgraph_node]
          : [mode, Object.keys(chunk), JSON.stringify(chunk).includes("drafting")],
      ),
      state: (await graph.getState(config)).values.messages.map((m: BaseMessage) => [m.id, m.content]),
      missingId,
    };
  },
});
