/**
 * More of LangGraph.js's prebuilt.test.ts, prebuilt/agentName.test.ts, zod_state.test.ts and
 * graph.test.ts: the behaviours those tests check that the other compat files do not restate. Prompts on an empty state, zod 3 agent states, every agent drawing, dynamic
 * models with prompts and hooks, v2's parallel calls streamed, models given wrapped (sequences,
 * withConfig, configurable models), the agent's own tools node, toolsCondition, reducers whose
 * update type differs from their value's, the models createReactAgent takes where LangGraph.js
 * refuses them (COMPATIBILITY.md), and what a drawing shows of a node.
 */
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { RunnableLambda, RunnableSequence } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { z as z3 } from "zod/v3";
import { collect, compare, prebuiltOf, type Runtime, refusal, zodOf } from "./harness.js";
import { type view, views } from "./message-views.js";

/** createReactAgent of the runtime's own prebuilt entry. */
const make = (lib: Runtime, options: Record<string, unknown>) => prebuiltOf(lib).createReactAgent(options);
/** `fn` once per version, as { v1, v2 }. */
const perVersion = async (fn: (version: string) => Promise<unknown>) => ({ v1: await fn("v1"), v2: await fn("v2") });
const PREBUILT = "prebuilt.test.ts: createReactAgent";

type Call = [name: string, args: Record<string, unknown>, id: string];
/** One model turn: text, or text and/or tool calls. */
type Reply = string | { content?: string; calls?: Call[] };

interface Log {
  /** What each model call was shown. */
  seen: ReturnType<typeof view>[][];
  /** The tools bound to each call, or null when none were. */
  tools: (string[] | null)[];
  /** The tags "nostream"/"mine" and metadata.hello each call ran with. */
  config: unknown[];
  /** Each withStructuredOutput: its schema's keys, its options, then the messages it was given. */
  structured: unknown[];
}

/**
 * A chat model that answers from a script, by turn. `bindTools` binds OpenAI-style tool dicts
 * with `withConfig` (as providers do), so that an agent can tell a bound model from an unbound one.
 */
class FakeModel extends BaseChatModel {
  readonly log: Log = { seen: [], tools: [], config: [], structured: [] };

  constructor(
    readonly replies: Reply[],
    readonly structured: unknown = { ok: true },
  ) {
    super({});
  }

  _llmType() {
    return "fake";
  }

  override bindTools(tools: any[]): any {
    const dicts = tools.map((t) => ("name" in t ? { type: "function", function: { name: t.name } } : t));
    return this.withConfig({ tools: dicts } as never);
  }

  override withStructuredOutput(schema: any, options?: any): any {
    this.log.structured.push({ keys: Object.keys(schema.shape ?? {}), options: options ?? null });
    return RunnableLambda.from((messages: BaseMessage[]) => {
      this.log.structured.push(views(messages));
      return this.structured;
    });
  }

  /** The call's config, as a binding (bindTools, withConfig) merges it in. */
  override invoke(input: any, options?: any): any {
    const tags = (options?.tags ?? []).filter((tag: string) => tag === "nostream" || tag === "mine");
    this.log.config.push({ tags, hello: options?.metadata?.hello ?? null });
    return super.invoke(input, options);
  }

  async _generate(messages: BaseMessage[], options: any): Promise<ChatResult> {
    const reply = this.replies[this.log.seen.length];
    this.log.seen.push(views(messages));
    const tools = options?.tools as any[] | undefined;
    this.log.tools.push(tools ? tools.map((t) => t.function?.name ?? t.type) : null);
    if (reply === undefined) throw new Error("the script has no more replies");
    const { content = "", calls = [] } = typeof reply === "string" ? { content: reply } : reply;
    const tool_calls = calls.map(([name, args, id]) => ({ name, args, id, type: "tool_call" as const }));
    return { generations: [{ message: new AIMessage({ content, tool_calls }), text: content }] };
  }
}

/**
 * A configurable model as `initChatModel` gives one: `_model()` resolves the model, with the
 * methods queued on it (here `bindTools`) applied; calls go to that model.
 */
class ConfigurableModel extends BaseChatModel {
  _queuedMethodOperations: Record<string, any> = {};

  constructor(readonly inner: FakeModel) {
    super({});
  }

  _llmType() {
    return "fake_configurable";
  }

  async _model() {
    const tools = this._queuedMethodOperations.bindTools;
    return tools ? this.inner.bindTools(tools) : this.inner;
  }

  override bindTools(tools: any[]): any {
    const bound = new ConfigurableModel(this.inner);
    bound._queuedMethodOperations = { ...this._queuedMethodOperations, bindTools: tools };
    return bound;
  }

  override async invoke(input: any, options?: any): Promise<any> {
    return (await this._model()).invoke(input, options);
  }

  async _generate(): Promise<ChatResult> {
    throw new Error("a configurable model calls the model it resolves");
  }
}

/** LangGraph's test tool: "result for <query>". */
const search = () =>
  tool(async ({ query }: { query: string }) => `result for ${query}`, {
    name: "search_api",
    description: "A simple API that returns the input string.",
    schema: z.object({ query: z.string() }),
  });
const weatherTool = () =>
  tool(async () => "The weather is sunny and 75°F.", {
    name: "get_weather",
    description: "Get the weather",
    schema: z.object({}),
  });
const hi = (text = "hi") => ({ messages: [new HumanMessage(text)] });
/** The model's turn that searches once, then its answer. */
const searchThenDone = (): Reply[] => [{ content: "result1", calls: [["search_api", { query: "foo" }, "c1"]] }, "done"];
/** An agent run's model calls and final messages, or the message of the error it failed with. */
const run = (lib: Runtime, llm: FakeModel, options: Record<string, unknown>, input: unknown = hi()) =>
  refusal(async () => {
    const out = await make(lib, { llm, tools: [search()], ...options }).invoke(input);
    return { saw: llm.log.seen, tools: llm.log.tools, messages: views(out.messages) };
  });
/** A drawing's node ids and [source, target, conditional] edges. */
const shape = (drawing: any) => ({
  nodes: Object.values(drawing.nodes)
    .map((node: any) => node.id)
    .sort(),
  edges: drawing.edges.map((edge: any) => [edge.source, edge.target, Boolean(edge.conditional)]).sort(),
});

compare("createReactAgent prompts and state schemas", {
  "prompt, stateModifier or messageModifier as text or a SystemMessage, no messages in: the model sees the system message alone":
    {
      from: `${PREBUILT} with legacy messageModifier: Can use SystemMessage message modifier`,
      async run(lib) {
        const results = [];
        for (const option of [
          { prompt: new SystemMessage("sys") },
          { stateModifier: new SystemMessage("sys") },
          { messageModifier: "sys" },
          { messageModifier: new SystemMessage("sys") },
        ])
          results.push(await run(lib, new FakeModel(searchThenDone()), option, { messages: [] }));
        return results;
      },
    },

  "a function as prompt, stateModifier or messageModifier adding a message to an empty state: shown to the model, not stored":
    {
      from: `${PREBUILT} with prompt/state modifier: Can use a function as a prompt`,
      run: (lib) =>
        perVersion(async (version) => {
          const prepend = (messages: BaseMessage[]) => [new AIMessage("foobar"), ...messages];
          const results = [];
          for (const option of [
            { prompt: (s: { messages: BaseMessage[] }) => prepend(s.messages) },
            { stateModifier: (s: { messages: BaseMessage[] }) => prepend(s.messages) },
            { messageModifier: prepend },
          ])
            results.push(await run(lib, new FakeModel(["answer"]), { ...option, version }, { messages: [] }));
          return results;
        }),
    },

  "a zod 3 stateSchema: one without messages refused; withLangGraph messages and a reduced flag with both hooks": {
    from: `${PREBUILT} with hooks: preModelHook + Zod 3 + postModelHook`,
    run: (lib) =>
      perVersion(async (version) => {
        const { withLangGraph, MessagesZodMeta } = zodOf(lib);
        const refused = await refusal(() =>
          make(lib, { llm: new FakeModel([]), tools: [], version, stateSchema: z3.object({ flag: z3.boolean() }) }),
        );
        const llm = new FakeModel(["Hello!"]);
        const agent = make(lib, {
          llm,
          tools: [],
          version,
          preModelHook: () => ({ llmInputMessages: [new HumanMessage({ id: "human", content: "pre-hook" })] }),
          stateSchema: z3.object({
            messages: withLangGraph(z3.custom<BaseMessage[]>(), MessagesZodMeta),
            flag: withLangGraph(z3.boolean(), {
              reducer: {
                fn: (a: boolean, b: boolean[]) => [a, ...b].reduce((acc, curr) => acc || curr, false),
                schema: z3.array(z3.boolean()),
              },
              default: () => false,
            }),
          }),
          postModelHook: () => ({ flag: [false, false, true] }),
        });
        const out = await agent.invoke(hi("hi?"));
        return {
          refused,
          keys: Object.keys(out).sort(),
          flag: out.flag,
          saw: llm.log.seen,
          messages: views(out.messages),
        };
      }),
  },

  "the drawing and nodes of every combination of tools, preModelHook, postModelHook and responseFormat": {
    from: `${PREBUILT} with hooks: mermaid $name`,
    run: (lib) =>
      perVersion(async (version) => {
        const flagState = lib.Annotation.Root({ ...lib.MessagesAnnotation.spec, flag: lib.Annotation() });
        const pre = { preModelHook: () => ({ messages: [] }) };
        const post = { postModelHook: () => ({ flag: true }), stateSchema: flagState };
        const format = { responseFormat: z.object({ temperature: z.number() }) };
        const combos: Record<string, Record<string, unknown>> = {
          noTools: { tools: [] },
          tools: {},
          pre,
          post,
          format,
          preFormat: { ...pre, ...format },
          postFormat: { ...post, ...format },
          prePost: { ...pre, ...post },
          all: { ...pre, ...post, ...format },
        };
        const out: Record<string, unknown> = {};
        for (const [name, options] of Object.entries(combos)) {
          const agent = make(lib, { llm: new FakeModel([]), tools: [weatherTool()], version, ...options });
          out[name] = { drawing: shape(await agent.getGraphAsync()), compiledNodes: Object.keys(agent.nodes).sort() };
        }
        return out;
      }),
  },
});

compare("createReactAgent dynamic models", {
  "a dynamic model with a text or function prompt: the prompt goes first to the model it returns; a static model runs alike":
    {
      from: `${PREBUILT} Dynamic Model: should handle dynamic model with different prompt types`,
      run: (lib) =>
        perVersion(async (version) => {
          const results = [];
          const prompts = [
            "system_msg",
            (s: { messages: BaseMessage[] }) => [new SystemMessage("system_msg"), ...s.messages],
          ];
          for (const prompt of prompts) {
            const model = new FakeModel(["ai response"]);
            const out = await make(lib, { llm: () => model, tools: [], version, prompt }).invoke({
              messages: "human_msg",
            });
            results.push({ saw: model.log.seen, tools: model.log.tools, messages: views(out.messages) });
          }
          // "should produce equivalent results when configured the same"
          const staticModel = new FakeModel(["ai response"]);
          const plain = await make(lib, { llm: staticModel, tools: [], version }).invoke({ messages: "test" });
          const dynamic = await make(lib, { llm: () => new FakeModel(["ai response"]), tools: [], version }).invoke({
            messages: "test",
          });
          return { results, same: [views(plain.messages), views(dynamic.messages)] };
        }),
    },

  "a dynamic model with a preModelHook: the function gets the state (llmInputMessages too), the model the hook's messages":
    {
      from: `${PREBUILT} Dynamic Model: should receive correct state, not the model input`,
      async run(lib) {
        const given: unknown[] = [];
        const model = new FakeModel(["ai response"]);
        const stateSchema = lib.Annotation.Root({ ...lib.MessagesAnnotation.spec, custom_field: lib.Annotation() });
        const agent = make(lib, {
          llm: (state: Record<string, any>) => {
            given.push({
              keys: Object.keys(state).sort(),
              messages: views(state.messages),
              llmInputMessages: state.llmInputMessages ? views(state.llmInputMessages) : null,
              custom_field: state.custom_field ?? null,
            });
            return model;
          },
          tools: [],
          stateSchema,
          prompt: "sys",
          preModelHook: () => ({ llmInputMessages: [new HumanMessage("trimmed")] }),
        });
        const out = await agent.invoke({ ...hi("hello"), custom_field: "test_value" });
        return { given, saw: model.log.seen, messages: views(out.messages), custom_field: out.custom_field };
      },
    },
});

compare("createReactAgent version v2: parallel tool calls", {
  // LangGraph's test runs on v2 only: one Send per call, the interrupting one paused alone.
  'v2, a tool that interrupts beside one that does not, streamed as "values" until the pause and after the resume': {
    from: "prebuilt.test.ts: createReactAgent (version v2): parallel tool calls",
    async run(lib) {
      const ran: string[] = [];
      const humanAssistance = tool(async ({ query }: { query: string }) => lib.interrupt({ query }).data, {
        name: "human_assistance",
        description: "Human assistance",
        schema: z.object({ query: z.string() }),
      });
      const weather = tool(
        async ({ location }: { location: string }) => {
          ran.push(location);
          return `It's sunny in ${location}`;
        },
        { name: "weather", description: "Weather tool", schema: z.object({ location: z.string() }) },
      );
      const calls: Call[] = [
        ["weather", { location: "sf" }, "get_weather"],
        ["human_assistance", { query: "help me" }, "get_help"],
      ];
      const agent = make(lib, {
        llm: new FakeModel([{ content: "ai response", calls }, "final response"]),
        tools: [humanAssistance, weather],
        version: "v2",
        checkpointer: new lib.MemorySaver(),
      });
      const config = { configurable: { thread_id: "1" }, streamMode: "values" };
      const chunk = (c: any) =>
        c.__interrupt__ ? { interrupts: c.__interrupt__.map((i: any) => i.value) } : views(c.messages);
      const paused = (await collect(await agent.stream({ messages: "Get help and the weather" }, config))).map(chunk);
      const resumed = (
        await collect(await agent.stream(new lib.Command({ resume: { data: "Resumed!" } }), config))
      ).map(chunk);
      return { paused, resumed, ran };
    },
  },
});

/** A scripted model's log and the agent's messages, for a model given in some wrapping. */
async function wrapped(lib: Runtime, model: FakeModel, llm: unknown, options: Record<string, unknown> = {}) {
  return refusal(async () => {
    const out = await make(lib, { llm, tools: [search()], ...options }).invoke(hi());
    return { log: model.log, messages: views(out.messages), structuredResponse: out.structuredResponse ?? null };
  });
}
const passOn = () => RunnableLambda.from((message: BaseMessage) => message);

compare("createReactAgent with a model given wrapped", {
  "a RunnableSequence around the model: its tools bound inside; a sequence around a bound model used as it is": {
    from: "prebuilt.test.ts: _shouldBindTools: Should determine when to bind tools",
    async run(lib) {
      const unbound = new FakeModel(searchThenDone());
      const bound = new FakeModel(searchThenDone());
      const other = tool(async () => "x", { name: "other", description: "other", schema: z.object({}) });
      const mismatch = new FakeModel(["x"]);
      return {
        unbound: await wrapped(lib, unbound, RunnableSequence.from([unbound, passOn()])),
        bound: await wrapped(lib, bound, RunnableSequence.from([bound.bindTools([search()]), passOn()])),
        mismatch: await wrapped(lib, mismatch, RunnableSequence.from([mismatch.bindTools([other]), passOn()])),
      };
    },
  },

  "a model under withConfig (twice): the tools bound, its tags and metadata kept": {
    from: "prebuilt.test.ts: _shouldBindTools: should bind model with bindTools",
    async run(lib) {
      const model = new FakeModel(searchThenDone());
      const llm = model.withConfig({ tags: ["nostream"] }).withConfig({ metadata: { hello: "world" } });
      const inSequence = new FakeModel(searchThenDone());
      const sequence = RunnableSequence.from([inSequence.withConfig({ tags: ["mine"] }), passOn()]);
      return { direct: await wrapped(lib, model, llm), inSequence: await wrapped(lib, inSequence, sequence) };
    },
  },

  "a configurable model (initChatModel's kind): the tools bound through it, or used as it is when bound": {
    from: "prebuilt.test.ts: _shouldBindTools: Should determine when to bind tools",
    async run(lib) {
      const [unbound, bound, inSequence] = [1, 2, 3].map(() => new FakeModel(searchThenDone())) as FakeModel[];
      const mismatch = new FakeModel(["x"]);
      return {
        unbound: await wrapped(lib, unbound!, new ConfigurableModel(unbound!)),
        bound: await wrapped(lib, bound!, new ConfigurableModel(bound!).bindTools([search()])),
        inSequence: await wrapped(
          lib,
          inSequence!,
          RunnableSequence.from([new ConfigurableModel(inSequence!), passOn()]),
        ),
        mismatch: await wrapped(lib, mismatch, new ConfigurableModel(mismatch).bindTools([])),
      };
    },
  },

  "responseFormat finds the chat model under a binding, a sequence or a configurable model": {
    from: "prebuilt.test.ts: _getModel: Should extract the model from different inputs",
    async run(lib) {
      const responseFormat = z.object({ temperature: z.number() });
      const models = [1, 2, 3, 4].map(() => new FakeModel(searchThenDone(), { temperature: 75 }));
      const [a, b, c, d] = models as [FakeModel, FakeModel, FakeModel, FakeModel];
      return {
        bound: await wrapped(lib, a, a.bindTools([search()]), { responseFormat }),
        sequence: await wrapped(lib, b, RunnableSequence.from([b.bindTools([search()]), passOn()]), { responseFormat }),
        configurable: await wrapped(lib, c, new ConfigurableModel(c), { responseFormat }),
        configurableBound: await wrapped(lib, d, new ConfigurableModel(d).bindTools([search()]), { responseFormat }),
      };
    },
  },

  "agent.nodes.tools.invoke runs the agent's ToolNode alone, the model already bound": {
    from: `${PREBUILT} with bound tools: Can use bound tools and validate tool matching with %s style`,
    async run(lib) {
      const numbered = (name: string) =>
        tool(async ({ someVal }: { someVal: number }) => `${name}: ${someVal}`, {
          name,
          description: `${name} docstring.`,
          schema: z.object({ someVal: z.number() }),
        });
      const tools = [numbered("tool1"), numbered("tool2")];
      const agent = make(lib, { llm: new FakeModel(["result"]).bindTools(tools), tools });
      const calling = new AIMessage({
        content: "hi?",
        tool_calls: [
          { name: "tool1", args: { someVal: 2 }, id: "some 1" },
          { name: "tool2", args: { someVal: 2 }, id: "some 2" },
        ],
      });
      const out = await agent.nodes.tools.invoke({ messages: [calling] });
      return views(out.messages);
    },
  },
});

compare("toolsCondition", {
  "toolsCondition: to tools when the last message, in a list or a state, calls tools; else to the end; in a graph": {
    from: "prebuilt.test.ts: ToolNode: Should work in a state graph (toolsCondition, tool_node.ts)",
    async run(lib) {
      const { toolsCondition, ToolNode } = prebuiltOf(lib);
      const calls = new AIMessage({
        content: "",
        tool_calls: [{ name: "search_api", args: { query: "x" }, id: "c1" }],
      });
      const answer = new AIMessage("answer");
      const answered = new ToolMessage({ content: "r", tool_call_id: "c1" });
      const routes = {
        list: [toolsCondition([new HumanMessage("q"), calls]), toolsCondition([calls, answer]), toolsCondition([])],
        state: [
          toolsCondition({ messages: [calls] }),
          toolsCondition({ messages: [calls, answered] }),
          toolsCondition({ messages: [] }),
        ],
      };
      let turn = 0;
      const graph = new lib.StateGraph(lib.MessagesAnnotation)
        .addNode("agent", () => ({ messages: [turn++ === 0 ? calls : answer] }))
        .addNode("tools", new ToolNode([search()]))
        .addEdge(lib.START, "agent")
        .addConditionalEdges("agent", toolsCondition)
        .addEdge("tools", "agent")
        .compile();
      const out = await graph.invoke(hi());
      return { routes, messages: views(out.messages) };
    },
  },
});

compare("reducers whose update differs from the value", {
  "a reducer taking a string or a list (an empty one ignored), in an Annotation and in a { channels } state": {
    from: "graph.test.ts: should allow reducers with different argument types",
    async run(lib) {
      const { Annotation, StateGraph, START, END } = lib;
      const reducer = (left: string[], right: string | string[]) =>
        typeof right === "string" ? (right ? left.concat([right]) : left) : right.length ? left.concat(right) : left;
      const build = (state: unknown) =>
        new StateGraph(state)
          .addNode("one", () => ({ testval: "hi!" }))
          .addNode("two", () => ({ testval: "" }))
          .addNode("three", () => ({ testval: ["x", "y"] }))
          .addNode("four", () => ({ testval: [] }))
          .addEdge(START, "one")
          .addEdge("one", "two")
          .addEdge("two", "three")
          .addEdge("three", "four")
          .addEdge("four", END)
          .compile();
      const annotation = build(Annotation.Root({ val: Annotation(), testval: Annotation({ reducer }) }));
      const channels = build({ channels: { testval: { reducer } } });
      return {
        annotation: await annotation.invoke({ testval: ["hello"] }),
        channels: await channels.invoke({ testval: ["hello"] }),
      };
    },
  },
});

// --- Models LangGraph.js refuses (COMPATIBILITY.md), and what a drawing shows -------------------------

compare("createReactAgent's models, and drawing toolsCondition", {
  // LangGraph.js: createReactAgent binds the tools, even none, and refuses an llm without
  // bindTools ("llm [object Object] must define bindTools method."). Interlude uses such an llm as
  // it is when there are no tools (agent-model.ts, bindTools: "used as it is when there are no
  // tools to bind") and the run answers.
  "an llm without bindTools (a RunnableLambda) and no tools: refused by LangGraph.js, run by Interlude": {
    differs: "#createreactagent-takes-models-langgraphjs-refuses",
    from: "prebuilt.test.ts: _getModel / _bindTools (a sequence of two RunnableLambdas)",
    run: (lib) =>
      refusal(async () => {
        const llm = RunnableLambda.from(() => new AIMessage("from a lambda"));
        return views((await make(lib, { llm, tools: [] }).invoke(hi())).messages);
      }),
  },

  // LangGraph.js takes what a dynamic llm returns as the model for the structured response as it
  // is: a bound model (what a dynamic llm usually returns) or a lambda is refused, "Expected `llm`
  // to be a ChatModel with .withStructuredOutput() method, got RunnableBinding". Interlude
  // (react-agent.ts, generateStructuredResponse -> agent-model.ts chatModelOf) unwraps a binding,
  // so the bound model answers, and refuses a lambda with the static model's message.
  "responseFormat with a dynamic llm returning a bound model, or a lambda: LangGraph.js refuses both": {
    differs: "#createreactagent-takes-models-langgraphjs-refuses",
    from: `${PREBUILT} Dynamic Model: should handle dynamic model with structured response format`,
    async run(lib) {
      const responseFormat = z.object({ temperature: z.number() });
      const model = new FakeModel(["done"], { temperature: 75 });
      const agent = (llm: unknown) => make(lib, { llm, tools: [search()], responseFormat });
      const result = (out: any) => ({ messages: views(out.messages), structuredResponse: out.structuredResponse });
      return {
        bound: await refusal(() =>
          agent(() => model.bindTools([search()]))
            .invoke(hi())
            .then(result),
        ),
        lambda: await refusal(() =>
          agent(() => RunnableLambda.from(() => new AIMessage("from a lambda")))
            .invoke(hi())
            .then(result),
        ),
      };
    },
  },

  // A conditional edge without a path map may lead to every node but its source, and END.
  // (Interlude draws LangChain's Mermaid once @langchain/core is loaded: COMPATIBILITY.md.)
  "the drawing of addConditionalEdges(node, toolsCondition) without a path map: no edge back to the node": {
    from: "graph/graph.ts: getGraph (toolsCondition as the quickstart uses it)",
    async run(lib) {
      await lib.loadLangChain?.();
      const graph = new lib.StateGraph(lib.MessagesAnnotation)
        .addNode("agent", () => ({ messages: [new AIMessage("answer")] }))
        .addNode("tools", new (prebuiltOf(lib).ToolNode)([search()]))
        .addEdge(lib.START, "agent")
        .addConditionalEdges("agent", prebuiltOf(lib).toolsCondition)
        .addEdge("tools", "agent")
        .compile();
      return { drawing: shape(graph.getGraph()), mermaid: graph.getGraph().drawMermaid() };
    },
  },

  // A node's own metadata, its breakpoint and a ToolNode's tool names are drawn, in that order.
  "the drawing of a node's metadata, a breakpoint before the tools node and its tool names": {
    from: "graph/graph.ts: getGraph (node metadata, __interrupt, __tools)",
    async run(lib) {
      await lib.loadLangChain?.();
      const graph = new lib.StateGraph(lib.MessagesAnnotation)
        .addNode("agent", () => ({ messages: [new AIMessage("answer")] }), { metadata: { owner: "ops" } })
        .addNode("tools", new (prebuiltOf(lib).ToolNode)([search()]), { metadata: { kind: "io" } })
        .addEdge(lib.START, "agent")
        .addConditionalEdges("agent", prebuiltOf(lib).toolsCondition, ["tools", lib.END])
        .addEdge("tools", "agent")
        .compile({ interruptBefore: ["tools"], interruptAfter: ["agent"] });
      const drawing = graph.getGraph();
      return {
        metadata: Object.values(drawing.nodes).map((node: any) => [node.id, node.metadata]),
        mermaid: drawing.drawMermaid(),
      };
    },
  },

  // toolsCondition reads any message shape: a plain `{ role, tool_calls }` object asks for tools.
  "toolsCondition on plain message objects, as a list and under messages": {
    from: "prebuilt/tool_node.ts: toolsCondition",
    async run(lib) {
      const { toolsCondition } = prebuiltOf(lib);
      const call = { role: "assistant", content: "", tool_calls: [{ id: "1", name: "search_api", args: {} }] };
      const plain = { role: "assistant", content: "done" };
      return [[call], { messages: [call] }, [plain], { messages: [plain] }, { messages: [] }].map(toolsCondition);
    },
  },
});
