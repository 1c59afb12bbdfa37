/**
 * Stream modes: values, updates, debug, checkpoints, tasks, custom, several at once.
 */
import { collect, compare, list, type Runtime, slowNodes } from "./harness.js";

function twoSteps(lib: Runtime, compileOptions: Record<string, unknown> = {}) {
  const { Annotation, StateGraph, START } = lib;
  const State = Annotation.Root({ v: Annotation(), log: list(lib) });
  return new StateGraph(State)
    .addNode("a", () => ({ v: 1, log: ["a"] }))
    .addNode("b", () => ({ log: ["b"] }))
    .addEdge(START, "a")
    .addEdge("a", "b")
    .compile(compileOptions);
}

/** Debug events without what is random or LangChain plumbing: timestamps, and configs beyond `configurable`. */
function debugEvent(event: any): unknown {
  const { timestamp: _, payload, ...rest } = event;
  const out: Record<string, unknown> = { ...payload };
  delete out.metadata;
  if (payload.config) out.config = payload.config.configurable;
  if (payload.parentConfig) out.parentConfig = payload.parentConfig.configurable;
  if (event.type === "checkpoint") out.metadata = payload.metadata;
  return { ...rest, payload: out };
}

compare("streaming", {
  "values mode: the state after each step": {
    from: "pregel.test.ts: can stream",
    async run(lib) {
      return collect(await twoSteps(lib).stream({ v: 0 }, { streamMode: "values" }));
    },
  },

  "updates mode: each node's update": {
    from: "pregel.test.ts: can stream",
    async run(lib) {
      return collect(await twoSteps(lib).stream({ v: 0 }, { streamMode: "updates" }));
    },
  },

  "no stream mode given: updates": {
    from: "pregel.test.ts: streamMode should be respected",
    async run(lib) {
      return collect(await twoSteps(lib).stream({ v: 0 }));
    },
  },

  "several modes: [mode, chunk] pairs in order": {
    from: "pregel.test.ts: multiple stream mode",
    async run(lib) {
      return collect(await twoSteps(lib).stream({ v: 0 }, { streamMode: ["values", "updates"] }));
    },
  },

  "debug mode with a checkpointer: checkpoint, task and task_result events": {
    from: "pregel.test.ts: checkpoint events",
    async run(lib) {
      const graph = twoSteps(lib, { checkpointer: new lib.MemorySaver() });
      const events = await collect(
        await graph.stream({ v: 0 }, { configurable: { thread_id: "t" }, streamMode: "debug" }),
      );
      return events.map(debugEvent);
    },
  },

  "debug mode without a checkpointer: task events only": {
    from: "pregel.test.ts: checkpoint events",
    async run(lib) {
      const events = await collect(await twoSteps(lib).stream({ v: 0 }, { streamMode: "debug" }));
      return events.map(debugEvent);
    },
  },

  "checkpoints mode: each saved checkpoint with next and tasks": {
    from: "pregel.test.ts: checkpoint events",
    async run(lib) {
      const graph = twoSteps(lib, { checkpointer: new lib.MemorySaver() });
      const events = await collect(
        await graph.stream({ v: 0 }, { configurable: { thread_id: "t" }, streamMode: "checkpoints" }),
      );
      return events.map((e: any) => [e.values, e.metadata, e.next, e.tasks, e.config.configurable, !!e.parentConfig]);
    },
  },

  "tasks mode: a start and a result per task": {
    from: "pregel.test.ts: checkpoint events",
    async run(lib) {
      const events = await collect(await twoSteps(lib).stream({ v: 0 }, { streamMode: "tasks" }));
      // LangGraph adds its tracing metadata ({ ls_integration }) to task events.
      return events.map(({ metadata: _, ...event }: any) => event);
    },
  },

  "debug mode: an interrupted task's result event": {
    from: "pregel.test.ts: debug retry",
    async run(lib) {
      const { Annotation, StateGraph, START, interrupt, MemorySaver } = lib;
      const State = Annotation.Root({ v: Annotation() });
      const graph = new StateGraph(State)
        .addNode("ask", () => ({ v: interrupt("q") }))
        .addEdge(START, "ask")
        .compile({ checkpointer: new MemorySaver() });
      const events = await collect(
        await graph.stream({ v: 0 }, { configurable: { thread_id: "t" }, streamMode: "debug" }),
      );
      return events.map(debugEvent).filter((e: any) => e.type !== "checkpoint");
    },
  },

  "custom mode: chunks written through config.writer": {
    from: "func.test.ts: can use a stream writer",
    async run({ Annotation, StateGraph, START }) {
      const State = Annotation.Root({ v: Annotation() });
      const graph = new StateGraph(State)
        .addNode("n", (_s: any, config: any) => {
          config.writer({ progress: 50 });
          config.writer("done");
          return { v: 1 };
        })
        .addEdge(START, "n")
        .compile();
      return collect(await graph.stream({ v: 0 }, { streamMode: ["custom", "updates"] }));
    },
  },

  "values mode at a static breakpoint, then continuing": {
    from: "pregel.test.ts: should invoke two processes with input/output and interrupt",
    async run(lib) {
      const graph = twoSteps(lib, { checkpointer: new lib.MemorySaver(), interruptBefore: ["b"] });
      const config = { configurable: { thread_id: "t" } };
      const first = await collect(await graph.stream({ v: 0 }, { ...config, streamMode: "values" }));
      const second = await collect(await graph.stream(null, { ...config, streamMode: "values" }));
      return { first, second };
    },
  },

  "updates mode at interruptAfter": {
    from: "pregel.test.ts: should invoke two processes with input/output and interrupt",
    async run(lib) {
      const graph = twoSteps(lib, { checkpointer: new lib.MemorySaver(), interruptAfter: ["a"] });
      const config = { configurable: { thread_id: "t" } };
      const first = await collect(await graph.stream({ v: 0 }, { ...config, streamMode: "updates" }));
      const second = await collect(await graph.stream(null, { ...config, streamMode: "updates" }));
      return { first, second };
    },
  },

  "updates of a node that returns nothing": {
    from: "pregel.test.ts: should allow undefined values returned in a node update",
    async run({ Annotation, StateGraph, START }) {
      const State = Annotation.Root({ v: Annotation() });
      const graph = new StateGraph(State)
        .addNode("quiet", () => undefined)
        .addNode("loud", () => ({ v: 2 }))
        .addEdge(START, "quiet")
        .addEdge("quiet", "loud")
        .compile();
      return collect(await graph.stream({ v: 1 }, { streamMode: "updates" }));
    },
  },

  "updates of parallel nodes and Sends in one step": {
    from: "pregel.test.ts: State graph packets",
    async run(lib) {
      const { Annotation, StateGraph, START, Send } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addNode("w", (a: any) => ({ log: [`w${a}`] }))
        .addConditionalEdges(START, () => [new Send("w", 1), new Send("w", 2)])
        .compile();
      const chunks = await collect(await graph.stream({ log: [] }, { streamMode: "updates" }));
      return chunks.map((c: any) => JSON.stringify(c)).sort();
    },
  },

  "updates of a node returning several Commands that write the same key": {
    from: "pregel.test.ts: should return multiple update entries when a task has multiple writes to the same channel",
    async run(lib) {
      const { Annotation, StateGraph, START, Command } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addNode("many", () => [new Command({ update: { log: ["one"] } }), new Command({ update: { log: ["two"] } })])
        .addEdge(START, "many")
        .compile();
      return collect(await graph.stream({ log: [] }, { streamMode: "updates" }));
    },
  },

  "values and updates when resuming: the state the run starts from comes first": {
    from: "pregel.test.ts: streamMode should be respected",
    async run(lib) {
      const { Annotation, StateGraph, START, interrupt, Command, MemorySaver } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addNode("ask", () => ({ log: [`ask:${interrupt("q")}`] }))
        .addEdge(START, "ask")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      const first = await collect(await graph.stream({ log: ["in"] }, { ...config, streamMode: "values" }));
      const second = await collect(
        await graph.stream(new Command({ resume: "a" }), { ...config, streamMode: "values" }),
      );
      return { first, second };
    },
  },
  "values, checkpoints and updates together across a pause and a resume: each checkpoint as its step starts, with its tasks' results and questions":
    {
      from: "pregel.test.ts: multiple stream mode / checkpoint events",
      async run(lib) {
        const { Annotation, StateGraph, START, interrupt, Command, MemorySaver } = lib;
        const State = Annotation.Root({ log: list(lib) });
        const graph = new StateGraph(State)
          .addNode("draft", () => ({ log: ["draft"] }))
          .addNode("ask", () => ({ log: [`ask:${interrupt("q")}`] }))
          .addNode("tidy", () => ({}))
          .addEdge(START, "draft")
          .addEdge(START, "ask")
          .addEdge("ask", "tidy")
          .compile({ checkpointer: new MemorySaver() });
        const config = { configurable: { thread_id: "t" }, streamMode: ["values", "checkpoints", "updates", "debug"] };
        const told = ([mode, chunk]: [string, any]) =>
          mode === "checkpoints"
            ? [mode, chunk.metadata.source, chunk.metadata.step, chunk.next, chunk.values, chunk.tasks]
            : mode === "debug"
              ? [mode, chunk.type, chunk.step, chunk.payload.name ?? chunk.payload.next]
              : [mode, chunk];
        const first = (await collect(await graph.stream({ log: ["in"] }, config))).map(told);
        const second = (await collect(await graph.stream(new Command({ resume: "yes" }), config))).map(told);
        return { first, second };
      },
    },

  "a subgraph's checkpoints carry their parents' checkpoint_map, in chunks and in server-sent events": {
    from: "pregel.stream.test.ts: encodes checkpoints as text/event-stream",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const child = new StateGraph(State)
        .addNode("inner", () => ({ log: ["inner"] }))
        .addEdge(START, "inner")
        .compile();
      const graph = new StateGraph(State)
        .addNode("outer", () => ({ log: ["outer"] }))
        .addNode("child", child)
        .addEdge(START, "outer")
        .addEdge("outer", "child")
        .compile({ checkpointer: new MemorySaver() });
      const options = { streamMode: "checkpoints", subgraphs: true };
      // Which parent namespaces a map names (ids differ by design).
      const mapOf = (configurable: any) =>
        configurable.checkpoint_map ? Object.keys(configurable.checkpoint_map).map((ns) => ns.split(":")[0]) : null;
      const chunks = (
        await collect(await graph.stream({ log: [] }, { configurable: { thread_id: "a" }, ...options }))
      ).map(([ns, chunk]: [string[], any]) => [
        ns.map((segment) => segment.split(":")[0]),
        mapOf(chunk.config.configurable),
      ]);
      const encoded = await collect(
        await graph.stream(
          { log: [] },
          { configurable: { thread_id: "b" }, ...options, encoding: "text/event-stream" },
        ),
      );
      const events = encoded.map((bytes: Uint8Array) => {
        const [event, data] = new TextDecoder().decode(bytes).trim().split("\n");
        const checkpoint = JSON.parse(data!.slice("data: ".length)).checkpoint;
        return [event!.split("|")[0], checkpoint.checkpoint_ns.split(":")[0], mapOf(checkpoint)];
      });
      return { chunks, events };
    },
  },

  "values mode: a step whose nodes change no state key streams no chunk": {
    from: "pregel.test.ts: should not emit values when no channel was updated",
    async run(lib) {
      const { Annotation, StateGraph, START } = lib;
      const State = Annotation.Root({ v: Annotation() });
      const graph = new StateGraph(State)
        .addNode("a", () => ({ v: "a" }))
        .addNode("quiet", () => ({}))
        .addNode("b", () => ({ v: "b" }))
        .addEdge(START, "a")
        .addEdge("a", "quiet")
        .addEdge("quiet", "b")
        .compile();
      return collect(await graph.stream({ v: "in" }, { streamMode: "values" }));
    },
  },

  "leaving a stream early cancels the run: the node running then is not saved, the next never starts": async (lib) => {
    const { START, MemorySaver } = lib;
    const started: string[] = [];
    const graph = slowNodes(lib, 20, (name) => started.push(name))
      .addEdge(START, "a")
      .addEdge("a", "b")
      .addEdge("b", "c")
      .compile({ checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: "t" } };
    const seen = [];
    for await (const chunk of await graph.stream({ log: [] }, config)) {
      seen.push(chunk);
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 80));
    const state = await graph.getState(config);
    return { seen, started: started.includes("c"), values: state.values, next: state.next };
  },

  'encoding "text/event-stream": chunks as server-sent events, a failure as the last event': async (lib) => {
    const { Annotation, StateGraph, START, MemorySaver } = lib;
    const State = Annotation.Root({ log: list(lib) });
    const sub = new StateGraph(State)
      .addNode("inner", () => ({ log: ["inner"] }))
      .addEdge(START, "inner")
      .compile();
    let fail = false;
    const graph = new StateGraph(State)
      .addNode("sub", sub)
      .addNode("last", () => {
        if (fail) throw new Error("broke");
        return { log: ["last"] };
      })
      .addEdge(START, "sub")
      .addEdge("sub", "last")
      .compile({ checkpointer: new MemorySaver() });
    /** The events, namespaces without task ids, checkpoints by their fields. */
    const read = async (stream: AsyncIterable<Uint8Array>) => {
      let text = "";
      for await (const bytes of stream) text += new TextDecoder().decode(bytes);
      return text
        .split("\n\n")
        .filter(Boolean)
        .map((frame) => {
          const [event, data] = frame.split("\n").map((line) => line.slice(line.indexOf(": ") + 2));
          const parsed = JSON.parse(data!);
          const name = event!.replace(/:[^|]+/g, "");
          return name.startsWith("checkpoints")
            ? [name, Object.keys(parsed).sort(), Object.keys(parsed.checkpoint ?? {}).sort(), parsed.values]
            : [name, parsed];
        });
    };
    const modes = { streamMode: ["values", "updates", "checkpoints"], encoding: "text/event-stream" };
    // Grouped by event: a step's checkpoints and values events interleave in the other order
    // (COMPATIBILITY.md, "Shapes that differ").
    const byEvent = (events: unknown[][]) => [...events].sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    const nested = await read(
      await graph.stream({ log: [] }, { configurable: { thread_id: "a" }, ...modes, subgraphs: true }),
    );
    const root = await read(
      await graph.stream(
        { log: [] },
        { configurable: { thread_id: "b" }, streamMode: "updates", encoding: "text/event-stream" },
      ),
    );
    fail = true;
    const failed = await read(
      await graph.stream(
        { log: [] },
        { configurable: { thread_id: "c" }, streamMode: "updates", encoding: "text/event-stream" },
      ),
    );
    return { nested: byEvent(nested), root, failed };
  },

  "the stream is also a ReadableStream: getReader, tee, pipeThrough": async (lib) => {
    const { Annotation, StateGraph, START } = lib;
    const graph = new StateGraph(Annotation.Root({ log: list(lib) }))
      .addNode("a", () => ({ log: ["a"] }))
      .addNode("b", () => ({ log: ["b"] }))
      .addEdge(START, "a")
      .addEdge("a", "b")
      .compile();
    const read = async (stream: any) => {
      const reader = stream.getReader();
      const out = [];
      for (let r = await reader.read(); !r.done; r = await reader.read()) out.push(r.value);
      return out;
    };
    const stream = await graph.stream({ log: [] }, { streamMode: "updates" });
    const locked = [stream.locked];
    const viaReader = await read(stream);
    locked.push(stream.locked);
    const [left, right] = (await graph.stream({ log: [] }, { streamMode: "values" })).tee();
    const sse = (await graph.stream({ log: [] }, { streamMode: "updates", encoding: "text/event-stream" })).pipeThrough(
      new TextDecoderStream(),
    );
    return { viaReader, locked, tee: [await read(left), await read(right)], text: (await read(sse)).join("") };
  },
});
