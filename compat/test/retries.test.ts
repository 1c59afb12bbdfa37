/**
 * Failures: retry policies on nodes (attempts, which errors), errors thrown by nodes, what a
 * failed step leaves in the checkpoint and how the thread goes on from it, recursion limits.
 */
import { compare, list, type Runtime } from "./harness.js";

/** Fast retries: the scenarios test how often a node runs, not how long the waits are. */
const quick = { initialInterval: 1, maxInterval: 1, jitter: false };

class FlakyError extends Error {
  override name = "FlakyError";
}

/** A graph START -> work -> END whose node fails its first `failures` calls. */
function flaky(lib: Runtime, failures: number, retryPolicy?: object) {
  const { Annotation, StateGraph, START, END } = lib;
  const calls = { count: 0 };
  const State = Annotation.Root({ log: list(lib) });
  const graph = new StateGraph(State)
    .addNode(
      "work",
      () => {
        calls.count += 1;
        if (calls.count <= failures) throw new FlakyError(`failure ${calls.count}`);
        return { log: [`worked on call ${calls.count}`] };
      },
      retryPolicy ? { retryPolicy } : undefined,
    )
    .addEdge(START, "work")
    .addEdge("work", END);
  return { builder: graph, calls };
}

compare("retries", {
  "a node that fails twice succeeds on its third attempt": {
    from: "pregel.test.ts: should use a retry policy",
    async run(lib) {
      const { builder, calls } = flaky(lib, 2, { maxAttempts: 3, ...quick });
      const result = await builder.compile().invoke({ log: [] });
      return { result, calls: calls.count };
    },
  },

  "a node that keeps failing gives up after maxAttempts": {
    from: "pregel.test.ts: debug retry",
    async run(lib) {
      const { builder, calls } = flaky(lib, 10, { maxAttempts: 4, ...quick });
      const error = await builder
        .compile()
        .invoke({ log: [] })
        .catch((e: Error) => e);
      return { name: error.name, message: error.message, calls: calls.count };
    },
  },

  "retryOn refuses an error: the node runs once": {
    from: "pregel.test.ts: should use a retry policy",
    async run(lib) {
      const { builder, calls } = flaky(lib, 10, { maxAttempts: 5, ...quick, retryOn: () => false });
      const error = await builder
        .compile()
        .invoke({ log: [] })
        .catch((e: Error) => e);
      return { name: error.name, calls: calls.count };
    },
  },

  "retryOn picks errors by class": {
    from: "pregel.test.ts: should use a retry policy",
    async run(lib) {
      const { builder, calls } = flaky(lib, 2, {
        maxAttempts: 5,
        ...quick,
        retryOn: (e: unknown) => e instanceof FlakyError,
      });
      return { result: await builder.compile().invoke({ log: [] }), calls: calls.count };
    },
  },

  "without a retry policy a failing node runs once and its error reaches the caller": {
    from: "python_port/interrupt.test.ts: should properly propagate error from one node to graph invoke",
    async run(lib) {
      const { builder, calls } = flaky(lib, 1);
      const error = await builder
        .compile()
        .invoke({ log: [] })
        .catch((e: Error) => e);
      return { name: error.name, message: error.message, isFlaky: error instanceof FlakyError, calls: calls.count };
    },
  },

  "a node's error is thrown by invoke": {
    from: "python_port/interrupt.test.ts: should properly propagate error from one node to graph invoke",
    throws: true,
    async run(lib) {
      const { builder } = flaky(lib, 1);
      return builder.compile().invoke({ log: [] });
    },
  },

  "a retried node's earlier attempts leave no writes": {
    from: "pregel.test.ts: should use a retry policy",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      let calls = 0;
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addNode(
          "work",
          () => {
            calls += 1;
            if (calls < 3) throw new FlakyError("not yet");
            return { log: [`attempt ${calls}`] };
          },
          { retryPolicy: { maxAttempts: 3, ...quick } },
        )
        .addNode("after", (s: any) => ({ log: [`after saw ${s.log.length}`] }))
        .addEdge(START, "work")
        .addEdge("work", "after")
        .compile();
      return graph.invoke({ log: ["start"] });
    },
  },

  "a retry policy on one node leaves the others alone": {
    from: "pregel.test.ts: should use a retry policy",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const counts = { safe: 0, risky: 0 };
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addNode("safe", () => {
          counts.safe += 1;
          return { log: ["safe"] };
        })
        .addNode("risky", () => {
          counts.risky += 1;
          throw new FlakyError("always");
        })
        .addEdge(START, "safe")
        .addEdge("safe", "risky")
        .compile();
      const error = await graph.invoke({ log: [] }).catch((e: Error) => e);
      return { name: error.name, counts };
    },
  },
});

compare("failed steps", {
  "a failed step leaves the thread at the failing node, with the state before it": {
    from: "python_port/interrupt.test.ts: should properly propagate error from one node to graph invoke",
    async run(lib) {
      const { builder } = flaky(lib, 1);
      const graph = builder.compile({ checkpointer: new lib.MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      await graph.invoke({ log: ["in"] }, config).catch(() => undefined);
      const snapshot = await graph.getState(config);
      return { values: snapshot.values, next: snapshot.next, errors: snapshot.tasks.map((t: any) => t.name) };
    },
  },

  "after a failure in a parallel step only the failed node runs again": {
    from: "python_port/checkpoint.test.ts: should test pending writes resume functionality",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver } = lib;
      const counts = { good: 0, bad: 0 };
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addNode("good", () => {
          counts.good += 1;
          return { log: ["good"] };
        })
        .addNode("bad", () => {
          counts.bad += 1;
          if (counts.bad === 1) throw new FlakyError("first time");
          return { log: ["bad"] };
        })
        .addEdge(START, "good")
        .addEdge(START, "bad")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      const first = await graph.invoke({ log: [] }, config).catch((e: Error) => e.name);
      const result = await graph.invoke(null, config);
      return { first, result: [...result.log].sort(), counts };
    },
  },

  "a recursion limit error stops a loop at the limit": {
    from: "pregel.test.ts: should invoke two processes and get correct output",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      let runs = 0;
      const State = Annotation.Root({ n: Annotation() });
      const graph = new StateGraph(State)
        .addNode("spin", (s: any) => {
          runs += 1;
          return { n: s.n + 1 };
        })
        .addEdge(START, "spin")
        .addEdge("spin", "spin")
        .compile();
      const error = await graph.invoke({ n: 0 }, { recursionLimit: 5 }).catch((e: Error) => e);
      return { name: error.name, runs };
    },
  },

  "a recursion limit just large enough lets the run finish": {
    from: "pregel.test.ts: should invoke two processes and get correct output",
    async run(lib) {
      const { Annotation, StateGraph, START, END } = lib;
      const State = Annotation.Root({ n: Annotation() });
      const graph = new StateGraph(State)
        .addNode("step", (s: any) => ({ n: s.n + 1 }))
        .addEdge(START, "step")
        .addConditionalEdges("step", (s: any) => (s.n < 4 ? "step" : END))
        .compile();
      const enough = await graph.invoke({ n: 0 }, { recursionLimit: 5 });
      const short = await graph.invoke({ n: 0 }, { recursionLimit: 4 }).catch((e: Error) => e.name);
      return { enough, short };
    },
  },

  "a recursion limit error while streaming, after the chunks before it": {
    from: "pregel.test.ts: should invoke two processes and get correct output",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const State = Annotation.Root({ n: Annotation() });
      const graph = new StateGraph(State)
        .addNode("spin", (s: any) => ({ n: s.n + 1 }))
        .addEdge(START, "spin")
        .addEdge("spin", "spin")
        .compile();
      const chunks: unknown[] = [];
      try {
        for await (const chunk of await graph.stream({ n: 0 }, { recursionLimit: 3, streamMode: "values" }))
          chunks.push(chunk);
      } catch (error) {
        chunks.push((error as Error).name);
      }
      return chunks;
    },
  },

  "a recursion limit error leaves a resumable checkpoint": {
    from: "pregel.test.ts: should invoke two processes and get correct output",
    async run(lib) {
      const { Annotation, StateGraph, START, END, MemorySaver } = lib;
      const State = Annotation.Root({ n: Annotation() });
      const graph = new StateGraph(State)
        .addNode("step", (s: any) => ({ n: s.n + 1 }))
        .addEdge(START, "step")
        .addConditionalEdges("step", (s: any) => (s.n < 5 ? "step" : END))
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" }, recursionLimit: 3 };
      const error = await graph.invoke({ n: 0 }, config).catch((e: Error) => e.name);
      const stopped = await graph.getState(config);
      const result = await graph.invoke(null, { ...config, recursionLimit: 10 });
      return { error, stopped: { values: stopped.values, next: stopped.next }, result };
    },
  },

  "a run that continues a thread, resumes it, or sends it a Command: the steps its recursion limit allows": {
    from: "pregel.test.ts: should invoke two processes and get correct output",
    async run(lib) {
      const { Annotation, StateGraph, START, END, MemorySaver, Command, interrupt } = lib;
      const State = Annotation.Root({
        n: Annotation({ reducer: (a: number, b: number) => a + b }),
        stopAt: Annotation(),
      });
      const results: unknown[] = [];
      // The thread pauses at `ask` when n = 2 (before it, or in it at an interrupt), then goes on
      // counting until n reaches stopAt, under a limit of 2.
      for (const how of ["invoke(null)", "resume", "goto"] as const)
        for (const more of [2, 3, 4, 5]) {
          const graph = new StateGraph(State)
            .addNode("ask", () => {
              if (how === "resume") interrupt("go on?");
              return {};
            })
            .addNode("inc", () => ({ n: 1 }))
            .addEdge(START, "inc")
            .addConditionalEdges("inc", (s: any) => (s.n === 2 ? "ask" : s.n < s.stopAt ? "inc" : END))
            .addEdge("ask", "inc")
            .compile({ checkpointer: new MemorySaver(), interruptBefore: how === "resume" ? [] : ["ask"] });
          const config = { configurable: { thread_id: "t" } };
          await graph.invoke({ n: 0, stopAt: 2 + more }, config);
          const input =
            how === "invoke(null)"
              ? null
              : how === "resume"
                ? new Command({ resume: "yes" })
                : new Command({ goto: "inc" });
          const outcome = await graph.invoke(input, { ...config, recursionLimit: 2 }).then(
            () => "finished",
            (e: Error) => e.name,
          );
          const state = await graph.getState(config);
          results.push({ how, more, outcome, n: state.values.n, next: state.next });
        }
      return results;
    },
  },
});
