/**
 * Savers that fail, are slow or leave out pending writes; checkpoint saves that outlive a
 * cancelled run; streams cancelled or left hanging mid-run; a sibling that finishes while
 * another asks a question; the store across parallel nodes and threads; zod 4 messages
 * registered with MessagesZodMeta; stream mode "tools" for streaming and hidden tools; what a
 * tracer is told without a context; forged serialised values that must never run.
 */

import { awaitAllCallbacks } from "@langchain/core/callbacks/promises";
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import {
  collect,
  compare,
  forgedConstructorRecord,
  isInterlude,
  list,
  type Runtime,
  sleep,
  thread,
  zodOf,
} from "./harness.js";
import { offlineTracer } from "./offline-tracer.js";

/** How a run ended: "completed", or the message of the error it threw. */
const ending = (run: () => Promise<unknown>) =>
  run().then(
    () => "completed",
    (error: Error) => error.message,
  );

/** Waits until `done()` holds, or `ms` have passed. */
async function until(done: () => boolean, ms = 1000) {
  for (const start = Date.now(); !done() && Date.now() - start < ms; ) await sleep(5);
}

/** What a node that honours its signal went through. */
interface Watched {
  started: boolean;
  cancelled: boolean;
}

/**
 * A node that takes `ms` and returns `update`, unless its run's signal aborts first: then it
 * gives up with an AbortError. `seen` tells whether it started and whether it was cancelled.
 */
function abortable(ms: number, seen: Watched, update: object = {}) {
  return (_state: unknown, config: any) => {
    seen.started = true;
    return new Promise((resolve, reject) => {
      const giveUp = () => {
        clearTimeout(timer);
        seen.cancelled = true;
        reject(new Error("AbortError"));
      };
      const timer = setTimeout(() => resolve(update), ms);
      if (config?.signal?.aborted) giveUp();
      else config?.signal?.addEventListener("abort", giveUp, { once: true });
    });
  };
}

const watched = (): Watched => ({ started: false, cancelled: false });

/** The parts of a snapshot that say where the thread stands (its metadata without ids or times). */
const standing = (state: any) => ({
  values: state.values,
  next: state.next,
  source: state.metadata?.source,
  step: state.metadata?.step,
});

// --- Savers ------------------------------------------------------------------------------------

/**
 * A saver (MemorySaver with one method that always fails) on a graph of one node, or two in
 * parallel for `putWrites` (a lone task's writes go with the next checkpoint on Interlude, and
 * LangGraph's test uses two nodes for it too): whether invoke, stream and streamEvents fail with
 * the saver's error. As in LangGraph's test (`rejects.toThrow("Faulty put")`, a substring), the
 * message must carry the saver's: Interlude wraps storage failures in a typed StorageError whose
 * message includes it (COMPATIBILITY.md, "Shapes that differ": error classes).
 */
async function failingSaver(lib: Runtime, method: "getTuple" | "put" | "putWrites") {
  const { Annotation, StateGraph, START, MemorySaver } = lib;
  const message = { getTuple: "Faulty get_tuple", put: "Faulty put", putWrites: "Faulty put_writes" }[method];
  class Faulty extends MemorySaver {}
  Faulty.prototype[method] = async () => {
    throw new Error(message);
  };
  const builder = new StateGraph(Annotation.Root({ value: Annotation() }))
    .addNode("agent", () => ({ value: "" }))
    .addEdge(START, "agent");
  if (method === "putWrites") builder.addNode("parallel", () => ({})).addEdge(START, "parallel");
  const graph = builder.compile({ checkpointer: new Faulty() });
  const failsWithIt = async (run: () => Promise<unknown>) => {
    const ended = await ending(run);
    return ended === "completed" ? ended : { failed: true, carriesSaverMessage: ended.includes(message) };
  };
  return {
    invoke: await failsWithIt(() => graph.invoke({ value: "" }, thread("thread-1"))),
    stream: await failsWithIt(async () => collect(await graph.stream({ value: "" }, thread("thread-2")))),
    streamEvents: await failsWithIt(() =>
      collect(graph.streamEvents({ value: "" }, { ...thread("thread-3"), version: "v2" })),
    ),
  };
}

/**
 * START -> agent (1 s, gives up when its signal aborts) on a saver whose `put` takes 100 ms, run
 * by `call` and aborted 30 ms after the node starts, while the first checkpoint is still being saved. The run
 * is given `durability: "async"` (LangGraph's default) so the node starts while that save is
 * under way, as in LangGraph's test; Interlude's default waits for it (COMPATIBILITY.md
 * "Durability sync by default").
 */
async function cancelledWhileSaving(lib: Runtime, call: "invoke" | "stream" | "streamEvents") {
  const { Annotation, StateGraph, START, MemorySaver } = lib;
  const logs: string[] = [];
  class LongPut extends MemorySaver {
    async put(...args: unknown[]) {
      logs.push("putting checkpoint");
      await sleep(100);
      const saved = await super.put(...args);
      logs.push("put checkpoint");
      return saved;
    }
  }
  const agent = watched();
  const slow = abortable(1000, agent);
  const graph = new StateGraph(Annotation.Root({ value: Annotation() }))
    .addNode("agent", async (s: unknown, config: unknown) => {
      logs.push("awhile.start");
      try {
        return await slow(s, config);
      } finally {
        logs.push("awhile.end");
      }
    })
    .addEdge(START, "agent")
    .compile({ checkpointer: new LongPut() });
  const controller = new AbortController();
  const options = { ...thread("1"), signal: controller.signal, durability: "async" };
  const run = {
    invoke: () => graph.invoke({ value: 1 }, options),
    stream: async () => collect(await graph.stream({ value: 1 }, options)),
    streamEvents: () => collect(graph.streamEvents({ value: 1 }, { ...options, version: "v2" })),
  }[call];
  const ended = ending(run);
  // From the node's start, not the call's: a saver's first load may take longer than the
  // 20 ms LangGraph.js's test waits (a PostgreSQL or Redis saver, its connection new).
  await until(() => logs.includes("awhile.start"));
  const beforeTheAbort = [...logs].sort();
  await sleep(30);
  controller.abort();
  const outcome = (await ended) === "completed" ? "completed" : "rejected";
  await until(() => logs.includes("put checkpoint") || logs.includes("error putting checkpoint"));
  await sleep(150); // long enough for a second save to show, if there were one
  const state = await graph.getState(thread("1"));
  return { beforeTheAbort, outcome, logs: logs.sort(), agent, saved: { values: state.values, next: state.next } };
}

compare("savers that fail, are slow, or leave out pending writes", {
  "a saver whose getTuple fails: invoke, stream and streamEvents reject with its error": {
    from: "python_port/checkpoint.test.ts: should handle various checkpoint errors",
    run: (lib) => failingSaver(lib, "getTuple"),
  },
  "a saver whose put fails: invoke, stream and streamEvents reject with its error": {
    from: "python_port/checkpoint.test.ts: should handle various checkpoint errors",
    run: (lib) => failingSaver(lib, "put"),
  },
  "a saver whose putWrites fails (two nodes in a step): invoke, stream and streamEvents reject with its error": {
    from: "python_port/checkpoint.test.ts: should handle various checkpoint errors",
    run: (lib) => failingSaver(lib, "putWrites"),
  },

  "invoke aborted while a checkpoint is being saved: the node is cancelled, the save completes": {
    from: "python_port/checkpoint.test.ts: should not cancel checkpoint put operation when invoke is cancelled",
    run: (lib) => cancelledWhileSaving(lib, "invoke"),
  },
  "stream aborted while a checkpoint is being saved: the node is cancelled, the save completes": {
    from: "python_port/checkpoint.test.ts: should not cancel checkpoint put operation when streaming is cancelled",
    run: (lib) => cancelledWhileSaving(lib, "stream"),
  },
  "streamEvents aborted while a checkpoint is being saved: the node is cancelled, the save completes": {
    from: "python_port/checkpoint.test.ts: should not cancel checkpoint put operation when streamEvents is cancelled",
    run: (lib) => cancelledWhileSaving(lib, "streamEvents"),
  },

  "a saver whose getTuple gives no pendingWrites: each run of the thread adds to the last": {
    from: "python_port/checkpoint.test.ts: should handle checkpoint with null pending writes",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver } = lib;
      class NoPending extends MemorySaver {
        async getTuple(config: unknown) {
          const tuple = await super.getTuple(config);
          if (!tuple) return tuple;
          const { config: saved, checkpoint, metadata } = tuple;
          return { config: saved, checkpoint, metadata };
        }
      }
      const graph = new StateGraph(Annotation.Root({ value: list(lib) }))
        .addNode("1", () => ({ value: ["1"] }))
        .addEdge(START, "1")
        .compile({ checkpointer: new NoPending() });
      const results = [];
      for (let run = 0; run < 4; run++) results.push((await graph.invoke({ value: [] }, thread("foo"))).value);
      return results;
    },
  },

  "the store in parallel nodes: one document per namespace, rewritten by each run and each thread": {
    from: "python_port/checkpoint.test.ts: should pass store to nodes correctly",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver, InMemoryStore } = lib;
      const store = new InMemoryStore();
      const namespace = ["foo-shared", "bar"];
      const threads = ["thread-1", "thread-2"];
      const seenStore: boolean[] = [];
      // As LangGraph's: the numbered nodes write the shared document on the two threads, the
      // unnumbered one writes its own namespace; `other_node` reads the shared one afterwards.
      const writer = (i?: number) => async (s: any, config: any) => {
        seenStore.push(config.store !== undefined);
        const where =
          i !== undefined && threads.includes(config.configurable.thread_id) ? namespace : [`foo_${i ?? ""}`, "bar"];
        await config.store.put(where, "doc", {
          "some-key": "this-is-a-val",
          from_thread: config.configurable.thread_id,
          some_val: s.count,
        });
        return { count: 1 };
      };
      const read: unknown[] = [];
      const builder = new StateGraph(
        Annotation.Root({ count: Annotation({ reducer: (a: number, b: number) => a + b, default: () => 0 }) }),
      )
        .addNode("node", writer())
        .addNode("other_node", async (_s: unknown, config: any) => {
          read.push((await config.store.get(namespace, "doc"))?.value.from_thread);
          await config.store.put(["not", "interesting"], "key", { val: "val" });
          return { count: 0 };
        })
        .addEdge(START, "node")
        .addEdge("node", "other_node");
      for (let i = 0; i < 10; i++) builder.addNode(`node_${i}`, writer(i)).addEdge(START, `node_${i}`);
      const graph = builder.compile({ store, checkpointer: new MemorySaver() });
      const shared = async () => ({
        doc: (await store.get(namespace, "doc"))?.value,
        inNamespace: (await store.search(namespace)).length,
      });
      const batched = (await graph.batch([{ count: 0 }], [thread(threads[0])])).map((r: any) => r.count);
      const afterBatch = await shared();
      const again = (await graph.invoke({ count: 0 }, thread(threads[0]))).count;
      const afterAgain = await shared();
      const otherThread = (await graph.invoke({ count: 0 }, thread(threads[1]))).count;
      const afterOtherThread = await shared();
      return {
        batched,
        afterBatch,
        again,
        afterAgain,
        otherThread,
        afterOtherThread,
        read,
        storeInEveryNode: seenStore.every(Boolean),
        own: (await store.get(["foo_", "bar"], "doc"))?.value,
      };
    },
  },
});

// --- Cancelled and hanging streams -------------------------------------------------------------

compare("streams cancelled or left hanging", {
  "a sibling still running while the other asks: it finishes once, invoke(null) asks again, the answer ends the run": {
    from: "python_port/interrupt.test.ts: should not cancel node task when another node is interrupted",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver, interrupt, Command } = lib;
      const State = Annotation.Root({ hello: Annotation({ reducer: (a: string, b: string) => (a || "") + b }) });
      const agent = watched();
      let agentRuns = 0;
      const slow = abortable(100, agent, { hello: " again" });
      const graph = new StateGraph(State)
        .addNode("agent", (s: unknown, config: unknown) => {
          agentRuns++;
          return slow(s, config);
        })
        .addNode("bad", () => ({ hello: interrupt("I am bad") }))
        .addConditionalEdges(START, () => ["agent", "bad"])
        .compile({ checkpointer: new MemorySaver() });
      const paused = await graph.invoke({ hello: "world" }, thread("1"));
      const askedAgain = await graph.invoke(null, thread("1"));
      const answered = await graph.invoke(new Command({ resume: " okay" }), thread("1"));
      return { paused, askedAgain, answered, agentRuns, agentCancelled: agent.cancelled };
    },
  },

  "a stepTimeout passes while the reader sits on a chunk: reading on throws, the slow node is cancelled": {
    from: "python_port/interrupt.test.ts: should enforce step timeout on stream hang",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const results = [];
      for (const hang of [100, 300]) {
        const awhile = watched();
        const graph = new StateGraph(Annotation.Root({ value: Annotation() }))
          .addNode("awhile", abortable(1000, awhile))
          .addNode("alittlewhile", async () => {
            await sleep(1);
            return { value: 1 };
          })
          .addConditionalEdges(START, () => ["awhile", "alittlewhile"])
          .compile();
        graph.stepTimeout = 10;
        const chunks: unknown[] = [];
        // Error classes differ by design (COMPATIBILITY.md, "Shapes that differ"): whether it threw is compared.
        const outcome = await ending(async () => {
          for await (const chunk of await graph.stream({ value: 1 }, { streamMode: "updates" })) {
            chunks.push(chunk);
            await sleep(hang);
          }
        });
        results.push({ hang, chunks, threw: outcome !== "completed", awhile });
      }
      return results;
    },
  },

  "stream.cancel() after the first chunk: the running sibling is cancelled, the next node never starts, the finished one's writes are kept":
    {
      from: "python_port/interrupt.test.ts: should handle cancellation of stream",
      async run(lib) {
        const { Annotation, StateGraph, START, MemorySaver } = lib;
        const State = Annotation.Root({ value: Annotation({ reducer: (a: number, b: number) => (a || 0) + b }) });
        const awhile = watched();
        const aparallelwhile = watched();
        const graph = new StateGraph(State)
          .addNode("awhile", abortable(1500, awhile))
          .addNode("aparallelwhile", abortable(1500, aparallelwhile))
          .addNode("alittlewhile", async () => {
            await sleep(600);
            return { value: 2 };
          })
          .addEdge(START, "alittlewhile")
          .addEdge(START, "aparallelwhile")
          .addEdge("alittlewhile", "awhile")
          .compile({ checkpointer: new MemorySaver() });
        const stream = await graph.stream({ value: 1 }, thread("1"));
        const first = (await stream.next()).value;
        await stream.cancel();
        await sleep(100);
        const state = await graph.getState(thread("1"));
        return { first, awhile, aparallelwhile, saved: { ...standing(state), parents: state.metadata?.parents } };
      },
    },

  "streamEvents v2 left after the graph's first update, then cancelled: the next node never starts, the thread stands after the first":
    {
      from: "python_port/interrupt.test.ts: should handle cancellation of astream_events v2",
      async run(lib) {
        const { Annotation, StateGraph, START, MemorySaver } = lib;
        const awhile = watched();
        const anotherwhile = watched();
        const graph = new StateGraph(Annotation.Root({ value: Annotation() }))
          .addNode("alittlewhile", async () => {
            await sleep(600);
            return { value: 2 };
          })
          .addNode("awhile", abortable(1500, awhile))
          .addNode("anotherwhile", abortable(1500, anotherwhile))
          .addEdge(START, "alittlewhile")
          .addEdge("alittlewhile", "awhile")
          .addEdge("awhile", "anotherwhile")
          .compile({ checkpointer: new MemorySaver() });
        const stream = graph.streamEvents({ value: 1 }, { ...thread("2"), version: "v2" });
        let streamed: unknown;
        for await (const event of stream) {
          // The graph's own stream event (its root run is named "LangGraph").
          if (event.event === "on_chain_stream" && event.name === "LangGraph") {
            streamed = event.data.chunk;
            await sleep(100);
            break;
          }
        }
        await stream.cancel();
        await sleep(100);
        const state = await graph.getState(thread("2"));
        return {
          streamed,
          // Whether "awhile" starts before the reader leaves is up to timing; if it did, it was cancelled.
          awhileCancelledIfStarted: !awhile.started || awhile.cancelled,
          anotherwhileStarted: anotherwhile.started,
          saved: { ...standing(state), parents: state.metadata?.parents },
        };
      },
    },
});

// --- Zod messages, tool streams, traces, forged values -----------------------------------------

/** `[type, content, has an id]` of each message. */
const conversation = (messages: BaseMessage[]) => messages.map((m) => [m.getType(), m.content, typeof m.id]);

/** Runs `body` with `globalThis[markerKey]` set to a marker; whether anything set `invoked`, and what body returned. */
async function withMarker(markerKey: string, body: () => Promise<unknown>) {
  const marker = { invoked: false };
  (globalThis as Record<string, unknown>)[markerKey] = marker;
  try {
    const returned = await body();
    return { invoked: marker.invoked, returned };
  } finally {
    delete (globalThis as Record<string, unknown>)[markerKey];
  }
}

const noop = (lib: Runtime) =>
  new lib.StateGraph(lib.MessagesAnnotation)
    .addNode("noop", () => ({}))
    .addEdge(lib.START, "noop")
    .compile({ checkpointer: new lib.MemorySaver() });

compare("zod messages, tool streams, traces and forged values", {
  "zod 4: an array registered with MessagesZodMeta coerces message-likes and appends them": {
    from: "zod_state.test.ts: should preserve langgraph_type metadata when using Zod v4 .register() with MessagesZodMeta",
    async run(lib) {
      // LangGraph's test also reads the graph's JSON Schema through `@langchain/langgraph/zod/schema`,
      // which Interlude does not provide (COMPATIBILITY.md, import specifiers): the run is compared.
      const { StateGraph, START } = lib;
      const { registry, MessagesZodMeta } = zodOf(lib);
      const State = z.object({
        messages: z.array(z.any()).register(registry, MessagesZodMeta),
        llmCalls: z.number().optional(),
      });
      const graph = new StateGraph(State)
        .addNode("agent", () => ({ messages: [{ type: "ai", content: "response" }] }))
        .addEdge(START, "agent")
        .compile();
      const result = await graph.invoke({ messages: [{ type: "human", content: "hello" }] });
      return { messages: conversation(result.messages), keys: Object.keys(result).sort() };
    },
  },

  'stream mode "tools": what a streaming tool yields comes as on_tool_event chunks between its start and end': {
    from: "pregel/stream.test.ts: emits on_tool_event when run is known",
    async run(lib) {
      const { MessagesAnnotation, StateGraph, START } = lib;
      const { ToolNode } = isInterlude(lib)
        ? await import("@interlude/core/prebuilt")
        : await import("@langchain/langgraph/prebuilt");
      // A tool whose function is an async generator: LangChain reports each yield as a tool event.
      const progress = tool(
        async function* ({ n }: { n: number }) {
          yield { done: 1, of: n };
          yield { done: 2, of: n };
          return `counted to ${n}`;
        } as never,
        { name: "count", description: "counts", schema: z.object({ n: z.number() }) },
      );
      const graph = new StateGraph(MessagesAnnotation)
        .addNode("tools", new ToolNode([progress]))
        .addEdge(START, "tools")
        .compile();
      const call = new AIMessage({ content: "", tool_calls: [{ id: "call_1", name: "count", args: { n: 2 } }] });
      const chunks = await collect(await graph.stream({ messages: [call] }, { streamMode: "tools" }));
      return chunks.map((event: any) => ({ ...event, output: event.output?.content }));
    },
  },

  'stream mode "tools": a tool run with the langsmith:hidden tag is not reported; one beside it is': {
    from: "pregel/stream.test.ts: does not emit when tags include TAG_HIDDEN",
    async run(lib) {
      const { MessagesAnnotation, StateGraph, START } = lib;
      const lookup = tool(async ({ q }: { q: string }) => `found ${q}`, {
        name: "lookup",
        description: "looks up",
        schema: z.object({ q: z.string() }),
      });
      const graph = new StateGraph(MessagesAnnotation)
        .addNode("agent", async (_s: unknown, config: any) => {
          const hidden = await lookup.invoke(
            { id: "call_hidden", name: "lookup", args: { q: "secret" }, type: "tool_call" },
            { ...config, tags: ["langsmith:hidden"] },
          );
          const shown = await lookup.invoke(
            { id: "call_shown", name: "lookup", args: { q: "public" }, type: "tool_call" },
            config,
          );
          return { messages: [hidden, shown] };
        })
        .addEdge(START, "agent")
        .compile();
      const chunks = await collect(await graph.stream({ messages: [] }, { streamMode: "tools" }));
      return chunks.map((event: any) => [event.event, event.toolCallId, event.name]);
    },
  },

  "a LangSmith tracer, a run with no context: configurable-only values in every trace's metadata": {
    from: "tracing.test.ts: keeps configurable-only values in every LangSmith trace",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const { tracer, traces } = offlineTracer();
      let seen: unknown;
      const graph = new StateGraph(Annotation.Root({ value: Annotation() }))
        .addNode("node", (_s: unknown, config: any) => {
          seen = { context: config.context ?? "absent", legacy: config.configurable?.legacy };
          return { value: "done" };
        })
        .addEdge(START, "node")
        .compile();
      await graph.invoke({ value: "start" }, { callbacks: [tracer], configurable: { legacy: "configurable-value" } });
      await awaitAllCallbacks();
      return { seen, traces: traces.map(({ name, metadata }) => [name, metadata.legacy]) };
    },
  },

  "a forged constructor record in a run's metadata is never executed, when saved or read back": {
    from: "checkpointer.test.ts: does not execute a forged value in run metadata during state restoration",
    run: (lib) =>
      withMarker("__compat_metadata_marker__", async () => {
        const graph = noop(lib);
        const config = thread("jsonplus-metadata-security");
        await graph.invoke(
          { messages: [new HumanMessage("ordinary metadata-path input")] },
          { ...config, metadata: { probe: forgedConstructorRecord("__compat_metadata_marker__") } },
        );
        const state = await graph.getState(config);
        return conversation(state.values.messages);
      }),
  },

  "a forged constructor record in a message's additional_kwargs is never executed on a later run": {
    from: "checkpointer.test.ts: does not execute a forged value in additional_kwargs during a later run",
    run: (lib) =>
      withMarker("__compat_message_marker__", async () => {
        const graph = noop(lib);
        const config = thread("jsonplus-message-security");
        const probe = forgedConstructorRecord("__compat_message_marker__");
        await graph.invoke(
          { messages: [new HumanMessage({ content: "ordinary message", additional_kwargs: { probe } })] },
          config,
        );
        const later = await graph.invoke({ messages: [new HumanMessage("benign follow-up")] }, config);
        // The probe is read back as the plain data it was written as.
        return { messages: conversation(later.messages), kwargs: later.messages[0].additional_kwargs };
      }),
  },
});
