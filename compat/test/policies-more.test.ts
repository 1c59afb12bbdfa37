/**
 * More of what node policies do: setNodeDefaults (cache defaults, nodes added before or after it,
 * the shared default error handler), error handlers routed per node, timeouts (their values, the
 * NodeTimeoutError itself, idle clocks, synchronous nodes, the functional API), and what a node
 * is told of where it runs (executionInfo, serverInfo).
 */
import { compare, cutIds, inMemoryCache, list, thread } from "./harness.js";

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits `ms`, or rejects as soon as `signal` aborts (a node that listens to its timeout). */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(new Error("aborted"));
      },
      { once: true },
    );
  });
}

/** Blocks the event loop for `ms` (a CPU-bound node: no timer can fire meanwhile). */
function busyWait(ms: number): void {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    // spin
  }
}

/** The parts of a NodeTimeoutError both runtimes promise (elapsed is a duration: left out). */
function timeoutFacts(error: any) {
  return { name: error?.name, node: error?.node, kind: error?.kind, timeout: error?.timeout };
}

/** Whether `build` throws (class and wording differ by design: GraphValidationError against Error). */
function refused(build: () => unknown) {
  try {
    build();
    return false;
  } catch {
    return true;
  }
}

const failWith = (message: string) => () => {
  throw new Error(message);
};

const retryFast = { maxAttempts: 3, initialInterval: 1, jitter: false };

compare("node defaults and error handlers, more", {
  "setNodeDefaults({ cachePolicy: { ttl } }): a node's own ttl wins over the default": {
    from: "set_node_defaults.test.ts: lets a per-node cachePolicy override the default",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const runs = { short: 0, long: 0 };
      const graph = new StateGraph(Annotation.Root({ log: list(lib) }))
        .setNodeDefaults({ cachePolicy: { ttl: 60 } })
        .addNode("short", () => (runs.short++, { log: ["short"] }), { cachePolicy: { ttl: 0.5 } })
        .addNode("long", () => (runs.long++, { log: ["long"] }))
        .addEdge(START, "short")
        .addEdge("short", "long")
        .compile({ cache: await inMemoryCache(lib) });
      const first = await graph.invoke({ log: [] });
      await graph.invoke({ log: [] });
      const cached = { ...runs };
      // Past the node's own 0.5 s, well inside the default's 60 s.
      await pause(1200);
      const last = await graph.invoke({ log: [] });
      return { first, last, cached, runs };
    },
  },

  "setNodeDefaults({ cachePolicy: false }) caches nothing; true caches every node": {
    from: "set_node_defaults.test.ts: accepts a boolean cachePolicy default",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const runsWith = async (cachePolicy: boolean) => {
        let runs = 0;
        const graph = new StateGraph(Annotation.Root({ log: list(lib) }))
          .setNodeDefaults({ cachePolicy })
          .addNode("a", () => (runs++, { log: ["a"] }))
          .addEdge(START, "a")
          .compile({ cache: await inMemoryCache(lib) });
        await graph.invoke({ log: [] });
        await graph.invoke({ log: [] });
        return runs;
      };
      return { enabled: await runsWith(true), disabled: await runsWith(false) };
    },
  },

  "setNodeDefaults after every addNode: nodes without their own retry policy get the default, and the cache": {
    from: "set_node_defaults.test.ts: applies defaults to all nodes that lack their own value",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const calls: Record<string, number> = { a: 0, b: 0, c: 0 };
      // Fails its first `failures` calls, then writes its name.
      const flaky = (name: string, failures: number) => () => {
        if (++calls[name]! <= failures) throw new Error(`${name} not yet`);
        return { log: [name] };
      };
      const graph = new StateGraph(Annotation.Root({ log: list(lib) }))
        .addNode("a", flaky("a", 2))
        // Four attempts of its own: the default's three would not be enough.
        .addNode("b", flaky("b", 3), { retryPolicy: { ...retryFast, maxAttempts: 4 } })
        .addNode("c", flaky("c", 2))
        .addEdge(START, "a")
        .addEdge("a", "b")
        .addEdge("b", "c")
        .setNodeDefaults({ retryPolicy: retryFast, cachePolicy: { ttl: 60 } })
        .compile({ cache: await inMemoryCache(lib) });
      const first = await graph.invoke({ log: [] });
      const firstCalls = { ...calls };
      const again = await graph.invoke({ log: [] });
      return { first, firstCalls, again, calls };
    },
  },

  "graph.nodes shows the retry, cache and timeout policies each node runs with": {
    from: "set_node_defaults.test.ts: applies defaults when setNodeDefaults is called after all addNode calls",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const own = { maxAttempts: 7 };
      const graph = new StateGraph(Annotation.Root({ log: list(lib) }))
        .addNode("a", () => ({ log: ["a"] }))
        .addNode("b", () => ({ log: ["b"] }), { retryPolicy: own, cachePolicy: { ttl: 5 } })
        .addEdge(START, "a")
        .addEdge("a", "b")
        .setNodeDefaults({ retryPolicy: retryFast, cachePolicy: { ttl: 60 }, timeout: 1000 })
        .compile({ cache: await inMemoryCache(lib) });
      const policies = (name: string) => {
        const node = graph.nodes[name];
        return { retryPolicy: node?.retryPolicy, cachePolicy: node?.cachePolicy, timeout: node?.timeout };
      };
      return { a: policies("a"), b: policies("b") };
    },
  },

  "setNodeDefaults returns the builder itself": {
    from: "set_node_defaults.test.ts: returns the same builder instance for chaining",
    async run(lib) {
      const builder = new lib.StateGraph(lib.Annotation.Root({ log: list(lib) }));
      return builder.setNodeDefaults({ retryPolicy: retryFast }) === builder;
    },
  },

  "a node's own error handler that throws is not caught by the default handler": {
    from: "set_node_defaults.test.ts: does not catch a failure raised by a per-node error handler",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      let defaultCalls = 0;
      const graph = new StateGraph(Annotation.Root({ log: list(lib) }))
        .setNodeDefaults({ errorHandler: () => (defaultCalls++, { log: ["default recovered"] }) })
        .addNode("n", failWith("node boom"), { errorHandler: failWith("handler boom") })
        .addEdge(START, "n")
        .compile();
      const error = await graph.invoke({ log: [] }).catch((e: Error) => e.message);
      return { error, defaultCalls };
    },
  },

  "a default error handler that throws fails the run with its own error": {
    from: "set_node_defaults.test.ts: fails the run when the default error handler itself throws",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const graph = new StateGraph(Annotation.Root({ log: list(lib) }))
        .setNodeDefaults({ errorHandler: failWith("default handler boom") })
        .addNode("n", failWith("node boom"))
        .addEdge(START, "n")
        .compile();
      return graph.invoke({ log: [] }).catch((e: Error) => e.message);
    },
  },

  "the default error handler gets the run's config": {
    from: "set_node_defaults.test.ts: passes the runnable config to the default error handler",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver } = lib;
      let seen: unknown;
      const graph = new StateGraph(Annotation.Root({ log: list(lib) }))
        .setNodeDefaults({
          errorHandler: (_s: unknown, _e: unknown, config: any) => {
            seen = { thread: config?.configurable?.thread_id, mine: config?.configurable?.mine };
            return { log: ["handled"] };
          },
        })
        .addNode("n", failWith("boom"))
        .addEdge(START, "n")
        .compile({ checkpointer: new MemorySaver() });
      const result = await graph.invoke({ log: [] }, { configurable: { thread_id: "thread-xyz", mine: 7 } });
      return { result, seen };
    },
  },

  "a node named __default_error_handler__ is refused at compile when there is a default handler": {
    from: "set_node_defaults.test.ts: throws at compile when a node uses the reserved default-handler name",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const name = "__default_error_handler__";
      const builder = new StateGraph(Annotation.Root({ log: list(lib) }))
        .setNodeDefaults({ errorHandler: () => ({ log: ["handled"] }) })
        .addNode(name, () => ({ log: ["ran"] }))
        .addEdge(START, name);
      let message = "";
      try {
        builder.compile();
      } catch (error) {
        message = (error as Error).message;
      }
      // LangGraph.js's test checks that the message names the node.
      return { refused: message !== "", namesIt: message.includes(name) };
    },
  },

  "the default error handler is retried by the default retry policy and never cached": {
    from: "set_node_defaults.test.ts: applies retry/timeout to the shared handler node but never cachePolicy",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const calls = { node: 0, handler: 0 };
      const graph = new StateGraph(Annotation.Root({ log: list(lib) }))
        .setNodeDefaults({
          retryPolicy: retryFast,
          cachePolicy: true,
          // Fails on its first call only: a retry of the handler gets past it.
          errorHandler: () => {
            if (++calls.handler === 1) throw new Error("handler hiccup");
            return { log: ["handled"] };
          },
        })
        .addNode("n", () => {
          calls.node++;
          throw new Error("always");
        })
        .addEdge(START, "n")
        .compile({ cache: await inMemoryCache(lib) });
      const first = await graph.invoke({ log: [] }).catch((e: Error) => e.message);
      const firstCalls = { ...calls };
      const again = await graph.invoke({ log: [] }).catch((e: Error) => e.message);
      return { first, firstCalls, again, calls };
    },
  },

  "a slow default error handler is not cut off by the default timeout": {
    from: "set_node_defaults.test.ts: applies retry/timeout to the shared handler node but never cachePolicy",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      // LangGraph.js 1.7.3 lists the default timeout on the handler node (its test checks that)
      // but does not give it to the handler's task: a handler slower than it finishes.
      const graph = new StateGraph(Annotation.Root({ log: list(lib) }))
        .setNodeDefaults({
          timeout: 150,
          errorHandler: async (_s: unknown, _e: unknown, config: any) => {
            await sleep(600, config?.signal).catch(() => undefined);
            return { log: ["late"] };
          },
        })
        .addNode("n", failWith("boom"))
        .addEdge(START, "n")
        .compile();
      return graph.invoke({ log: [] }).catch((e: unknown) => timeoutFacts(e));
    },
  },

  "each node's own error handler gets that node's failure, whichever a conditional edge picks": {
    from: "node_error_handler.test.ts: routes a failure to the matching node's handler",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const State = Annotation.Root({ log: list(lib), route: Annotation() });
      const handler = (own: string) => (_s: unknown, failure: any) => ({
        log: [`${own} handled ${failure.node}: ${failure.error.message}`],
      });
      const graph = new StateGraph(State)
        .addNode("router", () => ({ log: ["routed"] }))
        .addNode("failA", failWith("a failed"), { errorHandler: handler("A's") })
        .addNode("failB", failWith("b failed"), { errorHandler: handler("B's") })
        .addEdge(START, "router")
        .addConditionalEdges("router", (s: any) => s.route, ["failA", "failB"])
        .compile();
      return {
        a: await graph.invoke({ log: [], route: "failA" }),
        b: await graph.invoke({ log: [], route: "failB" }),
      };
    },
  },

  "a node without an error handler still fails the run, in a graph where another node has one": {
    from: "node_error_handler.test.ts: still fails the run for a node without an error handler",
    async run(lib) {
      const { Annotation, StateGraph, START, Command } = lib;
      let handled = 0;
      const graph = new StateGraph(Annotation.Root({ log: list(lib) }))
        .addNode("guarded", failWith("guarded failed"), {
          // The handler routes on to a node that has none.
          errorHandler: () => (handled++, new Command({ update: { log: ["handled"] }, goto: "bare" })),
        })
        .addNode("bare", failWith("no handler"))
        .addEdge(START, "guarded")
        .compile();
      const error = await graph.invoke({ log: [] }).catch((e: Error) => e.message);
      return { error, handled };
    },
  },

  "an async error handler gets a NodeError after the retries are spent": {
    from: "node_error_handler.test.ts: exposes the NodeError to handlers registered as plain functions",
    async run(lib) {
      const { Annotation, StateGraph, START, NodeError } = lib;
      let attempts = 0;
      let seen: unknown;
      const graph = new StateGraph(Annotation.Root({ log: list(lib) }))
        .addNode(
          "n",
          () => {
            attempts++;
            throw new Error("Always fails async");
          },
          {
            retryPolicy: { ...retryFast, maxAttempts: 2, retryOn: () => true },
            errorHandler: async (_s: unknown, failure: any) => {
              await pause(5);
              seen = {
                isNodeError: failure instanceof NodeError,
                node: failure.node,
                isError: failure.error instanceof Error,
                message: failure.error.message,
              };
              return { log: ["handled_async"] };
            },
          },
        )
        .addEdge(START, "n")
        .compile();
      return { result: await graph.invoke({ log: [] }), attempts, seen };
    },
  },
});

compare("node timeouts, more", {
  "which timeout values addNode, setNodeDefaults, Send and task() accept": {
    from: "timeout.test.ts: normalizes scalars, policies, and rejects non-positive timeouts",
    async run(lib) {
      const { Annotation, StateGraph, START, Send, task } = lib;
      const State = Annotation.Root({ log: list(lib) });
      // Accepted values leave a graph that runs; refused ones are refused where they are given.
      const asNode = (timeout: unknown) => {
        let builder: any;
        if (refused(() => (builder = new StateGraph(State).addNode("n", () => ({ log: ["ran"] }), { timeout }))))
          return "refused";
        return builder.addEdge(START, "n").compile().invoke({ log: [] });
      };
      return {
        ms: await asNode(1500),
        idleOnly: await asNode({ idleTimeout: 250 }),
        empty: await asNode({}),
        zero: await asNode(0),
        negative: await asNode(-5),
        idleZero: await asNode({ idleTimeout: 0 }),
        badRefresh: await asNode({ runTimeout: 100, refreshOn: "nope" }),
        defaultsZero: refused(() => new StateGraph(State).setNodeDefaults({ timeout: 0 })),
        sendZero: refused(() => new Send("n", {}, { timeout: 0 })),
        taskZero: refused(() => task({ name: "t", timeout: 0 }, async () => 1)),
      };
    },
  },

  "a NodeTimeoutError built directly: its fields and message; not a bubble-up": {
    from: "timeout.test.ts: carries node/kind/timeouts/elapsed and is not a graph bubble-up",
    async run(lib) {
      const { NodeTimeoutError, isNodeTimeoutError } = lib;
      const error = new NodeTimeoutError({ node: "n", elapsed: 12, kind: "idle", idleTimeout: 50, runTimeout: 100 });
      const { name, node, kind, timeout, idleTimeout, runTimeout, elapsed, message } = error;
      return {
        fields: { name, node, kind, timeout, idleTimeout, runTimeout, elapsed, message },
        isTimeout: isNodeTimeoutError(error),
        isError: error instanceof Error,
        bubbleUp: error.is_bubble_up ?? null,
      };
    },
  },

  "a NodeTimeoutError needs the timeout of the kind that fired": {
    from: "timeout.test.ts: requires the matching timeout for the fired kind",
    async run(lib) {
      const { NodeTimeoutError } = lib;
      return {
        run: refused(() => new NodeTimeoutError({ node: "n", elapsed: 1, kind: "run" })),
        idle: refused(() => new NodeTimeoutError({ node: "n", elapsed: 1, kind: "idle" })),
        idleGivenRun: refused(() => new NodeTimeoutError({ node: "n", elapsed: 1, kind: "idle", runTimeout: 5 })),
      };
    },
  },

  "writer chunks hold off the idle timeout under refreshOn auto, not under heartbeat": {
    from: "timeout.test.ts: under refreshOn=heartbeat, only heartbeats refresh the idle clock",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      // A chunk every 30 ms for about 600 ms, against 250 ms without progress.
      const graph = (refreshOn: string) =>
        new StateGraph(Annotation.Root({ log: list(lib) }))
          .addNode(
            "chatty",
            async (_s: unknown, config: any) => {
              for (let i = 0; i < 20; i++) {
                await pause(30);
                config.writer?.({ i });
              }
              return { log: ["done"] };
            },
            { timeout: { idleTimeout: 250, refreshOn } },
          )
          .addEdge(START, "chatty")
          .compile();
      const outcome = async (refreshOn: string) => {
        try {
          for await (const _ of await graph(refreshOn).stream({ log: [] }, { streamMode: "custom" })) {
            // chunks: how many arrive is a matter of timing
          }
          return "finished";
        } catch (error) {
          return timeoutFacts(error);
        }
      };
      return { auto: await outcome("auto"), heartbeat: await outcome("heartbeat") };
    },
  },

  "an attempt that rejects after its timeout fired is not an unhandled rejection": {
    from: "timeout.test.ts: does not surface an unhandled rejection when the abandoned attempt rejects after timeout",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      // Both runtimes run at once: each looks only for its own node's rejection.
      const token = `late-${Math.random()}`;
      const unhandled: unknown[] = [];
      const onUnhandled = (reason: unknown) => {
        if (String((reason as Error)?.message).includes(token)) unhandled.push(reason);
      };
      process.on("unhandledRejection", onUnhandled);
      let rejectedLate = false;
      try {
        const graph = new StateGraph(Annotation.Root({ log: list(lib) }))
          .addNode(
            "late",
            async (_s: unknown, config: any) => {
              try {
                await sleep(3000, config.signal);
              } catch {
                rejectedLate = true;
                await pause(0);
                throw new Error(`post-timeout rejection ${token}`);
              }
              return { log: ["late"] };
            },
            { timeout: 100 },
          )
          .addEdge(START, "late")
          .compile();
        const error = await graph.invoke({ log: [] }).catch((e: unknown) => timeoutFacts(e));
        // Time for the abandoned attempt to settle and for an unhandled rejection to be reported.
        await pause(300);
        return { error, rejectedLate, unhandled: unhandled.length };
      } finally {
        process.off("unhandledRejection", onUnhandled);
      }
    },
  },

  "a synchronous node that blocks past its run timeout fails, and its update is not saved": {
    from: "timeout.test.ts: enforces the run timeout for a synchronous CPU-bound node that blocks the event loop",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver } = lib;
      const graph = new StateGraph(Annotation.Root({ log: list(lib) }))
        .addNode(
          "cpu",
          () => {
            busyWait(300);
            return { log: ["stale"] };
          },
          { timeout: 50 },
        )
        .addEdge(START, "cpu")
        .compile({ checkpointer: new MemorySaver() });
      const error = await graph.invoke({ log: ["in"] }, thread("t")).catch((e: unknown) => timeoutFacts(e));
      const state = await graph.getState(thread("t"));
      return { error, values: state.values, next: state.next };
    },
  },

  "a fast synchronous node is not timed out": {
    from: "timeout.test.ts: does not falsely time out a fast synchronous node",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const graph = new StateGraph(Annotation.Root({ log: list(lib) }))
        .addNode(
          "cpu",
          () => {
            busyWait(10);
            return { log: ["done"] };
          },
          // Generous: the other runtime's node may block the event loop at the same time.
          { timeout: 2000 },
        )
        .addEdge(START, "cpu")
        .compile();
      return graph.invoke({ log: [] });
    },
  },

  "entrypoint({ timeout }) fails a slow workflow with NodeTimeoutError": {
    from: "timeout.test.ts: entrypoint() enforces a per-attempt timeout",
    async run(lib) {
      const { entrypoint, isNodeTimeoutError } = lib;
      const slow = entrypoint({ name: "wf_slow", timeout: 100 }, async (x: number, config: any) => {
        await sleep(3000, config.signal);
        return x;
      });
      const error = await slow.invoke(1).catch((e: unknown) => e);
      const fast = await entrypoint({ name: "wf_fast", timeout: 2000 }, async (x: number) => x + 1).invoke(1);
      return { error: timeoutFacts(error), isTimeout: isNodeTimeoutError(error), fast };
    },
  },

  "a task() called before its entrypoint times out still runs": {
    from: "timeout.test.ts: lets a child task scheduled before the timeout run to completion",
    async run(lib) {
      const { entrypoint, task } = lib;
      let childRan = false;
      const child = task("child", async (value: number) => {
        childRan = true;
        return value + 1;
      });
      const parent = entrypoint({ name: "parent", timeout: 200 }, async (value: number, config: any) => {
        const pending = child(value);
        await sleep(3000, config.signal);
        return pending;
      });
      const error = await parent.invoke(1).catch((e: unknown) => timeoutFacts(e));
      return { error, childRan };
    },
  },
});

compare("what a node is told of where it runs", {
  "executionInfo with a checkpointer and without one": {
    from: "execution_info.test.ts: should populate executionInfo fields when running with a checkpointer",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver } = lib;
      const seen = async (checkpointer: unknown, config?: object) => {
        let info: any;
        const graph = new StateGraph(Annotation.Root({ message: Annotation() }))
          .addNode("capture", (_s: unknown, runtime: any) => {
            info = runtime.executionInfo;
            return { message: "done" };
          })
          .addEdge(START, "capture")
          .compile({ checkpointer });
        await graph.invoke({ message: "hi" }, config);
        // Ids differ by design (uuids against hashes): their presence and types are compared.
        return {
          threadId: info?.threadId ?? null,
          taskId: typeof info?.taskId,
          checkpointId: typeof info?.checkpointId,
          checkpointNs: cutIds(String(info?.checkpointNs).split("|")),
          nodeAttempt: info?.nodeAttempt,
          nodeFirstAttemptTime: typeof info?.nodeFirstAttemptTime,
        };
      };
      return {
        saved: await seen(new MemorySaver(), thread("t-123")),
        unsaved: await seen(undefined),
      };
    },
  },

  "executionInfo of a node in a subgraph: the parent's thread, its namespace under the subgraph's": {
    from: "execution_info.test.ts: should populate executionInfo for subgraph nodes",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver } = lib;
      const State = Annotation.Root({ message: Annotation() });
      const seen: Record<string, unknown> = {};
      const capture = (name: string, message: string) => (_s: unknown, runtime: any) => {
        const info = runtime.executionInfo;
        seen[name] = {
          threadId: info?.threadId,
          nodeAttempt: info?.nodeAttempt,
          checkpointNs: cutIds(String(info?.checkpointNs).split("|")),
        };
        return { message };
      };
      const sub = new StateGraph(State)
        .addNode("sub_node", capture("sub", "from_sub"))
        .addEdge(START, "sub_node")
        .compile();
      const graph = new StateGraph(State)
        .addNode("main_node", capture("main", "from_main"))
        .addNode("subgraph", sub)
        .addEdge(START, "main_node")
        .addEdge("main_node", "subgraph")
        .compile({ checkpointer: new MemorySaver() });
      const result = await graph.invoke({ message: "hi" }, thread("sub-thread"));
      return { result, seen };
    },
  },

  "serverInfo is undefined when nothing names an assistant, a graph or a user": {
    from: "execution_info.test.ts: should return undefined serverInfo when no ids or auth user are present",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      let info: unknown = "not called";
      const graph = new StateGraph(Annotation.Root({ message: Annotation() }))
        .addNode("capture", (_s: unknown, runtime: any) => {
          info = runtime.serverInfo ?? null;
          return { message: "done" };
        })
        .addEdge(START, "capture")
        .compile();
      await graph.invoke({ message: "hi" }, { configurable: { mine: 1 }, metadata: { other: 2 } });
      return { serverInfo: info };
    },
  },

  "serverInfo from assistant_id and graph_id (configurable first, then metadata) and langgraph_auth_user": {
    from: "execution_info.test.ts: should build serverInfo from assistant_id/graph_id in config configurable",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      let info: unknown;
      const graph = new StateGraph(Annotation.Root({ message: Annotation() }))
        .addNode("capture", (_s: unknown, runtime: any) => {
          info = runtime.serverInfo ?? null;
          return { message: "done" };
        })
        .addEdge(START, "capture")
        .compile();
      const seen = async (config: object) => {
        info = "not called";
        await graph.invoke({ message: "hi" }, config);
        return info;
      };
      const user = {
        identity: "proxy-user",
        display_name: "Proxy User",
        is_authenticated: true,
        permissions: ["read"],
      };
      return {
        configurable: await seen({ configurable: { assistant_id: "asst-abc", graph_id: "my-graph" } }),
        both: await seen({
          configurable: { assistant_id: "asst-config", graph_id: "graph-config" },
          metadata: { assistant_id: "asst-meta", graph_id: "graph-meta" },
        }),
        metadata: await seen({ metadata: { assistant_id: "asst-meta", graph_id: "graph-meta" } }),
        user: await seen({
          configurable: { langgraph_auth_user: user, assistant_id: "asst-proxy", graph_id: "graph-proxy" },
        }),
      };
    },
  },
});
