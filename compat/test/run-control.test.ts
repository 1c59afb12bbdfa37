/**
 * Run control and run isolation: `RunControl.requestDrain` (asked in a node, through the node's
 * config, from outside, before the run, inside a subgraph, with an abort after it, on `stream()`
 * and in the functional API), a compiled graph invoked by hand inside another graph's node (its
 * namespace and its streamed chunks), and concurrent runs of one compiled graph on several threads.
 */
import { collect, compare, cutIds, drain, list, prebuiltOf, type Runtime, sleep, thread } from "./harness.js";

/** A promise and the function that settles it: a latch a node waits on, or tells. */
function latch<T = void>() {
  let open!: (value: T) => void;
  const opened = new Promise<T>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

/** "opened" once `promise` settles, or "timed out" after `ms` (the timer then cleared). */
async function within(promise: Promise<unknown>, ms: number) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve("timed out"), ms);
  });
  try {
    return await Promise.race([promise.then(() => "opened"), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** What a drained run threw: its class, name, reason and message. */
function drained(lib: Runtime, error: any) {
  return {
    graphDrained: error instanceof lib.GraphDrained,
    is: lib.isGraphDrained(error),
    name: error?.name,
    reason: error?.reason,
    message: error?.message,
  };
}

/** pack → ship → bill, each logging its name; `pack` may act first (ask to drain, wait, ...). */
function threeSteps(lib: Runtime, pack: (config: any) => unknown = () => undefined, compile: object = {}) {
  const { Annotation, StateGraph, START } = lib;
  const ran: string[] = [];
  const graph = new StateGraph(Annotation.Root({ log: list(lib) }))
    .addNode("pack", async (_s: unknown, config: any) => {
      ran.push("pack");
      await pack(config);
      return { log: ["packed"] };
    })
    .addNode("ship", () => {
      ran.push("ship");
      return { log: ["shipped"] };
    })
    .addNode("bill", () => {
      ran.push("bill");
      return { log: ["billed"] };
    })
    .addEdge(START, "pack")
    .addEdge("pack", "ship")
    .addEdge("ship", "bill")
    .compile(compile);
  return { graph, ran };
}

compare("RunControl drain", {
  "requestDrain in a sync node: the next step does not run, the run throws GraphDrained": {
    from: "run_control.test.ts: drain requested in a node stops future steps (sync-style node)",
    async run(lib) {
      const { Annotation, StateGraph, START, RunControl } = lib;
      const control = new RunControl();
      const ran: string[] = [];
      const graph = new StateGraph(Annotation.Root({ log: list(lib) }))
        .addNode("wash", () => {
          ran.push("wash");
          control.requestDrain("maintenance");
          return { log: ["washed"] };
        })
        .addNode("dry", () => {
          ran.push("dry");
          return { log: ["dried"] };
        })
        .addEdge(START, "wash")
        .addEdge("wash", "dry")
        .compile();
      const error = await graph.invoke({ log: [] }, { control }).catch((e: unknown) => e);
      return { error: drained(lib, error), ran, requested: [control.drainRequested, control.drainReason] };
    },
  },

  "requestDrain in an async node, no reason: GraphDrained with reason shutdown": {
    from: "run_control.test.ts: drain requested in a node stops future steps (async node)",
    async run(lib) {
      const control = new lib.RunControl();
      const before = [control.drainRequested, control.drainReason ?? null];
      const { graph, ran } = threeSteps(lib, async () => {
        await Promise.resolve();
        control.requestDrain();
      });
      const error = await graph.invoke({ log: [] }, { control }).catch((e: unknown) => e);
      return { before, error: drained(lib, error), ran, after: [control.drainRequested, control.drainReason] };
    },
  },

  "a drain asked in the last step: the run ends normally with its output": {
    from: "run_control.test.ts: drain requested in the terminal step finishes normally",
    async run(lib) {
      const { Annotation, StateGraph, START, RunControl } = lib;
      const control = new RunControl();
      const graph = new StateGraph(Annotation.Root({ log: list(lib), total: Annotation() }))
        .addNode("first", () => ({ log: ["first"] }))
        .addNode("last", () => {
          control.requestDrain("late");
          return { log: ["last"], total: 2 };
        })
        .addEdge(START, "first")
        .addEdge("first", "last")
        .compile();
      const result = await graph.invoke({ log: [] }, { control });
      return { result, requested: [control.drainRequested, control.drainReason] };
    },
  },

  "a node asks to drain through the control on its config": {
    from: "run_control.test.ts: a node can request drain via runtime.control",
    async run(lib) {
      const control = new lib.RunControl();
      let same: unknown = null;
      const { graph, ran } = threeSteps(lib, (config) => {
        same = config.control === control;
        config.control?.requestDrain("from-node");
      });
      const error = await graph.invoke({ log: [] }, { control }).catch((e: unknown) => e);
      return { same, error: drained(lib, error), ran, reason: control.drainReason };
    },
  },

  "without a control given, each run's nodes get a fresh RunControl": {
    from: "run_control.test.ts: a fresh RunControl is provided to nodes when none is passed",
    async run(lib) {
      const { Annotation, StateGraph, START, RunControl } = lib;
      const seen: any[] = [];
      const graph = new StateGraph(Annotation.Root({ log: list(lib) }))
        .addNode("look", (_s: unknown, config: any) => {
          seen.push(config.control);
          return { log: ["looked"] };
        })
        .addEdge(START, "look")
        .compile();
      const first = await graph.invoke({ log: [] });
      await graph.invoke({ log: [] });
      return {
        first,
        controls: seen.map((c) => [c instanceof RunControl, c?.drainRequested ?? null, c?.drainReason ?? null]),
        perRun: seen.length === 2 && seen[0] !== seen[1],
      };
    },
  },

  "a control drained before the run: no node runs, the input is saved, invoke(null) runs it": {
    from: "run_control.test.ts: pre-drained control stops before executing the first task",
    async run(lib) {
      const control = new lib.RunControl();
      control.requestDrain("pre-drained");
      const { graph, ran } = threeSteps(lib, () => undefined, { checkpointer: new lib.MemorySaver() });
      const config = thread("early");
      const error = await graph.invoke({ log: ["order"] }, { ...config, control }).catch((e: unknown) => e);
      const ranBefore = [...ran];
      const saved = await graph.getState(config);
      const resumed = await graph.invoke(null, config);
      return { error: drained(lib, error), ranBefore, saved: { values: saved.values, next: saved.next }, resumed, ran };
    },
  },

  "drain with durability exit: the stop is saved, invoke(null) finishes the run": {
    from: "run_control.test.ts: drain persists a resumable checkpoint (exit durability)",
    async run(lib) {
      const control = new lib.RunControl();
      const { graph, ran } = threeSteps(lib, () => control.requestDrain("sigterm"), {
        checkpointer: new lib.MemorySaver(),
      });
      const config = thread("exit");
      const error = await graph
        .invoke({ log: [] }, { ...config, durability: "exit", control })
        .catch((e: unknown) => e);
      const saved = await graph.getState(config);
      const resumed = await graph.invoke(null, { ...config, durability: "exit" });
      const done = await graph.getState(config);
      return {
        error: drained(lib, error),
        saved: { values: saved.values, next: saved.next },
        resumed,
        ran,
        done: { values: done.values, next: done.next },
      };
    },
  },

  "drain with the default durability: the stop is saved, invoke(null) finishes the run": {
    from: "run_control.test.ts: drain persists a resumable checkpoint (default durability)",
    async run(lib) {
      const control = new lib.RunControl();
      const { graph, ran } = threeSteps(lib, () => control.requestDrain("sigterm"), {
        checkpointer: new lib.MemorySaver(),
      });
      const config = thread("default");
      const error = await graph.invoke({ log: [] }, { ...config, control }).catch((e: unknown) => e);
      const saved = await graph.getState(config);
      const history: any[] = await collect(graph.getStateHistory(config));
      const resumed = await graph.invoke(null, config);
      return {
        error: drained(lib, error),
        saved: { values: saved.values, next: saved.next },
        history: history.map((s) => [s.metadata?.step, s.next]),
        resumed,
        ran,
      };
    },
  },

  "a drain asked inside a subgraph stops the parent too; invoke(null) on the parent finishes both": {
    from: "run_control.test.ts: drain from a subgraph bubbles up and the parent can resume",
    async run(lib) {
      const { Annotation, StateGraph, START, RunControl, MemorySaver } = lib;
      const control = new RunControl();
      const ran: string[] = [];
      const State = Annotation.Root({ log: list(lib) });
      const step =
        (name: string, drainHere = false) =>
        () => {
          ran.push(name);
          if (drainHere) control.requestDrain("sigterm");
          return { log: [name] };
        };
      const child = new StateGraph(State)
        .addNode("inner1", step("inner1", true))
        .addNode("inner2", step("inner2"))
        .addEdge(START, "inner1")
        .addEdge("inner1", "inner2")
        .compile({ checkpointer: true });
      const parent = new StateGraph(State)
        .addNode("child", child)
        .addNode("after", step("after"))
        .addEdge(START, "child")
        .addEdge("child", "after")
        .compile({ checkpointer: new MemorySaver() });
      const config = thread("sub");
      const error = await parent.invoke({ log: [] }, { ...config, control }).catch((e: unknown) => e);
      const ranBefore = [...ran];
      const saved = await parent.getState(config);
      const inside = await parent.getState({ configurable: { thread_id: "sub", checkpoint_ns: "child" } });
      const resumed = await parent.invoke(null, config);
      return {
        error: drained(lib, error),
        ranBefore,
        saved: { values: saved.values, next: saved.next },
        inside: { values: inside.values, next: inside.next },
        resumed,
        ran,
      };
    },
  },

  "a subgraph drained after taking an answer: its parent's task keeps the question, and the same answer sent again continues it once":
    {
      from: "run_control.test.ts: drain from a subgraph bubbles up and the parent can resume (with an interrupt answered first)",
      async run(lib) {
        const { Annotation, StateGraph, START, RunControl, MemorySaver, Command, interrupt } = lib;
        let control: InstanceType<typeof RunControl> | undefined;
        const ran: string[] = [];
        const State = Annotation.Root({ log: list(lib) });
        // The question's node asks to drain once answered: the subgraph stops before its next step.
        const child = new StateGraph(State)
          .addNode("ask", () => {
            const answer = interrupt("approve?");
            ran.push(`ask:${answer}`);
            control?.requestDrain("sigterm");
            return { log: [`answered ${answer}`] };
          })
          .addNode("more", () => {
            ran.push("more");
            return { log: ["more"] };
          })
          .addEdge(START, "ask")
          .addEdge("ask", "more")
          .compile({ checkpointer: true });
        const parent = new StateGraph(State)
          .addNode("child", child)
          .addNode("after", () => (ran.push("after"), { log: ["after"] }))
          .addEdge(START, "child")
          .addEdge("child", "after")
          .compile({ checkpointer: new MemorySaver() });
        const config = thread("drained-answer");
        const asked = await parent.invoke({ log: [] }, config);
        const question = asked.__interrupt__[0];
        control = new RunControl();
        const error = await parent
          .invoke(new Command({ resume: { [question.id]: "yes" } }), { ...config, control })
          .catch((e: unknown) => e);
        const saved = await parent.getState(config);
        // What a queue does with a run it drained: it sends the same input again.
        control = undefined;
        const again = await parent.invoke(new Command({ resume: { [question.id]: "yes" } }), config);
        return {
          error: drained(lib, error),
          saved: {
            next: saved.next,
            tasks: saved.tasks.map((t: any) => ({ name: t.name, interrupts: t.interrupts.map((i: any) => i.value) })),
            interrupts: saved.tasks.flatMap((t: any) => t.interrupts).map((i: any) => i.id === question.id),
          },
          again,
          ran,
        };
      },
    },

  "a drain asked from outside while a node is running stops at the next step boundary": {
    from: "run_control.test.ts: an external concurrent drain stops the graph at the next boundary",
    async run(lib) {
      const control = new lib.RunControl();
      const started = latch();
      const release = latch();
      const { graph, ran } = threeSteps(
        lib,
        async () => {
          started.open();
          await release.opened;
        },
        { checkpointer: new lib.MemorySaver() },
      );
      const config = thread("outside");
      const running = graph.invoke({ log: [] }, { ...config, control }).catch((e: unknown) => e);
      await started.opened;
      control.requestDrain("sigterm");
      // The node that is running is not stopped: it finishes, and its write is kept.
      release.open();
      const error = await running;
      const saved = await graph.getState(config);
      return { error: drained(lib, error), ran, saved: { values: saved.values, next: saved.next } };
    },
  },

  "a drain does not stop a running node; an abort after it does, and no later step runs": {
    from: "run_control.test.ts: drain then cancel via AbortSignal after a graceful timeout",
    async run(lib) {
      const control = new lib.RunControl();
      const abort = new AbortController();
      const started = latch();
      const happened: string[] = [];
      const { graph, ran } = threeSteps(lib, async (config) => {
        started.open();
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => {
            happened.push("finished");
            resolve();
          }, 20_000);
          config.signal?.addEventListener(
            "abort",
            () => {
              clearTimeout(timer);
              happened.push("cancelled");
              reject(new Error("cancelled by the signal"));
            },
            { once: true },
          );
        });
      });
      // The abort's error class is each runtime's own (AbortError, RunCancelledError): only that it
      // is not a drain is compared.
      const running = graph.invoke({ log: [] }, { control, signal: abort.signal }).then(
        (value: unknown) => ({ ok: true, value }),
        (error: unknown) => ({ ok: false, drained: lib.isGraphDrained(error) }),
      );
      await started.opened;
      control.requestDrain("sigterm");
      // A generous grace period: the drain alone must leave the node running.
      await sleep(300);
      const afterDrain = [...happened];
      abort.abort();
      const settled = await running;
      return { afterDrain, settled, happened, ran };
    },
  },

  "stream() takes a control: the chunks before the drain, then GraphDrained": {
    from: "run_control.test.ts: control is accepted by stream() and raises GraphDrained",
    async run(lib) {
      const control = new lib.RunControl();
      const { graph, ran } = threeSteps(lib, () => control.requestDrain("sigterm"));
      const updates = await drain(await graph.stream({ log: [] }, { control, streamMode: "updates" }));
      const control2 = new lib.RunControl();
      const { graph: other } = threeSteps(lib, () => control2.requestDrain("sigterm"));
      const values = await drain(await other.stream({ log: [] }, { control: control2, streamMode: "values" }));
      return { updates, values, ran };
    },
  },

  "functional API: tasks called after requestDrain still resolve, and the entrypoint returns": {
    from: "run_control.test.ts: in-flight task futures still resolve after requestDrain()",
    async run(lib) {
      const { entrypoint, task, MemorySaver, RunControl } = lib;
      const control = new RunControl();
      const addOne = task("addOne", async (x: number) => x + 1);
      const triple = task("triple", async (x: number) => x * 3);
      const graph = entrypoint({ name: "calc", checkpointer: new MemorySaver() }, async (x: number) => {
        control.requestDrain();
        const [a, b] = await Promise.all([addOne(x), triple(x)]);
        return a + (await addOne(b));
      });
      const config = thread("func");
      const result = await graph.invoke(4, { ...config, control });
      const state = await graph.getState(config);
      return { result, requested: control.drainRequested, state: { values: state.values, next: state.next } };
    },
  },
});

/** What `handInvoked`'s child node records of its config by default: its namespace (ids cut) and its `tag` key. */
function namespaceAndTag(config: any) {
  const ns = config.configurable?.checkpoint_ns;
  return { ns: typeof ns === "string" ? cutIds(ns.split("|")) : null, tag: config.configurable?.tag ?? null };
}

/**
 * A child graph invoked by hand inside the parent's node `delegate` (not added as a node), with
 * `childConfig` as the invoke's config; `seen` gets what `see` picks of the child node's config.
 * The parent has `checkpointer` when one is given.
 */
function handInvoked(
  lib: Runtime,
  childConfig?: object,
  { see = namespaceAndTag, checkpointer }: { see?: (config: any) => unknown; checkpointer?: unknown } = {},
) {
  const { Annotation, StateGraph, START } = lib;
  const State = Annotation.Root({ log: list(lib), note: Annotation() });
  const seen: unknown[] = [];
  const child = new StateGraph(State)
    .addNode("worker", (_s: unknown, config: any) => {
      seen.push(see(config));
      return { log: ["worked"] };
    })
    .addEdge(START, "worker")
    .compile({ name: "Helper" });
  const parent = new StateGraph(State)
    .addNode("delegate", async () => {
      const out = await child.invoke({ log: ["asked"] }, childConfig);
      return { log: ["delegated"], note: out.log.join("+") };
    })
    .addNode("wrap", () => ({ log: ["wrapped"] }))
    .addEdge(START, "delegate")
    .addEdge("delegate", "wrap")
    .compile(checkpointer ? { name: "Boss", checkpointer } : { name: "Boss" });
  return { parent, seen };
}

/** The thread and the `tenant` and `tag` keys a node was given. */
function threadAndKeys(config: any) {
  const { thread_id = null, tenant = null, tag = null } = config.configurable ?? {};
  return { thread_id, tenant, tag };
}

/** A `[namespace, mode, data]` chunk with the task ids cut from its namespace. */
const cut = (chunk: any) =>
  Array.isArray(chunk) && Array.isArray(chunk[0]) ? [cutIds(chunk[0]), ...chunk.slice(1)] : chunk;

compare("a graph invoked inside a node", {
  "without a config: the child's checkpoint_ns nests under the calling task": {
    from: "nested-invoke-nesting.test.ts: nests the child checkpoint_ns when invoked WITH an explicit configurable",
    async run(lib) {
      const { parent, seen } = handInvoked(lib);
      const result = await parent.invoke({ log: [] });
      return { result, seen };
    },
  },

  "with an explicit configurable: the child's checkpoint_ns still nests under the calling task": {
    from: "nested-invoke-nesting.test.ts: nests the child checkpoint_ns when invoked WITH an explicit configurable",
    async run(lib) {
      const { parent, seen } = handInvoked(lib, { configurable: { tag: "weather" } });
      const result = await parent.invoke({ log: [] });
      return { result, seen };
    },
  },

  "its nodes see the configurable keys the parent's run was given, under the child's own": {
    from: "pregel/utils/config.ts ensureLangGraphConfig: a nested invoke merges the ambient configurable",
    async run(lib) {
      const run = async (childConfig?: object) => {
        const { parent, seen } = handInvoked(lib, childConfig, { see: threadAndKeys });
        await parent.invoke({ log: [] }, { configurable: { tenant: "acme", tag: "outer" } });
        return seen;
      };
      return { plain: await run(), explicit: await run({ configurable: { tag: "weather" } }) };
    },
  },

  "its nodes get the calling node's tags, metadata, context and recursion limit, unless given their own": {
    from: "pregel/utils/config.ts ensureLangGraphConfig: a nested invoke starts from the ambient config",
    async run(lib) {
      const see = (config: any) => {
        const { outer = null, own = null } = config.metadata ?? {};
        const context = config.context ?? null;
        return { tags: config.tags ?? null, outer, own, context, recursionLimit: config.recursionLimit ?? null };
      };
      const outer = { tags: ["outer-tag"], metadata: { outer: 1 }, context: { user: "u1" }, recursionLimit: 42 };
      const plain = handInvoked(lib, undefined, { see });
      await plain.parent.invoke({ log: [] }, outer);
      const own = { tags: ["own-tag"], metadata: { own: 2 }, context: { user: "u2" }, recursionLimit: 7 };
      const given = handInvoked(lib, own, { see });
      await given.parent.invoke({ log: [] }, outer);
      return [...plain.seen, ...given.seen];
    },
  },

  "with a thread_id of its own: where the child's checkpoints go, and the thread its nodes see": {
    differs: "#a-graph-invoked-inside-a-node-runs-in-the-calling-thread",
    from: "pregel/utils/config.ts ensureLangGraphConfig: a nested invoke merges the ambient configurable",
    async run(lib) {
      const checkpointer = new lib.MemorySaver();
      const { parent, seen } = handInvoked(
        lib,
        { configurable: { thread_id: "other" } },
        { see: threadAndKeys, checkpointer },
      );
      await parent.invoke({ log: [] }, { configurable: { thread_id: "main", tenant: "acme" } });
      const saved = new Set<string>();
      for await (const tuple of checkpointer.list({})) {
        const { thread_id, checkpoint_ns } = tuple.config.configurable;
        saved.add(`${thread_id} ${checkpoint_ns ? cutIds(checkpoint_ns.split("|")).join("|") : "(root)"}`);
      }
      return { seen, saved: [...saved].sort() };
    },
  },

  "stream with subgraphs: the child's chunks come under the calling task's namespace": {
    from: "nested-invoke-nesting.test.ts: surfaces the child's streamed events nested under the triggering task",
    async run(lib) {
      const plain = handInvoked(lib);
      const explicit = handInvoked(lib, { configurable: { tag: "weather" } });
      const options = { subgraphs: true, streamMode: ["updates", "values"] };
      return {
        plain: (await collect(await plain.parent.stream({ log: [] }, options))).map(cut),
        explicit: (await collect(await explicit.parent.stream({ log: [] }, options))).map(cut),
      };
    },
  },

  "stream without subgraphs: only the parent's own chunks": {
    from: "nested-invoke-nesting.test.ts: surfaces the child's streamed events nested under the triggering task",
    async run(lib) {
      const { parent } = handInvoked(lib, { configurable: { tag: "weather" } });
      return collect(await parent.stream({ log: [] }, { streamMode: ["updates", "values"] }));
    },
  },

  "streamEvents v3: the child's task events are under the calling task's namespace": {
    from: "nested-invoke-nesting.test.ts: surfaces the child's streamed events nested under the triggering task",
    async run(lib) {
      const { parent } = handInvoked(lib, { configurable: { tag: "weather" } });
      const events: any[] = await collect(await parent.streamEvents({ log: [] }, { version: "v3" }));
      return events
        .filter((e) => e.method === "tasks")
        .map((e) => ({
          namespace: cutIds(e.params.namespace),
          name: e.params.data?.name,
          done: "result" in (e.params.data ?? {}),
        }));
    },
  },
});

/** `["values", { __interrupt__ }]`: a stream inside a node gives it last (COMPATIBILITY.md, "Shapes that differ"). */
const isQuestionValues = (chunk: any) => Array.isArray(chunk) && chunk[0] === "values" && "__interrupt__" in chunk[1];

/**
 * A child graph (a node, then a subgraph node) streamed by hand inside the parent's node
 * `delegate` with `options` (and the node's config when `withConfig`); `read` gets what the
 * child's stream gives its reader, ids cut.
 */
function handStreamed(lib: Runtime, options: object, withConfig: boolean) {
  const { Annotation, StateGraph, START, MemorySaver, interrupt } = lib;
  const State = Annotation.Root({ log: list(lib) });
  const leaf = new StateGraph(State)
    .addNode("leaf", () => ({ log: [`leaf:${interrupt("go on?")}`] }))
    .addEdge(START, "leaf")
    .compile();
  const child = new StateGraph(State)
    .addNode("first", () => ({ log: ["first"] }))
    .addNode("sub", leaf)
    .addEdge(START, "first")
    .addEdge("first", "sub")
    .compile();
  const read: unknown[] = [];
  const parent = new StateGraph(State)
    .addNode("delegate", async (_s: unknown, config: unknown) => {
      const given = withConfig ? { ...(config as object), ...options } : options;
      // Read by hand, not drained: the question must reach the parent (a caught one is lost on LangGraph.js).
      try {
        for await (const chunk of await child.stream({ log: ["asked"] }, given))
          if (!isQuestionValues(chunk)) read.push(cut(chunk));
      } catch (error) {
        read.push({ threw: (error as Error).name });
        throw error;
      }
      return { log: ["delegated"] };
    })
    .addEdge(START, "delegate")
    .compile({ checkpointer: new MemorySaver() });
  return { parent, read };
}

compare("a graph streamed inside a node", {
  "its reader gets its chunks as a root graph's; with subgraphs, every namespace whole; the outer stream gets them too":
    {
      from: "tracing.test.ts: does not double stream tokens from a nested graph under tracing",
      async run(lib) {
        const { Command } = lib;
        const out: Record<string, unknown> = {};
        for (const [label, options, withConfig] of [
          ["updates", { streamMode: "updates" }, false],
          ["values and updates, with the node's config", { streamMode: ["values", "updates"] }, true],
          ["subgraphs", { streamMode: "updates", subgraphs: true }, false],
          ["tasks", { streamMode: "tasks" }, true],
        ] as const) {
          const { parent, read } = handStreamed(lib, options, withConfig);
          const config = { configurable: { thread_id: label } };
          const outer = { streamMode: ["updates"], subgraphs: true };
          const asked = (await collect(await parent.stream({ log: [] }, { ...config, ...outer }))).map(cut);
          const answered = (
            await collect(await parent.stream(new Command({ resume: "yes" }), { ...config, ...outer }))
          ).map(cut);
          out[label] = {
            read: JSON.parse(JSON.stringify(read, (k, v) => (k === "id" ? undefined : v))),
            asked,
            answered,
          };
        }
        return out;
      },
    },

  "without callbacks of its own, its nodes report under the calling node's run": {
    from: "tracing.test.ts: does not double stream tokens from a nested graph under tracing",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const child = new StateGraph(State)
        .addNode("worker", () => ({ log: ["worked"] }))
        .addEdge(START, "worker")
        .compile({ name: "Helper" });
      const parent = new StateGraph(State)
        .addNode("delegate", async () => {
          await child.invoke({ log: [] });
          for await (const _ of await child.stream({ log: [] }) /* read to the end */);
          return { log: ["delegated"] };
        })
        .addEdge(START, "delegate")
        .compile({ name: "Boss" });
      const runs: string[] = [];
      await parent.invoke(
        { log: [] },
        {
          callbacks: [
            {
              handleChainStart: (
                _c: unknown,
                _i: unknown,
                _id: string,
                _p: unknown,
                _t: unknown,
                _m: unknown,
                _r: unknown,
                name: string,
              ) => void runs.push(name),
            },
          ],
        },
      );
      return runs;
    },
  },
});

compare("concurrent runs on one compiled graph", {
  "concurrent invokes on different threads keep their state, config and task input apart": {
    from: "concurrent-thread-isolation.test.ts: concurrent invokes keep checkpoint state isolated on a singleton graph",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver, getCurrentTaskInput } = lib;
      const { ToolNode } = prebuiltOf(lib);
      const { AIMessage, HumanMessage } = await import("@langchain/core/messages");
      const { tool } = await import("@langchain/core/tools");
      const customers = ["ada", "bob", "cleo", "dan"];
      // Every run's first node waits until all have started: the runs overlap for sure.
      let arrived = 0;
      const together = latch();
      const waits: string[] = [];
      const checkIn = tool(
        async (input: { name: string }, runtime: any) =>
          `checked-in:${input.name}:thread=${runtime.config?.configurable?.thread_id}`,
        {
          name: "check_in",
          description: "Check a customer in.",
          schema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
        },
      );
      const State = Annotation.Root({
        messages: Annotation({ reducer: (a: any[], b: any[]) => a.concat(b), default: () => [] }),
        customer: Annotation({ reducer: (_a: string, b: string) => b, default: () => "" }),
        trail: list(lib),
      });
      const sharedBound = { metadata: { graph_id: "desk" }, configurable: { desk: "front" } };
      const saver = new MemorySaver();
      const graph = new StateGraph(State)
        .addNode("agent", async (_s: unknown, config: any) => {
          arrived += 1;
          if (arrived === customers.length) together.open();
          waits.push(await within(together.opened, 5_000));
          const { customer } = getCurrentTaskInput(config) as { customer: string };
          return {
            trail: [`agent:${customer}:${config.configurable.thread_id}:${config.configurable.desk}`],
            messages: [
              new AIMessage({
                content: "",
                tool_calls: [{ name: "check_in", args: { name: customer }, id: `call-${customer}` }],
              }),
            ],
          };
        })
        .addNode("tools", new ToolNode([checkIn]))
        .addEdge(START, "agent")
        .addEdge("agent", "tools")
        .compile({ checkpointer: saver })
        .withConfig(sharedBound);
      const results = await Promise.all(
        customers.map((customer) =>
          graph.invoke({ messages: [new HumanMessage(`order for ${customer}`)], customer }, thread(customer)),
        ),
      );
      const conversation = (messages: any[]) => messages.map((m) => [m.getType(), m.content, m.tool_call_id ?? null]);
      const states = await Promise.all(customers.map((customer) => graph.getState(thread(customer))));
      return {
        waits,
        results: results.map((r: any) => ({
          customer: r.customer,
          trail: r.trail,
          messages: conversation(r.messages),
        })),
        saved: states.map((s: any) => ({ customer: s.values.customer, trail: s.values.trail, next: s.next })),
        bound: sharedBound,
      };
    },
  },
});
