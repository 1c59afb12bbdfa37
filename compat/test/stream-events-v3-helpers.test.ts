/**
 * The exported building blocks of `streamEvents(..., { version: "v3" })`, used directly on both
 * runtimes: `convertToProtocolEvent`, `isCheckpointEnvelope`, `STREAM_EVENTS_V3_MODES`,
 * `StreamChannel` (and its alias `EventLog`), `createGraphRunStream` fed synthetic
 * `[namespace, mode, payload]` chunks, the built-in transformers (`createValuesTransformer`,
 * `createMessagesTransformer`, `createLifecycleTransformer`, `filterLifecycleEntries`) and
 * `isNativeTransformer`. Nothing here is random: only timestamps are left out.
 */
import { collect, compare, drain, type Runtime } from "./harness.js";

/** An event without its timestamp. */
const untimed = ({ params: { timestamp: _, ...params }, ...event }: any) => ({ ...event, params });

/** A lifecycle entry without its timestamp. */
const entry = ({ timestamp: _, ...rest }: any) => rest;

/** A protocol event as the transformers see it. */
const event = (method: string, namespace: string[], data: unknown, node?: string) => ({
  type: "event",
  seq: 0,
  method,
  params: { namespace, timestamp: 1, ...(node ? { node } : {}), data },
});

/** Yields the chunks one per microtask, then throws `error` if given. */
async function* source(chunks: unknown[], error?: Error) {
  for (const chunk of chunks) {
    await null;
    yield chunk;
  }
  if (error) throw error;
}

/** What a ChatModelStream gives: node, namespace, text, event names. */
async function streamed(stream: any) {
  return {
    node: stream.node,
    namespace: stream.namespace,
    text: await stream.text,
    events: (await collect(stream)).map((e: any) => e.event),
  };
}

/** A messages chunk as the engine streams it: [namespace, "messages", [data, metadata]]. */
const token = (namespace: string[], node: string, runId: string, data: Record<string, unknown>) => [
  namespace,
  "messages",
  [{ ...data }, { langgraph_node: node, run_id: runId }],
];

const text = (value: string) => ({
  event: "content-block-delta",
  index: 0,
  delta: { type: "text-delta", text: value },
});

class SourceFailure extends Error {
  override name = "SourceFailure";
}

/** Runs every case through convertToProtocolEvent, timestamps left out. */
const converted = (lib: Runtime, cases: Array<[string, unknown]>, namespace: string[] = []) =>
  cases.map(([mode, payload], seq) => lib.convertToProtocolEvent({ namespace, mode, payload, seq }).map(untimed));

compare("streamEvents v3 helpers: conversion", {
  "convertToProtocolEvent: values, updates, custom, tasks, checkpoints; debug and unknown modes give nothing": {
    from: "convert.test.ts: convertToProtocolEvent",
    async run(lib) {
      return converted(
        lib,
        [
          ["values", { a: 1 }],
          ["updates", { node: { a: 1 } }],
          ["updates", { first: { a: 1 }, second: { b: 2 } }],
          ["updates", { node: 5 }],
          ["updates", { node: null }],
          ["updates", {}],
          ["updates", "not an object"],
          ["custom", "hi"],
          ["custom", { name: "progress", payload: 1 }],
          ["custom", { other: 1 }],
          ["custom", [1, 2]],
          ["custom", null],
          ["tasks", { name: "t", input: {} }],
          ["checkpoints", { id: "c1", parent_id: "c0", step: 1, source: "loop" }],
          ["checkpoints", { id: "c1", step: 1, values: {} }],
          ["checkpoints", { id: "c1", source: "loop", config: {} }],
          ["debug", { type: "checkpoint" }],
          ["unknown", {}],
        ],
        ["sub:1"],
      );
    },
  },

  "convertToProtocolEvent: messages tuples unwrapped with node and run_id; tools events renamed": {
    from: "convert.test.ts: unwraps messages tuples and preserves routing metadata",
    async run(lib) {
      return converted(lib, [
        ["messages", [{ event: "message-start" }, { langgraph_node: "agent", run_id: "r1" }]],
        ["messages", [{ event: "message-start" }, { langgraph_node: 3 }]],
        ["messages", ["a token", { run_id: "r1" }]],
        ["messages", [{ event: "x" }, null]],
        ["messages", "neither"],
        ["tools", { event: "on_tool_start", toolCallId: "c1", name: "add", input: { a: 1 } }],
        ["tools", { event: "on_tool_start", input: {} }],
        ["tools", { event: "on_tool_event", toolCallId: "c1", data: { part: 1 } }],
        ["tools", { event: "on_tool_event", toolCallId: "c1", data: "chunk" }],
        ["tools", { event: "on_tool_end", toolCallId: "c1", output: 3 }],
        ["tools", { event: "on_tool_error", toolCallId: "c1", error: new Error("bad") }],
        ["tools", { event: "on_tool_error", toolCallId: "c1", error: "plain" }],
        ["tools", { event: "on_tool_error", toolCallId: "c1" }],
        ["tools", { event: "on_something_else" }],
        ["tools", 5],
      ]);
    },
  },

  "isCheckpointEnvelope and STREAM_EVENTS_V3_MODES": {
    from: "convert.test.ts: converts a lightweight 'checkpoints' envelope chunk",
    async run({ isCheckpointEnvelope, STREAM_EVENTS_V3_MODES }) {
      const payloads = [
        null,
        1,
        {},
        { id: "a" },
        { id: "a", step: 1 },
        { id: "a", source: "loop" },
        { id: 1, step: 1 },
        { id: "a", step: "1" },
        { id: "a", step: 1, values: {} },
        { id: "a", source: "loop", config: {} },
      ];
      return { envelopes: payloads.map((p) => isCheckpointEnvelope(p)), modes: STREAM_EVENTS_V3_MODES };
    },
  },
});

compare("streamEvents v3 helpers: StreamChannel", {
  "push, size, get, iterate from a position, toAsyncIterable, close; independent cursors": {
    from: "stream-channel.test.ts: iterates pushed values independently for each consumer",
    async run({ StreamChannel, EventLog }) {
      const channel = StreamChannel.local();
      channel.push(1);
      channel.push(2);
      const sized = { size: channel.size, items: [channel.get(0), channel.get(1)], done: channel.done };
      const outOfRange = [2, -1].map((i) => {
        try {
          return channel.get(i);
        } catch (error) {
          return [(error as Error).name, (error as Error).message];
        }
      });
      const first = channel.iterate();
      const second = channel.iterate(1);
      const heads = [await first.next(), await second.next()];
      const later = collect(channel.toAsyncIterable(1));
      setTimeout(() => {
        channel.push(3);
        channel.close();
      }, 5);
      return {
        sized,
        outOfRange,
        heads,
        later: await later,
        rest: [await first.next(), await first.next(), await first.next()],
        all: await collect(channel),
        done: channel.done,
        alias: EventLog === StreamChannel,
      };
    },
  },

  "names: local has none, remote and new StreamChannel(name) have theirs; isInstance by brand": {
    from: "stream-channel.test.ts: creates remote channels with a protocol name",
    async run({ StreamChannel }) {
      return {
        names: [
          StreamChannel.local().channelName ?? null,
          StreamChannel.remote("steps").channelName,
          new StreamChannel("named").channelName,
          new StreamChannel().channelName ?? null,
        ],
        isInstance: [
          StreamChannel.isInstance(StreamChannel.local()),
          StreamChannel.isInstance({}),
          StreamChannel.isInstance(null),
          StreamChannel.isInstance({ [Symbol.for("langgraph.stream_channel")]: true }),
        ],
      };
    },
  },

  "fail: iterators get the buffered items, then the error": {
    from: "stream-channel.test.ts: propagates failure to iterators after buffered values",
    async run({ StreamChannel }) {
      const channel = StreamChannel.local();
      channel.push("a");
      channel.fail(new SourceFailure("boom"));
      return { items: await drain(channel), done: channel.done, size: channel.size };
    },
  },

  "toEventStream: server-sent events named after the channel, or as told, from a position, serialised as told": {
    from: "stream-channel.test.ts: toEventStream emits pushed values as server-sent events",
    async run({ StreamChannel }) {
      const read = async (stream: ReadableStream<Uint8Array>) =>
        (await collect(stream as unknown as AsyncIterable<Uint8Array>))
          .map((bytes) => new TextDecoder().decode(bytes))
          .join("");
      const remote = StreamChannel.remote("steps");
      remote.push({ a: 1 });
      remote.push("two\nlines");
      remote.close();
      const local = StreamChannel.local();
      local.push(1);
      local.push(2);
      local.close();
      return [
        await read(remote.toEventStream()),
        await read(local.toEventStream({ startAt: 1 })),
        await read(local.toEventStream({ event: "num", serialize: (n: number) => `n=${n}\nend` })),
      ];
    },
  },
});

compare("streamEvents v3 helpers: createGraphRunStream", {
  "synthetic chunks: seq from 0, lifecycle synthesised, subgraphs, messages, values and output": {
    from: "run-stream.test.ts: createGraphRunStream",
    async run({ createGraphRunStream, loadLangChain }) {
      // run.messages yields @langchain/core ChatModelStreams: Interlude loads LangChain first.
      await loadLangChain?.();
      const chunks = [
        [[], "values", { n: 0 }],
        [[], "checkpoints", { id: "c1", step: 0, source: "loop" }],
        [["sub:3"], "values", { m: 1 }],
        [["sub:3", "inner:7"], "updates", { leaf: { a: 1 } }],
        [["sub:3"], "updates", { inner: { a: 1 } }],
        token(["agent:1"], "agent", "r1", { event: "message-start", id: "m1" }),
        token(["agent:1"], "agent", "r1", text("he")),
        token(["agent:1"], "agent", "r1", text("y")),
        token(["agent:1"], "agent", "r1", { event: "message-finish", reason: "stop" }),
        token(["agent:1"], "agent", "r1", { event: "message-start", id: "t1", role: "tool" }),
        token(["agent:1"], "agent", "r1", { event: "message-finish" }),
        [[], "updates", { sub: { m: 1 } }],
        [[], "debug", {}],
        [[], "values", { n: 1 }],
      ];
      const run = createGraphRunStream(source(chunks));
      const [events, subgraphs, lifecycle, messages, values] = await Promise.all([
        collect(run),
        collect(run.subgraphs),
        collect(run.lifecycle),
        collect(run.messages),
        collect(run.values),
      ]);
      return {
        events: events.map(untimed),
        subgraphs: subgraphs.map((s: any) => [s.name, s.index, s.path, s.constructor.name]),
        lifecycle: lifecycle.map(entry),
        messages: await Promise.all(messages.map(streamed)),
        values,
        output: await run.output,
        interrupted: run.interrupted,
      };
    },
  },

  "an __interrupt__ values chunk marks the run interrupted; a source that throws fails everything": {
    from: "mux.test.ts: calls fail on error",
    async run({ createGraphRunStream }) {
      const interrupted = createGraphRunStream(
        source([
          [[], "values", { n: 0 }],
          [[], "values", { __interrupt__: [{ id: "i1", value: "q" }] }],
        ]),
      );
      await collect(interrupted);
      const failed = createGraphRunStream(
        source(
          [
            [[], "values", { n: 0 }],
            [["a:1"], "values", {}],
          ],
          new SourceFailure("x"),
        ),
      );
      const empty = createGraphRunStream(source([]));
      return {
        interrupted: [interrupted.interrupted, interrupted.interrupts, await interrupted.output],
        failed: {
          events: await drain(failed, untimed),
          lifecycle: await drain(failed.lifecycle, entry),
          values: await drain(failed.values),
          output: await failed.output.then(
            () => "resolved",
            (error: Error) => error.name,
          ),
        },
        empty: { events: (await collect(empty)).map(untimed), output: (await empty.output) ?? "undefined" },
      };
    },
  },

  "transformers: an extension's remote channel is forwarded as custom:<name>; a native's projection goes on the run": {
    from: "run-stream.test.ts: mixed native and extension transformers: only extension channels are wired",
    async run({ createGraphRunStream, StreamChannel }) {
      const extension = () => {
        const channel = StreamChannel.remote("ext");
        return {
          init: () => ({ ext: channel }),
          process: (e: any) => (e.method === "values" && channel.push(e.params.data), e.method !== "updates"),
        };
      };
      const native = () => ({ __native: true, init: () => ({ toolCalls: ["call_1"] }), process: () => true });
      const run: any = createGraphRunStream(
        source([
          [[], "values", { x: 1 }],
          [["s:1"], "updates", { n: { x: 2 } }],
          [["s:1"], "values", { x: 2 }],
        ]),
        [extension, native],
      );
      const events = await collect(run);
      return {
        events: events.map(untimed),
        extensions: Object.keys(run.extensions),
        pushed: await collect(run.extensions.ext),
        toolCalls: run.toolCalls,
      };
    },
  },
});

compare("streamEvents v3 helpers: transformers", {
  "createLifecycleTransformer: running on register, started for each new namespace, deferred completed, interrupted": {
    from: "lifecycle.test.ts: cascades interrupted when input.requested events are seen",
    async run({ createLifecycleTransformer, filterLifecycleEntries, isNativeTransformer }) {
      const outcomes = [];
      for (const options of [
        undefined,
        { rootGraphName: "main", emitRootOnRegister: false },
        { initialStatus: "started", getGraphName: (ns: string[]) => ns.join("/").toUpperCase() },
      ]) {
        const transformer = createLifecycleTransformer(options);
        const projection = transformer.init();
        const wire: unknown[] = [];
        transformer.onRegister({
          push: (ns: string[], e: any) => {
            wire.push([ns, e.method, e.params.data]);
            transformer.process(e);
          },
        });
        const kept = [
          event("values", ["a:1", "b:2"], {}),
          event("lifecycle", ["c:9"], {
            event: "started",
            graph_name: "x",
            cause: { type: "toolCall", tool_call_id: "t" },
          }),
          event("updates", ["a:1"], { node: "b", values: {} }, "b"),
          event("input", [], { event: "requested", id: "i1" }),
          event("values", [], {}),
        ].map((e) => transformer.process(e));
        transformer.finalize();
        outcomes.push({
          kept,
          wire,
          entries: (await collect(projection.lifecycle)).map(entry),
          underA: (await collect(filterLifecycleEntries(projection._lifecycleLog, ["a:1"], 0))).map(entry),
          keys: Object.keys(projection),
          native: isNativeTransformer(transformer),
        });
      }
      return outcomes;
    },
  },

  "createLifecycleTransformer: fail() marks started namespaces failed, the root with the error's message": {
    from: "lifecycle.test.ts: cascades failed status to all still-started namespaces on fail()",
    async run({ createLifecycleTransformer }) {
      const failWith = async (error: unknown) => {
        const transformer = createLifecycleTransformer();
        const projection = transformer.init();
        transformer.onRegister({ push: () => undefined });
        transformer.process(event("values", ["a:1"], {}));
        transformer.fail(error);
        return drain(projection.lifecycle, entry);
      };
      return [await failWith(new SourceFailure("bad")), await failWith({ code: 1 }), await failWith("text")];
    },
  },

  "createValuesTransformer and createMessagesTransformer: only their namespace's events; isNativeTransformer": {
    from: "transformers.test.ts: captures events only at depth + 1 (direct child nodes)",
    async run({ createValuesTransformer, createMessagesTransformer, isNativeTransformer, loadLangChain }) {
      await loadLangChain?.();
      const values = createValuesTransformer(["s:1"]);
      const valuesProjection = values.init();
      const kept = [
        event("values", ["s:1"], { a: 1 }),
        event("values", [], { b: 1 }),
        event("values", ["s:1", "x:2"], { c: 1 }),
        event("values", ["t:1"], { d: 1 }),
        event("updates", ["s:1"], {}),
      ].map((e) => values.process(e));
      values.finalize();
      const messages = createMessagesTransformer([], "agent");
      const messagesProjection = messages.init();
      const m = (data: unknown, ns = ["agent:1"], node = "agent") => event("messages", ns, data, node);
      for (const e of [
        m({ event: "message-start", id: "x", run_id: "r1" }),
        m({ event: "message-start", id: "y", run_id: "r2" }),
        m({ ...text("A"), run_id: "r1" }),
        m({ ...text("B"), run_id: "r2" }),
        m({ event: "message-finish", run_id: "r1" }),
        m({ event: "message-start", run_id: "r3" }, ["other:1"], "other"),
        m({ event: "message-start", run_id: "r4" }, ["agent:1", "deep:2"]),
        m({ ...text("C"), run_id: "r2" }),
      ])
        messages.process(e);
      messages.finalize();
      return {
        kept,
        values: await collect(valuesProjection._valuesLog),
        keys: [Object.keys(valuesProjection), Object.keys(messagesProjection)],
        messages: await Promise.all((await collect(messagesProjection.messages)).map(streamed)),
        native: [
          isNativeTransformer(values),
          isNativeTransformer({ __native: true, init: () => ({}), process: () => true }),
          isNativeTransformer({ __native: "yes", init: () => ({}), process: () => true }),
        ],
      };
    },
  },
});
