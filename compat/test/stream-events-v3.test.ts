/**
 * `graph.streamEvents(input, { version: "v3" })`, the protocol-events run stream, on both runtimes:
 * iterating the run (lifecycle, checkpoints, values, tasks, updates and custom events in order),
 * `output` and `values`, interrupts and resuming, failures, `subgraphs`, `lifecycle`, abort,
 * user transformers and `encoding: "text/event-stream"`. Chat models, tools and the exported
 * helpers are in the other stream-events-v3*.test.ts files.
 *
 * Compared without what is random or clock-bound: timestamps, seq numbers (checked to count 0, 1,
 * 2, ... instead), task ids in namespaces, checkpoint ids, interrupt ids, and the tracing metadata
 * LangGraph.js adds to task events.
 */
import { collect, compare, cutIds, drain, type Runtime } from "./harness.js";

/** An event's payload without ids: checkpoints keep step and source (and whether they name a parent). */
function dataOf(method: string, data: any): unknown {
  if (method === "checkpoints") {
    const { id: _, parent_id, ...rest } = data;
    return { ...rest, parent: typeof parent_id === "string" };
  }
  if (method === "tasks") {
    const { metadata: _, ...rest } = data;
    return rest;
  }
  return data;
}

/** A protocol event as compared: its type, method, namespace (ids cut), node when it has one, payload. */
function plain(event: any) {
  const { namespace, node, data } = event.params;
  return {
    type: event.type,
    method: event.method,
    namespace: cutIds(namespace),
    ...("node" in event.params ? { node } : {}),
    data: dataOf(event.method, data),
  };
}

/** Whether the events' seq numbers count 0, 1, 2, ... in iteration order. */
const counted = (events: any[]) => events.every((event, index) => event.seq === index);

/** A lifecycle entry without its timestamp, its namespace's ids cut. */
const entry = ({ timestamp: _, namespace, ...rest }: any) => ({ ...rest, namespace: cutIds(namespace) });

const sum = (lib: Runtime) => lib.Annotation({ reducer: (a: number, b: number) => a + b, default: () => 0 });

/** count += 1 in step1 (which also writes two custom chunks), += 10 in step2. */
function twoSteps(lib: Runtime, compileOptions: Record<string, unknown> = {}) {
  const { Annotation, StateGraph, START } = lib;
  return new StateGraph(Annotation.Root({ count: sum(lib) }))
    .addNode("step1", (_state: unknown, config: any) => {
      config.writer({ progress: "half" });
      config.writer("done");
      return { count: 1 };
    })
    .addNode("step2", () => ({ count: 10 }))
    .addEdge(START, "step1")
    .addEdge("step1", "step2")
    .compile(compileOptions);
}

/** A parent whose node "pre" adds 1, then whose node "sub" is a compiled subgraph adding 5 in "inner". */
function withSubgraph(lib: Runtime, inner: (state: any) => unknown = () => ({ count: 5 })) {
  const { Annotation, StateGraph, START } = lib;
  const State = Annotation.Root({ count: sum(lib) });
  const sub = new StateGraph(State).addNode("inner", inner).addEdge(START, "inner").compile();
  return new StateGraph(State)
    .addNode("pre", () => ({ count: 1 }))
    .addNode("sub", sub)
    .addEdge(START, "pre")
    .addEdge("pre", "sub")
    .compile();
}

/** A graph whose one node asks interrupt("question?") and stores the answer. */
function asking(lib: Runtime) {
  const { Annotation, StateGraph, START, interrupt, MemorySaver } = lib;
  return new StateGraph(Annotation.Root({ value: Annotation() }))
    .addNode("ask", () => ({ value: interrupt("question?") }))
    .addEdge(START, "ask")
    .compile({ checkpointer: new MemorySaver() });
}

/** A parent whose one node is a subgraph that asks "sub question". */
function askingInSubgraph(lib: Runtime) {
  const { Annotation, StateGraph, START, interrupt, MemorySaver } = lib;
  const State = Annotation.Root({ value: Annotation() });
  const child = new StateGraph(State)
    .addNode("ask", () => ({ value: interrupt("sub question") }))
    .addEdge(START, "ask")
    .compile();
  return new StateGraph(State)
    .addNode("child", child)
    .addEdge(START, "child")
    .compile({ checkpointer: new MemorySaver() });
}

/** Interrupts with their ids reduced to their type (they are hashes of random task ids on both sides). */
const interruptsOf = (run: any) =>
  run.interrupts.map(({ interruptId, ...rest }: any) => ({ ...rest, interruptId: typeof interruptId }));

class NodeFailure extends Error {
  override name = "NodeFailure";
}

/** The outcome of a promise: its value, or the name and message of its error. */
const settled = (promise: PromiseLike<unknown>) =>
  Promise.resolve(promise).then(
    (value) => ({ value }),
    (error: Error) => ({ rejected: error.name, message: error.message }),
  );

/** Splits server-sent events into [event name (ids cut), parsed data (ids dropped)]. */
function frames(text: string) {
  return text
    .split("\n\n")
    .filter(Boolean)
    .map((frame) => {
      const [event, data] = frame.split("\n");
      const [method, ...namespace] = event!.slice("event: ".length).split("|");
      return [[method, ...cutIds(namespace)].join("|"), dataOf(method!, JSON.parse(data!.slice("data: ".length)))];
    });
}

compare("streamEvents v3: the run", {
  "iterating the run: lifecycle, checkpoints, values, tasks, custom and updates events in order": {
    from: "pregel.stream.test.ts: emits events for multiple stream modes in a single run",
    async run(lib) {
      const run = await twoSteps(lib).streamEvents({ count: 0 }, { version: "v3" });
      const events = await collect(run);
      return { events: events.map(plain), counted: counted(events) };
    },
  },

  "with a checkpointer: each checkpoints envelope, naming its parent, comes just before its values event": {
    from: "pregel.stream.test.ts: emits a companion 'checkpoints' event before each 'values' event",
    async run(lib) {
      const graph = twoSteps(lib, { checkpointer: new lib.MemorySaver() });
      const run = await graph.streamEvents({ count: 0 }, { version: "v3", configurable: { thread_id: "t" } });
      const events = await collect(run);
      return { events: events.map(plain), counted: counted(events) };
    },
  },

  "await run.output, await run.values, and for await over run.values": {
    from: "pregel.stream.test.ts: run.values can be iterated for intermediate snapshots",
    async run(lib) {
      const graph = twoSteps(lib);
      const first = await graph.streamEvents({ count: 5 }, { version: "v3" });
      const output = await first.output;
      const second = await graph.streamEvents({ count: 0 }, { version: "v3" });
      const final = await second.values;
      const third = await graph.streamEvents({ count: 0 }, { version: "v3" });
      const snapshots = await collect(third.values);
      return { output, final, snapshots, thenable: typeof third.values.then };
    },
  },

  "a node's interrupt(): interrupted, interrupts, an __interrupt__ update and values event": {
    from: "pregel.stream.test.ts: sets run.interrupted and run.interrupts when interrupt() is called",
    async run(lib) {
      const run = await asking(lib).streamEvents(
        { value: "start" },
        { version: "v3", configurable: { thread_id: "t" } },
      );
      const events = await collect(run);
      return {
        events: events.filter((event: any) => event.method !== "lifecycle").map(plain),
        interrupted: run.interrupted,
        interrupts: interruptsOf(run),
        output: await run.output,
      };
    },
  },

  "an interrupted run's lifecycle: LangGraph.js ends it completed, Interlude interrupted (a subgraph's too)": {
    from: "lifecycle.test.ts: cascades interrupted when input.requested events are seen",
    differs: "#an-interrupted-runs-lifecycle-ends-interrupted",
    async run(lib) {
      const graph = askingInSubgraph(lib);
      const config = { version: "v3", configurable: { thread_id: "t" } };
      const root = await asking(lib).streamEvents({ value: "start" }, config);
      const nested = await graph.streamEvents({ value: "start" }, config);
      return {
        root: (await collect(root.lifecycle)).map(entry),
        nested: (await collect(nested.lifecycle)).map(entry),
      };
    },
  },

  "resuming with Command({ resume }) through another v3 stream": {
    from: "pregel.stream.test.ts: can resume after interrupt with Command({ resume })",
    async run(lib) {
      const graph = asking(lib);
      const config = { version: "v3", configurable: { thread_id: "t" } };
      await collect(await graph.streamEvents({ value: "start" }, config));
      const run = await graph.streamEvents(new lib.Command({ resume: "yes" }), config);
      const events = await collect(run);
      return {
        events: events.map(plain),
        interrupted: run.interrupted,
        interrupts: run.interrupts,
        output: await run.output,
      };
    },
  },

  "an interrupt in a subgraph: run.interrupts has it once per values event that carries it": {
    from: "pregel.stream.test.ts: sets run.interrupted and run.interrupts when interrupt() is called",
    async run(lib) {
      const graph = askingInSubgraph(lib);
      const run = await graph.streamEvents({ value: "start" }, { version: "v3", configurable: { thread_id: "t" } });
      const events = await collect(run);
      return {
        events: events.filter((event: any) => event.method !== "lifecycle").map(plain),
        interrupts: interruptsOf(run),
        sameId: new Set(run.interrupts.map((i: any) => i.interruptId)).size,
      };
    },
  },

  "a node that throws: iteration throws it, output and values reject, lifecycle ends failed with its message": {
    from: "pregel.stream.test.ts: resolves run.output with the final state",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const graph = new StateGraph(Annotation.Root({ count: sum(lib) }))
        .addNode("ok", () => ({ count: 1 }))
        .addNode("boom", () => {
          throw new NodeFailure("kaboom");
        })
        .addEdge(START, "ok")
        .addEdge("ok", "boom")
        .compile();
      const run = await graph.streamEvents({ count: 0 }, { version: "v3" });
      // LangGraph.js loses the task events of the step that fails when its node throws at once.
      const events = await drain(run, (event) => (event.method === "tasks" ? "tasks" : plain(event)));
      return {
        events: events.filter((event) => event !== "tasks"),
        output: await settled(run.output),
        values: await settled(run.values),
        lifecycle: await drain(run.lifecycle, entry),
        subgraphs: await drain(run.subgraphs, (sub) => sub.name),
        messages: await drain(run.messages),
      };
    },
  },

  "a subgraph whose node throws: the task events carry the error, the child's lifecycle fails before the root's": {
    from: "lifecycle.test.ts: cascades failed status to all still-started namespaces on fail()",
    async run(lib) {
      const graph = withSubgraph(lib, async () => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        throw new NodeFailure("inner broke");
      });
      const run = await graph.streamEvents({ count: 0 }, { version: "v3" });
      return { events: await drain(run, plain), lifecycle: await drain(run.lifecycle, entry) };
    },
  },

  "an entrypoint: a task's custom chunk under the entrypoint's namespace, one values event with the return value": {
    async run({ entrypoint, task, getWriter }) {
      const double = task("double", async (n: number) => {
        getWriter()({ doubling: n });
        return n * 2;
      });
      const workflow = entrypoint({ name: "wf" }, async (n: number) => {
        getWriter()({ body: n });
        return (await double(n)) + 1;
      });
      const run = await workflow.streamEvents(3, { version: "v3" });
      const events = await collect(run);
      return {
        events: events.map((e: any) => [e.method, cutIds(e.params.namespace), e.params.node ?? null]),
        data: events.filter((e: any) => ["values", "updates", "custom"].includes(e.method)).map(plain),
        output: await run.output,
      };
    },
  },

  "run.subgraphs: a SubgraphRunStream per subgraph node, with its name, index and path": {
    from: "pregel.stream.test.ts: run.subgraphs yields SubgraphRunStream instances",
    async run(lib) {
      const run = await withSubgraph(lib).streamEvents({ count: 0 }, { version: "v3" });
      const [subgraphs, events] = await Promise.all([collect(run.subgraphs), collect(run)]);
      return {
        subgraphs: subgraphs.map((sub: any) => ({ name: sub.name, index: sub.index, path: cutIds(sub.path) })),
        events: events.map(plain),
        output: await run.output,
      };
    },
  },

  "a SubgraphRunStream: its events, values, output and lifecycle are its own namespace's": {
    from: "pregel.stream.test.ts: run.subgraphs yields SubgraphRunStream instances",
    async run(lib) {
      const run = await withSubgraph(lib).streamEvents({ count: 0 }, { version: "v3" });
      const out = [];
      for await (const sub of run.subgraphs) {
        const [events, values, lifecycle, nested] = await Promise.all([
          collect(sub),
          collect(sub.values),
          collect(sub.lifecycle),
          collect(sub.subgraphs),
        ]);
        out.push({
          name: sub.name,
          events: events.map(plain),
          values,
          output: await sub.output,
          lifecycle: lifecycle.map(entry),
          nested: nested.length,
          interrupted: sub.interrupted,
        });
      }
      return out;
    },
  },

  "run.lifecycle: running, then started and completed per subgraph, then completed": {
    from: "lifecycle.test.ts: emits lifecycle.completed for child namespaces after a parent updates.node event",
    async run(lib) {
      const run = await withSubgraph(lib).streamEvents({ count: 0 }, { version: "v3" });
      const [lifecycle, events] = await Promise.all([collect(run.lifecycle), collect(run)]);
      return {
        lifecycle: lifecycle.map(entry),
        // The lifecycle events in the iteration, and what comes just before and after each.
        around: events.flatMap((event: any, i: number) =>
          event.method === "lifecycle" ? [[events[i - 1]?.method, plain(event), events[i + 1]?.method]] : [],
        ),
      };
    },
  },

  "abort(): the run's signal says aborted; on LangGraph.js the run goes on to its end": {
    from: "pregel.stream.test.ts: exposes abort() and signal on the run stream",
    differs: "#runabort-cancels-the-run",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      let open: () => void = () => undefined;
      const gate = new Promise<void>((resolve) => (open = resolve));
      const graph = new StateGraph(Annotation.Root({ count: sum(lib) }))
        .addNode("a", async () => {
          await gate;
          return { count: 1 };
        })
        .addNode("b", () => ({ count: 10 }))
        .addEdge(START, "a")
        .addEdge("a", "b")
        .compile();
      const run = await graph.streamEvents({ count: 0 }, { version: "v3" });
      const before = run.signal.aborted;
      run.abort("stop");
      open();
      const events = await drain(run, (event) => event.method);
      return {
        before,
        after: run.signal.aborted,
        reason: run.signal.reason,
        events,
        output: await settled(run.output),
      };
    },
  },

  "a signal passed in the options stops the run: the iteration throws after lifecycle failed, output rejects alike": {
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const controller = new AbortController();
      const graph = new StateGraph(Annotation.Root({ count: sum(lib) }))
        .addNode("a", async () => {
          controller.abort();
          await new Promise((resolve) => setTimeout(resolve, 20));
          return { count: 1 };
        })
        .addNode("b", () => ({ count: 10 }))
        .addEdge(START, "a")
        .addEdge("a", "b")
        .compile();
      const run = await graph.streamEvents({ count: 0 }, { version: "v3", signal: controller.signal });
      // The error's class is the runtime's own (AbortError, RunCancelledError): compared by sameness only.
      const events = await drain(run, (event) => event.method);
      const thrown = events.at(-1) as { threw: string };
      const output = (await settled(run.output)) as { rejected?: string };
      const lifecycle = await drain(run.lifecycle, ({ event, graph_name, error }) => [event, graph_name, typeof error]);
      return {
        ended: events.slice(-2).map((e) => (typeof e === "string" ? e : "threw")),
        lifecycle: lifecycle.map((e) => (Array.isArray(e) ? e : "threw")),
        sameError: output.rejected === thrown.threw,
        ranB: events.filter((e) => e === "updates").length > 1,
      };
    },
  },

  "custom events: a chunk is wrapped in { payload }, an object with a name passes as it is, a subgraph's has its namespace":
    {
      from: "pregel.stream.test.ts: custom events wrap payload in { payload: ... }",
      async run(lib) {
        const { Annotation, StateGraph, START, getWriter } = lib;
        const State = Annotation.Root({ count: sum(lib) });
        const child = new StateGraph(State)
          .addNode("inner", (_state: unknown, config: any) => {
            config.writer({ from: "inner" });
            return { count: 5 };
          })
          .addEdge(START, "inner")
          .compile();
        const graph = new StateGraph(State)
          .addNode("top", () => {
            getWriter()(["a", "list"]);
            getWriter()({ name: "progress", payload: 50 });
            getWriter()(null);
            return { count: 1 };
          })
          .addNode("child", child)
          .addEdge(START, "top")
          .addEdge("top", "child")
          .compile();
        const events = await collect(await graph.streamEvents({ count: 0 }, { version: "v3" }));
        return events.filter((event: any) => event.method === "custom").map(plain);
      },
    },

  'encoding "text/event-stream": one Uint8Array per event, "event: <method>|<namespace>" and its data as JSON': {
    from: "pregel.stream.test.ts: encodes protocol events as text/event-stream",
    async run(lib) {
      const stream = await withSubgraph(lib).streamEvents(
        { count: 0 },
        { version: "v3", encoding: "text/event-stream" },
      );
      const chunks = await collect(stream);
      const texts = chunks.map((chunk: Uint8Array) => new TextDecoder().decode(chunk));
      return {
        bytes: chunks.every((chunk: unknown) => Object.prototype.toString.call(chunk) === "[object Uint8Array]"),
        oneFramePerChunk: texts.every((text) => text.endsWith("\n\n") && text.split("\n\n").length === 2),
        frames: frames(texts.join("")),
      };
    },
  },

  'encoding "text/event-stream": a failed run ends with an error event, without throwing': {
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const graph = new StateGraph(Annotation.Root({ count: sum(lib) }))
        .addNode("boom", async () => {
          await new Promise((resolve) => setTimeout(resolve, 5));
          throw new NodeFailure("kaboom");
        })
        .addEdge(START, "boom")
        .compile();
      const stream = await graph.streamEvents({ count: 0 }, { version: "v3", encoding: "text/event-stream" });
      const text = (await collect(stream)).map((chunk: Uint8Array) => new TextDecoder().decode(chunk)).join("");
      return frames(text).filter(([event]) => event !== "tasks");
    },
  },
});

compare("streamEvents v3: transformers", {
  "a transformer's projection is in run.extensions; a Promise in it is flushed as a last custom event": {
    from: "pregel.stream.test.ts: merges transformer projections into run.extensions",
    async run(lib) {
      const counter = () => {
        let count = 0;
        let resolve: (count: number) => void = () => undefined;
        const eventCount = new Promise<number>((r) => (resolve = r));
        return {
          init: () => ({ eventCount, plain: 42 }),
          process: () => {
            count += 1;
            return true;
          },
          finalize: () => resolve(count),
        };
      };
      const run = await twoSteps(lib).streamEvents({ count: 0 }, { version: "v3", transformers: [counter] });
      const events = await collect(run);
      return {
        keys: Object.keys(run.extensions),
        eventCount: await run.extensions.eventCount,
        plain: run.extensions.plain,
        last: events.slice(-2).map(plain),
        counted: counted(events),
      };
    },
  },

  "a transformer's hooks: onRegister, then the events so far, then init, process per event, finalize": {
    async run(lib) {
      const calls: string[] = [];
      const spy = () => ({
        onRegister: () => void calls.push("onRegister"),
        init: () => (calls.push("init"), {}),
        process: (event: any) => (calls.push(`process ${event.method}`), true),
        finalize: () => void calls.push("finalize"),
        fail: () => void calls.push("fail"),
      });
      await collect(await twoSteps(lib).streamEvents({ count: 0 }, { version: "v3", transformers: [spy] }));
      return calls;
    },
  },

  "process returning false drops the event from the iteration (seq still counts), not from run.values or output": {
    from: "pregel.stream.test.ts: transformer can suppress events by returning false from process",
    async run(lib) {
      const noValues = () => ({ init: () => ({}), process: (event: any) => event.method !== "values" });
      const run = await twoSteps(lib).streamEvents({ count: 0 }, { version: "v3", transformers: [noValues] });
      const [events, values] = await Promise.all([collect(run), collect(run.values)]);
      return { methods: events.map((e: any) => e.method), counted: counted(events), values, output: await run.output };
    },
  },

  "StreamChannel.remote in a projection: each push is a custom:<name> event before the event that caused it": {
    from: "pregel.stream.test.ts: StreamChannel pushes appear as protocol events and are iterable via extensions",
    async run(lib) {
      const { StreamChannel } = lib;
      const steps = () => {
        const channel = StreamChannel.remote("steps");
        return {
          init: () => ({ steps: channel }),
          process: (event: any) => {
            if (event.method === "updates") channel.push({ node: event.params.node, values: event.params.data.values });
            return true;
          },
        };
      };
      const run = await withSubgraph(lib).streamEvents({ count: 0 }, { version: "v3", transformers: [steps] });
      const events = await collect(run);
      return {
        events: events.filter((e: any) => e.method === "updates" || e.method.startsWith("custom")).map(plain),
        counted: counted(events),
        pushed: await collect(run.extensions.steps),
        name: run.extensions.steps.channelName,
      };
    },
  },

  "StreamChannel.local in a projection: in run.extensions, closed at the end, never in the iteration": {
    from: "run-stream.test.ts: keeps local StreamChannel projections in-process only",
    async run(lib) {
      const { StreamChannel } = lib;
      const nodes = () => {
        const channel = StreamChannel.local();
        return {
          init: () => ({ nodes: channel }),
          process: (event: any) => {
            if (event.method === "updates") channel.push(event.params.node);
            return true;
          },
        };
      };
      const run = await twoSteps(lib).streamEvents({ count: 0 }, { version: "v3", transformers: [nodes] });
      const events = await collect(run);
      return {
        methods: [...new Set(events.map((e: any) => e.method))],
        nodes: await collect(run.extensions.nodes),
        done: run.extensions.nodes.done,
        name: run.extensions.nodes.channelName ?? null,
      };
    },
  },

  "compile({ transformers }) run before those given to streamEvents; withConfig({ streamTransformers }) adds more": {
    async run(lib) {
      const order: string[] = [];
      const named = (name: string) => () => ({
        init: () => ({ [name]: true }),
        process: (event: any) => {
          if (event.method === "updates") order.push(`${name}:${event.params.node}`);
          return true;
        },
      });
      const graph = twoSteps(lib, { transformers: [named("compiled")] });
      const run = await graph.streamEvents({ count: 0 }, { version: "v3", transformers: [named("given")] });
      await collect(run);
      const configured = graph.withConfig({ streamTransformers: [named("configured")] });
      const again = await configured.streamEvents({ count: 0 }, { version: "v3" });
      await collect(again);
      return { extensions: run.extensions, order, configured: again.extensions };
    },
  },

  "a native transformer's projection lands on the run itself; its channels are neither forwarded nor closed": {
    from: "run-stream.test.ts: native projections are assigned directly to the root stream, not extensions",
    async run(lib) {
      const { StreamChannel } = lib;
      const native = () => {
        const channel = StreamChannel.remote("native");
        return {
          __native: true,
          init: () => ({ nodeNames: channel }),
          process: (event: any) => {
            if (event.method === "updates") channel.push(event.params.node);
            return true;
          },
        };
      };
      const run: any = await twoSteps(lib).streamEvents({ count: 0 }, { version: "v3", transformers: [native] });
      const events = await collect(run);
      const channel = run.nodeNames;
      return {
        extensions: Object.keys(run.extensions),
        // Read by index: the mux neither forwards nor closes a native projection's channels.
        onRun: Array.from({ length: channel.size }, (_, i) => channel.get(i)),
        closed: channel.done,
        forwarded: events.filter((e: any) => e.method.includes("native")).length,
      };
    },
  },
});
