/**
 * Agents on both runtimes: the docs-style tool-review agent of examples/agents (the very file,
 * its import specifiers switched to LangGraph.js's), messages state, StateSchema and zod state,
 * input/output and context schemas, Runnables as nodes and paths, the prebuilt agent.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { AIMessage, type BaseMessage, HumanMessage, RemoveMessage } from "@langchain/core/messages";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { emailScript, ScriptedChatModel } from "../../examples/agents/lib/scripted-model.mjs";
import { collect, compare, isInterlude, prebuiltOf, type Runtime, zodOf } from "./harness.js";

const agentFile = fileURLToPath(new URL("../../examples/agents/lib/agent.mjs", import.meta.url));
const generated = fileURLToPath(new URL("../../.tmp/compat/agent.langgraph.mjs", import.meta.url));
mkdirSync(fileURLToPath(new URL("../../.tmp/compat/", import.meta.url)), { recursive: true });
// The only change: the import specifiers (see the README's table).
writeFileSync(
  generated,
  readFileSync(agentFile, "utf8")
    .replaceAll('"@interlude/core/prebuilt"', '"@langchain/langgraph/prebuilt"')
    .replaceAll('"@interlude/core"', '"@langchain/langgraph"'),
);
const agents = {
  interlude: await import(/* @vite-ignore */ pathToFileURL(agentFile).href),
  langgraph: await import(/* @vite-ignore */ pathToFileURL(generated).href),
};

/** What the two runtimes must agree on: each message's type, content, tool calls and tool status. */
function conversation(messages: BaseMessage[]) {
  return messages.map((m) => ({
    type: m.getType(),
    content: m.content,
    tool_calls: (m as AIMessage).tool_calls ?? null,
    status: (m as { status?: string }).status ?? null,
  }));
}

function emailTool(sent: string[]) {
  return tool(
    async ({ to }: { to: string }) => {
      sent.push(to);
      return `sent to ${to}`;
    },
    {
      name: "send_email",
      description: "Send an email.",
      schema: z.object({ to: z.string(), subject: z.string(), body: z.string() }),
    },
  );
}

async function reviewed(lib: Runtime, decision: unknown) {
  const { buildAgent } = isInterlude(lib) ? agents.interlude : agents.langgraph;
  const sent: string[] = [];
  const saver = new lib.MemorySaver();
  const make = () =>
    buildAgent({ model: new ScriptedChatModel(emailScript), tools: [emailTool(sent)], checkpointer: saver });
  const config = { configurable: { thread_id: "review" } };
  const paused = await make().invoke({ messages: [{ role: "user", content: "Invite Bob" }] }, config);
  // Resumed by another graph object over the same saver, as another process would.
  const done = await make().invoke(new lib.Command({ resume: { decisions: [decision] } }), config);
  return { request: paused.__interrupt__[0].value, messages: conversation(done.messages), sent };
}

compare("agents", {
  "tool review: approve runs the proposed call once": (lib) => reviewed(lib, { type: "approve" }),
  "tool review: edit runs the call with the reviewer's arguments": (lib) =>
    reviewed(lib, {
      type: "edit",
      editedAction: { name: "send_email", args: { to: "carol@example.com", subject: "Lunch", body: "Noon?" } },
    }),
  "tool review: reject tells the model why, as a ToolMessage": (lib) =>
    reviewed(lib, { type: "reject", message: "Not today." }),

  async "createReactAgent with interruptBefore tools and a checkpointer"(lib) {
    const { createReactAgent } = prebuiltOf(lib);
    const sent: string[] = [];
    const agent = createReactAgent({
      llm: new ScriptedChatModel(emailScript),
      tools: [emailTool(sent)],
      checkpointer: new lib.MemorySaver(),
      interruptBefore: ["tools"],
    });
    const config = { configurable: { thread_id: "react" } };
    await agent.invoke({ messages: [new HumanMessage("Invite Bob")] }, config);
    const paused = await agent.getState(config);
    const before = [...sent];
    const done = await agent.invoke(null, config);
    return { next: paused.next, before, after: sent, messages: conversation(done.messages) };
  },

  async "messages state: ids, update by id, RemoveMessage, REMOVE_ALL_MESSAGES"(lib) {
    const { messagesStateReducer, REMOVE_ALL_MESSAGES } = lib;
    const start = messagesStateReducer(
      [],
      [new HumanMessage({ content: "a", id: "1" }), new AIMessage({ content: "b", id: "2" })],
    );
    const replaced = messagesStateReducer(start, [new AIMessage({ content: "b2", id: "2" })]);
    const removed = messagesStateReducer(replaced, [new RemoveMessage({ id: "1" })]);
    const coerced = messagesStateReducer(removed, [{ role: "user", content: "c" }, "d"]);
    const cleared = messagesStateReducer(coerced, [
      new RemoveMessage({ id: REMOVE_ALL_MESSAGES }),
      new HumanMessage("e"),
    ]);
    let unknown: string | undefined;
    try {
      messagesStateReducer(cleared, [new RemoveMessage({ id: "nope" })]);
    } catch {
      unknown = "threw";
    }
    return {
      replaced: conversation(replaced),
      removed: conversation(removed),
      coerced: conversation(coerced),
      allHaveIds: coerced.every((m: BaseMessage) => typeof m.id === "string"),
      cleared: conversation(cleared),
      unknown,
    };
  },

  async "MessagesAnnotation graph with message-likes as input"(lib) {
    const graph = new lib.StateGraph(lib.MessagesAnnotation)
      .addNode("reply", (state: { messages: BaseMessage[] }) => ({
        messages: [new AIMessage(`echo ${state.messages.at(-1)?.content}`)],
      }))
      .addEdge(lib.START, "reply")
      .compile();
    const out = await graph.invoke({ messages: [{ role: "user", content: "hi" }] });
    return conversation(out.messages);
  },

  async "StateSchema with MessagesValue and a ReducedValue"(lib) {
    const State = new lib.StateSchema({
      messages: lib.MessagesValue,
      count: z.number().default(0),
      log: new lib.ReducedValue(
        z.array(z.string()).default(() => []),
        {
          inputSchema: z.string(),
          reducer: (all: string[], one: string) => [...all, one],
        },
      ),
    });
    const graph = new lib.StateGraph(State)
      .addNode("a", (s: { count: number }) => ({ count: s.count + 1, log: "a", messages: [new AIMessage("from a")] }))
      .addNode("b", (s: { count: number }) => ({ count: s.count + 1, log: "b" }))
      .addEdge(lib.START, "a")
      .addEdge("a", "b")
      .compile();
    const out = await graph.invoke({ messages: [new HumanMessage("go")] });
    return { count: out.count, log: out.log, messages: conversation(out.messages) };
  },

  async "zod state with a reducer registered the LangGraph way"(lib) {
    const { registry } = zodOf(lib);
    // As LangGraph.js's documentation imports it: from the root entry.
    const { MessagesZodMeta } = lib;
    const State = z.object({
      messages: z.custom<BaseMessage[]>().register(registry, MessagesZodMeta),
      items: z
        .array(z.string())
        .default(() => [])
        .register(registry, { reducer: { fn: (a: string[], b: string[]) => a.concat(b) } }),
      title: z.string().optional(),
    });
    const graph = new lib.StateGraph(State)
      .addNode("a", () => ({ items: ["x"], title: "t" }))
      .addNode("b", () => ({ items: ["y"], messages: [new AIMessage("done")] }))
      .addEdge(lib.START, "a")
      .addEdge("a", "b")
      .compile();
    const out = await graph.invoke({ items: ["w"], messages: [new HumanMessage("go")] });
    return { items: out.items, title: out.title, messages: conversation(out.messages), keys: Object.keys(out).sort() };
  },

  async "separate input and output schemas"(lib) {
    const graph = new lib.StateGraph({
      state: z.object({ question: z.string(), scratch: z.string().optional(), answer: z.string().optional() }),
      input: z.object({ question: z.string() }),
      output: z.object({ answer: z.string() }),
    })
      .addNode("think", (s: { question: string }) => ({ scratch: `thinking about ${s.question}` }))
      .addNode("respond", (s: { scratch: string }) => ({ answer: `${s.scratch}: 42` }))
      .addEdge(lib.START, "think")
      .addEdge("think", "respond")
      .compile();
    const streamed = await collect(await graph.stream({ question: "life" }, { streamMode: ["values", "updates"] }));
    return { invoked: await graph.invoke({ question: "life" }), streamed };
  },

  "an input that fails the zod state is a typed error naming the field": {
    differs: "#state-that-fails-its-schema-is-a-stateinputerror",
    throws: true,
    async run(lib) {
      const graph = new lib.StateGraph(z.object({ age: z.number() }))
        .addNode("n", () => ({}))
        .addEdge(lib.START, "n")
        .compile();
      return graph.invoke({ age: "ten" });
    },
  },

  async "context schema: nodes read config.context as given (checked, defaults not filled in)"(lib) {
    const Context = z.object({ user: z.string(), tone: z.string().default("warm") });
    const graph = new lib.StateGraph(lib.Annotation.Root({ greeting: lib.Annotation() }), Context)
      .addNode("greet", (_s: unknown, runtime: { context: { user: string; tone: string } }) => ({
        greeting: `${runtime.context.tone} hello ${runtime.context.user}`,
      }))
      .addEdge(lib.START, "greet")
      .compile();
    return graph.invoke({}, { context: { user: "ada" } });
  },

  "a context that fails the context schema is a typed error": {
    differs: "#state-that-fails-its-schema-is-a-stateinputerror",
    throws: true,
    async run(lib) {
      const graph = new lib.StateGraph(lib.Annotation.Root({ g: lib.Annotation() }), z.object({ user: z.string() }))
        .addNode("n", () => ({}))
        .addEdge(lib.START, "n")
        .compile();
      return graph.invoke({}, { context: { user: 5 } });
    },
  },

  async "Runnables as a node and as a conditional-edge path"(lib) {
    const State = lib.Annotation.Root({ n: lib.Annotation(), route: lib.Annotation() });
    const graph = new lib.StateGraph(State)
      .addNode(
        "double",
        RunnableLambda.from((s: { n: number }) => ({ n: s.n * 2 })),
      )
      .addNode("big", () => ({ route: "big" }))
      .addNode("small", () => ({ route: "small" }))
      .addEdge(lib.START, "double")
      .addConditionalEdges(
        "double",
        RunnableLambda.from((s: { n: number }) => (s.n > 5 ? "big" : "small")),
        ["big", "small"],
      )
      .compile();
    return [await graph.invoke({ n: 2 }), await graph.invoke({ n: 4 })];
  },

  async "ToolNode as a node over a list of tool calls; a failing tool becomes an error ToolMessage"(lib) {
    const { ToolNode } = prebuiltOf(lib);
    const sent: string[] = [];
    const broken = tool(
      async () => {
        throw new Error("mailbox full");
      },
      { name: "broken", description: "Fails.", schema: z.object({}) },
    );
    const graph = new lib.StateGraph(lib.MessagesAnnotation)
      .addNode("tools", new ToolNode([emailTool(sent), broken]))
      .addEdge(lib.START, "tools")
      .compile();
    const call = new AIMessage({
      content: "",
      tool_calls: [
        { name: "send_email", args: { to: "a@b.c", subject: "s", body: "b" }, id: "c1", type: "tool_call" },
        { name: "broken", args: {}, id: "c2", type: "tool_call" },
      ],
    });
    const out = await graph.invoke({ messages: [call] });
    return { sent, messages: conversation(out.messages) };
  },

  'stream mode "tools": each tool call a node makes, started, ended or failed, with its call id': async (lib) => {
    const { MessagesAnnotation, StateGraph, START } = lib;
    const { ToolNode } = prebuiltOf(lib);
    const add = tool(async ({ a, b }: { a: number; b: number }) => String(a + b), {
      name: "add",
      description: "adds",
      schema: z.object({ a: z.number(), b: z.number() }),
    });
    const fail = tool(
      async () => {
        throw new Error("no such account");
      },
      { name: "fail", description: "fails", schema: z.object({}) },
    );
    const sub = new StateGraph(MessagesAnnotation)
      .addNode("tools", new ToolNode([add, fail], { handleToolErrors: true }))
      .addEdge(START, "tools")
      .compile();
    const graph = new StateGraph(MessagesAnnotation).addNode("sub", sub).addEdge(START, "sub").compile();
    const input = {
      messages: [
        new AIMessage({
          content: "",
          tool_calls: [
            { id: "c1", name: "add", args: { a: 1, b: 2 } },
            { id: "c2", name: "fail", args: {} },
          ],
        }),
      ],
    };
    const shape = (event: any) => ({
      ...event,
      output: event.output?.content,
      error: event.error?.message,
    });
    const root = await collect(await graph.stream(input, { streamMode: "tools" }));
    const nested = await collect(await graph.stream(input, { streamMode: ["tools"], subgraphs: true }));
    return {
      root: root.length,
      nested: nested
        .map(([ns, mode, event]: [string[], string, any]) => [
          ns.map((part) => part.split(":")[0]).join("|"),
          mode,
          shape(event),
        ])
        .sort((a: any, b: any) => `${a[2].toolCallId}${a[2].event}`.localeCompare(`${b[2].toolCallId}${b[2].event}`)),
    };
  },

  "isSerializableSchema: a Standard Schema that can give its JSON Schema": (lib) =>
    Promise.resolve([
      lib.isSerializableSchema(z.object({ a: z.string() })),
      lib.isSerializableSchema({ "~standard": { version: 1, vendor: "x", validate: () => ({ value: 1 }) } }),
      lib.isSerializableSchema({ type: "string" }),
    ]),

  "a compiled graph as a step of a LangChain sequence: invoked, streamed, piped, retried, as a tool": async (lib) => {
    const { Annotation, StateGraph, START } = lib;
    // Interlude loads @langchain/core lazily; the graph's own pipe() needs it loaded first.
    await lib.loadLangChain?.();
    const State = Annotation.Root({ topic: Annotation(), draft: Annotation() });
    let failures = 1;
    const graph = new StateGraph(State)
      .addNode("write", (s: any) => {
        if (failures-- > 0) throw new Error("flaky");
        return { draft: `about ${s.topic}` };
      })
      .addEdge(START, "write")
      .compile();
    const steady = new StateGraph(State)
      .addNode("write", (s: any) => ({ draft: `about ${s.topic}` }))
      .addEdge(START, "write")
      .compile();
    const prompt = RunnableLambda.from((topic: string) => ({ topic }));
    const chain = prompt.pipe(steady);
    const streamed = [];
    for await (const chunk of await chain.stream("cats")) streamed.push(chunk);
    const tool = steady.asTool({ name: "writer", description: "writes", schema: z.object({ topic: z.string() }) });
    return {
      invoked: await chain.invoke("dogs"),
      streamed,
      piped: await steady.pipe(RunnableLambda.from((s: any) => s.draft.length)).invoke({ topic: "owls" }),
      retried: await graph.withRetry({ stopAfterAttempt: 2 }).invoke({ topic: "bees" }),
      picked: await steady.pick("draft").invoke({ topic: "ants" }),
      tool: [tool.name, await tool.invoke({ topic: "fish" })],
    };
  },
});
