/**
 * Node policies beyond what the compat suite compares with LangGraph.js: policies refused as
 * they are given, a synchronous node past its limit, what a timed-out attempt does afterwards,
 * the cache's TTL and keys, and what is never cached.
 */
import {
  Annotation,
  Command,
  entrypoint,
  GraphValidationError,
  InMemoryCache,
  interrupt,
  MemorySaver,
  NodeTimeoutError,
  Send,
  START,
  StateGraph,
  task,
} from "@interlude/core";
import { describe, expect, it } from "vitest";

const State = Annotation.Root({
  log: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
  q: Annotation<string>(),
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("policies are checked where they are given", () => {
  it.each([
    ["a timeout of 0", { timeout: 0 }, /timeout of node "n"|runTimeout of node "n"/],
    ["a negative idle timeout", { timeout: { idleTimeout: -5 } }, /idleTimeout of node "n"/],
    ["an unknown refreshOn", { timeout: { runTimeout: 5, refreshOn: "never" } }, /refreshOn/],
    ["an error handler that is not a function", { errorHandler: "log it" }, /errorHandler must be a function/],
    ["a cache policy that is a number", { cachePolicy: 60 }, /cachePolicy must be/],
  ])("addNode refuses %s with a GraphValidationError", (_what, options, message) => {
    const add = () => new StateGraph(State).addNode("n", () => ({}), options as never);
    expect(add).toThrow(GraphValidationError);
    expect(add).toThrow(message);
  });

  it("setNodeDefaults refuses a malformed timeout too", () => {
    expect(() => new StateGraph(State).setNodeDefaults({ timeout: -1 })).toThrow(GraphValidationError);
  });

  it("a node reached only by an error handler's Command compiles (the handler may route anywhere)", () => {
    const build = () =>
      new StateGraph(State)
        .addNode("a", () => ({}), { errorHandler: () => new Command({ goto: "b" }) })
        .addNode("b", () => ({}))
        .addEdge(START, "a")
        .compile();
    expect(build).not.toThrow();
  });
});

describe("timeouts", () => {
  it("a synchronous node that blocks past its run timeout fails once it returns", async () => {
    const graph = new StateGraph(State)
      .addNode(
        "busy",
        () => {
          const until = performance.now() + 60;
          while (performance.now() < until);
          return { log: ["busy"] };
        },
        { timeout: 20 },
      )
      .addEdge(START, "busy")
      .compile();
    const error = await graph.invoke({}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NodeTimeoutError);
    expect(error).toMatchObject({ code: "NODE_TIMEOUT", node: "busy", kind: "run", timeout: 20 });
    expect((error as NodeTimeoutError).elapsed).toBeGreaterThanOrEqual(60);
  });

  it("an attempt that timed out is heard from no more: its later writer chunks are dropped", async () => {
    const graph = new StateGraph(State)
      .addNode(
        "slow",
        async (_s, config) => {
          config.writer("before");
          await pause(80);
          config.writer("after");
          return { log: ["late"] };
        },
        { timeout: 30 },
      )
      .addEdge(START, "slow")
      .compile();
    const chunks: unknown[] = [];
    const failed = await (async () => {
      for await (const chunk of await graph.stream({}, { streamMode: "custom" })) chunks.push(chunk);
    })().catch((e: unknown) => e);
    await pause(100);
    expect(failed).toBeInstanceOf(NodeTimeoutError);
    expect(chunks).toEqual(["before"]);
  });

  it("writer chunks count as progress for an idle timeout unless refreshOn is heartbeat", async () => {
    const graph = (refreshOn: "auto" | "heartbeat") =>
      new StateGraph(State)
        .addNode(
          "chatty",
          async (_s, config) => {
            for (let i = 0; i < 4; i++) {
              await pause(20);
              config.writer(i);
            }
            return { log: ["done"] };
          },
          { timeout: { idleTimeout: 50, refreshOn } },
        )
        .addEdge(START, "chatty")
        .compile();
    expect((await graph("auto").invoke({})).log).toEqual(["done"]);
    await expect(graph("heartbeat").invoke({})).rejects.toMatchObject({ kind: "idle", node: "chatty" });
  });
});

describe("the node cache", () => {
  it("keys a Send's task by its argument, so repeated arguments are served from the cache", async () => {
    let runs = 0;
    const graph = new StateGraph(State)
      .addNode("fan", () => ({}))
      .addNode(
        "square",
        (arg: any) => {
          runs++;
          return { log: [String(arg.n ** 2)] };
        },
        { cachePolicy: true },
      )
      .addEdge(START, "fan")
      .addConditionalEdges("fan", () => [new Send("square", { n: 2 }), new Send("square", { n: 3 })])
      .compile({ cache: new InMemoryCache() });
    expect((await graph.invoke({})).log).toEqual(["4", "9"]);
    expect((await graph.invoke({})).log).toEqual(["4", "9"]);
    expect(runs).toBe(2);
  });

  it("drops a result once its ttl (seconds) has passed", async () => {
    let runs = 0;
    const graph = new StateGraph(State)
      .addNode("n", () => ({ log: [`run ${++runs}`] }), { cachePolicy: { ttl: 0.05 } })
      .addEdge(START, "n")
      .compile({ cache: new InMemoryCache() });
    await graph.invoke({ q: "x" });
    await graph.invoke({ q: "x" });
    expect(runs).toBe(1);
    await pause(80);
    expect((await graph.invoke({ q: "x" })).log).toEqual(["run 2"]);
  });

  it("keeps neither a failure nor an error handler's stand-in as the node's result", async () => {
    let runs = 0;
    let fail = true;
    const graph = new StateGraph(State)
      .addNode(
        "n",
        () => {
          runs++;
          if (fail) throw new Error("down");
          return { log: ["real"] };
        },
        { cachePolicy: true, errorHandler: () => ({ log: ["stand-in"] }) },
      )
      .addEdge(START, "n")
      .compile({ cache: new InMemoryCache() });
    expect((await graph.invoke({ q: "x" })).log).toEqual(["stand-in"]);
    fail = false;
    expect((await graph.invoke({ q: "x" })).log).toEqual(["real"]);
    expect((await graph.invoke({ q: "x" })).log).toEqual(["real"]);
    expect(runs).toBe(2);
  });

  it("a node without a cachePolicy, or a graph without a cache, always runs", async () => {
    let runs = 0;
    const node = () => ({ log: [`run ${++runs}`] });
    const noPolicy = new StateGraph(State)
      .addNode("n", node)
      .addEdge(START, "n")
      .compile({ cache: new InMemoryCache() });
    const noCache = new StateGraph(State).addNode("n", node, { cachePolicy: true }).addEdge(START, "n").compile();
    for (const graph of [noPolicy, noPolicy, noCache, noCache]) await graph.invoke({ q: "x" });
    expect(runs).toBe(4);
  });

  it("a task() whose call was answered by a person is not served from the cache to another thread", async () => {
    const approve = task({ name: "approve", cachePolicy: true }, async (amount: number) =>
      interrupt(`approve ${amount}?`),
    );
    const pay = entrypoint(
      { name: "pay", checkpointer: new MemorySaver(), cache: new InMemoryCache() },
      async (n: number) => approve(n),
    );
    const a = { configurable: { thread_id: "a" } };
    await pay.invoke(100, a);
    expect(await pay.invoke(new Command({ resume: "yes" }), a)).toBe("yes");
    const b = await pay.invoke(100, { configurable: { thread_id: "b" } });
    expect(b).toMatchObject({ __interrupt__: [{ value: "approve 100?" }] });
  });

  it("a task() called twice with the same arguments on one thread runs once", async () => {
    let runs = 0;
    const fetchPage = task({ name: "fetchPage", cachePolicy: true }, async (url: string) => `page ${url} #${++runs}`);
    const crawl = entrypoint(
      { name: "crawl", checkpointer: new MemorySaver(), cache: new InMemoryCache() },
      async () => [await fetchPage("a"), await fetchPage("a"), await fetchPage("b")],
    );
    expect(await crawl.invoke("go", { configurable: { thread_id: "t" } })).toEqual([
      "page a #1",
      "page a #1",
      "page b #2",
    ]);
    await crawl.clearCache();
    expect(await crawl.invoke("go", { configurable: { thread_id: "u" } })).toEqual([
      "page a #3",
      "page a #3",
      "page b #4",
    ]);
  });
});

describe("error handlers", () => {
  it("a handler's question survives a reload of the thread: the answer reaches it, the node does not run again", async () => {
    const saver = new MemorySaver();
    let nodeRuns = 0;
    const build = () =>
      new StateGraph(State)
        .addNode(
          "charge",
          () => {
            nodeRuns++;
            throw new RangeError("card declined");
          },
          {
            errorHandler: (_s, failure) => ({
              log: [`${interrupt({ ask: "retry with another card?", why: failure.error.message })}`],
            }),
          },
        )
        .addEdge(START, "charge")
        .compile({ checkpointer: saver });
    const config = { configurable: { thread_id: "t" } };
    const paused = await build().invoke({}, config);
    expect(paused.__interrupt__?.[0]?.value).toEqual({ ask: "retry with another card?", why: "card declined" });
    const state = await build().getState(config);
    expect(state.tasks[0]).toMatchObject({ name: "charge", error: { name: "RangeError", message: "card declined" } });
    const done = await build().invoke(new Command({ resume: "no" }), config);
    expect(done.log).toEqual(["no"]);
    expect(nodeRuns).toBe(1);
  });
});
