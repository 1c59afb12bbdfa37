import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { z } from "zod";
import { collect, compare, cutIds, prebuiltOf, type Runtime } from "./harness.js";

/** A messages event's payload without its run id (the message ids made from run ids go with `id`). */
const withoutRunId = ({ run_id: _, ...data }: any) => data;

/**
 * The run's events: messages and lifecycle events whole (ids cut), the others by method and
 * namespace only (their states hold messages, compared elsewhere).
 */
const outline = (event: any) =>
  event.method === "messages" || event.method === "lifecycle"
    ? [event.method, cutIds(event.params.namespace), event.params.node ?? null, withoutRunId(event.params.data)]
    : [event.method, cutIds(event.params.namespace)];

/** A message as compared: its type and content. */
const shown = (message: BaseMessage) => [message.getType(), message.content];

/** What one ChatModelStream of run.messages gives: where it comes from, its text, its events, its message. */
async function streamed(stream: any) {
  const deltas = await collect(stream.text);
  const events = await collect(stream);
  const message = await stream;
  return {
    node: stream.node,
    namespace: cutIds(stream.namespace),
    text: await stream.text,
    deltas,
    events: events.map(withoutRunId),
    message: [message.constructor.name, ...shown(message)],
  };
}

const readAll = async (streams: AsyncIterable<unknown>) => Promise.all((await collect(streams)).map(streamed));

function messagesState({ Annotation }: Runtime) {
  return Annotation.Root({
    messages: Annotation({ reducer: (a: BaseMessage[], b: BaseMessage[]) => a.concat(b), default: () => [] }),
  });
}

/** A node that answers with the model's next response, the node's config passed on or not. */
const calling =
  (model: FakeListChatModel, passConfig = true) =>
  async (state: any, config: any) => ({
    messages: [await model.invoke(state.messages, passConfig ? config : undefined)],
  });

const hello = { messages: [new HumanMessage({ content: "hello", id: "h1" })] };

/** START -> agent, whose model replies "hi there". */
const oneReply = (lib: Runtime) =>
  new lib.StateGraph(messagesState(lib))
    .addNode("agent", calling(new FakeListChatModel({ responses: ["hi there"] })))
    .addEdge(lib.START, "agent")
    .compile();

compare("streamEvents v3: messages", {
  "run.messages: a chat model's reply as one stream with its node, namespace, text, events and message": {
    async run(lib) {
      const run = await oneReply(lib).streamEvents(hello, { version: "v3" });
      const [messages] = await Promise.all([readAll(run.messages), collect(run)]);
      return { messages, output: (await run.output).messages.map(shown) };
    },
  },

  "ChatModelStreamImpl: run.messages gives instances of it, and one built from a stream's events reads the same": {
    async run(lib) {
      const { ChatModelStreamImpl } = lib;
      const run = await oneReply(lib).streamEvents(hello, { version: "v3" });
      const [streams] = await Promise.all([collect(run.messages), collect(run)]);
      const events = await collect(streams[0] as AsyncIterable<unknown>);
      const rebuilt = new ChatModelStreamImpl(
        (async function* () {
          yield* events;
        })(),
      );
      return {
        instances: streams.map((stream) => stream instanceof ChatModelStreamImpl),
        plainObject: {} instanceof ChatModelStreamImpl,
        rebuilt: { isOne: rebuilt instanceof ChatModelStreamImpl, text: await rebuilt.text },
      };
    },
  },

  "the messages events in the iteration: under the node's task namespace, which lifecycle starts and completes": {
    async run(lib) {
      const { StateGraph, START } = lib;
      const graph = new StateGraph(messagesState(lib))
        .addNode("agent", calling(new FakeListChatModel({ responses: ["ok"] }), false))
        .addNode("after", () => ({ messages: [] }))
        .addEdge(START, "agent")
        .addEdge("agent", "after")
        .compile();
      const events = await collect(await graph.streamEvents(hello, { version: "v3" }));
      return events.map(outline);
    },
  },

  "two model calls in one node: two streams, in order": {
    async run(lib) {
      const { StateGraph, START } = lib;
      const model = new FakeListChatModel({ responses: ["one", "two"] });
      const graph = new StateGraph(messagesState(lib))
        .addNode("agent", async (state: any, config: any) => {
          const first = await model.invoke(state.messages, config);
          const second = await model.invoke([...state.messages, first], config);
          return { messages: [first, second] };
        })
        .addEdge(START, "agent")
        .compile();
      const run = await graph.streamEvents(hello, { version: "v3" });
      const [messages] = await Promise.all([readAll(run.messages), collect(run)]);
      return messages;
    },
  },

  "messagesFrom(node): only that node's messages, also when asked for after the run": {
    from: "run-stream.test.ts: messagesFrom replays buffered messages events via addTransformer",
    async run(lib) {
      const { StateGraph, START } = lib;
      const graph = new StateGraph(messagesState(lib))
        .addNode("first", calling(new FakeListChatModel({ responses: ["from first"] })))
        .addNode("second", calling(new FakeListChatModel({ responses: ["from second"] })))
        .addEdge(START, "first")
        .addEdge("first", "second")
        .compile();
      const run = await graph.streamEvents(hello, { version: "v3" });
      const during = run.messagesFrom("second");
      const [fromSecond] = await Promise.all([readAll(during), collect(run)]);
      const afterwards = await readAll(run.messagesFrom("first"));
      const all = await readAll(run.messages);
      return { fromSecond, afterwards, all: all.map((m) => [m.node, m.text]) };
    },
  },

  "messages a node returns without a model: an AI and a human message emitted whole, a tool message not": {
    async run(lib) {
      const { StateGraph, START } = lib;
      const graph = new StateGraph(messagesState(lib))
        .addNode("echo", () => ({
          messages: [
            new AIMessage({ content: "done", id: "a1" }),
            new ToolMessage({ content: "tool out", tool_call_id: "c1", id: "t1" }),
            new HumanMessage({ content: "human", id: "h2" }),
          ],
        }))
        .addEdge(START, "echo")
        .compile();
      const run = await graph.streamEvents(hello, { version: "v3" });
      const [messages, events] = await Promise.all([readAll(run.messages), collect(run)]);
      return {
        events: events.filter((e: any) => e.method === "messages").map(outline),
        messages,
        // The input's messages are not emitted again.
        output: (await run.output).messages.map(shown),
      };
    },
  },

  "a model in a subgraph: in the subgraph stream's messages, not in the root's": {
    async run(lib) {
      const { StateGraph, START } = lib;
      const child = new StateGraph(messagesState(lib))
        .addNode("inner", calling(new FakeListChatModel({ responses: ["deep"] })))
        .addEdge(START, "inner")
        .compile();
      const graph = new StateGraph(messagesState(lib)).addNode("child", child).addEdge(START, "child").compile();
      const run = await graph.streamEvents(hello, { version: "v3" });
      const [root, subgraphs, events] = await Promise.all([
        readAll(run.messages),
        collect(run.subgraphs),
        collect(run),
      ]);
      const inSubgraphs = await Promise.all(
        subgraphs.map(async (sub: any) => ({
          name: sub.name,
          messages: await readAll(sub.messages),
          // Only first-level namespaces are announced: "child|inner" is no subgraph of "child".
          nested: (await collect(sub.subgraphs)).length,
        })),
      );
      return { root, inSubgraphs, events: events.map(outline) };
    },
  },

  "a node that calls a chat model is announced in run.subgraphs, with no values and no output": {
    async run(lib) {
      const { StateGraph, START } = lib;
      const graph = new StateGraph(messagesState(lib))
        .addNode("agent", calling(new FakeListChatModel({ responses: ["hey"] })))
        .addEdge(START, "agent")
        .compile();
      const run = await graph.streamEvents(hello, { version: "v3" });
      const [subgraphs] = await Promise.all([collect(run.subgraphs), collect(run)]);
      return Promise.all(
        subgraphs.map(async (sub: any) => ({
          name: sub.name,
          path: cutIds(sub.path),
          methods: (await collect(sub)).map((e: any) => e.method),
          values: await collect(sub.values),
          output: (await sub.output) ?? "undefined",
          messages: (await readAll(sub.messages)).length,
          lifecycle: (await collect(sub.lifecycle)).map((e: any) => [e.event, e.graph_name]),
        })),
      );
    },
  },
});

compare("streamEvents v3: tools", {
  "a ToolNode's calls: tool-started with its input as JSON, then tool-finished or tool-error, per call": {
    from: "pregel.stream.test.ts: emits tool-started and tool-error when handleToolErrors=true",
    async run(lib) {
      const { StateGraph, START, MessagesAnnotation } = lib;
      const { ToolNode } = prebuiltOf(lib);
      const add = tool(async ({ a, b }: { a: number; b: number }) => String(a + b), {
        name: "add",
        description: "adds",
        schema: z.object({ a: z.number(), b: z.number() }),
      });
      const broken = tool(
        async () => {
          throw new Error("no such account");
        },
        { name: "broken", description: "fails", schema: z.object({}) },
      );
      const graph = new StateGraph(MessagesAnnotation)
        .addNode("tools", new ToolNode([add, broken]))
        .addEdge(START, "tools")
        .compile();
      const call = new AIMessage({
        content: "",
        tool_calls: [
          { name: "add", args: { a: 1, b: 2 }, id: "c1", type: "tool_call" },
          { name: "broken", args: {}, id: "c2", type: "tool_call" },
        ],
      });
      const run = await graph.streamEvents({ messages: [call] }, { version: "v3" });
      const events = await collect(run);
      // The two calls run at once: each call's events in order, the calls apart.
      const byCall: Record<string, unknown[]> = {};
      for (const event of events.filter((e: any) => e.method === "tools")) {
        const { output, ...data } = event.params.data;
        (byCall[data.tool_call_id] ??= []).push({
          namespace: cutIds(event.params.namespace),
          ...data,
          ...(output ? { output: shown(output) } : {}),
        });
      }
      return {
        byCall,
        lifecycle: events.filter((e: any) => e.method === "lifecycle").map(outline),
        messages: (await readAll(run.messages)).length,
        output: (await run.output).messages.map(shown),
      };
    },
  },
});
