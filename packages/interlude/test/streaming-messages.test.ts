/**
 * Token streaming: stream mode "messages", callbacks handed to nodes, and streamEvents v2,
 * with @langchain/core's own fake chat models (offline, scripted).
 */
import { Annotation, entrypoint, START, StateGraph, task } from "@interlude/core";
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { CallbackManager } from "@langchain/core/callbacks/manager";
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { FakeListChatModel, FakeStreamingChatModel } from "@langchain/core/utils/testing";
import { describe, expect, it } from "vitest";

const State = Annotation.Root({
  messages: Annotation<BaseMessage[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
});

async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const chunk of stream) out.push(chunk);
  return out;
}

function agentGraph(responses: string[]) {
  const model = new FakeListChatModel({ responses });
  return new StateGraph(State)
    .addNode("agent", async (state, config) => ({ messages: [await model.invoke(state.messages, config)] }))
    .addEdge(START, "agent")
    .compile();
}

type MessageChunk = [BaseMessage, Record<string, any>];

describe('stream mode "messages"', () => {
  it("yields a chat model's answer token by token, with the node's metadata", async () => {
    const chunks = (await collect(
      await agentGraph(["hi there"]).stream({ messages: [new HumanMessage("hello")] }, { streamMode: "messages" }),
    )) as MessageChunk[];
    expect(chunks.map(([message]) => message.content)).toEqual(["h", "i", " ", "t", "h", "e", "r", "e"]);
    // Every chunk of one model call carries the same id, so a reader can join them.
    expect(new Set(chunks.map(([message]) => message.id)).size).toBe(1);
    const [, metadata] = chunks[0]!;
    expect(metadata).toMatchObject({
      langgraph_node: "agent",
      langgraph_step: 1,
      langgraph_triggers: ["branch:to:agent"],
      langgraph_path: ["__pregel_pull", "agent"],
      ls_provider: "FakeListChatModel",
    });
    expect(metadata.langgraph_checkpoint_ns).toMatch(/^agent:/);
    expect(metadata.checkpoint_ns).toBe(metadata.langgraph_checkpoint_ns);
  });

  it("streams a model the node calls without passing its config", async () => {
    const model = new FakeListChatModel({ responses: ["ok"] });
    const graph = new StateGraph(State)
      .addNode("agent", async (state) => ({ messages: [await model.invoke(state.messages)] }))
      .addEdge(START, "agent")
      .compile();
    const chunks = (await collect(await graph.stream({ messages: [] }, { streamMode: "messages" }))) as MessageChunk[];
    expect(chunks.map(([message, metadata]) => [message.content, metadata.langgraph_node])).toEqual([
      ["o", "agent"],
      ["k", "agent"],
    ]);
  });

  it("emits once a message a node returns without streaming it, and never the messages it was given", async () => {
    const graph = new StateGraph(State)
      .addNode("echo", (state) => ({ messages: [...state.messages, new AIMessage({ content: "done", id: "a1" })] }))
      .addEdge(START, "echo")
      .compile();
    const chunks = (await collect(
      await graph.stream({ messages: [new HumanMessage({ content: "hi", id: "h1" })] }, { streamMode: "messages" }),
    )) as MessageChunk[];
    expect(chunks.map(([message]) => [message.id, message.content])).toEqual([["a1", "done"]]);
    expect(chunks[0]![1]).toMatchObject({ langgraph_node: "echo", tags: ["graph:step:1"], name: "echo" });
  });

  it("does not repeat a streamed answer when the node returns it", async () => {
    const chunks = (await collect(
      await agentGraph(["ok"]).stream({ messages: [] }, { streamMode: "messages" }),
    )) as MessageChunk[];
    expect(chunks.map(([message]) => message.content)).toEqual(["o", "k"]);
  });

  it("streams tool-calling models chunk by chunk (FakeStreamingChatModel)", async () => {
    const model = new FakeStreamingChatModel({
      chunks: [new AIMessage("The "), new AIMessage("answer")] as never,
    });
    const graph = new StateGraph(State)
      .addNode("agent", async (state, config) => ({ messages: [await model.invoke(state.messages, config)] }))
      .addEdge(START, "agent")
      .compile();
    const chunks = (await collect(await graph.stream({ messages: [] }, { streamMode: "messages" }))) as MessageChunk[];
    expect(chunks.map(([message]) => message.content).join("")).toBe("The answer");
  });

  it("shares a multi-mode stream as [mode, chunk], after the tokens come the node's update", async () => {
    const chunks = (await collect(
      await agentGraph(["yo"]).stream({ messages: [] }, { streamMode: ["messages", "updates"] }),
    )) as Array<[string, any]>;
    expect(chunks.map(([mode]) => mode)).toEqual(["messages", "messages", "updates"]);
    expect(chunks[2]![1].agent.messages[0].content).toBe("yo");
  });

  it("streams tokens of a subgraph's model under its namespace with subgraphs: true; without, only its answer", async () => {
    const model = new FakeListChatModel({ responses: ["ab", "cd"] });
    const child = new StateGraph(State)
      .addNode("inner", async (state, config) => ({ messages: [await model.invoke(state.messages, config)] }))
      .addEdge(START, "inner")
      .compile();
    const graph = new StateGraph(State).addNode("child", child).addEdge(START, "child").compile();
    const nested = (await collect(
      await graph.stream({ messages: [] }, { streamMode: "messages", subgraphs: true }),
    )) as Array<[string[], MessageChunk]>;
    expect(nested.map(([ns, [message]]) => [ns.length, message.content])).toEqual([
      [1, "a"],
      [1, "b"],
    ]);
    expect(nested[0]![0][0]).toMatch(/^child:/);
    const meta = nested[0]![1][1];
    expect(meta.langgraph_node).toBe("inner");
    expect(meta.langgraph_checkpoint_ns).toMatch(/^child:[^|]+\|inner:/);
    // Without subgraphs the tokens stay hidden; the answer shows once, as the output of the parent's node.
    const flat = (await collect(await graph.stream({ messages: [] }, { streamMode: "messages" }))) as MessageChunk[];
    expect(flat.map(([message, metadata]) => [message.content, metadata.langgraph_node])).toEqual([["cd", "child"]]);
  });

  it("is silent for nodes that call no model and return no messages", async () => {
    const graph = new StateGraph(State)
      .addNode("noop", () => ({}))
      .addEdge(START, "noop")
      .compile();
    expect(await collect(await graph.stream({ messages: [] }, { streamMode: "messages" }))).toEqual([]);
  });
});

describe("functional API", () => {
  it("tokens of a model called inside task() carry the task's name, in the workflow's namespace", async () => {
    const model = new FakeListChatModel({ responses: ["ab"] });
    const summarise = task("summarise", async (text: string) => (await model.invoke([new HumanMessage(text)])).content);
    const workflow = entrypoint({ name: "wf" }, async (text: string) => summarise(text));
    const chunks = (await collect(await workflow.stream("go", { streamMode: "messages", subgraphs: true }))) as Array<
      [string[], MessageChunk]
    >;
    expect(chunks.map(([ns, [message, metadata]]) => [ns, message.content, metadata.langgraph_node])).toEqual([
      [[], "a", "summarise"],
      [[], "b", "summarise"],
    ]);
    expect(chunks[0]![1][1].langgraph_checkpoint_ns).toMatch(/^wf:[^|]+\|summarise:/);
  });
});

describe("callbacks passed by the caller", () => {
  it("see the graph and each node as chain runs, and the node's model call as their child", async () => {
    const seen: string[] = [];
    const parents = new Map<string, string | undefined>();
    const names = new Map<string, string>();
    class Recorder extends BaseCallbackHandler {
      name = "recorder";
      override handleChainStart(
        _c: unknown,
        _i: unknown,
        runId: string,
        parentRunId?: string,
        _t?: string[],
        _m?: unknown,
        _rt?: string,
        name?: string,
      ) {
        seen.push(`start ${name}`);
        parents.set(runId, parentRunId);
        names.set(runId, name!);
      }
      override handleChainEnd(_o: unknown, runId: string) {
        seen.push(`end ${names.get(runId)}`);
      }
      override handleChatModelStart(_l: unknown, _m: unknown, runId: string, parentRunId?: string) {
        seen.push("model");
        parents.set(runId, parentRunId);
        names.set(runId, "model");
      }
    }
    const result = await agentGraph(["fine"]).invoke({ messages: [] }, { callbacks: [new Recorder()] });
    expect(result.messages[0]!.content).toBe("fine");
    expect(seen).toEqual([
      "start LangGraph",
      "start __start__",
      "end __start__",
      "start agent",
      "model",
      "end agent",
      "end LangGraph",
    ]);
    const nameOfParent = (child: string) => {
      const id = [...names].find(([, n]) => n === child)![0];
      return names.get(parents.get(id)!);
    };
    expect(nameOfParent("model")).toBe("agent");
    expect(nameOfParent("agent")).toBe("LangGraph");
  });
});

describe("callbacks given as a CallbackManager", () => {
  it("keep working next to the messages stream, which adds its handler to a copy", async () => {
    const started: string[] = [];
    const manager = new CallbackManager();
    manager.addHandler(
      BaseCallbackHandler.fromMethods({
        handleChainStart(_chain, _inputs, _runId, _parent, _tags, _metadata, _runType, name) {
          started.push(name!);
        },
      }),
    );
    const chunks = (await collect(
      await agentGraph(["ok"]).stream({ messages: [] }, { streamMode: "messages", callbacks: manager }),
    )) as MessageChunk[];
    expect(chunks.map(([message]) => message.content)).toEqual(["o", "k"]);
    expect(started).toEqual(["LangGraph", "__start__", "agent"]);
    expect(manager.handlers).toHaveLength(1);
  });
});

describe("streamEvents v2", () => {
  it("reports the graph, its nodes and the chat model, shaped as LangChain's events", async () => {
    const events = await collect(agentGraph(["hey"]).streamEvents({ messages: [] }, { version: "v2" }));
    const visible = events.map((e) => `${e.event} ${e.name}`);
    expect(visible).toEqual([
      "on_chain_start LangGraph",
      "on_chain_start __start__",
      "on_chain_end __start__",
      "on_chain_start agent",
      "on_chat_model_start FakeListChatModel",
      "on_chat_model_stream FakeListChatModel",
      "on_chat_model_stream FakeListChatModel",
      "on_chat_model_stream FakeListChatModel",
      "on_chat_model_end FakeListChatModel",
      "on_chain_end agent",
      "on_chain_stream LangGraph",
      "on_chain_end LangGraph",
    ]);
    const streamed = events.filter((e) => e.event === "on_chat_model_stream").map((e) => e.data.chunk.content);
    expect(streamed).toEqual(["h", "e", "y"]);
    const agentStart = events.find((e) => e.event === "on_chain_start" && e.name === "agent")!;
    expect(agentStart.tags).toEqual(["graph:step:1"]);
    expect(agentStart.metadata).toMatchObject({ langgraph_node: "agent", langgraph_step: 1 });
    const end = events.at(-1)!;
    expect(end.data.output.messages[0].content).toBe("hey");
    expect(events.every((e) => typeof e.run_id === "string")).toBe(true);
  });

  it("filters events by name like LangChain's streamEvents options", async () => {
    const events = await collect(
      agentGraph(["x"]).streamEvents({ messages: [] }, { version: "v2" }, { includeNames: ["agent"] }),
    );
    expect(events.map((e) => e.event)).toEqual(["on_chain_start", "on_chain_end"]);
  });

  it("works for a functional-API workflow too, its task calls as chain runs", async () => {
    const model = new FakeListChatModel({ responses: ["ok"] });
    const ask = task("ask", async (text: string) => (await model.invoke([new HumanMessage(text)])).content);
    const workflow = entrypoint({ name: "wf" }, async (text: string) => ask(text));
    const events = await collect(workflow.streamEvents("go", { version: "v2" }));
    const names = events.filter((e) => e.event === "on_chain_start").map((e) => e.name);
    expect(names).toEqual(["wf", "__start__", "wf", "ask"]);
    expect(events.filter((e) => e.event === "on_chat_model_stream").map((e) => e.data.chunk.content)).toEqual([
      "o",
      "k",
    ]);
  });

  it("refuses an event format other than v2 with a typed error", async () => {
    await expect(collect(agentGraph(["x"]).streamEvents({ messages: [] }, { version: "v1" }))).rejects.toMatchObject({
      code: "UNSUPPORTED_EVENTS_VERSION",
    });
  });
});
