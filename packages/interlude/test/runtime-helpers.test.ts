import {
  Annotation,
  Command,
  entrypoint,
  getConfig,
  getCurrentTaskInput,
  getStore,
  getWriter,
  InMemoryStore,
  type LangGraphRunnableConfig,
  MemorySaver,
  Send,
  START,
  StateGraph,
  task,
} from "@interlude/core";
import { describe, expect, it } from "vitest";

const State = Annotation.Root({
  user: Annotation<string>(),
  seen: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
});

async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const chunk of stream) out.push(chunk);
  return out;
}

describe("a store passed with compile({ store })", () => {
  it("is shared by nodes of different threads: what one thread remembers, another reads", async () => {
    const store = new InMemoryStore();
    const graph = new StateGraph(State)
      .addNode("remember", async (state, config: LangGraphRunnableConfig) => {
        const memories = await config.store!.search(["memories", state.user]);
        await config.store!.put(["memories", state.user], `m${memories.length}`, { text: `visit ${memories.length}` });
        return { seen: memories.map((m) => m.value.text as string) };
      })
      .addEdge(START, "remember")
      .compile({ store, checkpointer: new MemorySaver() });
    await graph.invoke({ user: "ada" }, { configurable: { thread_id: "t1" } });
    const second = await graph.invoke({ user: "ada" }, { configurable: { thread_id: "t2" } });
    expect(second.seen).toEqual(["visit 0"]);
    expect((await store.get(["memories", "ada"], "m1"))?.value).toEqual({ text: "visit 1" });
  });

  it("is reachable with getStore() anywhere in the node's call stack, and in subgraphs", async () => {
    const store = new InMemoryStore();
    await store.put(["facts"], "sky", { color: "blue" });
    const lookUp = async () => (await getStore()!.get(["facts"], "sky"))!.value.color as string;
    const child = new StateGraph(State)
      .addNode("inner", async () => ({ seen: [`child:${await lookUp()}`] }))
      .addEdge(START, "inner")
      .compile();
    const graph = new StateGraph(State)
      .addNode("outer", async () => ({ seen: [`parent:${await lookUp()}`] }))
      .addNode("child", child)
      .addEdge(START, "outer")
      .addEdge("outer", "child")
      .compile({ store });
    const result = await graph.invoke({ user: "x" });
    // The subgraph returns the whole state it was given, so the parent's entry comes back twice.
    expect(result.seen).toEqual(["parent:blue", "parent:blue", "child:blue"]);
  });

  it("is undefined for a graph compiled without one", async () => {
    const graph = new StateGraph(State)
      .addNode("n", (_state, config: LangGraphRunnableConfig) => ({
        seen: [String(config.store), String(getStore())],
      }))
      .addEdge(START, "n")
      .compile();
    expect((await graph.invoke({ user: "x" })).seen).toEqual(["undefined", "undefined"]);
  });

  it("reaches the functional API: entrypoint({ store }) and its tasks", async () => {
    const store = new InMemoryStore();
    const save = task("save", async (text: string) => {
      await getStore()!.put(["notes"], "last", { text });
      return text.length;
    });
    const workflow = entrypoint({ name: "notes", store, checkpointer: new MemorySaver() }, async (text: string) => {
      const length = await save(text);
      return { length, stored: (await getStore()!.get(["notes"], "last"))!.value.text };
    });
    expect(await workflow.invoke("hello", { configurable: { thread_id: "w" } })).toEqual({
      length: 5,
      stored: "hello",
    });
  });
});

describe("getConfig() and getWriter()", () => {
  it("getConfig() gives the node's config: thread, namespace and the caller's own keys", async () => {
    let seen: LangGraphRunnableConfig | undefined;
    const graph = new StateGraph(State)
      .addNode("n", () => {
        seen = getConfig();
        return {};
      })
      .addEdge(START, "n")
      .compile({ checkpointer: new MemorySaver() });
    await graph.invoke({ user: "x" }, { configurable: { thread_id: "cfg", tenant: "acme" } });
    expect(seen!.configurable).toMatchObject({ thread_id: "cfg", tenant: "acme" });
    expect(String(seen!.configurable!.checkpoint_ns)).toMatch(/^n:/);
    expect(seen!.signal === undefined || seen!.signal instanceof AbortSignal).toBe(true);
  });

  it("config.interrupt pauses the node like interrupt(), and the answer resumes it", async () => {
    const graph = new StateGraph(State)
      .addNode("ask", (_state, config: LangGraphRunnableConfig) => ({ seen: [String(config.interrupt!("name?"))] }))
      .addEdge(START, "ask")
      .compile({ checkpointer: new MemorySaver() });
    const thread = { configurable: { thread_id: "ask" } };
    const paused = await graph.invoke({ user: "x" }, thread);
    expect(paused.__interrupt__?.[0]?.value).toBe("name?");
    expect((await graph.invoke(new Command({ resume: "Ada" }), thread)).seen).toEqual(["Ada"]);
  });

  it("getWriter() sends chunks to the custom stream mode", async () => {
    const graph = new StateGraph(State)
      .addNode("n", () => {
        getWriter()!({ progress: 50 });
        return {};
      })
      .addEdge(START, "n")
      .compile();
    expect(await collect(await graph.stream({ user: "x" }, { streamMode: "custom" }))).toEqual([{ progress: 50 }]);
  });

  it("getCurrentTaskInput() gives the running node's input: the state, or a Send's argument", async () => {
    const inputs: unknown[] = [];
    const graph = new StateGraph(State)
      .addNode("plan", () => {
        inputs.push(getCurrentTaskInput());
        return {};
      })
      .addNode("work", () => {
        inputs.push(getCurrentTaskInput());
        return {};
      })
      .addEdge(START, "plan")
      .addConditionalEdges("plan", () => [new Send("work", { part: 1 })])
      .compile();
    await graph.invoke({ user: "x" });
    expect(inputs).toEqual([{ user: "x", seen: [] }, { part: 1 }]);
    expect(() => getCurrentTaskInput()).toThrow(expect.objectContaining({ code: "OUTSIDE_NODE" }));
  });

  it("outside a node, getConfig() gives undefined and getStore() refuses with a typed error", () => {
    expect(getConfig()).toBeUndefined();
    expect(() => getStore()).toThrow(/getStore\(config\)/);
    expect(getStore({ store: undefined })).toBeUndefined();
  });
});
