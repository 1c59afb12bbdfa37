/**
 * What addNode's and setNodeDefaults' policies do: timeouts, error handlers, retries and the
 * node cache, with task()'s own policies in the functional API.
 */
import { attempt, collect, compare, inMemoryCache, list } from "./harness.js";

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The parts of a NodeTimeoutError both runtimes promise. */
function timeoutFacts(error: any) {
  return { name: error.name, node: error.node, kind: error.kind, timeout: error.timeout };
}

const retryFast = { maxAttempts: 3, initialInterval: 1, jitter: false };

compare("node policies", {
  "a node past its run timeout fails with NodeTimeoutError": {
    from: "timeout.test.ts: raises NodeTimeoutError when a node exceeds its run timeout",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver, isNodeTimeoutError } = lib;
      const State = Annotation.Root({ log: list(lib) });
      let aborted: unknown;
      const graph = new StateGraph(State)
        .addNode(
          "slow",
          async (_s: unknown, config: any) => {
            await pause(120);
            aborted = config.signal?.aborted;
            return { log: ["late"] };
          },
          { timeout: 30 },
        )
        .addEdge(START, "slow")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      const error = await graph.invoke({ log: [] }, config).catch((e: unknown) => e);
      await pause(150);
      const state = await graph.getState(config);
      return {
        error: timeoutFacts(error),
        isTimeout: isNodeTimeoutError(error),
        aborted,
        next: state.next,
        taskError: state.tasks.map((t: any) => t.error?.name),
        values: state.values,
      };
    },
  },

  "an idle timeout is held off by heartbeats and fires without them": {
    from: "timeout.test.ts: does not fire an idle timeout while heartbeats keep arriving",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const graph = (beat: boolean) =>
        new StateGraph(State)
          .addNode(
            "worker",
            async (_s: unknown, config: any) => {
              for (let i = 0; i < 4; i++) {
                await pause(25);
                if (beat) config.heartbeat();
              }
              return { log: ["done"] };
            },
            { timeout: { idleTimeout: 60, refreshOn: "heartbeat" } },
          )
          .addEdge(START, "worker")
          .compile();
      const beating = await graph(true).invoke({ log: [] });
      const silent = await graph(false)
        .invoke({ log: [] })
        .catch((e: unknown) => timeoutFacts(e));
      return { beating, silent };
    },
  },

  "a timed-out attempt is retried by the node's retry policy": {
    from: "timeout.test.ts: composes with a retry policy: retries then succeeds",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const State = Annotation.Root({ log: list(lib) });
      let calls = 0;
      const graph = new StateGraph(State)
        .addNode(
          "n",
          async () => {
            calls++;
            await pause(calls < 3 ? 80 : 1);
            return { log: [`attempt ${calls}`] };
          },
          { timeout: 30, retryPolicy: retryFast },
        )
        .addEdge(START, "n")
        .compile();
      return { result: await graph.invoke({ log: [] }), calls };
    },
  },

  "an error handler runs once the retries are spent; the node's edges are not followed": {
    from: "node_error_handler.test.ts: runs the error handler only after the retry policy is exhausted",
    async run(lib) {
      const { Annotation, StateGraph, START, isNodeError } = lib;
      const State = Annotation.Root({ log: list(lib), q: Annotation() });
      let calls = 0;
      const graph = new StateGraph(State)
        .addNode(
          "n",
          () => {
            calls++;
            throw new Error(`boom ${calls}`);
          },
          {
            retryPolicy: { ...retryFast, maxAttempts: 2 },
            errorHandler: (state: any, failure: any) => ({
              log: [`${failure.node}: ${failure.error.message} (q=${state.q}, ${isNodeError(failure)})`],
            }),
          },
        )
        .addNode("next", () => ({ log: ["next"] }))
        .addEdge(START, "n")
        .addEdge("n", "next")
        .compile();
      const updates = await collect(await graph.stream({ log: [], q: "x" }, { streamMode: "updates" }));
      return { updates, calls };
    },
  },

  "an error handler routes on with Command({ goto })": {
    from: "node_error_handler.test.ts: lets the handler route to a recovery branch via Command(goto)",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver, Command } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addNode(
          "risky",
          () => {
            throw new Error("boom");
          },
          { errorHandler: () => new Command({ update: { log: ["handled"] }, goto: "recover" }) },
        )
        .addNode("recover", () => ({ log: ["recovered"] }))
        .addEdge(START, "risky")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      const result = await graph.invoke({ log: [] }, config);
      return { result, next: (await graph.getState(config)).next };
    },
  },

  "an error handler that throws fails the run with its own error": {
    from: "node_error_handler.test.ts: fails the run when the error handler itself throws",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addNode(
          "n",
          () => {
            throw new Error("node failed");
          },
          {
            errorHandler: () => {
              throw new Error("handler failed");
            },
          },
        )
        .addEdge(START, "n")
        .compile();
      return graph.invoke({ log: [] }).catch((e: Error) => e.message);
    },
  },

  "an interrupt is not an error: the handler is not called": {
    from: "node_error_handler.test.ts: does not swallow a concurrent interrupt()",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver, Command, interrupt } = lib;
      const State = Annotation.Root({ log: list(lib) });
      let handled = 0;
      const graph = new StateGraph(State)
        .addNode("ask", () => ({ log: [interrupt("ok?")] }), {
          errorHandler: () => {
            handled++;
            return { log: ["handled"] };
          },
        })
        .addEdge(START, "ask")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      const paused = await graph.invoke({ log: [] }, config);
      const done = await graph.invoke(new Command({ resume: "yes" }), config);
      return { paused, done, handled };
    },
  },

  "setNodeDefaults: a default retry policy and error handler, a node's own winning": {
    from: "set_node_defaults.test.ts: applies the default error handler to every regular node lacking its own",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const calls: Record<string, number> = { a: 0, b: 0 };
      const fail = (name: string) => () => {
        calls[name]!++;
        throw new Error(`${name} failed`);
      };
      const graph = new StateGraph(State)
        .addNode("a", fail("a"))
        .addNode("b", fail("b"), {
          retryPolicy: { ...retryFast, maxAttempts: 1 },
          errorHandler: (_s: unknown, e: any) => ({ log: [`own handler: ${e.error.message}`] }),
        })
        .addEdge(START, "a")
        .addEdge(START, "b")
        .setNodeDefaults({
          retryPolicy: { ...retryFast, maxAttempts: 2 },
          errorHandler: (_s: unknown, e: any) => ({ log: [`default handler: ${e.node}`] }),
        })
        .compile();
      return { result: await graph.invoke({ log: [] }), calls };
    },
  },

  "a cached node runs once per input, across runs; a hit streams as cached": {
    from: "pregel.test.ts: in one fan out state graph waiting edge multiple",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const State = Annotation.Root({ log: list(lib), q: Annotation() });
      let runs = 0;
      const graph = new StateGraph(State)
        .addNode(
          "rewrite",
          (s: any) => {
            runs++;
            return { log: [`rewrote ${s.q}`] };
          },
          { cachePolicy: { keyFunc: ([s]: any[]) => s.q } },
        )
        .addNode("after", () => ({ log: ["after"] }))
        .addEdge(START, "rewrite")
        .addEdge("rewrite", "after")
        .compile({ cache: await inMemoryCache(lib) });
      const first = await collect(await graph.stream({ log: [], q: "x" }, { streamMode: "updates" }));
      const again = await collect(await graph.stream({ log: ["other"], q: "x" }, { streamMode: "updates" }));
      const other = await graph.invoke({ log: [], q: "y" });
      const runsBeforeClear = runs;
      await graph.clearCache();
      await graph.invoke({ log: [], q: "x" });
      return { first, again, other, runsBeforeClear, runs };
    },
  },

  "setNodeDefaults({ cachePolicy }) with a node opting out": {
    from: "set_node_defaults.test.ts: lets a per-node cachePolicy: false opt out of the default",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const runs = { cached: 0, uncached: 0 };
      const graph = new StateGraph(State)
        .setNodeDefaults({ cachePolicy: true })
        .addNode("cached", () => ({ log: [`cached ${++runs.cached}`] }))
        .addNode("uncached", () => ({ log: [`uncached ${++runs.uncached}`] }), { cachePolicy: false })
        .addEdge(START, "cached")
        .addEdge(START, "uncached")
        .compile({ cache: await inMemoryCache(lib) });
      const results = [await graph.invoke({ log: [] }), await graph.invoke({ log: [] })];
      return { results, runs };
    },
  },

  "a task() with a cache policy runs once per argument": {
    from: "func.test.ts: mutliple interrupts with cache",
    async run(lib) {
      const { entrypoint, task, MemorySaver } = lib;
      let runs = 0;
      const double = task({ name: "double", cachePolicy: { ttl: 1000 } }, async (x: number) => {
        runs++;
        return x * 2;
      });
      const workflow = entrypoint(
        { name: "workflow", checkpointer: new MemorySaver(), cache: await inMemoryCache(lib) },
        async (n: number) => {
          const first = await double(n);
          await pause(5);
          return [first, await double(n + 1)];
        },
      );
      const a = await workflow.invoke(1, { configurable: { thread_id: "a" } });
      const b = await workflow.invoke(1, { configurable: { thread_id: "b" } });
      const updates = await collect(
        await workflow.stream(1, { configurable: { thread_id: "c" }, streamMode: "updates" }),
      );
      return { a, b, updates, runs };
    },
  },

  "a task() given its cache policy as `cache`, LangGraph.js's older name": {
    from: "func/index.ts (task: cachePolicy ?? cache)",
    async run(lib) {
      const { entrypoint, task } = lib;
      let runs = 0;
      const double = task({ name: "double", cache: { ttl: 1000 } }, async (x: number) => {
        runs++;
        return x * 2;
      });
      const workflow = entrypoint({ name: "workflow", cache: await inMemoryCache(lib) }, (n: number) => double(n));
      // The second run's call is served from the cache: one run of the task in all.
      return { results: [await workflow.invoke(2), await workflow.invoke(2)], runs };
    },
  },

  "a misspelt option of compile(), addNode(), task(), Annotation() or Command, a misspelt stream mode, or a recursion limit as text":
    {
      differs: "#misspelt-options-are-refused",
      async run(lib) {
        const { Annotation, Command, MemorySaver, StateGraph, START, task } = lib;
        const State = Annotation.Root({ v: Annotation() });
        const builder = () => new StateGraph(State).addNode("n", () => ({ v: 1 })).addEdge(START, "n");
        const graph = builder().compile({ checkpointer: new MemorySaver() });
        const streamed = async (streamMode: string) =>
          collect(await graph.stream({ v: 0 }, { configurable: { thread_id: streamMode }, streamMode }));
        return {
          compile: attempt(() => typeof builder().compile({ interruptBefor: ["n"] })),
          addNode: attempt(() => typeof builder().addNode("m", () => ({}), { retry: { maxAttempts: 2 } })),
          task: attempt(() => typeof task({ name: "t", retryPolicy: {} }, async () => 1)),
          annotation: attempt(() => typeof Annotation({ reduce: (a: number, b: number) => a + b })),
          command: attempt(() => typeof new Command({ resum: "yes" })),
          streamMode: await streamed("update").catch((error: Error) => ({ threw: error.name })),
          durability: await graph
            .invoke({ v: 0 }, { configurable: { thread_id: "d" }, durability: "synch" })
            .catch((error: Error) => ({ threw: error.name })),
          recursionLimit: await graph
            .invoke({ v: 0 }, { configurable: { thread_id: "r" }, recursionLimit: "10" })
            .catch((error: Error) => ({ threw: error.name })),
        };
      },
    },

  "a task() with a retry policy and a timeout": {
    from: "timeout.test.ts: task() enforces a per-attempt timeout",
    async run(lib) {
      const { entrypoint, task } = lib;
      let calls = 0;
      const flaky = task({ name: "flaky", timeout: 30, retry: retryFast }, async () => {
        calls++;
        await pause(calls < 2 ? 80 : 1);
        return `ok after ${calls}`;
      });
      const slow = task({ name: "slow", timeout: 30 }, async () => pause(80));
      const ok = await entrypoint("ok", async () => flaky()).invoke("go");
      const failed = await entrypoint("failed", async () => slow())
        .invoke("go")
        .catch((e: unknown) => timeoutFacts(e));
      return { ok, calls, failed };
    },
  },
  "an error handler may ask: the answer goes to it, and the node does not run again": {
    from: "node_error_handler.test.ts: preserves the failure context across a checkpoint resume",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver, Command, interrupt } = lib;
      const State = Annotation.Root({ log: list(lib) });
      let nodeRuns = 0;
      const graph = new StateGraph(State)
        .addNode(
          "n",
          () => {
            nodeRuns++;
            throw new TypeError(`boom ${nodeRuns}`);
          },
          {
            errorHandler: (_s: unknown, e: any) => {
              const answer = interrupt(`retry after ${e.error.message}?`);
              return { log: [`${answer}: ${e.error.name}: ${e.error.message}`] };
            },
          },
        )
        .addEdge(START, "n")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      const paused = await graph.invoke({ log: [] }, config);
      const done = await graph.invoke(new Command({ resume: "no" }), config);
      return { paused, done, nodeRuns };
    },
  },

  "a cached node that asked is not served from the cache to another thread": {
    from: "func.test.ts: mutliple interrupts with cache",
    differs: "#a-cached-node-never-skips-a-question",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver, Command, interrupt } = lib;
      const State = Annotation.Root({ log: list(lib), q: Annotation() });
      const graph = new StateGraph(State)
        .addNode("review", (s: any) => ({ log: [`${s.q}: ${interrupt(`approve ${s.q}?`)}`] }), { cachePolicy: true })
        .addEdge(START, "review")
        .compile({ checkpointer: new MemorySaver(), cache: await inMemoryCache(lib) });
      const a = { configurable: { thread_id: "a" } };
      await graph.invoke({ log: [], q: "wire $1M" }, a);
      await graph.invoke(new Command({ resume: "approved" }), a);
      return graph.invoke({ log: [], q: "wire $1M" }, { configurable: { thread_id: "b" } });
    },
  },
  "a subgraph node's timeout covers the whole subgraph run": {
    from: "timeout.test.ts: addNode timeout (end-to-end)",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const inner = new StateGraph(State)
        .addNode("one", async () => (await pause(30), { log: ["one"] }))
        .addNode("two", async () => (await pause(30), { log: ["two"] }))
        .addEdge(START, "one")
        .addEdge("one", "two")
        .compile();
      const graph = (timeout: number) =>
        new StateGraph(State).addNode("sub", inner, { timeout }).addEdge(START, "sub").compile();
      const failed = await graph(40)
        .invoke({ log: [] })
        .catch((e: unknown) => timeoutFacts(e));
      const done = await graph(500).invoke({ log: [] });
      return { failed, done };
    },
  },

  "a failure inside a subgraph node goes to the parent node's handler": {
    from: "node_error_handler.test.ts: handles a failure that occurs inside a subgraph node",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const inner = new StateGraph(State)
        .addNode("deep", () => {
          throw new Error("deep failure");
        })
        .addEdge(START, "deep")
        .compile();
      const graph = new StateGraph(State)
        .addNode("sub", inner, {
          errorHandler: (_s: unknown, e: any) => ({ log: [`${e.node}: ${e.error.message}`] }),
        })
        .addEdge(START, "sub")
        .compile();
      return graph.invoke({ log: [] });
    },
  },

  "setNodeDefaults: not inherited by a subgraph, merged across calls, read at compile": {
    from: "set_node_defaults.test.ts: does not inherit defaults into subgraphs",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const State = Annotation.Root({ log: list(lib) });
      let innerRuns = 0;
      const inner = new StateGraph(State)
        .addNode("flaky", () => {
          innerRuns++;
          throw new Error("inner");
        })
        .addEdge(START, "flaky")
        .compile();
      const builder = new StateGraph(State)
        .addNode("sub", inner)
        .addEdge(START, "sub")
        .setNodeDefaults({ retryPolicy: { ...retryFast, maxAttempts: 2 } })
        .setNodeDefaults({ errorHandler: (_s: unknown, e: any) => ({ log: [`handled ${e.node}`] }) });
      const before = builder.compile();
      builder.setNodeDefaults({ errorHandler: (_s: unknown, e: any) => ({ log: [`changed ${e.node}`] }) });
      return {
        result: await before.invoke({ log: [] }),
        innerRuns,
        after: await builder.compile().invoke({ log: [] }),
      };
    },
  },

  "an error handler gets the failed node's own input": {
    from: "set_node_defaults.test.ts: receives the failing node's input, not the full graph state",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const State = Annotation.Root({ log: list(lib), a: Annotation(), b: Annotation() });
      const Only = Annotation.Root({ a: Annotation() });
      let seen: unknown;
      const graph = new StateGraph(State)
        .addNode(
          "n",
          () => {
            throw new Error("x");
          },
          {
            input: Only,
            errorHandler: (state: unknown) => {
              seen = state;
              return { log: ["handled"] };
            },
          },
        )
        .addEdge(START, "n")
        .compile();
      return { result: await graph.invoke({ log: [], a: 1, b: 2 }), seen };
    },
  },
  "a Send's own timeout replaces its node's for that task": {
    from: "timeout.test.ts: Send timeout (end-to-end) > overrides the target node's timeout for a specific pushed task",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver, Send } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addNode("fan", () => ({}))
        .addNode(
          "work",
          async (arg: any) => {
            await pause(arg.ms);
            return { log: [`worked ${arg.ms}`] };
          },
          { timeout: 1000 },
        )
        .addEdge(START, "fan")
        .addConditionalEdges("fan", () => [new Send("work", { ms: 10 }), new Send("work", { ms: 80 }, { timeout: 30 })])
        .compile({ checkpointer: new MemorySaver() });
      const error = await graph
        .invoke({ log: [] }, { configurable: { thread_id: "t" } })
        .catch((e: unknown) => timeoutFacts(e));
      const packet = JSON.parse(JSON.stringify(new Send("work", { ms: 1 }, { timeout: 30 })));
      return { error, packet };
    },
  },

  "under refreshOn auto, task() calls and a chat model's tokens count as progress": {
    from: "timeout.ts: refreshOn auto (writes, task calls and LangChain callback events refresh the idle clock)",
    async run(lib) {
      const { Annotation, StateGraph, START, task } = lib;
      const { FakeListChatModel } = await import("@langchain/core/utils/testing");
      const State = Annotation.Root({ log: list(lib) });
      const step = task("step", async (n: number) => {
        await pause(40);
        return `step ${n}`;
      });
      const model = new FakeListChatModel({ responses: ["a b c d e f"], sleep: 25 });
      // Wide margins (a loaded machine delays timers): progress every 25-40 ms, silence 400 ms.
      const idle = { timeout: { idleTimeout: 200 } };
      const graph = new StateGraph(State)
        .addNode("calls", async () => ({ log: [await step(1), await step(2), await step(3)] }), idle)
        .addNode(
          "tokens",
          async (_s: unknown, config: any) => {
            let text = "";
            for await (const chunk of await model.stream("hi", config)) text += chunk.content;
            return { log: [text] };
          },
          idle,
        )
        .addNode("silent", async () => (await pause(400), { log: ["late"] }), idle)
        .addEdge(START, "calls")
        .addEdge("calls", "tokens")
        .addEdge("tokens", "silent")
        .compile();
      const failure = await graph.invoke({ log: [] }).catch((e: unknown) => e);
      return timeoutFacts(failure);
    },
  },
});
