import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  isAIMessage,
  isBaseMessage,
  RemoveMessage,
  SystemMessage,
  ToolMessage,
} from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { collect, compare, prebuiltOf, type Runtime, refusal } from "./harness.js";
import { type view, views } from "./message-views.js";

/** createReactAgent of the runtime's own prebuilt entry. */
const make = (lib: Runtime, options: Record<string, unknown>) => prebuiltOf(lib).createReactAgent(options);
/** `fn` once per version, as { v1, v2 }. */
const perVersion = async (fn: (version: string) => Promise<unknown>) => ({ v1: await fn("v1"), v2: await fn("v2") });
const PREBUILT = "prebuilt.test.ts: createReactAgent";

type Call = [name: string, args: Record<string, unknown>, id: string];
/** One model turn: text, or text and/or tool calls (and a name the model itself sets). */
type Reply = string | { content?: string | Array<Record<string, unknown>>; calls?: Call[]; name?: string };
interface Log {
  /** What each model call was shown. */
  calls: ReturnType<typeof view>[][];
  /** The tools bound to the model of each call, or null when none were bound. */
  bound: (string[] | null)[];
  /** Each withStructuredOutput invocation: its options, the bound tools and the messages. */
  structured: unknown[];
}

/** A chat model that answers from a script, by turn; bindTools and withStructuredOutput share its log. */
class FakeModel extends BaseChatModel {
  constructor(
    readonly replies: Reply[],
    readonly answer: Record<string, unknown> = {},
    readonly log: Log = { calls: [], bound: [], structured: [] },
    readonly tools: string[] | null = null,
  ) {
    super({});
  }

  _llmType() {
    return "fake";
  }

  override bindTools(tools: unknown[]) {
    return new FakeModel(
      this.replies,
      this.answer,
      this.log,
      tools.map((t) => (t as { name: string }).name),
    );
  }

  override withStructuredOutput(schema: any, options?: any): any {
    return RunnableLambda.from((messages: BaseMessage[]) => {
      const keys = Object.keys(schema.shape ?? {});
      this.log.structured.push({ keys, options: options ?? {}, bound: this.tools, messages: views(messages) });
      return this.answer;
    });
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const reply = this.replies[this.log.calls.length];
    this.log.calls.push(views(messages));
    this.log.bound.push(this.tools);
    if (reply === undefined) throw new Error("the script has no more replies");
    const { content = "", calls = [], name } = typeof reply === "string" ? { content: reply } : reply;
    const tool_calls = calls.map(([n, args, id]) => ({ name: n, args, id, type: "tool_call" as const }));
    const message = new AIMessage({ content: content as string, name, tool_calls });
    return { generations: [{ message, text: typeof content === "string" ? content : "" }] };
  }
}

const lookup = () =>
  tool(async ({ q }: { q: string }) => `found ${q}`, {
    name: "lookup",
    description: "Look something up.",
    schema: z.object({ q: z.string() }),
  });
const finish = () =>
  tool(async ({ text }: { text: string }) => `final: ${text}`, {
    name: "finish",
    description: "Answer the user directly.",
    schema: z.object({ text: z.string() }),
    returnDirect: true,
  });
const hi = (text = "hi") => ({ messages: [new HumanMessage(text)] });
/** The model's turn that calls lookup once, then its answer. */
const lookupThenDone = (): Reply[] => [{ calls: [["lookup", { q: "x" }, "c1"]] }, "done"];
/** A state with messages and one more key, in the runtime's own Annotation. */
const withKey = (lib: Runtime, key: string, extra: Record<string, unknown> = {}) =>
  lib.Annotation.Root({ ...lib.MessagesAnnotation.spec, [key]: lib.Annotation(extra) });
/** A node's update with its message lists viewed (a node returning several updates gives a list). */
const viewUpdate = (update: unknown): unknown =>
  Array.isArray(update)
    ? update.map(viewUpdate)
    : update && typeof update === "object"
      ? Object.fromEntries(
          Object.entries(update).map(([k, v]) => [k, Array.isArray(v) && v.every(isBaseMessage) ? views(v) : v]),
        )
      : update;
/** An updates stream as [node, what it wrote] pairs. */
const updates = (chunks: Record<string, unknown>[]) =>
  chunks.flatMap((chunk) => Object.entries(chunk).map(([node, update]) => [node, viewUpdate(update)]));
/** A drawing's node ids and [source, target, conditional] edges. */
const shape = (drawing: any) => ({
  nodes: Object.values(drawing.nodes)
    .map((node: any) => node.id)
    .sort(),
  edges: drawing.edges.map((edge: any) => [edge.source, edge.target, Boolean(edge.conditional)]).sort(),
});

compare("createReactAgent options", {
  "name: the agent's AI messages carry it (a model's own name is overwritten); name and description on the graph": {
    from: `${PREBUILT} agent name options: Sets name when includeAgentName is undefined`,
    async run(lib) {
      const one = async (name?: string) => {
        const llm = new FakeModel([
          { calls: [["lookup", { q: "x" }, "c1"]], name: "model" },
          { content: "ok", name: "m" },
        ]);
        const agent = make(lib, { llm, tools: [lookup()], name, description: name && "Looks things up." });
        const out = await agent.invoke(hi());
        return { name: agent.name ?? null, description: agent.description ?? null, messages: views(out.messages) };
      };
      return [await one("researcher"), await one()];
    },
  },

  "prompt as a string or a SystemMessage: shown first to the (tool-bound) model, never stored": {
    from: `${PREBUILT} with prompt/state modifier: Can use string prompt`,
    async run(lib) {
      const results = [];
      for (const prompt of ["Be brief.", new SystemMessage("Be kind.")]) {
        const llm = new FakeModel(lookupThenDone());
        const out = await make(lib, { llm, tools: [lookup()], prompt }).invoke(hi());
        results.push({ saw: llm.log.calls, bound: llm.log.bound, messages: views(out.messages) });
      }
      return results;
    },
  },

  "prompt as a function of the state, a RunnableLambda or a ChatPromptTemplate; a stateSchema's extra key kept": {
    from: `${PREBUILT} with prompt/state modifier: Can use a function as a prompt`,
    async run(lib) {
      const prompts = [
        async (s: { user: string; messages: BaseMessage[] }) => [
          new SystemMessage(`For ${s.user}; ${s.messages.length} messages.`),
          ...s.messages,
        ],
        RunnableLambda.from((s: { messages: BaseMessage[] }) => [new SystemMessage("lambda"), ...s.messages]),
        ChatPromptTemplate.fromMessages([["system", "Help {user}."], new MessagesPlaceholder("messages")]),
      ];
      const results = [];
      for (const prompt of prompts) {
        const llm = new FakeModel(lookupThenDone());
        const agent = make(lib, { llm, tools: [lookup()], prompt, stateSchema: withKey(lib, "user") });
        const out = await agent.invoke({ ...hi(), user: "ada" });
        results.push({
          saw: llm.log.calls,
          keys: Object.keys(out).sort(),
          user: out.user,
          messages: views(out.messages),
        });
      }
      return results;
    },
  },

  "stateModifier and messageModifier, the deprecated names: state vs messages in, strings as a system prompt": {
    from: `${PREBUILT} with legacy messageModifier: Can use a function as a message modifier`,
    async run(lib) {
      const options = [
        {
          stateModifier: (s: { messages: BaseMessage[] }) => [
            new SystemMessage(`state ${s.messages.length}`),
            ...s.messages,
          ],
        },
        { stateModifier: "state text" },
        { messageModifier: (m: BaseMessage[]) => [new SystemMessage(`array ${Array.isArray(m)}`), ...m] },
        { messageModifier: new SystemMessage("modifier message") },
        {
          messageModifier: RunnableLambda.from((m: BaseMessage[]) => [new SystemMessage(`runnable ${m.length}`), ...m]),
        },
      ];
      const seen = [];
      for (const option of options) {
        const llm = new FakeModel(["done"]);
        await make(lib, { llm, tools: [lookup()], ...option }).invoke(hi());
        seen.push(llm.log.calls[0]);
      }
      return seen;
    },
  },

  // Refused on both with the same message; Interlude's error is typed (AgentModelError, at creation).
  "prompt and stateModifier together: an error": {
    from: `${PREBUILT} with prompt/state modifier: Can use string prompt`,
    run: (lib) =>
      refusal(async () =>
        make(lib, { llm: new FakeModel(["done"]), tools: [], prompt: "a", stateModifier: "b" }).invoke(hi()),
      ),
  },

  "a stateSchema without messages: an error": {
    from: `${PREBUILT} with prompt/state modifier: Throws if messages is not in state schema`,
    run: (lib) =>
      refusal(async () =>
        make(lib, {
          llm: new FakeModel(["done"]),
          tools: [],
          stateSchema: lib.Annotation.Root({ user: lib.Annotation() }),
        }).invoke({ user: "ada" }),
      ),
  },

  "returnDirect: the run ends after the tool; beside an ordinary call, v1 ends but v2's other task goes back to the model":
    {
      from: "react_agent_executor.ts: returnDirect tools (no upstream test)",
      run: (lib) =>
        perVersion(async (version) => {
          const results = [];
          const scripts: Call[][] = [
            [["finish", { text: "42" }, "c1"]],
            [
              ["finish", { text: "42" }, "c1"],
              ["lookup", { q: "x" }, "c2"],
            ],
          ];
          for (const calls of scripts) {
            const llm = new FakeModel([{ calls }, "after"]);
            const out = await make(lib, { llm, tools: [lookup(), finish()], version }).invoke(hi());
            results.push({ modelCalls: llm.log.calls.length, messages: views(out.messages) });
          }
          return results;
        }),
    },

  'version "v2": one tools task per call (one update each); the final messages as v1': {
    from: `${PREBUILT} (version v2): Can use string prompt`,
    run: (lib) =>
      perVersion(async (version) => {
        const calls: Call[] = [
          ["lookup", { q: "a" }, "c1"],
          ["lookup", { q: "b" }, "c2"],
          ["lookup", { q: "c" }, "c3"],
        ];
        const agent = make(lib, { llm: new FakeModel([{ calls }, "done"]), tools: [lookup()], version });
        const chunks = await collect(await agent.stream(hi(), { streamMode: ["updates", "values"] }));
        const streamed = updates(chunks.filter(([mode]) => mode === "updates").map(([, chunk]) => chunk));
        const tools = streamed
          .filter(([node]) => node === "tools")
          .map(([, u]) => (u as any).messages.map((m: any) => m.for));
        return { nodes: streamed.map(([node]) => node), tools: tools.sort(), final: views(chunks.at(-1)[1].messages) };
      }),
  },

  "an interrupting tool beside another: on LangGraph.js v1 runs the other again on resume; Interlude runs each call once":
    {
      differs: "#a-toolnodes-finished-calls-are-not-run-again",
      from: `${PREBUILT} (version v2): parallel tool calls`,
      run: (lib) =>
        perVersion(async (version) => {
          const ran: string[] = [];
          const ask = tool(async ({ q }: { q: string }) => lib.interrupt({ q }).answer, {
            name: "ask",
            description: "Ask a human.",
            schema: z.object({ q: z.string() }),
          });
          const weather = tool(
            async ({ city }: { city: string }) => {
              ran.push(city);
              return `sunny in ${city}`;
            },
            { name: "weather", description: "Weather.", schema: z.object({ city: z.string() }) },
          );
          const calls: Call[] = [
            ["weather", { city: "sf" }, "w1"],
            ["ask", { q: "help?" }, "a1"],
          ];
          const llm = new FakeModel([{ calls }, "done"]);
          const agent = make(lib, { llm, tools: [ask, weather], version, checkpointer: new lib.MemorySaver() });
          const config = { configurable: { thread_id: version } };
          const paused = await agent.invoke(hi(), config);
          const { next } = await agent.getState(config);
          const done = await agent.invoke(new lib.Command({ resume: { answer: "yes" } }), config);
          const interrupts = paused.__interrupt__.map((i: { value: unknown }) => i.value);
          return { interrupts, paused: views(paused.messages), next, ran, messages: views(done.messages) };
        }),
    },

  "a ToolNode's tags reach its tools' config, before the run's": async (lib) => {
    const { AIMessage } = await import("@langchain/core/messages");
    let seen: unknown;
    const probe = tool(
      async (_args: Record<string, never>, config: any) => {
        seen = config.tags;
        return "ok";
      },
      { name: "probe", schema: z.object({}) },
    );
    const node = new (prebuiltOf(lib).ToolNode)([probe], { tags: ["mine"] });
    const graph = new lib.StateGraph(lib.MessagesAnnotation)
      .addNode("tools", node)
      .addEdge(lib.START, "tools")
      .compile();
    const call = { name: "probe", args: {}, id: "p1" };
    await graph.invoke({ messages: [new AIMessage({ content: "", tool_calls: [call] })] }, { tags: ["outer"] });
    return seen;
  },

  "tools given as a ToolNode: its tools bound to the model and run": {
    from: `${PREBUILT} with ToolNode: Should work with ToolNode`,
    async run(lib) {
      const llm = new FakeModel(lookupThenDone());
      const out = await make(lib, { llm, tools: new (prebuiltOf(lib).ToolNode)([lookup(), finish()]) }).invoke(hi());
      return { bound: llm.log.bound, messages: views(out.messages) };
    },
  },

  "a ToolNode with handleToolErrors false: a failing tool fails the run": {
    from: `${PREBUILT} with ToolNode: Should work with ToolNode with handleToolErrors set to false`,
    throws: true,
    run(lib) {
      const broken = tool(
        async () => {
          throw new Error("down");
        },
        { name: "broken", description: "Fails.", schema: z.object({}) },
      );
      const tools = new (prebuiltOf(lib).ToolNode)([broken], { handleToolErrors: false });
      return make(lib, { llm: new FakeModel([{ calls: [["broken", {}, "c1"]] }, "never"]), tools }).invoke(hi());
    },
  },

  "a tool returning a Command: its update (a ToolMessage and another key) applied, in call order; the loop goes on": {
    from: `${PREBUILT} with prompt/state modifier: Allows custom state schema that extends MessagesAnnotation`,
    async run(lib) {
      const count = tool(
        async (_: Record<string, never>, runtime: any) => {
          const message = new ToolMessage({
            content: "counted",
            tool_call_id: runtime.toolCall?.id ?? "?",
            name: "count",
          });
          return new lib.Command({ update: { visits: 1, messages: [message] } });
        },
        { name: "count", description: "Count a visit.", schema: z.object({}) },
      );
      const calls: Call[] = [
        ["count", {}, "c1"],
        ["lookup", { q: "x" }, "c2"],
      ];
      const llm = new FakeModel([{ calls }, "done"]);
      const stateSchema = withKey(lib, "visits", { reducer: (a: number, b: number) => a + b, default: () => 0 });
      const out = await make(lib, { llm, tools: [count, lookup()], stateSchema }).invoke(hi());
      return { visits: out.visits, saw: llm.log.calls.at(-1), messages: views(out.messages) };
    },
  },

  "tools get the graph state, the run's context (contextSchema) and the store (config.store, getStore())": {
    from: `${PREBUILT} (version v1): inherit task context`,
    run: (lib) =>
      perVersion(async (version) => {
        const store = new lib.InMemoryStore();
        await store.put(["users"], "ada", { likes: "tea" });
        const whoami = tool(
          async ({ note }: { note: string }, runtime: any) => {
            await runtime.store.put(["notes"], runtime.context.user, { note });
            const likes = (await lib.getStore().get(["users"], runtime.context.user))?.value.likes;
            return `${runtime.context.user} likes ${likes}, after ${runtime.state?.messages?.length} messages`;
          },
          { name: "whoami", description: "Who asks.", schema: z.object({ note: z.string() }) },
        );
        const llm = new FakeModel([{ calls: [["whoami", { note: "n" }, "c1"]] }, "done"]);
        const agent = make(lib, {
          llm,
          tools: [whoami],
          version,
          store,
          contextSchema: z.object({ user: z.string() }),
          prompt: (s: { messages: BaseMessage[] }, config: any) => [
            new SystemMessage(`for ${config?.context?.user}`),
            ...s.messages,
          ],
        });
        const out = await agent.invoke(hi(), { context: { user: "ada" } });
        return {
          note: (await store.get(["notes"], "ada"))?.value,
          saw: llm.log.calls[1],
          messages: views(out.messages),
        };
      }),
  },

  "checkpointSaver (checkpointer's old name) and interruptAfter tools; invoke(null) resumes": {
    from: `${PREBUILT} with ToolNode: should work with interrupt()`,
    async run(lib) {
      const checkpointSaver = new lib.MemorySaver();
      const llm = new FakeModel(lookupThenDone());
      const agent = make(lib, { llm, tools: [lookup()], checkpointSaver, interruptAfter: ["tools"] });
      const config = { configurable: { thread_id: "t" } };
      const paused = await agent.invoke(hi(), config);
      const { next } = await agent.getState(config);
      const done = await agent.invoke(null, config);
      return { paused: views(paused.messages), next, done: views(done.messages) };
    },
  },

  "preModelHook with llmInputMessages: the model sees them (a string coerced, the prompt still first), the state keeps its messages":
    {
      from: `${PREBUILT} with hooks: preModelHook`,
      async run(lib) {
        const llm = new FakeModel([...lookupThenDone(), "again"]);
        let turns = 0;
        const agent = make(lib, {
          llm,
          tools: [lookup()],
          prompt: "sys",
          checkpointer: new lib.MemorySaver(),
          preModelHook: (s: { messages: BaseMessage[] }) =>
            ++turns === 1
              ? { llmInputMessages: "only this" }
              : { llmInputMessages: [new HumanMessage(`${s.messages.length} messages`)] },
        });
        const config = { configurable: { thread_id: "t" } };
        const streamed = updates(await collect(await agent.stream(hi(), { ...config, streamMode: "updates" })));
        const again = await agent.invoke(hi("more"), config);
        return { saw: llm.log.calls, streamed, keys: Object.keys(again).sort(), messages: views(again.messages) };
      },
    },

  "preModelHook: llmInputMessages stay in the state until replaced, so a hook returning {} shows the model stale ones":
    {
      from: `${PREBUILT} with hooks: preModelHook`,
      async run(lib) {
        const llm = new FakeModel(lookupThenDone());
        let turns = 0;
        const preModelHook = () => (++turns === 1 ? { llmInputMessages: [new HumanMessage("first turn only")] } : {});
        const out = await make(lib, { llm, tools: [lookup()], preModelHook }).invoke(hi());
        return { saw: llm.log.calls, messages: views(out.messages) };
      },
    },

  "preModelHook returning messages: RemoveMessage(REMOVE_ALL_MESSAGES) trims the state before each model call": {
    from: `${PREBUILT} with hooks: preModelHook`,
    async run(lib) {
      const llm = new FakeModel(lookupThenDone());
      const preModelHook = (s: { messages: BaseMessage[] }) => ({
        messages: [new RemoveMessage({ id: lib.REMOVE_ALL_MESSAGES }), ...s.messages.slice(-2)],
      });
      const input = { messages: [new HumanMessage("old"), new AIMessage("older"), new HumanMessage("hi")] };
      const out = await make(lib, { llm, tools: [lookup()], preModelHook }).invoke(input);
      return { saw: llm.log.calls, messages: views(out.messages) };
    },
  },

  "postModelHook: a node after each model call, then tools or the end; its state keys kept": {
    from: `${PREBUILT} with hooks: postModelHook`,
    async run(lib) {
      const agent = make(lib, {
        llm: new FakeModel(lookupThenDone()),
        tools: [lookup()],
        stateSchema: withKey(lib, "checks", { reducer: (a: number, b: number) => a + b, default: () => 0 }),
        postModelHook: (s: { messages: BaseMessage[] }) => ({ checks: s.messages.length }),
      });
      return updates(await collect(await agent.stream({ ...hi(), checks: 0 }, { streamMode: "updates" })));
    },
  },

  "postModelHook rewriting the AI message (same id, no tool calls): the tools never run": {
    from: `${PREBUILT} with hooks: postModelHook`,
    async run(lib) {
      const llm = new FakeModel(lookupThenDone());
      const postModelHook = (s: { messages: BaseMessage[] }) => ({
        messages: [new AIMessage({ id: s.messages.at(-1)!.id, content: "blocked" })],
      });
      const out = await make(lib, { llm, tools: [lookup()], name: "guarded", postModelHook }).invoke(hi());
      return { modelCalls: llm.log.calls.length, messages: views(out.messages) };
    },
  },

  "postModelHook answering one of two calls with a ToolMessage: only the other runs": {
    from: `${PREBUILT} with hooks: postModelHook + partial tool call application`,
    run: (lib) =>
      perVersion(async (version) => {
        const calls: Call[] = [
          ["lookup", { q: "a" }, "c1"],
          ["lookup", { q: "b" }, "c2"],
        ];
        const postModelHook = (s: { messages: BaseMessage[] }) => {
          const last = s.messages.at(-1)!;
          if (!isAIMessage(last) || !last.tool_calls?.length) return {};
          return { messages: [new ToolMessage({ content: "from the hook", tool_call_id: last.tool_calls[0]!.id! })] };
        };
        const llm = new FakeModel([{ calls }, "done"]);
        return views((await make(lib, { llm, tools: [lookup()], version, postModelHook }).invoke(hi())).messages);
      }),
  },

  "responseFormat (a zod schema): last, withStructuredOutput on the unbound model over the state's messages, no prompt":
    {
      from: `${PREBUILT} with structured responses: Basic structured response`,
      async run(lib) {
        const llm = new FakeModel(lookupThenDone(), { temperature: 75 });
        const responseFormat = z.object({ temperature: z.number() });
        const agent = make(lib, { llm, tools: [lookup()], prompt: "not for the structured call", responseFormat });
        const streamed = updates(await collect(await agent.stream(hi(), { streamMode: "updates" })));
        const plain = await make(lib, { llm: new FakeModel(["done"]), tools: [] }).invoke(hi());
        return { streamed, structured: llm.log.structured, plainKeys: Object.keys(plain).sort() };
      },
    },

  "responseFormat { schema, prompt, ...options }: the prompt a SystemMessage first, the options passed on": {
    from: `${PREBUILT} with structured responses: Basic structured response`,
    async run(lib) {
      const llm = new FakeModel(lookupThenDone(), { temperature: 75 });
      const schema = z.object({ temperature: z.number() });
      const responseFormat = { schema, prompt: "Extract the temperature.", name: "weather", strict: true };
      const out = await make(lib, { llm, tools: [lookup()], responseFormat }).invoke(hi());
      return {
        structuredResponse: out.structuredResponse,
        structured: llm.log.structured,
        messages: views(out.messages),
      };
    },
  },

  "responseFormat with a postModelHook: routed to generate_structured_response; a stateSchema without structuredResponse loses it":
    {
      from: `${PREBUILT} with hooks: postModelHook + structured response`,
      async run(lib) {
        const agent = (stateSchema: unknown) =>
          make(lib, {
            llm: new FakeModel(lookupThenDone(), { temperature: 75 }),
            tools: [lookup()],
            responseFormat: z.object({ temperature: z.number() }),
            stateSchema,
            postModelHook: () => ({ flag: true }),
          });
        const { Annotation, MessagesAnnotation } = lib;
        const full = Annotation.Root({
          ...MessagesAnnotation.spec,
          flag: Annotation(),
          structuredResponse: Annotation(),
        });
        const streamed = updates(await collect(await agent(full).stream(hi(), { streamMode: "updates" })));
        const lost = await agent(withKey(lib, "flag")).invoke(hi());
        return {
          streamed,
          lost: { keys: Object.keys(lost).sort(), structuredResponse: lost.structuredResponse ?? null },
        };
      },
    },

  "a dynamic model (llm as a function of state and runtime): chosen per call, its tools not bound": {
    from: `${PREBUILT} Dynamic Model: should handle dynamic model using config parameters`,
    async run(lib) {
      const basic = new FakeModel(lookupThenDone());
      const premium = new FakeModel(["premium"]);
      const asked: unknown[] = [];
      const agent = make(lib, {
        llm: (s: { messages: BaseMessage[]; tier?: string }, runtime: { context?: { plan: string } }) => {
          asked.push([s.messages.length, s.tier ?? null, runtime.context?.plan ?? null]);
          return runtime.context?.plan === "premium" ? premium : basic;
        },
        tools: [lookup()],
        stateSchema: withKey(lib, "tier"),
        contextSchema: z.object({ plan: z.string() }),
        prompt: "sys",
      });
      const one = await agent.invoke({ ...hi(), tier: "gold" }, { context: { plan: "basic" } });
      const two = await agent.invoke(hi(), { context: { plan: "premium" } });
      return { asked, basic: basic.log, premium: premium.log, one: views(one.messages), two: views(two.messages) };
    },
  },

  "a dynamic model with responseFormat: called again, and the structured call goes to the model it returns": {
    from: `${PREBUILT} Dynamic Model: should handle dynamic model with structured response format`,
    async run(lib) {
      const models: FakeModel[] = [];
      const llm = () => models[models.push(new FakeModel(["dynamic"], { confidence: models.length })) - 1];
      const out = await make(lib, { llm, tools: [], responseFormat: z.object({ confidence: z.number() }) }).invoke(
        hi(),
      );
      return { structuredResponse: out.structuredResponse, logs: models.map((m) => m.log) };
    },
  },

  "the graph: nodes and edges with returnDirect tools, hooks and responseFormat": {
    from: `${PREBUILT} with hooks: mermaid`,
    async run(lib) {
      const base = { llm: new FakeModel([]), tools: [lookup()] };
      const [hook, responseFormat] = [() => ({}), z.object({ t: z.number() })];
      const agents = {
        plain: make(lib, base),
        direct: make(lib, { ...base, tools: [lookup(), finish()], version: "v2" }),
        pre: make(lib, { ...base, tools: [finish()], preModelHook: hook, responseFormat }),
        post: make(lib, { ...base, postModelHook: hook, stateSchema: withKey(lib, "flag") }),
        all: make(lib, { ...base, tools: [finish()], preModelHook: hook, postModelHook: hook, responseFormat }),
      };
      return Object.fromEntries(Object.entries(agents).map(([key, agent]) => [key, shape(agent.getGraph())]));
    },
  },

  'includeAgentName "inline": the agent\'s past AI messages shown as <name>…</name><content>…</content>': {
    from: `${PREBUILT} agent name options: Can use inline agent name`,
    async run(lib) {
      const llm = new FakeModel([
        "<name>someone</name><content>plain</content>",
        { content: [{ type: "text", text: "blocks" }] },
      ]);
      const agent = make(lib, { llm, tools: [lookup()], name: "helper", includeAgentName: "inline" });
      const first = await agent.invoke(hi());
      const history = [
        ...first.messages,
        new AIMessage({ content: "from elsewhere", name: "other" }),
        new AIMessage({ content: [{ type: "text", text: "listed" }], name: "helper" }),
        new AIMessage("nameless"),
        new HumanMessage("again"),
      ];
      const second = await agent.invoke({ messages: history });
      return { saw: llm.log.calls, messages: views(second.messages) };
    },
  },
});
