/**
 * Gaps left by the node-policy, cancellation and error scenarios: what `graph.nodes` and the
 * builder's own `nodes` show after setNodeDefaults, the fields of a NodeTimeoutError a run
 * throws, a node's timeout under a run's own signal, a thread after a run failed by a node's
 * error (at every depth of subgraph), a plain Graph cancelled by its run's timeout, updateState
 * with a key the state does not have, the builder's `nodes` (an object of node specs) and the
 * error handlers, which are no nodes of their own here (COMPATIBILITY.md).
 */
import { compare, inMemoryCache, list, type Runtime, refusal, type Scenario, thread } from "./harness.js";

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits `ms`, or rejects as soon as `signal` aborts (a node that listens to its signal). */
function listening(ms: number, signal: AbortSignal | undefined, seen: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      seen.push("finished");
      resolve();
    }, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        seen.push("saw the abort");
        reject(new Error("gave up"));
      },
      { once: true },
    );
  });
}

/** What a run ended with: its result, or that it was rejected and whether the error says "abort" or "timeout". */
const settle = (run: Promise<unknown>) =>
  run.then(
    (returned) => ({ returned }),
    (error: Error) => ({ rejected: true, says: /abort|timeout|cancel/i.test(String(error?.message)) }),
  );

const fastRetry = { maxAttempts: 3, initialInterval: 1, jitter: false };

compare("node policies", {
  "graph.nodes after setNodeDefaults: cachePolicy true is {}, false none, a node's own false none; later calls win": {
    from: "set_node_defaults.test.ts: accepts a boolean cachePolicy default",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const cache = await inMemoryCache(lib);
      const one = (defaults: object, options?: object) =>
        new StateGraph(State)
          .setNodeDefaults(defaults)
          .addNode("a", () => ({ log: ["a"] }), options)
          .addEdge(START, "a")
          .compile({ cache }).nodes.a;
      // "merges fields across multiple calls, later wins per-field"
      const merged = new StateGraph(State)
        .setNodeDefaults({ retryPolicy: { maxAttempts: 2 } })
        .setNodeDefaults({ cachePolicy: { ttl: 60 } })
        .setNodeDefaults({ retryPolicy: fastRetry })
        .addNode("a", () => ({ log: ["a"] }))
        .addEdge(START, "a")
        .compile({ cache }).nodes.a;
      return {
        enabled: one({ cachePolicy: true }).cachePolicy ?? "none",
        disabled: one({ cachePolicy: false }).cachePolicy ?? "none",
        optedOut: one({ cachePolicy: true }, { cachePolicy: false }).cachePolicy ?? "none",
        merged: { retryPolicy: merged.retryPolicy, cachePolicy: merged.cachePolicy },
      };
    },
  },
});

compare("node timeouts", {
  "a NodeTimeoutError a run throws: both configured timeouts, the kind that fired, elapsed past it": {
    from: "timeout.test.ts: fires an idle timeout (kind=idle) when no progress is made",
    async run(lib) {
      const { Annotation, StateGraph, START, isNodeTimeoutError } = lib;
      const stuck = (timeout: object) =>
        new StateGraph(Annotation.Root({ log: list(lib) }))
          .addNode(
            "stuck",
            async (_s: unknown, config: any) => {
              await listening(3000, config.signal, []).catch(() => undefined);
              return { log: ["late"] };
            },
            { timeout },
          )
          .addEdge(START, "stuck")
          .compile();
      const facts = async (timeout: object) => {
        const error: any = await stuck(timeout)
          .invoke({ log: [] })
          .catch((e: unknown) => e);
        return {
          isTimeout: isNodeTimeoutError(error),
          name: error?.name,
          node: error?.node,
          kind: error?.kind,
          timeout: error?.timeout,
          runTimeout: error?.runTimeout ?? "unset",
          idleTimeout: error?.idleTimeout ?? "unset",
          elapsedPastIt: typeof error?.elapsed === "number" && error.elapsed >= error.timeout - 5,
          message: String(error?.message).replace(/\d+ms\)/, "…ms)"),
        };
      };
      return {
        idle: await facts({ runTimeout: 2000, idleTimeout: 80 }),
        run: await facts({ runTimeout: 80 }),
      };
    },
  },

  "a node's timeout aborts the node's signal though the run was given a signal of its own": {
    from: "timeout.test.ts: aborts the node's signal when the timeout fires (combined with an external signal)",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const seen: string[] = [];
      const graph = new StateGraph(Annotation.Root({ log: list(lib) }))
        .addNode(
          "slow",
          async (_s: unknown, config: any) => {
            await listening(2000, config.signal, seen);
            return { log: ["late"] };
          },
          { timeout: 80 },
        )
        .addEdge(START, "slow")
        .compile();
      const external = new AbortController();
      const error: any = await graph.invoke({ log: [] }, { signal: external.signal }).catch((e: unknown) => e);
      await pause(50);
      return { error: { name: error?.name, kind: error?.kind }, seen, externalAborted: external.signal.aborted };
    },
  },
});

// --- A thread after a failed run, at every depth ---------------------------------------------------

/** Where the two nodes run: in the graph invoked, or in a subgraph of it, reached three ways. */
const placements = [
  "a graph",
  "a subgraph run as a node",
  "a subgraph invoked in a node with the node's config",
  "a subgraph invoked in a node without config",
] as const;
type Placement = (typeof placements)[number];

/**
 * START -> one -> two, placed as `placement` says, with a checkpointer: `one` logs the run's
 * name, `two` throws while the state's `fail` is true. Set-like log, as the original's.
 */
function failing(lib: Runtime, placement: Placement) {
  const { Annotation, StateGraph, START, MemorySaver } = lib;
  const counts = { one: 0, two: 0 };
  const log = Annotation({ reducer: (a: string[], b: string[]) => [...new Set([...a, ...b])], default: () => [] });
  const State = Annotation.Root({ run: Annotation(), fail: Annotation(), log });
  const inner = new StateGraph(State)
    .addNode("one", (s: any) => {
      counts.one += 1;
      return { log: [`one:${s.run}`] };
    })
    .addNode("two", (s: any) => {
      counts.two += 1;
      if (s.fail) throw new Error("two failed");
      return { log: [`two:${s.run}`] };
    })
    .addEdge(START, "one")
    .addEdge("one", "two");
  const checkpointer = new MemorySaver();
  if (placement === "a graph") return { graph: inner.compile({ checkpointer }), counts };
  const sub = inner.compile();
  const node =
    placement === "a subgraph run as a node"
      ? sub
      : placement === "a subgraph invoked in a node with the node's config"
        ? async (s: unknown, config: unknown) => sub.invoke(s, config)
        : async (s: unknown) => sub.invoke(s);
  const graph = new StateGraph(State).addNode("sub", node).addEdge(START, "sub").compile({ checkpointer });
  return { graph, counts };
}

const afterFailure = (placement: Placement): [string, Scenario] => [
  `${placement}: after a run failed by a node's error, new input on the thread goes on from its last saved state`,
  {
    from: "pregel/pregel.cancellation.test.ts: should resume from last successful invocation when AbortSignal is aborted due to exception",
    async run(lib) {
      const { graph, counts } = failing(lib, placement);
      const config = thread("t");
      const first = await graph.invoke({ run: "first", fail: false, log: [] }, config);
      const failed = await graph.invoke({ run: "second", fail: true }, config).catch((e: Error) => e.message);
      const stopped = await graph.getState(config);
      const again = await graph.invoke({ run: "second", fail: false }, config);
      return {
        first,
        failed,
        stopped: { values: stopped.values, next: stopped.next },
        again,
        counts: { ...counts },
      };
    },
  },
];

compare("a thread after a failed run", Object.fromEntries(placements.map(afterFailure)));

// --- A plain Graph cancelled, and updateState with an unknown key ----------------------------------

compare("cancellation and bad writes", {
  "a plain Graph: the run's timeout aborts the signal its running node was given": {
    from: "python_port/interrupt.test.ts: should cancel inner node task on external timeout",
    async run(lib) {
      const { Graph, START, END } = lib;
      const seen: string[] = [];
      const graph = new Graph()
        .addNode("agent", async (_input: unknown, config: any) => {
          seen.push(config?.signal ? "has a signal" : "no signal");
          await listening(2000, config?.signal, seen);
          return "done";
        })
        .addEdge(START, "agent")
        .addEdge("agent", END)
        .compile();
      const outcome = await settle(graph.invoke(1, { timeout: 80 }));
      await pause(50);
      return { outcome, seen };
    },
  },

  "updateState with a key the state lacks, then a node returning a number: what each reports": {
    from: "errors.test.ts: StateGraph bad return type",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver } = lib;
      const graph = new StateGraph(Annotation.Root({ text: Annotation() }))
        .addNode("numeric", () => 123)
        .addEdge(START, "numeric")
        .compile({ checkpointer: new MemorySaver() });
      const config = thread("t");
      const update = await graph.updateState(config, { invalid: "foo" }, "numeric").then(
        () => "accepted",
        (e: any) => ({ name: e?.name, code: e?.lc_error_code ?? null }),
      );
      const state = await graph.getState(config);
      const run = await graph.invoke({ text: "value" }, config).then(
        () => "finished",
        (e: any) => ({ name: e?.name, code: e?.lc_error_code ?? null }),
      );
      return { update, values: state.values, next: state.next, run };
    },
  },
});

// --- Differences not (yet) documented in COMPATIBILITY.md ----------------------------------------

compare("node policies: the builder's nodes and error handlers", {
  // builder.nodes is a plain object of node specs by name, each with the node's own
  // retryPolicy / cachePolicy (a node's `cachePolicy: false` kept), untouched by compile.
  "a builder's nodes: an object of specs by name, each with only its own policies, untouched by compile": {
    from: "set_node_defaults.test.ts: does not mutate builder state across repeated compiles",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const builder = new StateGraph(Annotation.Root({ log: list(lib) }))
        .setNodeDefaults({ retryPolicy: fastRetry, cachePolicy: true })
        .addNode("a", () => ({ log: ["a"] }))
        .addNode("b", () => ({ log: ["b"] }), { cachePolicy: false })
        .addEdge(START, "a")
        .addEdge("a", "b");
      const cache = await inMemoryCache(lib);
      builder.compile({ cache });
      const compiled = builder.compile({ cache });
      const spec = (name: string) => ({
        retryPolicy: builder.nodes[name]?.retryPolicy ?? "unset",
        cachePolicy: builder.nodes[name]?.cachePolicy ?? "unset",
      });
      return {
        isMap: builder.nodes instanceof Map,
        names: Object.keys(builder.nodes),
        a: spec("a"),
        b: spec("b"),
        compiledA: compiled.nodes.a.retryPolicy,
      };
    },
  },
  // LangGraph.js 1.7.3 compiles a node's errorHandler into a node of its own, `__error_handler__<node>`
  // (setNodeDefaults' into `__default_error_handler__`, with the default retry policy and timeout):
  // it is listed in graph.nodes and in getGraph(), and `interruptBefore` may name it (no pause
  // happens: the handler runs in the first invoke; the LG test only checks the final result).
  // Interlude draws it in getGraph() but leaves it out of graph.nodes, and refuses that
  // `interruptBefore` at compile (GraphValidationError: not a node of this graph).
  "a node's error handler is a node of its own: in graph.nodes, in getGraph(), and interruptBefore may name it": {
    differs: "#an-error-handler-runs-in-its-nodes-task",
    from: "node_error_handler.test.ts: preserves the failure context across a checkpoint resume",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver } = lib;
      const seen: unknown[] = [];
      const builder = () =>
        new StateGraph(Annotation.Root({ log: list(lib) }))
          .addNode(
            "failing",
            () => {
              throw new Error("failed before handler");
            },
            {
              errorHandler: (_s: unknown, failure: any) => {
                seen.push([failure.node, failure.error?.message, failure.error instanceof Error]);
                return { log: ["handled"] };
              },
            },
          )
          .addEdge(START, "failing");
      const plain = builder().compile();
      const listed = { nodes: Object.keys(plain.nodes), drawn: Object.keys((await plain.getGraphAsync()).nodes) };
      // "applies retry/timeout to the shared handler node but never cachePolicy"
      const shared = new StateGraph(Annotation.Root({ log: list(lib) }))
        .setNodeDefaults({ retryPolicy: fastRetry, timeout: 1000, errorHandler: () => ({ log: ["handled"] }) })
        .addNode("a", () => ({ log: ["a"] }))
        .addEdge(START, "a")
        .compile().nodes;
      const handler = shared.__default_error_handler__;
      const sharedHandler = {
        nodes: Object.keys(shared),
        retryPolicy: handler?.retryPolicy ?? "none",
        hasTimeout: handler?.timeout !== undefined,
      };
      const config = thread("t");
      const paused = await refusal(async () => {
        const graph = builder().compile({
          checkpointer: new MemorySaver(),
          interruptBefore: ["__error_handler__failing"],
        });
        const first = await graph.invoke({ log: [] }, config);
        return { first, next: (await graph.getState(config)).next, resumed: await graph.invoke(null, config) };
      });
      return { listed, sharedHandler, paused, seen };
    },
  },
});
