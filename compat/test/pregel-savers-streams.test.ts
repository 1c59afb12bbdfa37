/**
 * More of LangGraph.js's core tests (pregel.test.ts, pregel.stream.test.ts, func.test.ts,
 * python_port/graph_structure.test.ts, pregel.validate.test.ts): the user-facing behaviours the
 * other compat files do not restate. Savers that fail late or define getNextVersion, edgeless
 * graphs routed by Commands, the graph's last handleChainEnd, a subgraph paused in parallel
 * with a sibling, messages and custom chunks from inside a subgraph, a streamed message's id,
 * cloning a thread with bulkUpdateState, a failed step's history, the tools stream mode
 * beside updates, v3 timestamps and namespaces, interrupted tasks, a cached task between
 * interrupts, Command.PARENT updating a key the child lacks, the legacy `{ channels }` state
 * with a runnable in it, and what a Pregel or a compile refuses.
 */

import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import { awaitAllCallbacks } from "@langchain/core/callbacks/promises";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, AIMessageChunk, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import {
  channelsOf,
  collect,
  compare,
  cutIds,
  historyOf,
  prebuiltOf,
  pregelOf,
  type Runtime,
  sleep,
  thread,
} from "./harness.js";

// --- Helpers -----------------------------------------------------------------------------------

/** What a run ended with: its result, or that it failed and whether the error carries `message`. */
const ending = (run: () => Promise<unknown>, message: string) =>
  run().then(
    (returned) => ({ returned }),
    (error: Error) => ({ failed: true, carriesMessage: String(error?.message).includes(message) }),
  );

/** Whether building something is refused (class and wording differ by design: see COMPATIBILITY.md). */
function refused(build: () => unknown) {
  try {
    build();
    return false;
  } catch (error) {
    return error instanceof Error;
  }
}

const interrupts = (result: any) => result?.__interrupt__?.map((i: any) => i.value);

/** "p_two:1f0c…|c_one:9a2b…" -> "p_two|c_one". */
const cutNs = (ns: unknown) => (typeof ns === "string" ? ns.replace(/:[^|]+/g, "") : ns);

/**
 * LangGraph.js's test chat model (tests/utils.models.ts): answers with its responses in turn,
 * streams them character by character; `streamMessageId` says which chunks carry the answer's id.
 */
class FakeChatModel extends BaseChatModel {
  callCount = 0;
  constructor(
    private readonly responses: BaseMessage[],
    private readonly streamMessageId: "omit" | "first-only" | "always" = "omit",
  ) {
    super({});
  }
  _llmType() {
    return "fake";
  }
  async _generate(): Promise<ChatResult> {
    const response = this.responses[this.callCount++ % this.responses.length]!;
    return { generations: [{ message: response, text: String(response.content) }], llmOutput: {} };
  }
  override async *_streamResponseChunks(
    _messages: BaseMessage[],
    _options: unknown,
    runManager?: CallbackManagerForLLMRun,
  ) {
    const response = this.responses[this.callCount % this.responses.length]!;
    let first = true;
    for (const content of String(response.content).split("")) {
      const withId = this.streamMessageId === "always" || (this.streamMessageId === "first-only" && first);
      const chunk = new ChatGenerationChunk({
        message: new AIMessageChunk({ content, id: withId ? (response.id ?? "generated") : undefined }),
        text: content,
      });
      await runManager?.handleLLMNewToken(content, undefined, undefined, undefined, undefined, { chunk });
      yield chunk;
      first = false;
    }
    this.callCount += 1;
  }
}

// --- pregel.test.ts: savers that fail (their scenarios are in the last block) -----------------------

/** START -> agent, or agent and parallel side by side (for putWrites), on the given saver. */
function onSaver(lib: Runtime, saver: unknown, parallel = false) {
  const { Annotation, StateGraph, START } = lib;
  const builder = new StateGraph(Annotation.Root({ foo: Annotation({ reducer: (_: unknown, b: unknown) => b }) }))
    .addNode("agent", () => ({ foo: "" }))
    .addEdge(START, "agent");
  if (parallel) builder.addNode("parallel", () => ({ foo: "" })).addEdge(START, "parallel");
  return builder.compile({ checkpointer: saver });
}

/**
 * A MemorySaver whose `method` waits 30 ms, then fails when the run's configurable says
 * `shouldThrow`: the failing run, then a run on the same thread without it.
 */
async function slowFailingSaver(lib: Runtime, method: "getTuple" | "put" | "putWrites") {
  const message = { getTuple: "Faulty get_tuple", put: "Faulty put", putWrites: "Faulty put_writes" }[method];
  class Slow extends lib.MemorySaver {}
  const original = lib.MemorySaver.prototype[method];
  Slow.prototype[method] = async function (this: unknown, config: any, ...rest: unknown[]) {
    await sleep(30);
    if (config?.configurable?.shouldThrow) throw new Error(message);
    return original.call(this, config, ...rest);
  };
  const graph = onSaver(lib, new Slow(), method === "putWrites");
  const failing = await ending(
    () => graph.invoke({}, { configurable: { thread_id: "1", shouldThrow: true }, durability: "async" }),
    message,
  );
  const after = await ending(() => graph.invoke({}, { configurable: { thread_id: "1" } }), message);
  return { failing, after };
}

// --- pregel.test.ts: graphs and runs -----------------------------------------------------------

/** nodeA routes with a Command to nodeB (foo === "foo") or nodeC; `wrap` shapes what each node returns. */
function edgeless(lib: Runtime, wrap: { a?: (cmd: unknown) => unknown; b?: (update: object) => unknown } = {}) {
  const { Annotation, StateGraph, Command } = lib;
  const a = wrap.a ?? ((cmd: unknown) => cmd);
  const b = wrap.b ?? ((update: object) => update);
  return new StateGraph(Annotation.Root({ foo: Annotation(), bar: Annotation() }))
    .addNode(
      "nodeA",
      async (s: any) => a(new Command({ update: { foo: "a" }, goto: s.foo === "foo" ? "nodeB" : "nodeC" })),
      {
        ends: ["nodeB", "nodeC"],
      },
    )
    .addNode("nodeB", async (s: any) => b({ foo: `${s.foo}|b` }))
    .addNode("nodeC", async (s: any) => ({ foo: `${s.foo}|c` }))
    .addEdge("__start__", "nodeA")
    .compile();
}

/** Two threads' histories as compared: values, next, step (and task names when asked). */
const historyView = (history: any[], tasks = false) =>
  history.map((s) => ({
    values: s.values,
    next: s.next,
    step: s.metadata?.step,
    ...(tasks ? { tasks: s.tasks.map((t: any) => t.name) } : {}),
  }));

/**
 * agent -> tool on `foo`: two runs on thread 1, then thread 2 made the same by bulkUpdateState,
 * each turn starting as `__input__` (as LangGraph's test) or, without it, as `__start__`.
 */
async function updateAsInput(lib: Runtime, durability: string, asInput = true) {
  const { Annotation, StateGraph, START, MemorySaver } = lib;
  const graph = new StateGraph(Annotation.Root({ foo: Annotation() }))
    .addNode("agent", () => ({ foo: "agent" }))
    .addNode("tool", () => ({ foo: "tool" }))
    .addEdge(START, "agent")
    .addEdge("agent", "tool")
    .compile({ checkpointer: new MemorySaver() });
  const config = { ...thread("1"), durability };
  const results = [await graph.invoke({ foo: "input" }, config), await graph.invoke({ foo: "input" }, config)];
  const turn = [
    ...(asInput ? [{ updates: [{ values: { foo: "input" }, asNode: "__input__" }] }] : []),
    { updates: [{ values: { foo: "input" }, asNode: "__start__" }] },
    { updates: [{ values: { foo: "agent" }, asNode: "agent" }] },
    { updates: [{ values: { foo: "tool" }, asNode: "tool" }] },
  ];
  await graph.bulkUpdateState(thread("2"), [...turn, ...turn]);
  return {
    results,
    cloned: (await graph.getState(thread("2"))).values,
    history: historyView(await historyOf(graph, thread("1"))),
    clonedHistory: historyView(await historyOf(graph, thread("2"))),
  };
}

/** agent -> map (a Command of three Sends) -> task: the run, then a clone made by bulkUpdateState. */
async function batchUpdateAsInput(lib: Runtime, asInput: boolean) {
  const { Annotation, StateGraph, START, Command, Send, MemorySaver } = lib;
  const graph = new StateGraph(
    Annotation.Root({
      foo: Annotation(),
      tasks: Annotation({
        default: () => [] as number[],
        reducer: (acc: number[], task: number | number[]) => [...acc, ...(Array.isArray(task) ? task : [task])],
      }),
    }),
  )
    .addNode("agent", () => ({ foo: "agent" }))
    .addNode(
      "map",
      () => new Command({ goto: [0, 1, 2].map((index) => new Send("task", { index })), update: { foo: "map" } }),
      {
        ends: ["task"],
      },
    )
    .addNode("task", (t: { index: number }) => ({ tasks: [t.index] }))
    .addEdge(START, "agent")
    .addEdge("agent", "map")
    .compile({ checkpointer: new MemorySaver() });
  const result = await graph.invoke({ foo: "input" }, thread("1"));
  await graph.bulkUpdateState(thread("2"), [
    ...(asInput ? [{ updates: [{ values: { foo: "input" }, asNode: "__input__" }] }] : []),
    { updates: [{ values: { foo: "input" }, asNode: "__start__" }] },
    { updates: [{ values: { foo: "agent", tasks: [] }, asNode: "agent" }] },
    {
      updates: [
        {
          values: new Command({ goto: [0, 1, 2].map((index) => new Send("task", { index })), update: { foo: "map" } }),
          asNode: "map",
        },
      ],
    },
    { updates: [0, 1, 2].map((i) => ({ values: { tasks: [i] }, asNode: "task" })) },
  ]);
  return {
    result,
    cloned: (await graph.getState(thread("2"))).values,
    history: historyView(await historyOf(graph, thread("1")), true),
    clonedHistory: historyView(await historyOf(graph, thread("2")), true),
  };
}

/** node1 fails when attempt is 1, then the thread is run again with attempt 2; its history. */
async function checkpointRecovery(lib: Runtime, durability: string) {
  const { Annotation, StateGraph, MemorySaver } = lib;
  const State = Annotation.Root({
    steps: Annotation({ reducer: (a: string[], b: string[]) => [...a, ...b], default: () => [] as string[] }),
    attempt: Annotation(),
  });
  const graph = new StateGraph(State)
    .addSequence({
      async node1(s: any) {
        if (s.attempt === 1) throw new Error("Simulated failure");
        await sleep(5);
        return { steps: ["node1"] };
      },
      async node2() {
        await sleep(5);
        return { steps: ["node2"] };
      },
    })
    .addEdge("__start__", "node1")
    .compile({ checkpointer: new MemorySaver() });
  const config = { ...thread("1"), durability };
  const failed = await graph.invoke({ steps: ["start"], attempt: 1 }, config).then(
    () => "completed",
    (e: Error) => e.message,
  );
  const state = await graph.getState(config);
  const result = await graph.invoke({ steps: [], attempt: 2 }, config);
  const history = (await historyOf(graph, config)).map((s) => {
    const error = s.tasks.find((t: any) => t.error)?.error;
    return {
      values: s.values,
      step: s.metadata?.step,
      source: s.metadata?.source,
      ...(error ? { error: { message: error.message, name: error.name } } : {}),
    };
  });
  return { failed, paused: { values: state.values, next: state.next }, result, history };
}

compare("graphs and runs", {
  "an edgeless graph routed by a Command with ends: its drawing and both routes": {
    from: "pregel.test.ts: should support a simple edgeless graph",
    async run(lib) {
      await lib.loadLangChain?.(); // Interlude draws LangChain's Graph once @langchain/core is loaded
      const graph = edgeless(lib);
      return {
        mermaid: (await graph.getGraphAsync()).drawMermaid(),
        toB: await graph.invoke({ foo: "foo" }),
        toC: await graph.invoke({ foo: "" }),
      };
    },
  },
  "nodes returning lists: [Command] routes, [update, Command] applies both": {
    from: "pregel.test.ts: should support a simple edgeless graph",
    async run(lib) {
      const { Command } = lib;
      const graph = edgeless(lib, {
        a: (cmd) => [cmd],
        b: (update) => [update, new Command({ update: { bar: "test" } })],
      });
      return { toB: await graph.invoke({ foo: "foo" }), toC: await graph.invoke({ foo: "" }) };
    },
  },
  "an agent loop with a passthrough node: the last handleChainEnd is the graph's output": {
    from: "pregel.test.ts: can invoke",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const outcomes = ["tool:search_api:query", "tool:search_api:another", "finish:answer"];
      const State = Annotation.Root({
        input: Annotation(),
        agentOutcome: Annotation(),
        steps: Annotation({ reducer: (x: unknown[], y: unknown[]) => x.concat(y) }),
      });
      let calls = 0;
      const graph = new StateGraph(State)
        .addNode("agent", () => {
          const [kind, a, b] = outcomes[calls++]!.split(":");
          return { agentOutcome: kind === "finish" ? { returnValues: { answer: a } } : { tool: a, toolInput: b } };
        })
        .addNode("passthrough", () => ({}))
        .addNode("tools", (s: any) => ({ steps: [[s.agentOutcome, `result for ${s.agentOutcome.toolInput}`]] }))
        .addEdge(START, "agent")
        .addEdge("agent", "passthrough")
        .addConditionalEdges("passthrough", (s: any) => ("returnValues" in s.agentOutcome ? "__end__" : "tools"), [
          "tools",
          "__end__",
        ])
        .addEdge("tools", "agent")
        .compile();
      let last: unknown;
      const result = await graph.invoke(
        { input: "what is the weather in sf?" },
        { callbacks: [{ handleChainEnd: (outputs: unknown) => void (last = outputs) }] },
      );
      await awaitAllCallbacks();
      return { result, lastChainEnd: last };
    },
  },
  "a legacy { channels } state: a subgraph with other keys, a runnable passed through the state untouched": {
    from: "pregel.test.ts: can invoke a nested graph",
    async run(lib) {
      const { StateGraph, START, END } = lib;
      const inner = new StateGraph({ channels: { myKey: null, myOtherKey: null } })
        .addNode("up", (s: any) => ({ myKey: `${s.myKey} there`, myOtherKey: s.myOtherKey }))
        .addEdge(START, "up")
        .addEdge("up", END);
      let called = 0;
      const neverCalled = new RunnableLambda({ func: () => void called++ });
      const graph = new StateGraph({ channels: { myKey: null, neverCalled: null } })
        .addNode("inner", inner.compile())
        .addNode("side", (s: any) => ({ myKey: `${s.myKey} and back again` }))
        .addEdge("inner", "side")
        .addEdge(START, "inner")
        .addEdge("side", END)
        .compile();
      const result = await graph.invoke({ myKey: "my value", neverCalled });
      return { myKey: result.myKey, same: result.neverCalled === neverCalled, keys: Object.keys(result), called };
    },
  },
  "bulkUpdateState from __start__ (no __input__), per turn: thread 2's history (durability async)": {
    from: "pregel.test.ts: update as input",
    run: (lib) => updateAsInput(lib, "async", false),
  },
  "bulkUpdateState from __start__ (no __input__), per turn: thread 2's history (durability exit)": {
    from: "pregel.test.ts: update as input",
    run: (lib) => updateAsInput(lib, "exit", false),
  },
  "bulkUpdateState from __start__, then a Command of Sends as a node, then the Sends' updates": {
    from: "pregel.test.ts: batch update as input (map-reduce)",
    run: (lib) => batchUpdateAsInput(lib, false),
  },
  "a failed first node, then new input: the history shows the error and both attempts (durability async)": {
    from: "pregel.test.ts: checkpoint recovery async",
    run: (lib) => checkpointRecovery(lib, "async"),
  },
  "a failed first node, then new input: the history shows the error and both attempts (durability sync)": {
    from: "pregel.test.ts: checkpoint recovery async",
    run: (lib) => checkpointRecovery(lib, "sync"),
  },
  "a failed first node, then new input: the history shows the error and both attempts (durability exit)": {
    from: "pregel.test.ts: checkpoint recovery async",
    run: (lib) => checkpointRecovery(lib, "exit"),
  },
});

// --- pregel.test.ts: a subgraph paused beside a sibling ----------------------------------------

/**
 * inner (inner1, then inner2 behind interruptBefore) in parallel with outer1, both joined into
 * outer2; the subgraph a node of its own, or called from a function with `subgraphs: [inner]`.
 */
function parallelWithPausedSubgraph(lib: Runtime, inLambda: boolean) {
  const { Annotation, StateGraph, START } = lib;
  const myKey = () => Annotation({ reducer: (a: string, b: string) => a + b, default: () => "" });
  const inner = new StateGraph(Annotation.Root({ myKey: myKey(), myOtherKey: Annotation() }))
    .addNode("inner1", async (s: any) => {
      await sleep(20);
      return { myKey: "got here", myOtherKey: s.myKey };
    })
    .addNode("inner2", (s: any) => ({ myKey: " and there", myOtherKey: s.myKey }))
    .addEdge("inner1", "inner2")
    .addEdge("__start__", "inner1")
    .compile({ interruptBefore: ["inner2"] });
  const builder = new StateGraph(Annotation.Root({ myKey: myKey() }));
  if (inLambda) builder.addNode("inner", (s: any, config: any) => inner.invoke(s, config), { subgraphs: [inner] });
  else builder.addNode("inner", inner);
  return builder
    .addNode("outer1", () => ({ myKey: " and parallel" }))
    .addNode("outer2", () => ({ myKey: " and back again" }))
    .addEdge(START, "inner")
    .addEdge(START, "outer1")
    .addEdge(["inner", "outer1"], "outer2");
}

async function pausedBesideSibling(lib: Runtime, inLambda: boolean) {
  const out: Record<string, unknown> = {};
  for (const durability of ["async", "sync", "exit"]) {
    const builder = parallelWithPausedSubgraph(lib, inLambda);
    const checkpointer = new lib.MemorySaver();
    const app = builder.compile({ checkpointer });
    const config = { ...thread("1"), durability };
    const invoked = [await app.invoke({ myKey: "" }, config), await app.invoke(null, config)];
    const after = builder.compile({ checkpointer, interruptAfter: ["outer1"] });
    const streamed = { ...thread("5"), streamMode: "values", durability };
    const streams = [];
    for (const input of [{ myKey: "" }, null, null]) streams.push(await collect(await after.stream(input, streamed)));
    out[durability] = { invoked, streams };
  }
  return out;
}

compare("a subgraph paused beside a sibling", {
  "a subgraph node with interruptBefore, beside a sibling: invoke, resume, and values streams with interruptAfter": {
    from: "pregel.test.ts: nested graph interrupts parallel",
    run: (lib) => pausedBesideSibling(lib, false),
  },
  "the same with the subgraph called from a function given subgraphs: [inner]": {
    from: "pregel.test.ts: nested graph interrupts parallel: subgraph in lambda",
    run: (lib) => pausedBesideSibling(lib, true),
  },
});

// --- pregel.test.ts: messages, custom and tools streams ----------------------------------------

/**
 * p_one (a custom chunk, then a tool message from a runnable) -> p_two (a subgraph: c_one returns
 * a human and an AI message, c_two streams a model, writing each chunk as custom, then invokes it)
 * -> p_three (invokes a model, returns nothing).
 */
function messagesFromSubgraph(lib: Runtime) {
  const { MessagesAnnotation, StateGraph, START, END } = lib;
  const child = new StateGraph(MessagesAnnotation)
    .addNode("c_one", () => ({ messages: [new HumanMessage("f"), new AIMessage("b")] }))
    .addNode("c_two", async (_s: unknown, config: any) => {
      const model = new FakeChatModel([new AIMessage("1"), new AIMessage("2")]).withConfig({
        tags: ["c_two_chat_model"],
      });
      const stream = await model.stream("yo", { ...config, runName: "c_two_chat_model_stream" });
      for await (const chunk of stream) config.writer?.({ content: chunk.content, from: "subgraph" });
      return { messages: [await model.invoke("hey", config)] };
    })
    .addEdge(START, "c_one")
    .addEdge("c_one", "c_two")
    .addEdge("c_two", END);
  return new StateGraph(MessagesAnnotation)
    .addNode("p_one", async (_s: unknown, config: any) => {
      const toolExecutor = RunnableLambda.from(async () => [new ToolMessage({ content: "q", tool_call_id: "test" })]);
      config.writer?.({ from: "parent" });
      return { messages: await toolExecutor.invoke({}, config) };
    })
    .addNode("p_two", child.compile())
    .addNode("p_three", async (_s: unknown, config: any) => {
      await new FakeChatModel([new AIMessage("x")]).invoke("hey", config);
      return { messages: [] };
    })
    .addEdge(START, "p_one")
    .addEdge("p_one", "p_two")
    .addEdge("p_two", "p_three")
    .addEdge("p_three", END)
    .compile();
}

/** A messages-mode item as LangGraph's test reads it. */
const messageItem = ([message, m]: [BaseMessage, Record<string, any>]) => [
  message.getType(),
  message.content,
  {
    step: m.langgraph_step,
    node: m.langgraph_node,
    triggers: m.langgraph_triggers,
    path: m.langgraph_path,
    langgraph_checkpoint_ns: cutNs(m.langgraph_checkpoint_ns),
    checkpoint_ns: cutNs(m.checkpoint_ns),
    name: m.name,
    tags: m.tags,
    ls_integration: m.ls_integration,
  },
];

/** agent asks for the weather tool, then answers "Done." to its result; the tools are a ToolNode. */
function weatherAgent(lib: Runtime) {
  const { Annotation, StateGraph, messagesStateReducer } = lib;
  const { ToolNode } = prebuiltOf(lib);
  const weather = tool(
    async ({ query }: { query: string }) =>
      query.toLowerCase().includes("sf") ? "It's 60 degrees and foggy." : "It's 90 degrees and sunny.",
    { name: "weather", description: "the weather", schema: z.object({ query: z.string() }) },
  );
  const ask = new AIMessage({
    content: "",
    tool_calls: [{ id: "call_1234", args: { query: "SF" }, name: "weather", type: "tool_call" }],
  });
  const hasCalls = (m: any) => m?.getType?.() === "ai" && (m.tool_calls?.length ?? 0) > 0;
  return new StateGraph(Annotation.Root({ messages: Annotation({ reducer: messagesStateReducer, default: () => [] }) }))
    .addNode("agent", (s: any) => ({
      messages: [s.messages.at(-1)?.getType() === "tool" ? new AIMessage("Done.") : ask],
    }))
    .addNode("tools", new ToolNode([weather]))
    .addEdge("__start__", "agent")
    .addConditionalEdges("agent", (s: any) => (hasCalls(s.messages.at(-1)) ? "tools" : "__end__"))
    .addEdge("tools", "agent")
    .compile();
}

/** A node whose model answers { id: "123", content: "Output" }, streamed as messages. */
async function streamedIds(lib: Runtime, streamMessageId: "omit" | "first-only" | "always") {
  const { MessagesAnnotation, StateGraph, START, MemorySaver } = lib;
  const graph = new StateGraph(MessagesAnnotation)
    .addNode("one", async () => {
      const model = new FakeChatModel([new AIMessage({ id: "123", content: "Output" })], streamMessageId);
      return { messages: await model.invoke([new HumanMessage("Input")]) };
    })
    .addEdge(START, "one")
    .compile({ checkpointer: new MemorySaver() });
  const items = await collect(await graph.stream({ messages: [] }, { ...thread("1"), streamMode: "messages" }));
  const ids = [...new Set(items.map(([m]: [BaseMessage]) => m.id))];
  return { chunks: items.length, distinctIds: ids.length, is123: ids[0] === "123" };
}

compare("messages, custom and tools streams", {
  "messages from a subgraph's nodes and models, with their metadata, without subgraphs: true": {
    from: "pregel.test.ts: should work with streamMode messages and custom from within a subgraph",
    async run(lib) {
      const items = await collect(await messagesFromSubgraph(lib).stream({ messages: [] }, { streamMode: "messages" }));
      return items.map(messageItem);
    },
  },
  "custom chunks from the parent and from a subgraph, with subgraphs: true": {
    from: "pregel.test.ts: should work with streamMode messages and custom from within a subgraph",
    async run(lib) {
      const graph = messagesFromSubgraph(lib);
      const items = await collect(await graph.stream({ messages: [] }, { subgraphs: true, streamMode: "custom" }));
      return items.map(([ns, chunk]: [string[], unknown]) => [cutIds(ns), chunk]);
    },
  },
  'streamMode ["custom", "messages"]: both, each mode in order': {
    from: "pregel.test.ts: should work with streamMode messages and custom from within a subgraph",
    async run(lib) {
      const graph = messagesFromSubgraph(lib);
      const items = await collect(await graph.stream({ messages: [] }, { streamMode: ["custom", "messages"] }));
      // Which of a custom chunk and its token comes first is not fixed (LangGraph's test sorts too).
      const of = (mode: string) => items.filter(([m]: [string]) => m === mode).map(([, chunk]: [string, any]) => chunk);
      return { custom: of("custom"), messages: of("messages").map(messageItem) };
    },
  },
  "a streamed model answer whose chunks carry no id: one id for all its chunks": {
    from: "pregel.test.ts: `messages` inherits message ID - omit",
    run: (lib) => streamedIds(lib, "omit"),
  },
  "a streamed model answer whose first chunk carries its id: all its chunks carry that id": {
    from: "pregel.test.ts: `messages` inherits message ID - first-only",
    run: (lib) => streamedIds(lib, "first-only"),
  },
  "a streamed model answer whose chunks all carry its id: that id": {
    from: "pregel.test.ts: `messages` inherits message ID - always",
    run: (lib) => streamedIds(lib, "always"),
  },
  'streamMode ["updates", "tools"] on an agent loop with a ToolNode: tool start and end among the updates': {
    from: "pregel.test.ts: streamMode tools emits on_tool_start and on_tool_end for ToolNode runs",
    async run(lib) {
      const items = await collect(
        await weatherAgent(lib).stream({ messages: [] }, { streamMode: ["updates", "tools"] }),
      );
      return items.map(([mode, chunk]: [string, any]) =>
        mode === "tools"
          ? [mode, { ...chunk, output: chunk.output?.content }]
          : [
              mode,
              Object.fromEntries(
                Object.entries(chunk).map(([k, v]: [string, any]) => [
                  k,
                  v.messages.map((m: any) => [m.getType(), m.content]),
                ]),
              ),
            ],
      );
    },
  },
});

// --- pregel.stream.test.ts: v3 events --------------------------------------------------------------

/** outer_step adds 1, then the subgraph's inner_step adds 100. */
function outerWithInner(lib: Runtime) {
  const { Annotation, StateGraph, START, END } = lib;
  const State = Annotation.Root({ count: Annotation({ reducer: (a: number, b: number) => a + b, default: () => 0 }) });
  const inner = new StateGraph(State)
    .addNode("inner_step", () => ({ count: 100 }))
    .addEdge(START, "inner_step")
    .addEdge("inner_step", END)
    .compile();
  return new StateGraph(State)
    .addNode("outer_step", () => ({ count: 1 }))
    .addNode("subgraph", inner)
    .addEdge(START, "outer_step")
    .addEdge("outer_step", "subgraph")
    .addEdge("subgraph", END)
    .compile();
}

compare("streamEvents v3", {
  "every event has type 'event', a seq that grows, and a timestamp in the run's time": {
    from: "pregel.stream.test.ts: all events carry a timestamp / events have monotonically increasing seq numbers",
    async run(lib) {
      const before = Date.now();
      const events = await collect(await outerWithInner(lib).streamEvents({ count: 0 }, { version: "v3" }));
      const after = Date.now();
      return events.map((e: any, i: number) => ({
        type: e.type,
        seqGrows: i === 0 || e.seq > events[i - 1].seq,
        timestamp:
          typeof e.params.timestamp === "number" && e.params.timestamp >= before && e.params.timestamp <= after,
      }));
    },
  },
  "a run with a subgraph: each event's method, namespace and node, in order": {
    from: "pregel.stream.test.ts: emits events with nested namespaces for subgraph nodes",
    async run(lib) {
      const run = await outerWithInner(lib).streamEvents({ count: 0 }, { version: "v3" });
      const events = await collect(run);
      const method = (e: any) =>
        e.method === "values" || e.method === "updates" ? [e.method, e.params.data] : [e.method];
      return {
        events: events.map((e: any) => [...method(e), cutIds(e.params.namespace), e.params.node ?? null]),
        output: await run.output,
      };
    },
  },
});

// --- func.test.ts -------------------------------------------------------------------------------

/** An entrypoint with a cached `double` task, asking a question after each of six calls. */
async function cachedBetweenInterrupts(lib: Runtime, slow: boolean) {
  const { entrypoint, task, interrupt, Command, MemorySaver } = lib;
  const Cache = lib.InMemoryCache ?? (await import("@langchain/langgraph-checkpoint")).InMemoryCache;
  class SlowCache extends Cache {
    async get(...args: unknown[]) {
      await sleep(1);
      return super.get(...args);
    }
    async set(...args: unknown[]) {
      await sleep(10);
      return super.set(...args);
    }
  }
  let counter = 0;
  const double = task({ name: "double", cachePolicy: { ttl: 1000 } }, (x: number) => {
    counter += 1;
    return 2 * x;
  });
  const graph = entrypoint(
    { name: "graph", checkpointer: new MemorySaver(), cache: slow ? new SlowCache() : new Cache() },
    async () => {
      const values: unknown[] = [];
      for (const idx of [1, 1, 2, 2, 3, 3]) {
        const first = await double(idx);
        values.push([first, interrupt({ a: "boo" })]);
      }
      return { values };
    },
  );
  const runThread = async (id: string) => {
    let result = await graph.invoke({}, thread(id));
    for (const answer of ["a", "b", "c", "d", "e", "f"])
      result = await graph.invoke(new Command({ resume: answer }), thread(id));
    return { result, counter };
  };
  const one = await runThread("1");
  const two = await runThread("2");
  await graph.clearCache();
  const three = await runThread("3");
  return { one, two, three };
}

compare("functional API", {
  "a task that asks after an earlier task: resumed, the result uses both": {
    from: "func.test.ts: can interrupt tasks",
    async run(lib) {
      const { entrypoint, task, interrupt, Command, MemorySaver } = lib;
      const calls = { foo: 0, bar: 0, graph: 0 };
      const foo = task("foo", async (s: { a: string }) => {
        calls.foo++;
        return { a: `${s.a}foo` };
      });
      const bar = task("bar", async (s: { a: string }) => {
        calls.bar++;
        return { a: s.a + interrupt("Provide value for bar:") };
      });
      const graph = entrypoint(
        { name: "interruptGraph", checkpointer: new MemorySaver() },
        async (inputs: { a: string }) => {
          calls.graph++;
          return bar(await foo(inputs));
        },
      );
      const first = await graph.invoke({ a: "" }, thread("1"));
      const result = await graph.invoke(new Command({ resume: "bar" }), thread("1"));
      return { first: interrupts(first), result, calls };
    },
  },
  "an entrypoint's task asks: getState shows the question; resumed, the task runs again, the entrypoint too": {
    from: "func.test.ts: task with interrupts",
    async run(lib) {
      const { entrypoint, task, interrupt, Command, MemorySaver } = lib;
      const calls = { task: 0, graph: 0 };
      const ask = task("interruptTask", async () => {
        calls.task++;
        return interrupt("Please provide input") as string;
      });
      const graph = entrypoint({ name: "interruptGraph", checkpointer: new MemorySaver() }, async (input: string) => {
        calls.graph++;
        return input + (await ask());
      });
      const first = await graph.invoke("the correct ", thread("1"));
      const pausedTasks = (await graph.getState(thread("1"))).tasks.map((t: any) => [t.name, t.interrupts.length]);
      const result = await graph.invoke(new Command({ resume: "answer" }), thread("1"));
      const tasksAfter = (await graph.getState(thread("1"))).tasks.length;
      return { first: interrupts(first), pausedTasks, result, tasksAfter, calls };
    },
  },
  "a cached task between interrupts: cached across threads until clearCache": {
    from: "func.test.ts: mutliple interrupts with cache ({ slowCache: false })",
    run: (lib) => cachedBetweenInterrupts(lib, false),
  },
  "a cached task between interrupts, with a slow cache: the same": {
    from: "func.test.ts: mutliple interrupts with cache ({ slowCache: true })",
    run: (lib) => cachedBetweenInterrupts(lib, true),
  },
});

// --- python_port/graph_structure.test.ts ---------------------------------------------------------

compare("Command.PARENT", {
  "Command.PARENT updating a key only the parent has, from a subgraph node: result and state": {
    from: "python_port/graph_structure.test.ts: should handle parent commands",
    async run(lib) {
      const { Annotation, MessagesAnnotation, StateGraph, START, Command, MemorySaver } = lib;
      const subgraph = new StateGraph(MessagesAnnotation)
        .addNode("tool", () => new Command({ update: { user_name: "Meow" }, graph: Command.PARENT }))
        .addEdge(START, "tool")
        .compile();
      const graph = new StateGraph(
        Annotation.Root({
          ...MessagesAnnotation.spec,
          user_name: Annotation({ reducer: (_: string, b: string) => b, default: () => "" }),
        }),
      )
        .addNode("alice", subgraph)
        .addEdge(START, "alice")
        .compile({ checkpointer: new MemorySaver() });
      const human = new HumanMessage({ content: "get user name", id: "h1" });
      const result = await graph.invoke({ messages: [human] }, thread("1"));
      const state = await graph.getState(thread("1"));
      const view = (v: any) => ({ ...v, messages: v.messages.map((m: BaseMessage) => [m.getType(), m.content]) });
      return {
        result: view(result),
        values: view(state.values),
        next: state.next,
        metadata: { source: state.metadata.source, step: state.metadata.step, thread_id: state.metadata.thread_id },
        checkpoint_ns: state.config.configurable.checkpoint_ns,
      };
    },
  },
});

// --- pregel.validate.test.ts (through the public Pregel and compile) ---------------------------------

compare("what a Pregel or a compile refuses", {
  "a Pregel refuses a node named __interrupt__, unknown interrupt nodes, unsubscribed input, unknown stream channels": {
    from: "pregel.validate.test.ts: validateGraph",
    async run(lib) {
      const { Pregel, Channel } = pregelOf(lib);
      const { LastValue } = channelsOf(lib);
      const node = () =>
        Channel.subscribeTo("input")
          .pipe((x: number) => x + 1)
          .pipe(Channel.writeTo(["output"]));
      const channels = () => ({ input: new LastValue(), output: new LastValue() });
      const make = (options: Record<string, unknown>) => () =>
        new Pregel({
          nodes: { one: node() },
          channels: channels(),
          inputChannels: "input",
          outputChannels: "output",
          ...options,
        });
      return {
        valid: refused(make({})),
        interruptNode: refused(make({ nodes: { __interrupt__: node() } })),
        unsubscribedInput: refused(
          make({ channels: { ...channels(), other: new LastValue() }, inputChannels: "other" }),
        ),
        noneOfTheInputs: refused(
          make({ channels: { ...channels(), x: new LastValue(), y: new LastValue() }, inputChannels: ["x", "y"] }),
        ),
        interruptAfterUnknown: refused(make({ interruptAfter: ["nope"] })),
        interruptBeforeUnknown: refused(make({ interruptBefore: ["nope"] })),
        streamChannelUnknown: refused(make({ streamChannels: "nope" })),
      };
    },
  },
  "a Pregel whose node is a plain runnable, not a channel subscription": {
    from: "pregel.validate.test.ts: should throw an error if a node is not the correct type",
    async run(lib) {
      const { Pregel } = pregelOf(lib);
      const { LastValue } = channelsOf(lib);
      return refused(
        () =>
          new Pregel({
            nodes: { one: RunnableLambda.from((x: number) => x + 1) },
            channels: { input: new LastValue(), output: new LastValue() },
            inputChannels: "input",
            outputChannels: "output",
          }),
      );
    },
  },
  "compile refuses interruptBefore and interruptAfter naming nodes the graph does not have": {
    from: "pregel.validate.test.ts: should throw an error if 'interrupt after' nodes not in nodes map",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const builder = () =>
        new StateGraph(Annotation.Root({ v: Annotation() })).addNode("a", () => ({ v: 1 })).addEdge(START, "a");
      return {
        before: refused(() => builder().compile({ interruptBefore: ["nope"] })),
        after: refused(() => builder().compile({ interruptAfter: ["nope"] })),
        known: refused(() => builder().compile({ interruptBefore: ["a"], interruptAfter: ["a"] })),
      };
    },
  },
});

// --- Differences not documented in COMPATIBILITY.md ------------------------------------------------

compare("savers and updates as input", {
  // LangGraph.js calls the saver's getNextVersion for every channel version (its error fails the
  // run); Interlude numbers versions itself and refuses such a saver at compile.
  "a saver whose getNextVersion throws: the run rejects with its error": {
    from: "pregel.test.ts: should catch checkpoint errors",
    differs: "#refused-instead-of-ignored",
    async run(lib) {
      class Faulty extends lib.MemorySaver {
        getNextVersion(): number {
          throw new Error("Faulty get_next_version");
        }
      }
      return ending(() => onSaver(lib, new Faulty()).invoke({}, thread("1")), "Faulty get_next_version");
    },
  },
  // Both hand the saver the run's whole `configurable` (here `shouldThrow`), so a saver keyed on
  // a configurable value (a tenant, a flag) sees it.
  "a slow saver whose getTuple fails: the run rejects with its error, the next run on the thread works": {
    from: "pregel.test.ts: should wait for slow checkpointer errors",
    run: (lib) => slowFailingSaver(lib, "getTuple"),
  },
  "a slow saver whose put fails (durability async): the run rejects with its error, the next run works": {
    from: "pregel.test.ts: should wait for slow checkpointer errors",
    run: (lib) => slowFailingSaver(lib, "put"),
  },
  "a slow saver whose putWrites fails (two nodes in a step): the run rejects with its error, the next run works": {
    from: "pregel.test.ts: should wait for slow checkpointer errors",
    run: (lib) => slowFailingSaver(lib, "putWrites"),
  },
  // asNode "__input__": an input checkpoint, as a run's step -1 (or the next step) makes.
  "bulkUpdateState through __input__ and __start__ clones a thread's history (durability async)": {
    from: "pregel.test.ts: update as input",
    run: (lib) => updateAsInput(lib, "async"),
  },
  "bulkUpdateState through __input__ and __start__ clones a thread's history (durability sync)": {
    from: "pregel.test.ts: update as input",
    run: (lib) => updateAsInput(lib, "sync"),
  },
  "bulkUpdateState through __input__ and __start__ clones a thread's history (durability exit)": {
    from: "pregel.test.ts: update as input",
    run: (lib) => updateAsInput(lib, "exit"),
  },
  "bulkUpdateState through __input__, then a Command of Sends as a node, then the Sends' updates: the same history": {
    from: "pregel.test.ts: batch update as input (map-reduce)",
    run: (lib) => batchUpdateAsInput(lib, true),
  },
});
