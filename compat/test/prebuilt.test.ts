import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { CallbackManager } from "@langchain/core/callbacks/manager";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  isAIMessage,
  isBaseMessage,
  RemoveMessage,
  ToolMessage,
} from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { Runnable, RunnableLambda, RunnableSequence } from "@langchain/core/runnables";
import { DynamicTool, StructuredTool, tool } from "@langchain/core/tools";
import { z } from "zod";
import { z as z3 } from "zod/v3";
import { compare, prebuiltOf, type Runtime, refusal, sleep, zodOf } from "./harness.js";
import { view, views } from "./message-views.js";

/** createReactAgent of the runtime's own prebuilt entry. */
const make = (lib: Runtime, options: Record<string, unknown>) => prebuiltOf(lib).createReactAgent(options);
/** A ToolNode of the runtime's own prebuilt entry. */
const toolNode = (lib: Runtime, tools: unknown[], options?: Record<string, unknown>) =>
  new (prebuiltOf(lib).ToolNode)(tools, options);
/** `fn` once per version, as { v1, v2 }. */
const perVersion = async (fn: (version: string) => Promise<unknown>) => ({ v1: await fn("v1"), v2: await fn("v2") });
const PREBUILT = "prebuilt.test.ts";

/** A ToolNode's output (messages, Commands and Sends, in lists and updates) with each message viewed. */
function viewOutput(lib: Runtime, value: any): unknown {
  if (Array.isArray(value)) return value.map((v) => viewOutput(lib, v));
  if (isBaseMessage(value)) return view(value);
  if (value instanceof lib.Send) return { send: value.node, args: viewOutput(lib, value.args) };
  if (lib.isCommand(value)) {
    const { graph, goto, update } = value;
    return { command: { graph: graph ?? null, goto: viewOutput(lib, goto ?? []), update: viewOutput(lib, update) } };
  }
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, viewOutput(lib, v)]));
  return value ?? null;
}

type Call = [name: string, args: Record<string, unknown>, id: string];
/** One model turn: text, text and/or tool calls, or a message given back as it is. */
type Reply = string | BaseMessage | { content?: string | Array<Record<string, unknown>>; calls?: Call[] };
/** How a provider writes the tools it binds (LangGraph's fake model's toolStyle). */
type ToolStyle = "openai" | "anthropic" | "bedrock" | "google";

/** The name of a tool as a provider bound it, or a server tool's type. */
const boundName = (t: any): string => t.function?.name ?? t.name ?? t.toolSpec?.name ?? t.type;

/**
 * A chat model that answers from a script, by turn. `bindTools` binds the tools in a provider's
 * style (server tools, plain objects, as they are) with `withConfig`, as real providers do; the
 * model logs what each call was shown and the tools it was called with.
 */
class FakeModel extends BaseChatModel {
  /** What each model call was shown. */
  readonly seen: ReturnType<typeof view>[][] = [];
  /** The tools each call was made with, or null when none were bound. */
  readonly toolsSeen: (string[] | null)[] = [];

  constructor(
    readonly replies: Reply[],
    readonly options: { style?: ToolStyle; sleep?: number; structured?: unknown } = {},
  ) {
    super({});
  }

  _llmType() {
    return "fake";
  }

  override bindTools(tools: any[]): any {
    const client = tools.filter((t) => "name" in t);
    const server = tools.filter((t) => !("name" in t));
    const style = this.options.style ?? "openai";
    const dicts = client.map((t) =>
      style === "openai"
        ? { type: "function", function: { name: t.name } }
        : style === "bedrock"
          ? { toolSpec: { name: t.name } }
          : { name: t.name },
    );
    const bound = style === "google" ? [{ functionDeclarations: dicts }] : dicts;
    return this.withConfig({ tools: [...bound, ...server] } as never);
  }

  override withStructuredOutput(): any {
    return RunnableLambda.from(() => this.options.structured);
  }

  async _generate(messages: BaseMessage[], options: this["ParsedCallOptions"]): Promise<ChatResult> {
    const reply = this.replies[this.seen.length];
    this.seen.push(views(messages));
    const tools = (options as { tools?: any[] }).tools;
    this.toolsSeen.push(tools ? tools.flatMap((t) => t.functionDeclarations ?? [t]).map(boundName) : null);
    if (this.options.sleep) await sleep(this.options.sleep);
    if (reply === undefined) throw new Error("the script has no more replies");
    if (isBaseMessage(reply)) return { generations: [{ message: reply, text: "" }] };
    const { content = "", calls = [] } = typeof reply === "string" ? { content: reply } : reply;
    const tool_calls = calls.map(([n, args, id]) => ({ name: n, args, id, type: "tool_call" as const }));
    const message = new AIMessage({ content: content as string, tool_calls });
    return { generations: [{ message, text: typeof content === "string" ? content : "" }] };
  }
}

/** LangGraph's test tool, a StructuredTool subclass: "result for <query>", and fails on "error". */
class SearchAPI extends StructuredTool {
  name = "search_api";
  description = "A simple API that returns the input string.";
  schema = z.object({ query: z.string().describe("The query to search for.") });
  async _call({ query }: { query: string }) {
    if (query === "error") throw new Error("Error");
    return `result for ${query}`;
  }
}

/** The same with `responseFormat: "content_and_artifact"`: content and an artifact. */
class SearchAPIWithArtifact extends SearchAPI {
  override responseFormat = "content_and_artifact";
  override async _call() {
    return ["some response format", Buffer.from("123")] as never;
  }
}

/** A tool of a given name that answers `answer(args, runtime)`. */
const named = (name: string, answer: (args: any, runtime: any) => unknown, schema: z.ZodObject = z.object({})) =>
  tool(async (args: any, runtime: any) => answer(args, runtime), { name, description: name, schema });
const numbered = (name: string) =>
  tool(async ({ someVal }: { someVal: number }) => `${name}: ${someVal}`, {
    name,
    description: `${name} docstring.`,
    schema: z.object({ someVal: z.number() }),
  });
const hi = (text = "hi") => ({ messages: [new HumanMessage(text)] });
/** An AI message that calls tools, as the model's last turn given to a ToolNode. */
const calling = (...calls: Call[]) =>
  new AIMessage({ content: "", tool_calls: calls.map(([name, args, id]) => ({ name, args, id, type: "tool_call" })) });
/** A tool that hands the call over with a Command to the parent graph (`goto` a node, or a Send). */
const transfer = (lib: Runtime, to: string, { send = false, list = false, name = `transfer_to_${to}` } = {}) =>
  named(name, (_args, runtime) => {
    const message = new ToolMessage({ content: `Transferred to ${to}`, tool_call_id: runtime.toolCall.id, name });
    if (send) return new lib.Command({ goto: [new lib.Send(to, { messages: [message] })], graph: lib.Command.PARENT });
    return new lib.Command({ update: list ? [message] : { messages: [message] }, goto: to, graph: lib.Command.PARENT });
  });
const add = () =>
  tool(async ({ a, b }: { a: number; b: number }) => `${a + b}`, {
    name: "add",
    description: "Add two numbers",
    schema: z.object({ a: z.number(), b: z.number() }),
  });

compare("ToolNode", {
  "a ToolNode is a LangChain Runnable: batch, stream, withConfig, withRetry and a sequence take it": {
    from: `${PREBUILT}: ToolNode (a RunnableCallable)`,
    async run(lib) {
      const node = toolNode(lib, [new SearchAPI()]);
      const input = (query: string) => ({ messages: [calling(["search_api", { query }, `c-${query}`])] });
      const chunks: unknown[] = [];
      for await (const chunk of await node.stream(input("s"))) chunks.push(viewOutput(lib, chunk));
      const sequence = RunnableSequence.from([node, (out: { messages: ToolMessage[] }) => out.messages.length]);
      return {
        runnable: Runnable.isRunnable(node),
        batch: viewOutput(lib, await node.batch([input("a"), input("b")])),
        chunks,
        configured: viewOutput(lib, await node.withConfig({ runName: "my-tools" }).invoke(input("c"))),
        retried: viewOutput(lib, await node.withRetry({ stopAfterAttempt: 2 }).invoke(input("d"))),
        sequence: await sequence.invoke(input("e")),
      };
    },
  },

  "an unknown tool and a failing one become error ToolMessages: a list for a list, { messages } for a state": {
    from: `${PREBUILT}: ToolNode: Should support graceful error handling`,
    async run(lib) {
      const node = toolNode(lib, [new SearchAPI()]);
      const calls: Call[] = [
        ["badtool", {}, "testid"],
        ["search_api", { query: "error" }, "c2"],
        ["search_api", { query: "foo" }, "c3"],
      ];
      return {
        list: viewOutput(lib, await node.invoke([calling(...calls)])),
        state: viewOutput(lib, await node.invoke({ messages: [calling(...calls)] })),
      };
    },
  },

  "tools read the state as runtime.state: a zod state's own key in a graph, and the input of a direct invoke": {
    from: `${PREBUILT}: ToolNode: forwards graph state to tools via runtime.state (graph node)`,
    async run(lib) {
      const { MessagesZodState } = zodOf(lib);
      const seen: unknown[] = [];
      const getUserInfo = named("get_user_info", (_args, runtime) => {
        seen.push(runtime.state.userId);
        return runtime.state.userId === "user_123" ? "User is John Smith" : "Unknown user";
      });
      // As LangGraph's test writes it: zod 3, LangGraph's MessagesZodState being a zod 3 object.
      const AgentState = z3.object({ ...MessagesZodState.shape, userId: z3.string() });
      const graph = new lib.StateGraph(AgentState)
        .addNode("tools", toolNode(lib, [getUserInfo]))
        .addEdge("__start__", "tools")
        .compile();
      const input = { messages: [calling(["get_user_info", {}, "call_user_info"])], userId: "user_123" };
      const out = await graph.invoke(input);
      const direct = await toolNode(lib, [getUserInfo]).invoke({ ...input, userId: "user_456" });
      return { seen, messages: views(out.messages), userId: out.userId, direct: viewOutput(lib, direct) };
    },
  },

  "getCurrentTaskInput(config) in a tool gives the node's state": {
    from: `${PREBUILT}: ToolNode: still exposes state via getCurrentTaskInput(config) for backwards compatibility`,
    async run(lib) {
      const { MessagesZodState } = zodOf(lib);
      let seen: unknown;
      const getUserInfo = named("get_user_info", (_args, config) => {
        const state = lib.getCurrentTaskInput(config);
        seen = { userId: state.userId, messages: views(state.messages) };
        return "ok";
      });
      const graph = new lib.StateGraph(z3.object({ ...MessagesZodState.shape, userId: z3.string() }))
        .addNode("tools", toolNode(lib, [getUserInfo]))
        .addEdge("__start__", "tools")
        .compile();
      await graph.invoke({ messages: [calling(["get_user_info", {}, "call_user_info"])], userId: "user_123" });
      return seen;
    },
  },

  // The node itself is not traced: a CallbackManager passed to the lambda around it sees the
  // lambda's run and the tool's, no more.
  "invoked inside a RunnableLambda run with a CallbackManager: the lambda's run and the tool's are reported": {
    from: `${PREBUILT}: ToolNode: Should work when nested with a callback manager passed`,
    async run(lib) {
      const node = toolNode(lib, [new SearchAPI()]);
      const wrapper = RunnableLambda.from(async () =>
        node.invoke([calling(["search_api", { query: "foo" }, "testid"])]),
      );
      const started: string[] = [];
      const callbacks = new CallbackManager();
      callbacks.addHandler(
        BaseCallbackHandler.fromMethods({
          handleChainStart: (chain, _i, _r, _p, _t, _m, _type, runName) =>
            void started.push(`chain ${runName ?? chain.id.at(-1)}`),
          handleToolStart: (t, _i, _r, _p, _t2, _m, runName) => void started.push(`tool ${runName ?? t.id.at(-1)}`),
        }),
      );
      const out = await wrapper.invoke({}, { callbacks });
      return { started, out: viewOutput(lib, out) };
    },
  },

  // The model node checks for its own message by identity, as LangGraph's test does.
  "in a StateGraph after a model node: the loop ends when the model answers; a key never set stays out": {
    from: `${PREBUILT}: ToolNode: Should work in a state graph`,
    async run(lib) {
      const { Annotation, StateGraph, messagesStateReducer } = lib;
      const State = Annotation.Root({
        messages: Annotation({ reducer: messagesStateReducer, default: () => [] }),
        prop2: Annotation(),
      });
      const weather = named(
        "weather",
        ({ query }) =>
          query.toLowerCase().includes("sf") ? "It's 60 degrees and foggy." : "It's 90 degrees and sunny.",
        z.object({ query: z.string() }),
      );
      const asked = calling(["weather", { query: "SF" }, "call_1234"]);
      const answered = new AIMessage({ content: "FOO" });
      const graph = new StateGraph(State)
        .addNode("agent", (s: { messages: BaseMessage[] }) => ({
          messages: [s.messages.includes(asked) ? answered : asked],
        }))
        .addNode("tools", toolNode(lib, [weather]))
        .addEdge("__start__", "agent")
        .addConditionalEdges("agent", (s: { messages: BaseMessage[] }) => {
          const last = s.messages.at(-1);
          return last && isAIMessage(last) && last.tool_calls?.length ? "tools" : "__end__";
        })
        .addEdge("tools", "agent")
        .compile();
      const out = await graph.invoke({ messages: [] });
      return { keys: Object.keys(out), messages: views(out.messages) };
    },
  },

  "tools returning Commands, given a state: plain results as { messages } updates, Commands as they are, in call order":
    {
      from: `${PREBUILT}: ToolNode with Commands: can handle tools returning commands with dict input`,
      async run(lib) {
        const bob = transfer(lib, "bob");
        // LangGraph's test has an async twin, which in JavaScript differs only by its name.
        const asyncBob = transfer(lib, "bob", { name: "async_transfer_to_bob" });
        const run = (tools: unknown[], ...calls: Call[]) =>
          toolNode(lib, tools)
            .invoke({ messages: [calling(...calls)] })
            .then((out: unknown) => viewOutput(lib, out));
        return {
          mixed: await run([add(), bob], ["add", { a: 1, b: 2 }, "1"], ["transfer_to_bob", {}, "2"]),
          single: await run([bob], ["transfer_to_bob", {}, "1"]),
          several: await run([bob, asyncBob], ["transfer_to_bob", {}, "1"], ["async_transfer_to_bob", {}, "2"]),
        };
      },
    },

  "tools returning Commands, given a list of messages: plain results as lists, Commands with list updates as they are":
    {
      from: `${PREBUILT}: ToolNode with Commands: can handle tools returning commands with array input`,
      async run(lib) {
        const bob = transfer(lib, "bob", { list: true });
        const run = (tools: unknown[], ...calls: Call[]) =>
          toolNode(lib, tools)
            .invoke([calling(...calls)])
            .then((out: unknown) => viewOutput(lib, out));
        return {
          mixed: await run([add(), bob], ["add", { a: 1, b: 2 }, "1"], ["transfer_to_bob", {}, "2"]),
          single: await run([bob], ["transfer_to_bob", {}, "1"]),
        };
      },
    },

  "tools returning parent Commands of Sends: merged into one Command with every Send": {
    from: `${PREBUILT}: ToolNode with Commands: should handle parent commands with Send`,
    async run(lib) {
      const tools = [transfer(lib, "alice", { send: true }), transfer(lib, "bob", { send: true })];
      const out = await toolNode(lib, tools).invoke([
        calling(["transfer_to_alice", {}, "1"], ["transfer_to_bob", {}, "2"]),
      ]);
      return viewOutput(lib, out);
    },
  },

  "a tool throwing GraphInterrupt: the node's invoke rejects with it, not an error ToolMessage": {
    from: `${PREBUILT}: ToolNode should raise GraphInterrupt: should raise GraphInterrupt`,
    throws: true,
    run: (lib) =>
      toolNode(lib, [
        named("tool_with_interrupt", () => {
          throw new lib.GraphInterrupt();
        }),
      ])
        .invoke({ messages: [calling(["tool_with_interrupt", {}, "testid"])] })
        .then((out: unknown) => viewOutput(lib, out)),
  },
});

/**
 * A subgraph ("duper" echoes the messages, then `childSecond`, paused before it) as the node
 * "duper" of a graph whose "duper2" echoes them: run until the pause, then resumed; each state's
 * messages viewed. Re-sent messages must not be duplicated.
 */
async function dupers(lib: Runtime, State: unknown, childSecond: (state: { messages: BaseMessage[] }) => unknown) {
  const { StateGraph, MemorySaver } = lib;
  const echo = ({ messages }: { messages: BaseMessage[] }) => ({ messages });
  const child = new StateGraph(State)
    .addNode("duper", echo)
    .addNode("duper2", childSecond)
    .addEdge("__start__", "duper")
    .addEdge("duper", "duper2")
    .compile({ interruptBefore: ["duper2"] });
  const graph = new StateGraph(State)
    .addNode("duper", child)
    .addNode("duper2", echo)
    .addEdge("__start__", "duper")
    .addEdge("duper", "duper2")
    .compile({ checkpointer: new MemorySaver() });
  const config = { configurable: { thread_id: "1" } };
  const paused = await graph.invoke(hi("should be only one"), config);
  const done = await graph.invoke(null, config);
  return { paused: views(paused.messages), done: views(done.messages) };
}

compare("Messages state", {
  "MessagesAnnotation: a subgraph passing the messages on, paused and resumed, duplicates none": {
    from: `${PREBUILT}: MessagesAnnotation: should assign ids properly and avoid duping added messages`,
    async run(lib) {
      const echo = ({ messages }: { messages: BaseMessage[] }) => ({ messages });
      return dupers(lib, lib.MessagesAnnotation, echo);
    },
  },

  "MessagesZodState: the same with a child adding one; a RemoveMessage by the id the state gave; a replacement by id in place":
    {
      from: `${PREBUILT}: MessagesZodState: should assign ids properly and avoid duping added messages`,
      async run(lib) {
        const { StateGraph } = lib;
        const { MessagesZodState } = zodOf(lib);
        const { paused, done } = await dupers(lib, MessagesZodState, () => ({ messages: [new AIMessage("duper2")] }));

        // "should handle message reducers correctly": the node re-sends the state and adds one.
        const removing = new StateGraph(MessagesZodState)
          .addNode("add", ({ messages }: { messages: BaseMessage[] }) => ({
            messages: [...messages, new HumanMessage("new message")],
          }))
          .addNode("remove", ({ messages }: { messages: BaseMessage[] }) => ({
            messages: [new RemoveMessage({ id: messages[0]!.id ?? "" })],
          }))
          .addEdge("__start__", "add")
          .addEdge("add", "remove")
          .compile();
        const removed = await removing.invoke({ messages: [new HumanMessage({ id: "test-id", content: "original" })] });

        // "should handle array updates correctly"
        const updating = new StateGraph(MessagesZodState)
          .addNode("add", () => ({
            messages: [
              new HumanMessage({ id: "msg1", content: "message 1" }),
              new HumanMessage({ id: "msg2", content: "message 2" }),
            ],
          }))
          .addNode("update", ({ messages }: { messages: BaseMessage[] }) => ({
            messages: [new HumanMessage({ id: messages[0]!.id!, content: "updated" })],
          }))
          .addEdge("__start__", "add")
          .addEdge("add", "update")
          .compile();
        const updated = await updating.invoke({ messages: [] });
        return {
          paused,
          done,
          removed: views(removed.messages),
          updated: updated.messages.map((m: BaseMessage) => [m.id, m.content]),
        };
      },
    },

  "messagesStateReducer: the right side deduped by id, and applied in order (a removal, then two writes)": {
    from: `${PREBUILT}: messagesStateReducer: should apply right-side messages in order`,
    async run(lib) {
      const { messagesStateReducer } = lib;
      const foo = (content: string) => new HumanMessage({ id: "foo", content });
      const contents = (messages: BaseMessage[]) => messages.map((m) => [m.id, m.content]);
      return {
        replaced: contents(messagesStateReducer([foo("bar")], [foo("bar2")])),
        dupesOnTheRight: contents(messagesStateReducer([], [foo("bar"), foo("bar2")])),
        inOrder: contents(
          messagesStateReducer([foo("bar3")], [new RemoveMessage({ id: "foo" }), foo("bar"), foo("bar2")]),
        ),
      };
    },
  },
});

compare("createReactAgent (prebuilt.test.ts)", {
  "a model already bound to the tools (openai, anthropic, bedrock, google styles): used as it is; a count or name mismatch refused":
    {
      from: `${PREBUILT}: createReactAgent with bound tools: Can use bound tools and validate tool matching with %s style`,
      async run(lib) {
        const [tool1, tool2] = [numbered("tool1"), numbered("tool2")];
        const results: Record<string, unknown> = {};
        for (const style of ["openai", "anthropic", "bedrock", "google"] as const) {
          const calls: Call[] = [
            ["tool1", { someVal: 2 }, "some 1"],
            ["tool2", { someVal: 2 }, "some 2"],
          ];
          const llm = new FakeModel([{ calls }, "result"], { style });
          const out = await make(lib, { llm: llm.bindTools([tool1, tool2]), tools: [tool1, tool2] }).invoke(hi());
          const mismatch = (bound: unknown[], tools: unknown[]) =>
            refusal(() => make(lib, { llm: new FakeModel(["x"], { style }).bindTools(bound), tools }).invoke(hi()));
          results[style] = {
            bound: llm.toolsSeen,
            messages: views(out.messages),
            count: await mismatch([tool1], [tool1, tool2]),
            missing: await mismatch([tool1], [tool2]),
          };
        }
        return results;
      },
    },

  "server tools (plain objects) among the tools: bound with the client tools, a model bound with both used as it is": {
    from: `${PREBUILT}: _shouldBindTools: should handle bindTool with server tools`,
    async run(lib) {
      const tool1 = numbered("tool1");
      const server = { type: "web_search_preview" };
      const script = (): Reply[] => [{ calls: [["tool1", { someVal: 1 }, "c1"]] }, "done"];
      // Each part on its own, so that one refused does not hide the others.
      const run = (llm: FakeModel, bound?: unknown[]) =>
        refusal(async () => {
          const agent = make(lib, { llm: bound ? llm.bindTools(bound) : llm, tools: [tool1, server] });
          const out = await agent.invoke(hi());
          return { bound: llm.toolsSeen, messages: views(out.messages) };
        });
      const mismatch = (bound: unknown[]) => run(new FakeModel(["x"]), bound);
      return {
        unbound: await run(new FakeModel(script())),
        prebound: await run(new FakeModel(script()), [tool1, server]),
        clientOnly: await mismatch([tool1]),
        serverOnly: await mismatch([server]),
      };
    },
  },

  'a tool with responseFormat "content_and_artifact": its ToolMessage has the content and the artifact': {
    from: `${PREBUILT}: createReactAgent with prompt/state modifier: Works with tools that return content_and_artifact response format`,
    run: (lib) =>
      perVersion(async (version) => {
        const llm = new FakeModel([{ content: "result1", calls: [["search_api", { query: "foo" }, "c1"]] }, "result2"]);
        const agent = make(lib, { llm, tools: [new SearchAPIWithArtifact()], version, prompt: "Be helpful." });
        return views((await agent.invoke(hi("Hello Input!"))).messages);
      }),
  },

  "a RunnableToolLike (RunnableLambda.asTool) as a tool: bound and run like any other": {
    from: `${PREBUILT}: createReactAgent with prompt/state modifier: Can accept RunnableToolLike`,
    run: (lib) =>
      perVersion(async (version) => {
        const search = new SearchAPI();
        const asTool = RunnableLambda.from(async (input: { query: string }, config: any) =>
          search.invoke(input, config),
        ).asTool({ name: search.name, description: search.description, schema: search.schema });
        const llm = new FakeModel([{ content: "result1", calls: [["search_api", { query: "foo" }, "c1"]] }, "result2"]);
        const out = await make(lib, { llm, tools: [asTool], version, messageModifier: "Be helpful." }).invoke(hi());
        return { bound: llm.toolsSeen, messages: views(out.messages) };
      }),
  },

  // The model takes 500 ms and ignores the signal, which aborts after 100: the run must reject,
  // whether the model was to call a tool or to answer, and nothing may run once the model
  // answers. (The error's class differs: see COMPATIBILITY.md, "Error classes"; when it rejects
  // differs: the next scenario.)
  "a passed AbortSignal: the run rejects, and the tools never run": {
    from: `${PREBUILT}: createReactAgent with prompt/state modifier: Should respect a passed signal`,
    async run(lib) {
      const results = [];
      for (const reply of [{ calls: [["search_api", { query: "foo" }, "c1"]] as Call[] }, "a direct answer"]) {
        const ran: string[] = [];
        const search = named(
          "search_api",
          ({ query }) => {
            ran.push(query);
            return "found";
          },
          z.object({ query: z.string() }),
        );
        const llm = new FakeModel([reply, "result2"], { sleep: 500 });
        const agent = make(lib, { llm, tools: [search], prompt: "Be helpful." });
        const controller = new AbortController();
        setTimeout(() => controller.abort(), 100);
        const outcome = await agent.invoke(hi(), { signal: controller.signal }).then(
          () => "resolved",
          () => "rejected",
        );
        await sleep(700);
        results.push({ outcome, modelCalls: llm.seen.length, ran });
      }
      return results;
    },
  },

  "a passed AbortSignal: LangGraph.js rejects at once, Interlude once the running model call is done": {
    from: `${PREBUILT}: createReactAgent with prompt/state modifier: Should respect a passed signal`,
    differs: "#a-cancelled-run-waits-for-its-running-nodes",
    async run(lib) {
      const llm = new FakeModel(["a direct answer"], { sleep: 500 });
      const agent = make(lib, { llm, tools: [] });
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 100);
      const started = Date.now();
      const outcome = await agent.invoke(hi(), { signal: controller.signal }).then(
        () => "resolved",
        () => "rejected",
      );
      return { outcome, beforeTheModelAnswered: Date.now() - started < 400 };
    },
  },

  "interrupt() in a tool: paused after the model's call, the answer is the tool's result; also with handleToolErrors false":
    {
      from: `${PREBUILT}: createReactAgent with ToolNode: should work with interrupt()`,
      run: (lib) =>
        perVersion(async (version) => {
          const results = [];
          for (const handleToolErrors of [true, false]) {
            const review = named("tool_with_interrupt", () => lib.interrupt("Please review."));
            const llm = new FakeModel([{ calls: [["tool_with_interrupt", {}, "testid"]] }, "Final response"]);
            const tools = handleToolErrors ? [review] : toolNode(lib, [review], { handleToolErrors });
            const agent = make(lib, { llm, tools, version, checkpointer: new lib.MemorySaver() });
            const config = { configurable: { thread_id: "1" } };
            const paused = await agent.invoke(hi("Hello Input!"), config);
            const done = await agent.invoke(new lib.Command({ resume: "Approved." }), config);
            results.push({
              asked: paused.__interrupt__?.map((i: { value: unknown }) => i.value),
              paused: views(paused.messages),
              done: views(done.messages),
            });
          }
          return results;
        }),
    },

  // The model gives back the very message it gave before (same id): the reducer replaces it in
  // place, the last message is then the tool's, and the run ends.
  "inherit task context: messages given as a string, the tool reads runtime.state; a model repeating its message ends the run":
    {
      from: `${PREBUILT}: createReactAgent: inherit task context`,
      run: (lib) =>
        perVersion(async (version) => {
          const parrot = named(
            "test_tool",
            ({ prefix }, runtime) =>
              `[tool] ${prefix}: ${runtime.state.messages.map((m: BaseMessage) => m.text).join(", ")}`,
            z.object({ prefix: z.string() }),
          );
          const again = new AIMessage({
            content: "ai",
            tool_calls: [{ name: "test_tool", args: { prefix: "parrot" }, id: "testid" }],
          });
          const llm = new FakeModel([again, again, again]);
          const out = await make(lib, { llm, tools: [parrot], version }).invoke({ messages: "input" });
          return { modelCalls: llm.seen.length, messages: views(out.messages) };
        }),
    },

  "includeAgentName left out: the model sees the agent's earlier answer with its name, untagged": {
    from: `${PREBUILT}: createReactAgent agent name options: Sets name when includeAgentName is undefined`,
    async run(lib) {
      const llm = new FakeModel(["Hello, how can I help?", "Hmm, I'm not sure about that."]);
      const agent = make(lib, { llm, tools: [new SearchAPI()], name: "test agent" });
      const first = await agent.invoke(hi("Hello!"));
      const second = await agent.invoke({ messages: [new HumanMessage("Hello!"), first.messages.at(-1)] });
      return { saw: llm.seen, messages: views(second.messages) };
    },
  },

  // agentName.test.ts tests the private helpers; withAgentName, exported by both, is what runs them.
  'withAgentName(model, "inline"): names written into what the model reads, taken out of what it answers': {
    from: "prebuilt/agentName.test.ts: _addInlineAgentName, _removeInlineAgentName",
    async run(lib) {
      const image = { type: "image", image_url: "http://example.com/image.jpg" };
      const file = { type: "file", file_url: "http://example.com/document.pdf" };
      const tagged = (text: string) => ({ type: "text", text: `<name>assistant</name><content>${text}</content>` });
      const llm = new FakeModel([
        "<name>assistant</name><content>This is\na multiline\nmessage</content>",
        { content: [tagged("Hello world"), image] },
        { content: [tagged(""), image, file] },
        "no tags here",
        "",
      ]);
      const wrapped = prebuiltOf(lib).withAgentName(llm, "inline");
      const history = [
        new HumanMessage("Hello"),
        new AIMessage("nameless"),
        new AIMessage({ content: "Hello world", name: "assistant" }),
        new AIMessage({ content: [{ type: "text", text: "Hello world" }, image], name: "assistant" }),
        new AIMessage({ content: [image, file], name: "assistant" }),
      ];
      const answers = [];
      for (let turn = 0; turn < 5; turn++) answers.push(view(await wrapped.invoke(history)));
      const other = await refusal(() => prebuiltOf(lib).withAgentName(llm, "other"));
      return { saw: llm.seen[0], answers, other };
    },
  },

  "a zod stateSchema (messages with MessagesZodMeta): a tool's Command setting another key, no ToolMessage; without messages refused":
    {
      from: `${PREBUILT}: createReactAgent with prompt/state modifier: Allows custom Zod 4 state schema`,
      run: (lib) =>
        perVersion(async (version) => {
          const { registry, MessagesZodMeta } = zodOf(lib);
          const setFoo = named("test", () => new lib.Command({ update: { foo: "baz" } }));
          const llm = new FakeModel([{ content: "result1", calls: [["test", {}, "test1234"]] }, "result2"]);
          const stateSchema = z.object({
            messages: z.custom<BaseMessage[]>().register(registry, MessagesZodMeta),
            foo: z.string(),
          });
          const out = await make(lib, { llm, tools: [setFoo], version, stateSchema }).invoke({
            messages: [],
            foo: "bar",
          });
          const refused = await refusal(() =>
            make(lib, { llm: new FakeModel([]), tools: [], version, stateSchema: z.object({ flag: z.boolean() }) }),
          );
          return { foo: out.foo, saw: llm.seen, messages: views(out.messages), refused };
        }),
    },

  "preModelHook and postModelHook with a zod state: llmInputMessages shown as given, a registered reducer folds the hook's list":
    {
      from: `${PREBUILT}: createReactAgent with hooks: preModelHook + Zod 4 + postModelHook`,
      async run(lib) {
        const { registry, MessagesZodMeta } = zodOf(lib);
        const llm = new FakeModel([new AIMessage({ id: "0", content: "Hello!" })]);
        const agent = make(lib, {
          llm,
          tools: [],
          preModelHook: () => ({ llmInputMessages: [new HumanMessage({ id: "human", content: "pre-hook" })] }),
          stateSchema: z.object({
            messages: z.custom<BaseMessage[]>().register(registry, MessagesZodMeta),
            flag: z.boolean().register(registry, {
              reducer: {
                fn: (a: boolean, b: boolean[]) => [a, ...b].reduce((acc, curr) => acc || curr, false),
                schema: z.array(z.boolean()),
              },
              default: () => false,
            }),
          }),
          postModelHook: () => ({ flag: [false, false, true] }),
        });
        const out = await agent.invoke(hi("hi?"));
        return { keys: Object.keys(out).sort(), flag: out.flag, saw: llm.seen, messages: views(out.messages) };
      },
    },

  "responseFormat whose structured output is null: an error saying the parser returned null": {
    from: `${PREBUILT}: createReactAgent with structured responses: Throws when structured output parser returns null`,
    run: (lib) =>
      refusal(() =>
        make(lib, {
          llm: new FakeModel(['{"items": ["apple", "banana"]}'], { structured: null }),
          tools: [],
          responseFormat: z.object({ items: z.array(z.string()), cartStatus: z.string() }),
        }).invoke(hi("What's in my cart?")),
      ),
  },

  "a dynamic model: chosen from the state (each with its own tool), given the state itself; its error fails the run": {
    from: `${PREBUILT}: Dynamic Model: should handle dynamic model that changes available tools based on state`,
    async run(lib) {
      const [toolA, toolB] = ["tool_a", "tool_b"].map((name) =>
        named(name, ({ x }) => `${name}: ${x}`, z.object({ x: z.number() })),
      );
      const modelA = new FakeModel([{ calls: [["tool_a", { x: 1 }, "1"]] }, "use_a please"]);
      const modelB = new FakeModel([{ calls: [["tool_b", { x: 2 }, "1"]] }, "use_b please"]);
      const given: unknown[] = [];
      const llm = (state: { messages: BaseMessage[]; custom_field?: string }) => {
        given.push({ texts: state.messages.map((m) => m.text), custom_field: state.custom_field ?? null });
        if (state.messages.at(-1)?.text.includes("fail")) throw new Error("Dynamic model failed");
        return state.messages.some((m) => m.text.includes("use_b")) ? modelB : modelA;
      };
      const stateSchema = lib.Annotation.Root({ ...lib.MessagesAnnotation.spec, custom_field: lib.Annotation() });
      const agent = make(lib, { llm, tools: [toolA, toolB], stateSchema });
      const a = await agent.invoke({ messages: "use_a", custom_field: "test_value" });
      const b = await agent.invoke({ messages: "use_b" });
      const failed = await refusal(() => agent.invoke(hi("fail now")));
      return { given, a: views(a.messages), b: views(b.messages), failed, bound: [modelA.toolsSeen, modelB.toolsSeen] };
    },
  },
});

// --- The first prebuilt agents (deprecated in LangGraph.js, still exported) -------------------

/** A tool that answers `result for <query>`. */
const searchTool = () =>
  tool(async ({ query }: { query: string }) => `result for ${query}`, {
    name: "search_api",
    description: "Looks the query up.",
    schema: z.object({ query: z.string() }),
  });

compare("prebuilt: ToolExecutor, createAgentExecutor, createFunctionCallingExecutor", {
  "ToolExecutor runs the tool an invocation names; an unknown name gives a message": {
    from: "prebuilt.test.ts: ToolExecutor (pregel.test.ts: MessageGraph can invoke a single message)",
    async run(lib) {
      const { ToolExecutor } = prebuiltOf(lib);
      const executor = new ToolExecutor({ tools: [searchTool()] });
      const custom = new ToolExecutor({ tools: [searchTool()], invalidToolMsgTemplate: "no {requestedToolName}" });
      return {
        known: await executor.invoke({ tool: "search_api", toolInput: { query: "owls" } }),
        unknown: await executor.invoke({ tool: "weather", toolInput: {} }),
        custom: await custom.invoke({ tool: "weather", toolInput: {} }),
        batch: await executor.batch([
          { tool: "search_api", toolInput: { query: "a" } },
          { tool: "search_api", toolInput: { query: "b" } },
        ]),
      };
    },
  },

  "createAgentExecutor runs the agent's actions until it finishes, recording each step": {
    from: "pregel.test.ts: Can invoke createAgentExecutor",
    async run(lib) {
      const { createAgentExecutor } = prebuiltOf(lib);
      let calls = 0;
      const agentRunnable = RunnableLambda.from((state: { input: string; steps: unknown[] }) => {
        calls += 1;
        return state.steps.length < 2
          ? { tool: "search_api", toolInput: { query: `${state.input} ${state.steps.length}` }, log: "" }
          : { returnValues: { answer: `done after ${state.steps.length}` }, log: "" };
      });
      const app = createAgentExecutor({ agentRunnable, tools: [searchTool()] });
      const result = await app.invoke({ input: "owls" });
      return { result, calls, nodes: Object.keys(app.getGraph().nodes).sort() };
    },
  },

  "createFunctionCallingExecutor: a model without bind() is refused; one with it calls its functions": {
    from: "prebuilt.test.ts: createFunctionCallingExecutor",
    async run(lib) {
      const { createFunctionCallingExecutor } = prebuiltOf(lib);
      const refused = await refusal(() => createFunctionCallingExecutor({ model: {}, tools: [searchTool()] }));
      const bound: unknown[] = [];
      let turn = 0;
      const model = {
        bind(args: { functions: Array<{ name: string }> }) {
          bound.push(args.functions.map((f) => f.name));
          return RunnableLambda.from(() =>
            turn++ === 0
              ? new AIMessage({
                  content: "",
                  additional_kwargs: { function_call: { name: "search_api", arguments: "owls" } },
                })
              : new AIMessage("owls are birds"),
          );
        },
      };
      // The executor passes the call's arguments JSON-encoded: a string tool takes them as they are.
      const lookup = new DynamicTool({
        name: "search_api",
        description: "Looks up.",
        func: async (q) => `result for ${q}`,
      });
      const app = createFunctionCallingExecutor({ model, tools: [lookup] });
      const result = await app.invoke({ messages: [new HumanMessage("what are owls?")] });
      return { refused: "refused" in refused, bound, messages: views(result.messages) };
    },
  },
});
