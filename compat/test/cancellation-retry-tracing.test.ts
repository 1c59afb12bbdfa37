/**
 * Cancelling a run (an AbortSignal, a run's `timeout`, a graph's `stepTimeout`, at every depth of
 * subgraph), how a retry policy waits and which errors it retries by default, what LangChain
 * callback handlers and tracers are told, zod states (defaults, registry reducers, checked
 * updates) and the errors a graph throws for bad writes.
 */

import * as interludeZod from "@interlude/core/zod";
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { awaitAllCallbacks } from "@langchain/core/callbacks/promises";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { ChatPromptTemplate } from "@langchain/core/prompts";
import { RunnableLambda } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { z } from "zod";
import { z as z3 } from "zod/v3";
import { collector } from "../../test/setup/collector.js";
import {
  collect,
  compare,
  drain,
  isInterlude,
  list,
  prebuiltOf,
  type Runtime,
  type Scenario,
  sleep,
  zodOf,
} from "./harness.js";
import { offlineTracer } from "./offline-tracer.js";

/** A promise and the function that settles it. */
function latch() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

/** What a run ended with: its result, or that it was rejected and whether the error says "abort". */
const settle = (run: Promise<unknown>) =>
  run.then(
    (returned) => ({ returned }),
    (error: Error) => ({ rejected: true, saysAborted: /abort/i.test(String(error?.message)) }),
  );

// --- Cancellation ------------------------------------------------------------------------------

/** Where the two nodes run: in the graph invoked, or in a subgraph of it, reached three ways. */
const placements = [
  "a graph",
  "a subgraph run as a node",
  "a subgraph invoked in a node with the node's config",
  "a subgraph invoked in a node without config",
] as const;
type Placement = (typeof placements)[number];

/**
 * START -> one -> two, placed as `placement` says, with a checkpointer. `one` takes `timing.ms`
 * and either ignores its signal or (`listens`) gives up when it aborts; `started` is opened as
 * `one` starts and `settled` once it has finished or given up (replace them between runs).
 *
 * A node that gives up takes 5 s unless aborted, and one that ignores its signal 1.5 s, against
 * timeouts of 250 ms, so that a timeout delayed by a loaded machine still lands while the node
 * runs. (What made these scenarios fail under load was LangGraph.js's own timeout, lost to the
 * garbage collector: see the retry below.)
 */
function cancellable(lib: Runtime, placement: Placement, listens: boolean) {
  const { Annotation, StateGraph, START, MemorySaver } = lib;
  const counts = { one: 0, two: 0 };
  const happened: string[] = [];
  const latches = { started: latch(), settled: latch() };
  const timing = { ms: listens ? 5000 : 1500 };
  // A set-like log (as the original's): a subgraph's result, which holds its input's log, adds nothing twice.
  const log = Annotation({ reducer: (a: string[], b: string[]) => [...new Set([...a, ...b])], default: () => [] });
  const State = Annotation.Root({ run: Annotation(), log });
  const inner = new StateGraph(State)
    .addNode("one", async (s: any, config: any) => {
      counts.one += 1;
      const { started, settled } = latches;
      started.open();
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          happened.push("one finished");
          settled.open();
          resolve();
        }, timing.ms);
        if (listens)
          config.signal?.addEventListener(
            "abort",
            () => {
              clearTimeout(timer);
              happened.push("one saw the abort");
              settled.open();
              reject(new Error("one gave up"));
            },
            { once: true },
          );
      });
      return { log: [`one:${s.run}`] };
    })
    .addNode("two", (s: any) => {
      counts.two += 1;
      return { log: [`two:${s.run}`] };
    })
    .addEdge(START, "one")
    .addEdge("one", "two");
  const checkpointer = new MemorySaver();
  if (placement === "a graph") return { graph: inner.compile({ checkpointer }), counts, happened, latches, timing };
  const sub = inner.compile();
  const node =
    placement === "a subgraph run as a node"
      ? sub
      : placement === "a subgraph invoked in a node with the node's config"
        ? async (s: unknown, config: unknown) => sub.invoke(s, config)
        : async (s: unknown) => sub.invoke(s);
  const graph = new StateGraph(State).addNode("sub", node).addEdge(START, "sub").compile({ checkpointer });
  return { graph, counts, happened, latches, timing };
}

/** Waits for `one` to finish or give up, then long enough for `two` to have run if it was going to. */
async function afterwards(latches: { settled: { opened: Promise<void> } }) {
  await latches.settled.opened;
  await sleep(300);
}

const config = (thread: string, extra: object = {}) => ({ configurable: { thread_id: thread }, ...extra });

function cancellation(placement: Placement): Record<string, Scenario> {
  const from = (test: string) => `pregel/pregel.cancellation.test.ts: ${placement} ${test}`;
  return {
    [`${placement}: an aborted signal rejects the run; the node after the running one never runs`]: {
      from: from("should cancel when external AbortSignal is aborted"),
      async run(lib) {
        const c = cancellable(lib, placement, false);
        const controller = new AbortController();
        const running = settle(c.graph.invoke({ run: "r", log: [] }, config("t", { signal: controller.signal })));
        await Promise.race([c.latches.started.opened, running]);
        controller.abort();
        const outcome = await running;
        await afterwards(c.latches);
        return { outcome, counts: c.counts, happened: c.happened };
      },
    },

    [`${placement}: a graph's stepTimeout cancels a step that runs too long, and a signal still cancels under it`]: {
      from: from("should cancel when step timeout is triggered"),
      async run(lib) {
        const timedOut = cancellable(lib, placement, false);
        timedOut.graph.stepTimeout = 250;
        const outcome = await settle(timedOut.graph.invoke({ run: "r", log: [] }, config("t")));
        await afterwards(timedOut.latches);

        // "should cancel when external AbortSignal is aborted while step timeout is set"
        const aborted = cancellable(lib, placement, false);
        aborted.graph.stepTimeout = 5000;
        const controller = new AbortController();
        const running = settle(aborted.graph.invoke({ run: "r", log: [] }, config("t", { signal: controller.signal })));
        await Promise.race([aborted.latches.started.opened, running]);
        controller.abort();
        const abortedOutcome = await running;
        await afterwards(aborted.latches);
        return {
          timedOut: { outcome, counts: timedOut.counts, happened: timedOut.happened },
          aborted: { outcome: abortedOutcome, counts: aborted.counts, happened: aborted.happened },
        };
      },
    },

    [`${placement}: a run's timeout aborts the signal the node gets`]: {
      from: from(
        "should pass AbortSignal into nodes via config when timeout is provided but no external signal is given",
      ),
      async run(lib) {
        const c = cancellable(lib, placement, true);
        const outcome = await settle(c.graph.invoke({ run: "r", log: [] }, config("t", { timeout: 250 })));
        await afterwards(c.latches);
        return { outcome, counts: c.counts, happened: c.happened };
      },
    },

    [`${placement}: with both a signal and a timeout, whichever comes first aborts the node's signal`]: {
      from: from(
        "should trigger AbortSignal that is passed to node on timeout when both signal and timeout are set on invocation",
      ),
      async run(lib) {
        const first = cancellable(lib, placement, true);
        const unused = new AbortController();
        const timeoutFirst = await settle(
          first.graph.invoke({ run: "r", log: [] }, config("t", { signal: unused.signal, timeout: 250 })),
        );
        await afterwards(first.latches);

        // "...when external signal triggered when both signal and timeout are set on invocation"
        const second = cancellable(lib, placement, true);
        const controller = new AbortController();
        const running = settle(
          second.graph.invoke({ run: "r", log: [] }, config("t", { signal: controller.signal, timeout: 5000 })),
        );
        await Promise.race([second.latches.started.opened, running]);
        controller.abort();
        const abortFirst = await running;
        await afterwards(second.latches);
        return {
          timeoutFirst: { outcome: timeoutFirst, counts: first.counts, happened: first.happened },
          abortFirst: { outcome: abortFirst, counts: second.counts, happened: second.happened },
        };
      },
    },

    ...Object.fromEntries(
      (["external abort", "timeout"] as const).map((cause) => [
        `${placement}: after a run cancelled by ${cause === "timeout" ? "its timeout" : "its signal"}, the thread goes on from its last saved state`,
        {
          from: from(`should resume from last successful invocation when AbortSignal is aborted due to ${cause}`),
          async run(lib: Runtime) {
            const c = cancellable(lib, placement, true);
            const thread = config("t");
            // Only the second run is cancelled: the others need not wait.
            c.timing.ms = 20;
            const first = await c.graph.invoke({ run: "first", log: [] }, thread);
            c.latches.started = latch();
            c.latches.settled = latch();
            c.timing.ms = 5000;
            const controller = new AbortController();
            const options = cause === "timeout" ? { timeout: 250 } : { signal: controller.signal };
            const running = settle(c.graph.invoke({ run: "second" }, { ...thread, ...options }));
            if (cause === "external abort") {
              await Promise.race([c.latches.started.opened, running]);
              controller.abort();
            }
            const outcome = await running;
            await afterwards(c.latches);
            const stopped = await c.graph.getState(thread);
            c.timing.ms = 20;
            const again = await c.graph.invoke({ run: "second" }, thread);
            return {
              first,
              outcome,
              stopped: { values: stopped.values, next: stopped.next },
              again,
              counts: c.counts,
              happened: c.happened,
            };
          },
        } satisfies Scenario,
      ]),
    ),
  };
}

// Retried: LangGraph.js's run timeout is an AbortSignal.timeout, which Node 20 may collect before
// it fires when the collector runs during the run (the run then never times out: "A run's timeout
// holds under garbage collection" below); on a loaded machine that failed one run in four.
compare("cancellation", Object.assign({}, ...placements.map(cancellation)), { retry: 2 });

compare("a run's timeout while the garbage collector runs", {
  "a node taking 1.5 s under a 250 ms timeout, with and without a signal, the collector running every 20 ms": {
    differs: "#a-runs-timeout-holds-under-garbage-collection",
    from: "pregel/pregel.cancellation.test.ts: should cancel when step timeout is triggered",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const graph = new StateGraph(Annotation.Root({ log: list(lib) }))
        .addNode("slow", async () => {
          await sleep(1500);
          return { log: ["slow done"] };
        })
        .addEdge(START, "slow")
        .compile();
      const gc = collector();
      const collecting = setInterval(gc, 20);
      try {
        return {
          timeout: await settle(graph.invoke({ log: [] }, { timeout: 250 })),
          withSignal: await settle(graph.invoke({ log: [] }, { timeout: 250, signal: new AbortController().signal })),
        };
      } finally {
        clearInterval(collecting);
      }
    },
  },
});

compare("a stream left while a node runs", {
  "break out of stream() or streamEvents v2 while a node runs: it is cancelled at once, and invoke(null) continues the thread":
    {
      from: "python_port/interrupt.test.ts: should handle cancellation of stream",
      async run(lib) {
        const { Annotation, StateGraph, START, MemorySaver } = lib;
        const results: Record<string, unknown> = {};
        for (const how of ["stream", "streamEvents v2"] as const) {
          const runs = { a: 0, slow: 0, b: 0 };
          const started = latch();
          const graph = new StateGraph(Annotation.Root({ log: list(lib) }))
            .addNode("a", () => (runs.a++, { log: ["a"] }))
            .addNode("slow", async (_state: unknown, config: { signal?: AbortSignal }) => {
              runs.slow++;
              started.open();
              // As a model call does: stops when the run's signal aborts.
              await new Promise((resolve, reject) => {
                const timer = setTimeout(resolve, 3000);
                config.signal?.addEventListener("abort", () => (clearTimeout(timer), reject(new Error("aborted"))));
              });
              return { log: ["slow"] };
            })
            .addNode("b", () => (runs.b++, { log: ["b"] }))
            .addEdge(START, "a")
            .addEdge("a", "slow")
            .addEdge("slow", "b")
            .compile({ checkpointer: new MemorySaver() });
          const config = { configurable: { thread_id: how } };
          const begun = Date.now();
          const reading =
            how === "stream"
              ? await graph.stream({ log: [] }, { ...config, streamMode: "updates" })
              : graph.streamEvents({ log: [] }, { ...config, version: "v2" });
          // Left once slow runs: after a's update, or at slow's start event. Leaving LangGraph.js's
          // event stream sometimes throws AbortError (its abort racing LangChain's), so whether
          // leaving threw is not compared; Interlude's does not throw.
          try {
            for await (const item of reading as AsyncIterable<{ event?: string; name?: string }>) {
              if (how !== "stream" && !(item.event === "on_chain_start" && item.name === "slow")) continue;
              await started.opened;
              break;
            }
          } catch (error) {
            if (isInterlude(lib) || (error as Error).name !== "AbortError") throw error;
          }
          const leftWithin1s = Date.now() - begun < 1000;
          const continued = await graph.invoke(null, config);
          results[how] = { leftWithin1s, continued, runs };
        }
        return results;
      },
    },
});

compare("a signal aborted before the run", {
  "the run is rejected before anything runs or is saved": {
    from: "pregel/pregel.cancellation.test.ts: should cancel when signal is aborted",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver } = lib;
      let ran = 0;
      const graph = new StateGraph(Annotation.Root({ log: list(lib) }))
        .addNode("one", () => (ran++, { log: ["one"] }))
        .addEdge(START, "one")
        .compile({ checkpointer: new MemorySaver() });
      const controller = new AbortController();
      controller.abort(new Error("the user left"));
      const config = { configurable: { thread_id: "aborted" } };
      const outcome = await settle(graph.invoke({ log: ["in"] }, { ...config, signal: controller.signal }));
      const state = await graph.getState(config);
      return { outcome, ran, next: state.next, values: state.values };
    },
  },
});

// --- Retries -----------------------------------------------------------------------------------

class FlakyError extends Error {
  override name = "FlakyError";
}

/**
 * Runs START -> work, whose node fails its first `failures` calls, under `retryPolicy`: the
 * milliseconds between one attempt's start and the next's, and how many calls there were.
 */
async function waitsBetweenAttempts(lib: Runtime, retryPolicy: object, failures: number) {
  const { Annotation, StateGraph, START } = lib;
  const starts: number[] = [];
  const graph = new StateGraph(Annotation.Root({ log: list(lib) }))
    .addNode(
      "work",
      () => {
        starts.push(performance.now());
        if (starts.length <= failures) throw new FlakyError(`failure ${starts.length}`);
        return { log: ["done"] };
      },
      { retryPolicy },
    )
    .addEdge(START, "work")
    .compile();
  const outcome = await graph.invoke({ log: [] }).then(
    () => "succeeded",
    (error: Error) => error.name,
  );
  return { outcome, calls: starts.length, waits: starts.slice(1).map((start, i) => start - starts[i]!) };
}

/** The longest of `levels` a wait reached (timers fire late under load, never early). */
const level = (wait: number, levels: number[]) => levels.filter((ms) => wait >= ms - 5).at(-1) ?? "shorter";

compare("retry waits", {
  "each wait is initialInterval × backoffFactor^(retry − 1), capped at maxInterval; defaults 500 ms × 2, 3 attempts": {
    from: "pregel/retry.test.ts: uses backoff: initial * backoff^(attempts - 1)",
    async run(lib) {
      // 200, 600, then 1000 (the cap) rather than 1800; each level 400 ms from the next.
      const [custom, defaults] = await Promise.all([
        waitsBetweenAttempts(
          lib,
          { maxAttempts: 4, initialInterval: 200, backoffFactor: 3, maxInterval: 1000, jitter: false },
          3,
        ),
        waitsBetweenAttempts(lib, { jitter: false }, 10),
      ]);
      return {
        custom: { ...custom, waits: custom.waits.map((wait) => level(wait, [200, 600, 1000, 1800])) },
        defaults: { ...defaults, waits: defaults.waits.map((wait) => level(wait, [500, 1000, 2000])) },
      };
    },
  },

  "jitter, on unless turned off, adds up to a second to each wait": {
    from: "pregel/retry.test.ts: applies jitter: interval + uniform(0, 1s) in ms",
    async run(lib) {
      const policy = { maxAttempts: 5, initialInterval: 1, backoffFactor: 1 };
      const shape = ({ waits, calls }: { waits: number[]; calls: number }) => ({
        calls,
        // Four waits of 1 ms + up to 1000 ms: all under 50 ms has a chance of 6 in a million.
        someOver50ms: waits.some((wait) => wait > 50),
        allUnder1400ms: waits.every((wait) => wait < 1400),
      });
      const [explicit, byDefault] = await Promise.all([
        waitsBetweenAttempts(lib, { ...policy, jitter: true }, 4),
        waitsBetweenAttempts(lib, policy, 4),
      ]);
      return { explicit: shape(explicit), byDefault: shape(byDefault) };
    },
  },

  "without retryOn, client errors (400–409 but 408), cancellations, quota and GraphValueError are not retried": {
    from: "pregel/retry.test.ts: _runWithRetry (the retryOn it falls back to: pregel/retry.js DEFAULT_RETRY_ON_HANDLER)",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const withFields = (message: string, fields: object) => Object.assign(new Error(message), fields);
      const errors: Record<string, () => Error> = {
        plain: () => new Error("boom"),
        TypeError: () => new TypeError("bad"),
        "status 400": () => withFields("bad request", { status: 400 }),
        "status 404": () => withFields("not found", { status: 404 }),
        "status 409": () => withFields("conflict", { status: 409 }),
        "status '403' as text": () => withFields("forbidden", { status: "403" }),
        "response.status 401": () => withFields("unauthorised", { response: { status: 401 } }),
        "status 408": () => withFields("request timeout", { status: 408 }),
        "status 429": () => withFields("rate limited", { status: 429 }),
        "status 503": () => withFields("unavailable", { status: 503 }),
        "named AbortError": () => withFields("stopped", { name: "AbortError" }),
        'message "Cancelled…"': () => new Error("Cancelled by the user"),
        "code ECONNABORTED": () => withFields("socket", { code: "ECONNABORTED" }),
        insufficient_quota: () => withFields("quota", { error: { code: "insufficient_quota" } }),
        GraphValueError: () => new lib.GraphValueError("bad graph value"),
      };
      const calls = await Promise.all(
        Object.entries(errors).map(async ([kind, make]) => {
          let count = 0;
          const graph = new StateGraph(Annotation.Root({ log: list(lib) }))
            .addNode(
              "work",
              () => {
                count += 1;
                throw make();
              },
              { retryPolicy: { maxAttempts: 3, initialInterval: 1, jitter: false } },
            )
            .addEdge(START, "work")
            .compile();
          await graph.invoke({ log: [] }).catch(() => undefined);
          return [kind, count] as const;
        }),
      );
      return Object.fromEntries(calls);
    },
  },

  "an abort while a node waits to be retried rejects the run at once; no further attempt is made": {
    from: "pregel/pregel.cancellation.test.ts + pregel/retry.js: no attempt once the signal is aborted",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      let calls = 0;
      const failed = latch();
      const graph = new StateGraph(Annotation.Root({ log: list(lib) }))
        .addNode(
          "work",
          () => {
            calls += 1;
            failed.open();
            throw new FlakyError(`failure ${calls}`);
          },
          { retryPolicy: { maxAttempts: 3, initialInterval: 1000, jitter: false } },
        )
        .addEdge(START, "work")
        .compile();
      const controller = new AbortController();
      const running = settle(graph.invoke({ log: [] }, { signal: controller.signal }));
      await Promise.race([failed.opened, running]);
      await sleep(50);
      const abortedAt = performance.now();
      controller.abort();
      const outcome = await running;
      // The wait is 1000 ms: rejected within half of it is "at once".
      const atOnce = performance.now() - abortedAt < 500;
      // Past the end of the wait: a second attempt would have started by now.
      await sleep(Math.max(0, 1500 - (performance.now() - abortedAt)));
      return { outcome, atOnce, calls };
    },
  },
});

// --- Tracing -----------------------------------------------------------------------------------

/** A handler that records each chain run's start and end: name, parent's name, sorted tags. */
function chainRecorder(metadataKeys: string[] = []) {
  const names = new Map<string, string>();
  const runs: unknown[] = [];
  const handler = {
    handleChainStart(
      _chain: unknown,
      _inputs: unknown,
      runId: string,
      parentRunId?: string,
      tags?: string[],
      metadata?: Record<string, unknown>,
      _runType?: string,
      name?: string,
    ) {
      names.set(runId, name ?? "?");
      runs.push({
        start: name,
        parent: parentRunId ? (names.get(parentRunId) ?? "unknown") : null,
        // LangChain's tags are a set: their order is not compared.
        tags: [...(tags ?? [])].sort(),
        metadataKeys: Object.keys(metadata ?? {}).sort(),
        metadata: Object.fromEntries(metadataKeys.map((key) => [key, metadata?.[key] ?? "absent"])),
      });
    },
    handleChainEnd(_outputs: unknown, runId: string) {
      runs.push({ end: names.get(runId) });
    },
  };
  return { handler, runs };
}

/** A chat model that asks for `get_items` once, then answers "done". */
class ItemsCaller extends BaseChatModel {
  _llmType() {
    return "items-caller";
  }
  override bindTools() {
    return this as never;
  }
  async _generate(messages: BaseMessage[]) {
    const message =
      messages.at(-1)?.getType() === "tool"
        ? new AIMessage("done")
        : new AIMessage({
            content: "",
            tool_calls: [{ id: "call_1", name: "get_items", args: { place: "shelf" }, type: "tool_call" }],
          });
    return { generations: [{ message, text: "" }] };
  }
}

compare("tracing", {
  "a handler in callbacks: the graph's run, each node's run under it, with step tags and langgraph metadata": {
    from: "tracing.test.ts: stream events for a multi-node graph",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const { handler, runs } = chainRecorder([
        "langgraph_node",
        "langgraph_step",
        "langgraph_triggers",
        "langgraph_path",
        "thread_id",
        "team",
      ]);
      const graph = new StateGraph(Annotation.Root({ n: Annotation() }))
        .addNode("add", (s: any) => ({ n: s.n + 1 }))
        .addNode("double", (s: any) => ({ n: s.n * 2 }))
        .addEdge(START, "add")
        .addEdge("add", "double")
        .compile({ name: "arithmetic" });
      const result = await graph.invoke(
        { n: 1 },
        { callbacks: [handler], tags: ["nightly"], metadata: { team: "maths" }, configurable: { thread_id: "t" } },
      );
      await awaitAllCallbacks();
      return { result, runs };
    },
  },

  "a conditional edge is a run under its node; chat models called without config are traced where they run": {
    from: "tracing.test.ts: stream events for a multi-node graph",
    async run(lib) {
      const { Annotation, StateGraph, START, END } = lib;
      const graph = new StateGraph(Annotation.Root({ reply: Annotation() }))
        .addNode("ask", async () => {
          const model = new FakeListChatModel({ responses: ["hey"] }).withConfig({ runName: "model_call" });
          // No config passed: LangChain's ambient config places the call.
          return { reply: (await model.invoke("hello")).content };
        })
        .addEdge(START, "ask")
        .addConditionalEdges("ask", async () => {
          const model = new FakeListChatModel({ responses: ["ok"] }).withConfig({ runName: "edge_call" });
          await model.invoke("should this be traced?");
          return END;
        })
        .compile();
      const events = await collect(graph.streamEvents({ reply: "" }, { version: "v2" }));
      return events
        .filter((e: any) => e.event !== "on_chain_stream")
        .map((e: any) => [
          e.event,
          e.name,
          [...e.tags].sort(),
          e.metadata.langgraph_node ?? null,
          e.data.chunk?.content,
          // The edge's run is given the state with the node's writes, and ends with its route.
          e.name === "RunnableLambda" ? (e.data.input ?? e.data.output) : null,
        ]);
    },
  },

  "a conditional edge given as a Runnable reports its own run under its node; a failing edge fails the node's run": {
    from: "tracing.test.ts: stream events for a multi-node graph",
    async run(lib) {
      const { Annotation, StateGraph, START, END } = lib;
      const traced = async (path: unknown) => {
        const graph = new StateGraph(Annotation.Root({ n: Annotation() }))
          .addNode("add", (s: any) => ({ n: s.n + 1 }))
          .addEdge(START, "add")
          .addConditionalEdges("add", path)
          .compile();
        const events = await drain(graph.streamEvents({ n: 1 }, { version: "v2" }));
        return events
          .filter((e: any) => e.event !== "on_chain_stream")
          .map((e: any) =>
            e.threw ? e : [e.event, e.name, e.metadata.langgraph_node ?? null, e.data.input ?? e.data.output ?? null],
          );
      };
      return {
        runnable: await traced(
          RunnableLambda.from((s: any) => (s.n > 1 ? END : "add")).withConfig({ runName: "route" }),
        ),
        failing: await traced(() => {
          throw new Error("no route");
        }),
      };
    },
  },

  "withConfig({ runName }) names the graph's run, in streamEvents and for handlers": {
    from: "tracing.test.ts: Should respect .withConfig",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const graph = new StateGraph(Annotation.Root({ n: Annotation() }))
        .addNode("add", (s: any) => ({ n: s.n + 1 }))
        .addEdge(START, "add")
        .compile()
        .withConfig({ runName: "OVERRIDDEN_NAME" });
      const events = await collect(graph.streamEvents({ n: 1 }, { version: "v2" }));
      const { handler, runs } = chainRecorder();
      await graph.invoke({ n: 1 }, { callbacks: [handler] });
      await awaitAllCallbacks();
      return {
        events: events.map((e: any) => [e.event, e.name, e.metadata.ls_integration ?? null]),
        handler: runs,
      };
    },
  },

  "callbacks bound with withConfig and callbacks given to the call both see every run, once": {
    from: "tracing.test.ts: merges graph-bound callbacks with invoke-time callbacks in streamEvents (no double-firing)",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      class Counting extends BaseCallbackHandler {
        name: string;
        starts: string[] = [];
        constructor(name: string) {
          super();
          this.name = name;
        }
        override handleChainStart(
          _chain: unknown,
          _inputs: unknown,
          _runId: string,
          _parentRunId?: string,
          _tags?: string[],
          _metadata?: Record<string, unknown>,
          _runType?: string,
          name?: string,
        ) {
          this.starts.push(name ?? "?");
        }
      }
      const graph = new StateGraph(Annotation.Root({ n: Annotation() }))
        .addNode("add", (s: any) => ({ n: s.n + 1 }))
        .addEdge(START, "add")
        .compile();
      const bound = new Counting("bound_handler");
      const boundGraph = graph.withConfig({ callbacks: [bound] });
      const seen: Record<string, unknown> = {};
      for (const call of ["invoke", "stream", "streamEvents"] as const) {
        const user = new Counting("user_handler");
        bound.starts = [];
        if (call === "invoke") await boundGraph.invoke({ n: 1 }, { callbacks: [user] });
        if (call === "stream") await collect(await boundGraph.stream({ n: 1 }, { callbacks: [user] }));
        if (call === "streamEvents")
          await collect(boundGraph.streamEvents({ n: 1 }, { version: "v2", callbacks: [user] }));
        await awaitAllCallbacks();
        seen[call] = { bound: bound.starts, user: user.starts };
      }
      return seen;
    },
  },

  "a LangSmith tracer: configurable values in every run's metadata; context aliases and secret-like keys left out": {
    from: "tracing.test.ts: omits context aliases from every LangSmith trace",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const { tracer, traces } = offlineTracer();
      const graph = new StateGraph(Annotation.Root({ value: Annotation() }))
        .addNode("node", () => ({ value: "done" }))
        .addEdge(START, "node")
        .compile();
      await graph.invoke(
        { value: "start" },
        {
          callbacks: [tracer],
          context: { mirrored: "same-in-both", unequal: "context-value", contextOnly: "c" },
          configurable: {
            mirrored: "same-in-both",
            unequal: "configurable-value",
            tenantId: "keep-me",
            retries: 3,
            verbose: true,
            nested: { deep: 1 },
            api_key: "sk-not-for-traces",
            __internal: "hidden",
            thread_id: "thread-1",
            run_id: "run-1",
            assistant_id: "assistant-1",
            graph_id: "graph-1",
          },
          metadata: { explicit: "metadata-value" },
        },
      );
      await awaitAllCallbacks();
      const keys = [
        "mirrored",
        "unequal",
        "contextOnly",
        "tenantId",
        "retries",
        "verbose",
        "nested",
        "api_key",
        "__internal",
        "explicit",
        "thread_id",
        "run_id",
        "assistant_id",
        "graph_id",
      ];
      return traces.map(({ name, metadata }) => ({
        name,
        metadata: Object.fromEntries(keys.map((key) => [key, key in metadata ? metadata[key] : "absent"])),
      }));
    },
  },

  "a graph streamed inside a node without config, in a traced run: its tokens come once, to both streams": {
    from: "tracing.test.ts: does not double stream tokens from a nested graph under tracing",
    async run(lib) {
      const { MessagesAnnotation, StateGraph, START } = lib;
      const answer = "Hello world";
      const model = new FakeListChatModel({ responses: [answer] });
      const inner = new StateGraph(MessagesAnnotation)
        .addNode("agent", async () => {
          let text = "";
          for await (const chunk of await model.stream("say hello")) text += chunk.content;
          return { messages: [new AIMessage(text)] };
        })
        .addEdge(START, "agent")
        .compile({ name: "Inner" });
      const innerTokens: string[] = [];
      const outer = new StateGraph(MessagesAnnotation)
        .addNode("delegate", async () => {
          for await (const [mode, data] of await inner.stream(
            { messages: [{ role: "user", content: "say hello" }] },
            { streamMode: ["messages", "updates"] },
          ))
            if (mode === "messages") innerTokens.push(data[0].content);
          return {};
        })
        .addEdge(START, "delegate")
        .compile({ name: "Outer" });
      const { handler } = chainRecorder();
      const outerChunks = await collect(
        await outer.stream(
          { messages: [{ role: "user", content: "say hello" }] },
          { streamMode: ["messages", "updates"], subgraphs: true, callbacks: [handler] },
        ),
      );
      await awaitAllCallbacks();
      const outerTokens = outerChunks.filter(([, mode]) => mode === "messages").map(([, , data]) => data[0].content);
      return { inner: innerTokens.join("|"), outer: outerTokens.join("|") };
    },
  },

  "streamEvents includeTags: only the tagged model a prebuilt agent's tool calls": {
    from: "tracing.test.ts: stream events with a tool with a custom tag",
    async run(lib) {
      const { createReactAgent } = prebuiltOf(lib);
      const getItems = tool(
        async (input: { place: string }, config) => {
          const chain = ChatPromptTemplate.fromMessages([["human", "What might be on the {place}?"]]).pipe(
            new FakeListChatModel({ responses: ["a pen"] }).withConfig({
              runName: "Get Items LLM",
              tags: ["tool_llm"],
            }),
          );
          return (await chain.invoke(input, config)).content as string;
        },
        { name: "get_items", description: "Looks up the items in a place.", schema: z.object({ place: z.string() }) },
      );
      const agent = createReactAgent({ llm: new ItemsCaller({}), tools: [getItems] });
      const events = await collect(
        agent.streamEvents(
          { messages: [["human", "what is on the shelf?"]] },
          { version: "v2" },
          { includeTags: ["tool_llm"] },
        ),
      );
      return events.map((e: any) => [
        e.event,
        e.name,
        e.tags.filter((tag: string) => tag === "tool_llm"),
        e.metadata.langgraph_node,
        e.data.chunk?.content,
      ]);
    },
  },
});

// --- Zod state ---------------------------------------------------------------------------------

compare("zod state", {
  "a node's update outside the zod state's constraints fails the run, naming the field; the thread stays before it": {
    from: "zod_state.test.ts: should validate Zod node updates against state schema constraints",
    async run(lib) {
      const { StateGraph, START, MemorySaver } = lib;
      const graph = new StateGraph(z.object({ count: z.number().min(0).max(10) }))
        .addNode("increment", (s: any) => ({ count: s.count + 15 }))
        .addEdge(START, "increment")
        .compile({ checkpointer: new MemorySaver() });
      const thread = config("t");
      const failure = await graph.invoke({ count: 0 }, thread).then(
        () => "no error",
        (error: Error) => ({ namesTheField: error.message.includes("count") }),
      );
      const state = await graph.getState(thread);
      return { failure, values: state.values, next: state.next };
    },
  },

  "a Command's update is checked against the zod state too": {
    from: "zod_state.test.ts: should validate Zod Command updates against state schema constraints",
    async run(lib) {
      const { StateGraph, START, Command } = lib;
      const graph = new StateGraph(z.object({ count: z.number().min(0).max(10) }))
        .addNode("increment", (s: any) => new Command({ update: { count: s.count + 15 } }))
        .addEdge(START, "increment")
        .compile();
      return graph.invoke({ count: 0 }).then(
        (result: unknown) => ({ noError: result }),
        (error: Error) => ({ namesTheField: error.message.includes("count") }),
      );
    },
  },

  "a node's update outside the zod state: zod's own error on LangGraph.js, StateInputError on Interlude": {
    from: "zod_state.test.ts: should validate Zod node updates against state schema constraints",
    differs: "#state-that-fails-its-schema-is-a-stateinputerror",
    throws: true,
    async run(lib) {
      const { StateGraph, START } = lib;
      const graph = new StateGraph(z.object({ count: z.number().min(0).max(10) }))
        .addNode("increment", (s: any) => ({ count: s.count + 15 }))
        .addEdge(START, "increment")
        .compile();
      return graph.invoke({ count: 0 });
    },
  },

  "defaults: zod's .default(), the registry's default, both (zod's wins), and an input that gives the value": {
    from: "zod_state.test.ts: registry default values > should work when all combinations of defaults are present",
    async run(lib) {
      const { StateGraph, START } = lib;
      const { registry } = zodOf(lib);
      const State = z.object({
        withZod: z.string().default("zod-default"),
        withRegistry: z.string().register(registry, { default: () => "registry-default" }),
        withBoth: z
          .string()
          .default("zod-default")
          .register(registry, { default: () => "registry-default" }),
        withNeither: z.string().optional(),
        given: z.string().register(registry, { default: () => "registry-default" }),
      });
      let seen: unknown;
      const graph = new StateGraph(State)
        .addNode("process", (s: unknown) => {
          seen = s;
          return {};
        })
        .addEdge(START, "process")
        .compile();
      return { result: await graph.invoke({ given: "provided-value" }), seen };
    },
  },

  "a registry default is where the registry's reducer starts": {
    from: "zod_state.test.ts: registry default values > should work with registry default alongside reducer",
    async run(lib) {
      const { StateGraph, START } = lib;
      const { registry } = zodOf(lib);
      const State = z.object({
        items: z.array(z.string()).register(registry, {
          default: () => ["initial"],
          reducer: { fn: (a: string[], b: string[]) => a.concat(b) },
        }),
        name: z.string().optional(),
      });
      let seen: unknown;
      const graph = new StateGraph(State)
        .addNode("add", (s: any) => {
          seen = s.items;
          return { items: ["new"] };
        })
        .addNode("append", () => ({ items: ["c", "d"] }))
        .addEdge(START, "add")
        .addEdge("add", "append")
        .compile();
      return { result: await graph.invoke({ name: "test" }), seen };
    },
  },

  "one registry-reduced field shared by the state, input and output schemas": {
    from: "zod_state.test.ts: reducer with separate state/input/output schemas > should allow same reducer field in state, input, and output schemas",
    async run(lib) {
      const { StateGraph, START } = lib;
      const { registry } = zodOf(lib);
      type Items = Record<string, { value: string }>;
      const merge = (left: Items, right: Record<string, { value: string } | null>) => {
        const result = { ...left };
        for (const [key, value] of Object.entries(right)) {
          if (value === null) delete result[key];
          else result[key] = value;
        }
        return result;
      };
      const items = z
        .record(z.string(), z.object({ value: z.string() }))
        .default({})
        .register(registry, {
          reducer: { fn: merge, schema: z.record(z.string(), z.object({ value: z.string() }).nullable()) },
        });
      const graph = new StateGraph({
        state: z.object({ items, count: z.number().default(0) }),
        input: z.object({ items }),
        output: z.object({ items, count: z.number() }),
      })
        .addNode("process", (s: any) => ({
          items: { added: { value: "new" }, gone: null },
          count: Object.keys(s.items).length + 1,
        }))
        .addEdge(START, "process")
        .compile();
      return graph.invoke({ items: { kept: { value: "old" }, gone: { value: "x" } } });
    },
  },

  "one key with different reducers in the state and input schemas is refused at compile": {
    from: "zod_state.test.ts: reducer with separate state/input/output schemas > should detect different reducer functions as different channels",
    async run(lib) {
      const { StateGraph, START } = lib;
      const { registry } = zodOf(lib);
      const field = (fn: (a: number[], b: number[]) => number[]) =>
        z.array(z.number()).default([]).register(registry, { reducer: { fn } });
      try {
        new StateGraph({
          state: z.object({ numbers: field((a, b) => [...a, ...b]) }),
          input: z.object({ numbers: field((a, b) => [...b, ...a]) }),
        })
          .addNode("process", () => ({}))
          .addEdge(START, "process")
          .compile();
        return "compiled";
      } catch (error) {
        // Error classes differ by design (COMPATIBILITY.md, "Shapes that differ"): both refuse, naming the key.
        return { refused: error instanceof Error, namesKey: /"numbers"/.test((error as Error).message) };
      }
    },
  },

  "Command({ update }) leaving out a field with a zod default keeps its value (zod 3 and zod 4)": {
    from: "zod_state.test.ts: Command.update with Zod schema .default() fields",
    async run(lib) {
      const { StateGraph, START, MemorySaver, Command } = lib;
      const states = {
        zod3: z3.object({
          mode: z3.enum(["foo", "bar"]).default("foo"),
          data: z3.record(z3.string(), z3.unknown()).optional(),
        }),
        zod4: z.object({
          mode: z.enum(["foo", "bar"]).default("foo"),
          data: z.record(z.string(), z.unknown()).optional(),
        }),
      };
      const results: Record<string, unknown> = {};
      for (const [version, State] of Object.entries(states)) {
        const graph = new StateGraph(State)
          .addNode("start", (s: unknown) => s)
          .addEdge(START, "start")
          .compile({ checkpointer: new MemorySaver() });
        const thread = config(version);
        const first = await graph.invoke({ mode: "bar", data: { x: 1 } }, thread);
        const updated = await graph.invoke(new Command({ update: { data: { y: 2 } } }), thread);
        results[version] = { first, updated };
      }
      return results;
    },
  },

  "a node's own zod input schema: keys outside the state pass to it; state keys outside its schema do not": {
    from: "zod_state.test.ts: should accept Zod schema as input in addNode",
    async run(lib) {
      const { StateGraph, START } = lib;
      let seen: unknown;
      const graph = new StateGraph(z.object({ messages: z.array(z.string()), count: z.number() }))
        .addNode("addQuery", (s: any) => ({ query: `${s.messages[0]} as a query` }))
        .addNode(
          "process",
          (input: any) => {
            seen = input;
            return { messages: [...input.messages, "processed"], query: "not in the output" };
          },
          { input: z.object({ messages: z.array(z.string()), query: z.string() }) },
        )
        .addEdge(START, "addQuery")
        .addEdge("addQuery", "process")
        .compile();
      return { result: await graph.invoke({ messages: ["hello"], count: 1 }), seen };
    },
  },

  "MessagesZodState.extend: message-likes coerced and appended, the extra key kept": {
    from: "zod_state.test.ts: should accept Zod messages schema & return tagged JSON schema",
    async run(lib) {
      const { StateGraph, START } = lib;
      // LangGraph.js exports it from its main entry (a zod 3 object), Interlude from its zod entry.
      const { MessagesZodState } = isInterlude(lib) ? interludeZod : lib;
      const graph = new StateGraph(MessagesZodState.extend({ count: z3.number().optional() }))
        .addNode("agent", () => ({ messages: [{ type: "ai", content: "agent" }] }))
        .addNode("tool", () => ({ messages: [{ type: "ai", content: "tool" }], count: 2 }))
        .addEdge(START, "agent")
        .addEdge("agent", "tool")
        .compile();
      const result = await graph.invoke({ messages: [{ type: "human", content: "hello" }] });
      return {
        messages: result.messages.map((m: BaseMessage) => [m.getType(), m.content, typeof m.id]),
        count: result.count,
      };
    },
  },
});

// --- Errors ------------------------------------------------------------------------------------

compare("errors for bad writes", {
  "two nodes writing one plain key in a step: InvalidUpdateError, code INVALID_CONCURRENT_GRAPH_UPDATE": {
    from: "errors.test.ts: StateGraph concurrent state value update fails",
    async run(lib) {
      const { Annotation, StateGraph, START, InvalidUpdateError } = lib;
      const State = Annotation.Root({
        text: Annotation({ reducer: (a: string, b: string) => a + b }),
        market: Annotation(),
      });
      const graph = new StateGraph(State)
        .addNode("slow", () => ({ market: "slow" }))
        .addNode("fast", () => ({ market: "fast" }))
        .addEdge(START, "slow")
        .addEdge(START, "fast")
        .compile();
      const error = await graph.invoke({ text: "value", market: "DE" }).catch((e: any) => e);
      return { name: error.name, isInvalidUpdate: error instanceof InvalidUpdateError, code: error.lc_error_code };
    },
  },

  "a node returning something other than an object: InvalidUpdateError, code INVALID_GRAPH_NODE_RETURN_VALUE": {
    from: "errors.test.ts: StateGraph bad return type",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver, InvalidUpdateError } = lib;
      const graph = new StateGraph(Annotation.Root({ text: Annotation() }))
        .addNode("numeric", () => 123)
        .addEdge(START, "numeric")
        .compile({ checkpointer: new MemorySaver() });
      const error = await graph.invoke({ text: "value" }, config("t")).catch((e: any) => e);
      return { name: error.name, isInvalidUpdate: error instanceof InvalidUpdateError, code: error.lc_error_code };
    },
  },

  "an error thrown in a conditional edge reaches the caller as it was thrown, and is the node's task error": {
    from: "errors.test.ts: Should throw errors in conditional edges",
    async run(lib) {
      const { Annotation, StateGraph, START, END, MemorySaver } = lib;
      class RoutingError extends Error {}
      const graph = new StateGraph(Annotation.Root({ key: Annotation() }))
        .addNode("init", (s: unknown) => s)
        .addNode("x", (s: unknown) => s)
        .addEdge(START, "init")
        .addConditionalEdges("init", () => {
          throw new RoutingError("no route");
        })
        .addEdge("x", END)
        .compile({ checkpointer: new MemorySaver() });
      const thread = config("t");
      const error = await graph.invoke({ key: "k" }, thread).catch((e: unknown) => e);
      const state = await graph.getState(thread);
      return {
        sameClass: error instanceof RoutingError,
        message: (error as Error).message,
        // (next is left out: LangGraph.js lists no next node once the failed node's writes are saved.)
        values: state.values,
        taskErrors: state.tasks.map((t: any) => [t.name, t.error?.message]),
      };
    },
  },
});
