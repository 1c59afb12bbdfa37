/**
 * The low-level API: `Pregel` and `Channel` (the pregel entry), the channel classes `LastValue`,
 * `EphemeralValue`, `Topic` and `BinaryOperatorAggregate` (the channels entry), the non-state
 * `Graph` and the deprecated `MessageGraph`. Restates LangGraph.js's pregel.test.ts (`describe("Channel")`,
 * "can invoke pregel with a single process" through "should type-error when Channel.subscribeTo
 * would throw at runtime", "invoke join then call other pregel", "should throw when resuming
 * without a checkpointer", `describe("MessageGraph")`), python_port/checkpoint.test.ts (the `Graph`
 * cancellation tests and the two `Pregel` checkpoint tests), python_port/graph_structure.test.ts
 * (topics, joins, subgraphs, no output), python_port/interrupt.test.ts (a `Graph` run timing out),
 * and the examples of the LangGraph docs page on Pregel (single node, several nodes, Topic,
 * BinaryOperatorAggregate, a cycle).
 */

import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { RunnableEach, RunnableLambda, RunnablePassthrough } from "@langchain/core/runnables";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { channelsOf, collect, compare, cutIds, drain, pregelOf, type Runtime, sleep, thread } from "./harness.js";

// --- Helpers -----------------------------------------------------------------------------------

/** Pregel, Channel and the channel classes of one runtime. */
const low = (lib: Runtime) => ({ ...channelsOf(lib), ...pregelOf(lib) });

const addOne = (x: number) => x + 1;
const twice = (x: string) => x + x;

/** Adds one after 15 ms per unit of `x`: the larger inputs of a batch finish last. */
async function slowAddOne(x: number) {
  await sleep(x * 15);
  return x + 1;
}

/** The class name of what `body` throws, or what it returned. */
async function errorName(body: () => unknown): Promise<{ threw: string } | { returned: unknown }> {
  try {
    return { returned: await body() };
  } catch (error) {
    return { threw: error instanceof Error ? error.name : String(error) };
  }
}

/** Whether `body` throws (the class and wording are not compared). */
async function throwsAtAll(body: () => unknown): Promise<boolean> {
  try {
    await body();
    return false;
  } catch {
    return true;
  }
}

/** A checkpoint's values of the user's channels (the runtime's own `__…` channels left out). */
function userValues(values: Record<string, unknown> | undefined) {
  return Object.fromEntries(Object.entries(values ?? {}).filter(([key]) => !key.startsWith("__")));
}

/** A state snapshot as plain data: values, next, tasks (name, result, interrupts), source and step. */
function snap(s: any) {
  return {
    values: s.values,
    next: s.next,
    tasks: s.tasks.map((t: any) => [t.name, t.result ?? null, t.interrupts.map((i: any) => i.value)]),
    source: s.metadata?.source ?? null,
    step: s.metadata?.step ?? null,
  };
}

/**
 * A snapshot of the history without task results: a step's lone task has none in Interlude's
 * (COMPATIBILITY.md, "A lone task's result is its next checkpoint"; pregel-more.test.ts states it).
 */
function pastSnap(s: any) {
  return { ...snap(s), tasks: s.tasks.map((t: any) => [t.name, t.interrupts.map((i: any) => i.value)]) };
}

/** A debug event without its timestamp (task ids are dropped by the harness). */
const debugEvent = (e: any) => ({ ...e, timestamp: typeof e.timestamp });

/** A message as both runtimes can give it: its type, content, and whether it has an id. */
const plain = (m: BaseMessage) => [m.getType(), m.content, typeof m.id];

/**
 * The node shape nearly every low-level example is made of: read `from`, pass the value through
 * `step`, write it to the `to` channels (and to those of `writes`, `Channel.writeTo`'s second argument).
 */
function relay(lib: Runtime, from: string | string[], step: unknown, to: string[], writes?: Record<string, unknown>) {
  const { Channel } = pregelOf(lib);
  const write = writes === undefined ? Channel.writeTo(to) : Channel.writeTo(to, writes);
  return Channel.subscribeTo(from).pipe(step).pipe(write);
}

/** A LastValue channel for each name, in the order given. */
function lastValues(lib: Runtime, ...names: string[]) {
  const { LastValue } = channelsOf(lib);
  return Object.fromEntries(names.map((name) => [name, new LastValue()]));
}

/** A Pregel of `nodes` over `channels`, fed through `input` and answering with `output`, as most in pregel.test.ts. */
function inputToOutput(
  lib: Runtime,
  nodes: Record<string, unknown>,
  channels: Record<string, unknown>,
  options: Record<string, unknown> = {},
) {
  const { Pregel } = low(lib);
  return new Pregel({ nodes, channels, inputChannels: "input", outputChannels: "output", ...options });
}

interface SingleProcessOptions {
  /** The node's name (its tasks, `next` and updates carry it). */
  name?: string;
  /** The channel it subscribes to. */
  reads?: string;
  /** Hands the node `{ [key]: value }` (`Channel.subscribeTo`'s key option). */
  key?: string;
  /** What the node's value is piped through between reading and writing: none, a function, a Pregel... */
  steps?: unknown[];
  /** The rest go to the Pregel (`checkpointer`, `store`, `interruptBefore`, `inputChannels`...). */
  [option: string]: unknown;
}

/** input -> one (+1 unless `steps` say otherwise) -> output, on LastValue channels. */
function singleProcess(
  lib: Runtime,
  { name = "one", reads = "input", key, steps = [addOne], ...options }: SingleProcessOptions = {},
) {
  const { Channel } = low(lib);
  let node = key === undefined ? Channel.subscribeTo(reads) : Channel.subscribeTo(reads, { key });
  for (const step of steps) node = node.pipe(step);
  return inputToOutput(
    lib,
    { [name]: node.pipe(Channel.writeTo(["output"])) },
    lastValues(lib, "input", "output"),
    options,
  );
}

/**
 * input -> one (+1) -> inbox -> two (+1) -> output. The inbox is a LastValue, or a Topic as in
 * pregel.test.ts's "object input and output" case: there the input may write the inbox too, the
 * inbox is streamed with the output, and `two`, handed a list, adds one to each value and writes each.
 */
function twoProcesses(
  lib: Runtime,
  { inbox = "last", ...options }: { inbox?: "last" | "topic"; [option: string]: unknown } = {},
) {
  const { Channel, Topic } = low(lib);
  const one = relay(lib, "input", addOne, ["inbox"]);
  if (inbox === "last") {
    const two = relay(lib, "inbox", addOne, ["output"]);
    return inputToOutput(lib, { one, two }, lastValues(lib, "inbox", "output", "input"), options);
  }
  const two = Channel.subscribeTo("inbox")
    .pipe(new RunnableEach({ bound: new RunnableLambda({ func: addOne }) }))
    .pipe(new RunnableEach({ bound: Channel.writeTo(["output"]) }));
  return inputToOutput(
    lib,
    { one, two },
    { inbox: new Topic(), ...lastValues(lib, "input", "output") },
    { inputChannels: ["input", "inbox"], streamChannels: ["output", "inbox"], ...options },
  );
}

/** Nodes one and two, both adding one to `input` and writing `output` in the same step. */
const sameStepWriters = (lib: Runtime) => ({
  one: relay(lib, "input", addOne, ["output"]),
  two: relay(lib, "input", addOne, ["output"]),
});

/** A non-state Graph running `nodes` one after the other, in the order they are given, from START to END. */
function graphInARow({ Graph, START, END }: Runtime, nodes: Record<string, unknown>, compileOptions?: unknown) {
  const names = Object.keys(nodes);
  let graph = new Graph();
  for (const name of names) graph = graph.addNode(name, nodes[name]);
  const stops = [START, ...names, END];
  for (let i = 1; i < stops.length; i += 1) graph = graph.addEdge(stops[i - 1], stops[i]);
  return compileOptions === undefined ? graph.compile() : graph.compile(compileOptions);
}

/** The docs' two nodes over EphemeralValue `a` and `b`: node1 doubles `a` into `b` and `c`, node2 `b` into `c`. */
function doublingIntoC(lib: Runtime, c: unknown) {
  const { Pregel, EphemeralValue } = low(lib);
  return new Pregel({
    nodes: { node1: relay(lib, "a", twice, ["b", "c"]), node2: relay(lib, "b", twice, ["c"]) },
    channels: { a: new EphemeralValue(), b: new EphemeralValue(), c },
    inputChannels: ["a"],
    outputChannels: ["c"],
  });
}

/**
 * A node that adds its input to a running `total` (a BinaryOperatorAggregate it also reads),
 * writes the sum to `output` and `total`, then fails when the sum is above 10: after its writes
 * are made, so a failed step must not keep them. `startsAtZero` gives `total` an initial value.
 */
function runningTotal(lib: Runtime, checkpointer: unknown, { startsAtZero = false } = {}) {
  const { Channel, BinaryOperatorAggregate } = low(lib);
  const one = Channel.subscribeTo(["input"])
    .join(["total"])
    .pipe((x: { input: number; total?: number }) => (x.total ?? 0) + x.input)
    .pipe(Channel.writeTo(["output", "total"]))
    .pipe((sum: number) => {
      if (sum > 10) throw new Error("Input is too large");
      return sum;
    });
  return inputToOutput(
    lib,
    { one },
    {
      total: startsAtZero
        ? new BinaryOperatorAggregate(
            (a: number, b: number) => a + b,
            () => 0,
          )
        : new BinaryOperatorAggregate((a: number, b: number) => a + b),
      ...lastValues(lib, "input", "output"),
    },
    { checkpointer },
  );
}

/** An inner Pregel adding one, called by `RunnableEach` on each value of a topic, joined and summed. */
function joinThenCallOther(lib: Runtime, outbox: "topic" | "last") {
  const { Channel, LastValue, Topic } = low(lib);
  const inner = singleProcess(lib);
  const one = Channel.subscribeTo("input")
    .pipe((xs: number[]) => xs.map((x) => x + 10))
    .pipe(new RunnableEach({ bound: Channel.writeTo(["inbox_one"]) }));
  const two = Channel.subscribeTo("inbox_one")
    .pipe(new RunnableEach({ bound: inner }))
    .pipe((xs: number[]) => [...xs].sort())
    .pipe(Channel.writeTo(["outbox_one"]));
  const three = relay(lib, "outbox_one", (xs: number[]) => xs.reduce((a, b) => a + b, 0), ["output"]);
  const app = inputToOutput(
    lib,
    { one, two, chain_three: three },
    {
      inbox_one: new Topic(),
      outbox_one: outbox === "topic" ? new Topic() : new LastValue(),
      ...lastValues(lib, "output", "input"),
    },
  );
  return { app, inner };
}

/** A MessageGraph agent: a fake chat model replying "call", "call", "answer", and a tool answering each call. */
function messageAgent(lib: Runtime) {
  const { MessageGraph, START, END } = lib;
  const model = new FakeListChatModel({ responses: ["call query", "call another", "answer"] });
  let calls = 0;
  const tool = (messages: BaseMessage[]) => {
    calls += 1;
    const last = messages[messages.length - 1];
    return new ToolMessage({ content: `result for ${String(last.content).slice(5)}`, tool_call_id: `call${calls}` });
  };
  return new MessageGraph()
    .addNode("agent", model)
    .addNode("action", tool)
    .addEdge(START, "agent")
    .addConditionalEdges(
      "agent",
      (messages: BaseMessage[]) =>
        String(messages[messages.length - 1].content).startsWith("call") ? "continue" : "end",
      { continue: "action", end: END },
    )
    .addEdge("action", "agent")
    .compile();
}

// --- pregel.test.ts: Channel -------------------------------------------------------------------

/** A channel of one's own: it keeps the largest number written (a `BaseChannel` subclass). */
function maxChannel(lib: Runtime) {
  class Max extends lib.BaseChannel {
    lc_graph_name = "Max";
    value: number | undefined;
    fromCheckpoint(saved?: number) {
      const channel = new Max();
      channel.value = saved;
      return channel;
    }
    update(values: number[]) {
      if (values.length === 0) return false;
      const next = Math.max(this.value ?? Number.NEGATIVE_INFINITY, ...values);
      const changed = next !== this.value;
      this.value = next;
      return changed;
    }
    get() {
      if (this.value === undefined) throw new lib.EmptyChannelError("empty");
      return this.value;
    }
    checkpoint() {
      return this.value;
    }
  }
  return new Max();
}

compare("pregel low level: Channel", {
  "channel instances as keys of Annotation.Root: an accumulating Topic, an EphemeralValue, a reducer": {
    from: "pregel.test.ts: StateGraph channels given as BaseChannel instances",
    async run(lib) {
      const { Annotation, StateGraph, START, END, MemorySaver } = lib;
      const { Topic, EphemeralValue, BinaryOperatorAggregate, LastValue } = channelsOf(lib);
      const State = Annotation.Root({
        items: new Topic({ accumulate: true }),
        once: new EphemeralValue(),
        total: new BinaryOperatorAggregate(
          (a: number, b: number) => a + b,
          () => 0,
        ),
        last: new LastValue(),
      });
      const graph = new StateGraph(State)
        .addNode("a", () => ({ items: [1, 2], once: "x", total: 5, last: "a" }))
        .addNode("b", (state: any) => ({ items: 3, total: 1, last: `saw ${state.once}` }))
        .addEdge(START, "a")
        .addEdge("a", "b")
        .addEdge("b", END)
        .compile({ checkpointer: new MemorySaver() });
      const result = await graph.invoke({ total: 1 }, thread("instances"));
      const state = await graph.getState(thread("instances"));
      return { result, values: state.values };
    },
  },

  "a channel class of one's own (a BaseChannel subclass) in a Pregel and in a state": {
    from: "pregel.test.ts: custom BaseChannel",
    async run(lib) {
      const { Pregel } = low(lib);
      const { Annotation, StateGraph, START, MemorySaver } = lib;
      const app = new Pregel({
        nodes: { one: relay(lib, "input", (x: number) => x * 2, ["best"]) },
        channels: { ...lastValues(lib, "input"), best: maxChannel(lib) },
        inputChannels: "input",
        outputChannels: "best",
        checkpointer: new MemorySaver(),
      });
      const runs = [];
      for (const input of [3, 10, 4]) runs.push(await app.invoke(input, thread("max")));
      const graph = new StateGraph(Annotation.Root({ best: maxChannel(lib) }))
        .addNode("a", () => ({ best: 7 }))
        .addNode("b", () => ({ best: 2 }))
        .addEdge(START, "a")
        .addEdge(START, "b")
        .compile();
      return { runs, state: await graph.invoke({ best: 1 }) };
    },
  },

  "an EphemeralValue input is not kept in the checkpoint; LastValue input and output are": {
    from: "pregel.test.ts: obtain correct channel values from checkpointer",
    async run(lib) {
      const { Pregel, Channel, EphemeralValue } = low(lib);
      const { MemorySaver } = lib;
      const checkpointer = new MemorySaver();
      const app = new Pregel({
        nodes: { one: Channel.subscribeTo("input").pipe(Channel.writeTo(["output"])) },
        channels: { ephemeral: new EphemeralValue(), ...lastValues(lib, "input", "output") },
        inputChannels: ["input", "ephemeral"],
        outputChannels: "output",
        checkpointer,
      });
      const config = thread("1");
      const result = await app.invoke({ input: 1, ephemeral: "meow" }, config);
      const state = await app.getState(config);
      const checkpoint = await checkpointer.get(config);
      return { result, values: state.values, next: state.next, saved: userValues(checkpoint?.channel_values) };
    },
  },

  "writeTo: named channels get the input, fixed values are written as they are, functions and runnables map it": {
    from: "pregel.test.ts: should return a ChannelWrite instance with the expected writes / should process input and write kwargs correctly",
    async run(lib) {
      const { Pregel, Channel } = low(lib);
      const write = Channel.writeTo(["foo", "bar"], {
        fixed: 6,
        func: () => 42,
        runnable: new RunnablePassthrough(),
      });
      const app = new Pregel({
        nodes: { one: Channel.subscribeTo("input").pipe(write) },
        channels: lastValues(lib, "input", "foo", "bar", "fixed", "func", "runnable"),
        inputChannels: "input",
        outputChannels: ["foo", "bar", "fixed", "func", "runnable"],
      });
      const kwargs = new Pregel({
        nodes: { one: relay(lib, "input", addOne, ["output"], { fixed: 5, outputPlusOne: (x: number) => x + 1 }) },
        channels: lastValues(lib, "input", "output", "fixed", "outputPlusOne"),
        outputChannels: ["output", "fixed", "outputPlusOne"],
        inputChannels: "input",
      });
      return {
        result: await app.invoke("x"),
        updates: await collect(await app.stream("x", { streamMode: "updates" })),
        kwargs: await kwargs.invoke(2),
      };
    },
  },

  "Channel.subscribeTo with several channels and a key is refused when it is called": {
    from: "pregel.test.ts: should type-error when Channel.subscribeTo would throw at runtime",
    async run(lib) {
      const { Channel } = low(lib);
      return { refused: await throwsAtAll(() => Channel.subscribeTo(["input"], { key: "key" })) };
    },
  },

  "subscribeTo with a key hands the node { key: value }; with a list, an object of the channels": {
    from: "pregel.test.ts: Channel.subscribeTo (its key option and list form)",
    async run(lib) {
      const { Pregel } = low(lib);
      const asJson = (x: unknown) => JSON.stringify(x);
      const keyed = singleProcess(lib, { key: "k", steps: [asJson] });
      const listed = new Pregel({
        nodes: { one: relay(lib, ["a", "b"], asJson, ["output"]) },
        channels: lastValues(lib, "a", "b", "output"),
        inputChannels: ["a", "b"],
        outputChannels: "output",
      });
      return { keyed: await keyed.invoke(1), listed: await listed.invoke({ a: 1, b: 2 }) };
    },
  },
});

// --- pregel.test.ts: one and two processes ------------------------------------------------------

compare("pregel low level: processes", {
  "a single process: invoke gives the output channel's value, or an object with outputKeys or list channels": {
    from: "pregel.test.ts: can invoke pregel with a single process / should process input and output as objects",
    async run(lib) {
      const make = (inputChannels: string | string[], outputChannels: string | string[]) =>
        singleProcess(lib, { inputChannels, outputChannels });
      const app = make("input", "output");
      return {
        plain: await app.invoke(2),
        withKeys: await app.invoke(2, { outputKeys: ["output"] }),
        printable: typeof String(app),
        listOut: await make("input", ["output"]).invoke(2),
        listInAndOut: await make(["input"], ["output"]).invoke({ input: 2 }),
      };
    },
  },

  "two processes: the recursion limit, invoke, and the updates stream": {
    from: "pregel.test.ts: should invoke two processes and get correct output",
    async run(lib) {
      const app = twoProcesses(lib, { streamChannels: ["inbox", "output"] });
      return {
        limited: await errorName(() => app.invoke(2, { recursionLimit: 1 })),
        result: await app.invoke(2),
        updates: await collect(await app.stream(2, { streamMode: "updates" })),
        values: await collect(await app.stream(2)),
        // streamMode given to the Pregel is stream's default.
        updatesByDefault: await collect(await twoProcesses(lib, { streamMode: "updates" }).stream(2)),
      };
    },
  },

  "two processes over a Topic, fed from the input too: streamed by output key, as updates, as values": {
    from: "pregel.test.ts: should process two processes with object input and output",
    async run(lib) {
      const app = twoProcesses(lib, { inbox: "topic" });
      const input = { input: 2, inbox: 12 };
      return {
        byKey: await collect(await app.stream(input, { outputKeys: "output" })),
        updates: await collect(await app.stream(input, { streamMode: "updates" })),
        values: await collect(await app.stream(input)),
      };
    },
  },

  "the debug stream of two processes over a Topic: a task and a task_result per node and step": {
    from: "pregel.test.ts: should process two processes with object input and output",
    async run(lib) {
      const app = twoProcesses(lib, { inbox: "topic" });
      const events = await collect(await app.stream({ input: 2, inbox: 12 }, { streamMode: "debug" }));
      return events.map(debugEvent);
    },
  },

  "two nodes writing one LastValue channel in the same step is an InvalidUpdateError": {
    from: "pregel.test.ts: should raise InvalidUpdateError when the same LastValue channel is updated twice in one iteration",
    async run(lib) {
      const app = inputToOutput(lib, sameStepWriters(lib), lastValues(lib, "output", "input"));
      const { InvalidUpdateError } = lib;
      try {
        await app.invoke(2);
        return { rejected: false };
      } catch (error) {
        return { rejected: true, invalidUpdate: error instanceof InvalidUpdateError };
      }
    },
  },

  "two writers to a Topic, one reader: the reader runs once on both values, also in concurrent runs": {
    from: "pregel.test.ts: should process two inputs joined into one topic and produce two outputs / should process two inputs to two outputs validly",
    async run(lib) {
      const { Topic } = low(lib);
      const app = inputToOutput(
        lib,
        {
          one: relay(lib, "input", addOne, ["inbox"]),
          chainThree: relay(lib, "input", addOne, ["inbox"]),
          chainFour: relay(lib, "inbox", (xs: number[]) => xs.map((y) => y + 10).sort(), ["output"]),
        },
        { inbox: new Topic(), ...lastValues(lib, "output", "input") },
      );
      const sequential = [];
      for (let i = 0; i < 5; i += 1) sequential.push(await app.invoke(2));
      const concurrent = await Promise.all(Array.from({ length: 10 }, () => app.invoke(2)));
      // Two nodes writing a Topic output in the same step: it holds both values.
      const both = inputToOutput(lib, sameStepWriters(lib), {
        output: new Topic(),
        ...lastValues(lib, "input", "output2"),
      });
      return { sequential, concurrent, bothWriters: await both.invoke(2) };
    },
  },

  "writeTo with no named channel and two runnables: one process feeds two channels": {
    from: "pregel.test.ts: should handle two processes with one input and two outputs",
    async run(lib) {
      const app = inputToOutput(
        lib,
        {
          one: relay(lib, "input", addOne, [], {
            output: new RunnablePassthrough(),
            between: new RunnablePassthrough(),
          }),
          two: relay(lib, "between", addOne, ["output"]),
        },
        lastValues(lib, "input", "output", "between"),
        { streamChannels: ["output", "between"] },
      );
      return {
        values: await collect(await app.stream(2)),
        updates: await collect(await app.stream(2, { streamMode: "updates" })),
        result: await app.invoke(2),
      };
    },
  },

  "a run whose nodes never write the output channel finishes with nothing": {
    from: "pregel.test.ts: should finish executing without output",
    async run(lib) {
      const { Channel } = low(lib);
      let ran = 0;
      const app = inputToOutput(
        lib,
        {
          one: relay(lib, "input", addOne, ["between"]),
          two: Channel.subscribeTo("between").pipe((x: number) => {
            ran += 1;
            return x + 1;
          }),
        },
        lastValues(lib, "input", "between", "output"),
      );
      const result = await app.invoke(2);
      return { undefined: result === undefined, result: result ?? null, ran };
    },
  },

  "a Pregel without channels, or naming a channel it does not declare, is refused when it is made": {
    from: "pregel.test.ts: should throw an error when no input channel is provided",
    async run(lib) {
      const { Pregel, Channel } = low(lib);
      const one = relay(lib, "between", addOne, ["output"]);
      const two = Channel.subscribeTo("between").pipe(addOne);
      const make = (subscribed: string, input: string, output: string) => () =>
        singleProcess(lib, { reads: subscribed, steps: [], inputChannels: input, outputChannels: output });
      return {
        noChannels: await throwsAtAll(() => new Pregel({ nodes: { one, two } })),
        unknownSubscription: await throwsAtAll(make("missing", "input", "output")),
        unknownInput: await throwsAtAll(make("input", "missing", "output")),
        unknownOutput: await throwsAtAll(make("input", "input", "missing")),
        valid: await throwsAtAll(make("input", "input", "output")),
      };
    },
  },
});

// --- pregel.test.ts: batch ----------------------------------------------------------------------

compare("pregel low level: batch", {
  "batch of two processes whose nodes take time in proportion to their input: results keep the input order": {
    from: "pregel.test.ts: should process batch with two processes and delays",
    async run(lib) {
      const app = inputToOutput(
        lib,
        { one: relay(lib, "input", slowAddOne, ["one"]), two: relay(lib, "one", slowAddOne, ["output"]) },
        lastValues(lib, "one", "output", "input"),
      );
      return {
        plain: await app.batch([3, 2, 1, 3, 5]),
        withKeys: await app.batch([3, 2, 1, 3, 5], { outputKeys: ["output"] }),
      };
    },
  },

  "a chain of 100 processes, batched three times with a recursion limit of 100": {
    from: "pregel.test.ts: should batch many processes with input and output",
    async run(lib) {
      const size = 100;
      const links = Array.from({ length: size - 2 }, (_, i) => String(i));
      const channels = lastValues(lib, "input", "output", "-1", ...links);
      const nodes: Record<string, unknown> = { "-1": relay(lib, "input", addOne, ["-1"]) };
      for (let i = 0; i < size - 2; i += 1) nodes[String(i)] = relay(lib, String(i - 1), addOne, [String(i)]);
      nodes.last = relay(lib, String(size - 3), addOne, ["output"]);
      const app = inputToOutput(lib, nodes, channels);
      const runs = [];
      for (let i = 0; i < 3; i += 1) runs.push(await app.batch([2, 1, 3, 4, 5], { recursionLimit: size }));
      return { runs, tooFew: await errorName(() => app.invoke(2, { recursionLimit: size - 1 })) };
    },
  },
});

// --- pregel.test.ts: checkpoints and interrupts --------------------------------------------------

compare("pregel low level: checkpoints and interrupts", {
  "interruptAfter one: pause, resume with null, a new input replaces the paused run": {
    from: "pregel.test.ts: should invoke two processes with input/output and interrupt",
    async run(lib) {
      const { MemorySaver } = lib;
      const checkpointer = new MemorySaver();
      const app = twoProcesses(lib, { checkpointer, interruptAfter: ["one"] });
      const one = thread("1");
      const inbox = async () => (await checkpointer.get(one))?.channel_values.inbox;
      const steps: unknown[] = [];
      steps.push(await app.invoke(2, one), await inbox());
      steps.push(await app.invoke(null, one));
      steps.push(await app.invoke(20, one), await inbox());
      steps.push(await app.invoke(3, one));
      steps.push(await app.invoke(null, one));
      return { steps, state: snap(await app.getState(one)) };
    },
  },

  "interruptAfter one: getState while paused, updateState as node one, resume": {
    from: "pregel.test.ts: should invoke two processes with input/output and interrupt",
    async run(lib) {
      const app = twoProcesses(lib, { checkpointer: new lib.MemorySaver(), interruptAfter: ["one"] });
      const two = thread("2");
      const paused = await app.invoke(20, two);
      const before = snap(await app.getState(two));
      await app.updateState(two, 25, "one");
      const updated = snap(await app.getState(two));
      const result = await app.invoke(null, two);
      return { paused, before, updated, result, after: snap(await app.getState(two)) };
    },
  },

  "interruptAfter one: the thread's history, newest first, and running again from its earlier checkpoints": {
    from: "pregel.test.ts: should invoke two processes with input/output and interrupt",
    async run(lib) {
      const app = twoProcesses(lib, { checkpointer: new lib.MemorySaver(), interruptAfter: ["one"] });
      const one = thread("1");
      await app.invoke(2, one);
      await app.invoke(null, one);
      await app.invoke(20, one);
      await app.invoke(3, one);
      await app.invoke(null, one);
      const history: any[] = await collect(app.getStateHistory(one));
      const listed = history.map((s, i) => ({
        ...pastSnap(s),
        parentIsNext:
          i + 1 < history.length &&
          s.parentConfig?.configurable?.checkpoint_id === history[i + 1]?.config?.configurable?.checkpoint_id,
        hasParent: s.parentConfig !== undefined,
      }));
      const from = async (i: number) =>
        collect(await app.stream(null, { ...history[i].config, streamMode: "updates" }));
      return { history: listed, fromLatest: await from(0), beforeTwo: await from(1), beforeOne: await from(2) };
    },
  },

  "interruptBefore a node: the run stops before it; getState names it; null resumes": {
    from: "pregel.test.ts: should invoke two processes with input/output and interrupt (interruptBefore)",
    async run(lib) {
      const app = twoProcesses(lib, { checkpointer: new lib.MemorySaver(), interruptBefore: ["two"] });
      const config = thread("b");
      const paused = await app.invoke(5, config);
      const state = snap(await app.getState(config));
      const resumed = await collect(await app.stream(null, { ...config, streamMode: "updates" }));
      return { paused, state, resumed, after: snap(await app.getState(config)) };
    },
  },

  "a BinaryOperatorAggregate total across runs on a thread; a failing step does not change it": {
    from: "pregel.test.ts: should handle checkpoints correctly",
    async run(lib) {
      const { MemorySaver } = lib;
      const memory = new MemorySaver();
      const app = runningTotal(lib, memory);
      const total = async (id: string) => (await memory.get(thread(id)))?.channel_values.total;
      const out: unknown[] = [];
      out.push(await app.invoke(2, thread("1")), await total("1"));
      out.push(await app.invoke(3, thread("1")), await total("1"));
      out.push(await errorName(() => app.invoke(4, thread("1"))), await total("1"));
      out.push(await app.invoke(5, thread("2")), await total("1"), await total("2"));
      return out;
    },
  },

  "a running total with a retry policy: a failure is retried; one that keeps failing ends the run after the attempts": {
    from: "python_port/checkpoint.test.ts: Pregel with retryPolicy (test_invoke_checkpoint_two)",
    async run(lib) {
      const { Channel, BinaryOperatorAggregate } = low(lib);
      const { MemorySaver } = lib;
      let failedOnce = false;
      let attempts = 0;
      const checkpointer = new MemorySaver();
      const one = Channel.subscribeTo(["input"])
        .join(["total"])
        .pipe((x: { input: number; total: number }) => x.total + x.input)
        .pipe(Channel.writeTo([], { output: (x: number) => x, total: (x: number) => x }))
        .pipe((sum: number) => {
          attempts += 1;
          if (sum > 4 && !failedOnce) {
            failedOnce = true;
            throw new Error("ConnectionError: I will be retried");
          }
          if (sum > 10) throw new Error("ValueError: Input is too large");
          return sum;
        });
      const app = inputToOutput(
        lib,
        { one },
        {
          total: new BinaryOperatorAggregate(
            (a: number, b: number) => a + b,
            () => 0,
          ),
          ...lastValues(lib, "input", "output"),
        },
        {
          checkpointer,
          retryPolicy: { maxAttempts: 3, initialInterval: 10, maxInterval: 40, backoffFactor: 2, logWarning: false },
        },
      );
      const total = async (id: string) => (await checkpointer.get(thread(id)))?.channel_values.total;
      const out: unknown[] = [];
      out.push(await app.invoke(2, thread("1")), await total("1"));
      out.push(await app.invoke(3, thread("1")), failedOnce, await total("1"));
      out.push(await throwsAtAll(() => app.invoke(4, thread("1"))), await total("1"));
      out.push(await app.invoke(5, thread("2")), await total("1"), await total("2"));
      return { out, attempts };
    },
  },

  "a running total: getState, recovering from a failed step with new input, history and its paging, updateState": {
    from: "python_port/checkpoint.test.ts: should test invoke checkpoint functionality with multiple operations",
    async run(lib) {
      const { MemorySaver } = lib;
      const checkpointer = new MemorySaver();
      const app = runningTotal(lib, checkpointer, { startsAtZero: true });
      const one = thread("1");
      const states: unknown[] = [];
      states.push(await app.invoke(2, one), snap(await app.getState(one)));
      states.push(await app.invoke(3, one), snap(await app.getState(one)));
      states.push(await throwsAtAll(() => app.invoke(4, one)), snap(await app.getState(one)));
      states.push(await app.invoke(2, one), snap(await app.getState(one)));
      states.push(await app.invoke(5, thread("2")), snap(await app.getState(thread("2"))));
      const history: any[] = await collect(app.getStateHistory(one));
      const sources = (h: any[]) => h.map((s) => s.metadata.source);
      const limited = await collect(app.getStateHistory(one, { limit: 1 }));
      const before: any[] = await collect(app.getStateHistory(one, { limit: 1, before: history[0].config }));
      const updatedConfig = await app.updateState(history[1].config, 10);
      const after: any[] = await collect(app.getStateHistory(one));
      const latest = snap(await app.getState(one));
      return {
        states,
        history: history.map(pastSnap),
        sources: sources(history),
        limited: limited.length,
        beforeIsSecond:
          before.length === 1 &&
          before[0].config.configurable.checkpoint_id === history[1].config.configurable.checkpoint_id,
        updatedIsLatest: updatedConfig.configurable.checkpoint_id === after[0].config.configurable.checkpoint_id,
        sourcesAfter: sources(after),
        latest,
      };
    },
  },

  "an interrupt() inside a Pregel node: the run pauses with it, Command resume finishes the node": {
    from: "pregel.test.ts: should throw when resuming without a checkpointer (with a checkpointer)",
    async run(lib) {
      const { MemorySaver, Command, interrupt } = lib;
      let entered = 0;
      const ask = (x: number) => {
        entered += 1;
        const answer = interrupt(`add to ${x}?`) as number;
        return x + answer;
      };
      const app = singleProcess(lib, { name: "ask", steps: [ask], checkpointer: new MemorySaver() });
      const config = thread("i");
      const paused = await app.invoke(1, config);
      const state = snap(await app.getState(config));
      const result = await app.invoke(new Command({ resume: 41 }), config);
      return { paused, state, result, entered, after: snap(await app.getState(config)) };
    },
  },

  "interruptBefore without a checkpointer pauses; Command resume is then refused": {
    from: "pregel.test.ts: should throw when resuming without a checkpointer",
    differs: "#a-breakpoint-with-no-checkpointer",
    async run(lib) {
      const { Command } = lib;
      const app = singleProcess(lib, { name: "chain", steps: [], interruptBefore: ["chain"], streamMode: "values" });
      const paused = await app.invoke("a");
      try {
        await app.invoke(new Command({ resume: "hello" }));
        return { paused, refused: false };
      } catch (error) {
        return { paused, refused: error instanceof Error ? error.message : String(error) };
      }
    },
  },

  "a store passed to the Pregel reaches its nodes through the config": {
    from: "pregel.test.ts: Pregel params (store)",
    async run(lib) {
      const { InMemoryStore } = lib;
      const store = new InMemoryStore();
      await store.put(["numbers"], "seven", { n: 7 });
      const addSeven = async (x: number, config: any) => x + (await config.store.get(["numbers"], "seven")).value.n;
      const app = singleProcess(lib, { steps: [addSeven], store });
      return app.invoke(1);
    },
  },
});

// --- pregel.test.ts: Pregel inside Pregel ---------------------------------------------------------

compare("pregel low level: subgraphs", {
  "a Pregel called by RunnableEach on each value of a Topic, joined and summed; sequential and concurrent runs": {
    from: "pregel.test.ts: should invoke join then call other app",
    async run(lib) {
      const { app } = joinThenCallOther(lib, "topic");
      const sequential = [];
      for (let i = 0; i < 5; i += 1) sequential.push(await app.invoke([2, 3]));
      return { sequential, concurrent: await Promise.all(Array.from({ length: 5 }, () => app.invoke([2, 3]))) };
    },
  },

  "the same with a LastValue outbox, then with a checkpointer on the outer Pregel, then none on the inner": {
    from: "pregel.test.ts: invoke join then call other pregel",
    async run(lib) {
      const { MemorySaver } = lib;
      const { app, inner } = joinThenCallOther(lib, "last");
      const plain = await app.invoke([2, 3]);
      app.checkpointer = new MemorySaver();
      const checkpointed = await errorName(() => app.invoke([2, 3], thread("1")));
      inner.checkpointer = false;
      const innerOff = await errorName(() => app.invoke([2, 3], thread("1")));
      return { plain, checkpointed, innerOff };
    },
  },

  "a Pregel piped after a node's function, inside another Pregel, with the updates stream and subgraphs": {
    from: "python_port/graph_structure.test.ts: should invoke join then call other app (a Pregel as a step)",
    async run(lib) {
      const inner = singleProcess(lib, { name: "double", steps: [(x: number) => x * 2] });
      const app = singleProcess(lib, { name: "outer", steps: [addOne, inner] });
      return {
        result: await app.invoke(3),
        updates: await collect(await app.stream(3, { streamMode: "updates" })),
        withSubgraphs: (await collect(await app.stream(3, { streamMode: "updates", subgraphs: true }))).map(
          ([ns, chunk]: [string[], unknown]) => [cutIds(ns), chunk],
        ),
      };
    },
  },

  "a compiled Graph as a node of another Graph": {
    from: "pregel.test.ts: Graph subgraphs",
    async run(lib) {
      const inner = graphInARow(lib, { double: (x: number) => x * 2 });
      const outer = graphInARow(lib, { add_one: addOne, inner, last: (x: number) => x - 1 });
      return {
        result: await outer.invoke(3),
        updates: await collect(await outer.stream(3, { streamMode: "updates" })),
      };
    },
  },
});

// --- The LangGraph docs page on Pregel --------------------------------------------------------------

compare("pregel low level: the docs' examples", {
  "a single node between two EphemeralValue channels": {
    from: "docs (Pregel): single node application",
    async run(lib) {
      const { Pregel, EphemeralValue } = low(lib);
      const app = new Pregel({
        nodes: { node1: relay(lib, "a", twice, ["b"]) },
        channels: { a: new EphemeralValue(), b: new EphemeralValue() },
        inputChannels: ["a"],
        outputChannels: ["b"],
      });
      return {
        result: await app.invoke({ a: "foo" }),
        updates: await collect(await app.stream({ a: "foo" }, { streamMode: "updates" })),
      };
    },
  },

  "two nodes in a row, LastValue channels and an EphemeralValue output": {
    from: "docs (Pregel): multiple nodes",
    async run(lib) {
      const { Pregel, EphemeralValue } = low(lib);
      const app = new Pregel({
        nodes: { node1: relay(lib, "a", twice, ["b"]), node2: relay(lib, "b", twice, ["c"]) },
        channels: { ...lastValues(lib, "a", "b"), c: new EphemeralValue() },
        inputChannels: ["a"],
        outputChannels: ["b", "c"],
      });
      return {
        result: await app.invoke({ a: "foo" }),
        values: await collect(await app.stream({ a: "foo" }, { streamMode: "values" })),
      };
    },
  },

  "a Topic with accumulate: true keeps the values of every step": {
    from: "docs (Pregel): Topic",
    async run(lib) {
      const { Topic } = low(lib);
      const make = (accumulate: boolean) => doublingIntoC(lib, new Topic({ accumulate }));
      return {
        accumulated: await make(true).invoke({ a: "foo" }),
        notAccumulated: await make(false).invoke({ a: "foo" }),
      };
    },
  },

  "an accumulating Topic streamed as values: each chunk shows the channel at its step": {
    from: "docs (Pregel): Topic",
    // LangGraph.js hands out the Topic's own list, which the next step appends to.
    differs: "#a-streamed-value-is-a-snapshot",
    async run(lib) {
      const { Topic } = low(lib);
      const app = doublingIntoC(lib, new Topic({ accumulate: true }));
      return collect(await app.stream({ a: "foo" }, { streamMode: "values" }));
    },
  },

  "a BinaryOperatorAggregate joins the writes of every step with its reducer": {
    from: "docs (Pregel): BinaryOperatorAggregate",
    async run(lib) {
      const { BinaryOperatorAggregate } = low(lib);
      const joined = new BinaryOperatorAggregate(
        (current: string, update: string) => (current ? `${current} | ${update}` : update),
        () => "",
      );
      return doublingIntoC(lib, joined).invoke({ a: "foo" });
    },
  },

  "a cycle: a node that writes the channel it reads until a function mapper gives undefined": {
    from: "docs (Pregel): cycle",
    async run(lib) {
      const { Pregel, EphemeralValue } = low(lib);
      const untilTen = (x: string) => (x.length < 10 ? x + x : undefined);
      const app = new Pregel({
        nodes: { node1: relay(lib, "value", untilTen, [], { value: (x: string | undefined) => x }) },
        channels: { value: new EphemeralValue() },
        inputChannels: ["value"],
        outputChannels: ["value"],
      });
      return {
        result: await app.invoke({ value: "a" }),
        streamed: await collect(await app.stream({ value: "a" }, { streamMode: ["values", "updates"] })),
        limited: await errorName(() => app.invoke({ value: "a" }, { recursionLimit: 3 })),
      };
    },
  },
});

// --- Graph: the non-state graph -----------------------------------------------------------------

compare(
  "pregel low level: Graph",
  {
    "a Graph of one node: its output is the run's output": {
      from: "pregel.test.ts: can invoke graph with a single process",
      async run(lib) {
        const graph = graphInARow(lib, { add_one: addOne });
        return {
          result: await graph.invoke(2),
          updates: await collect(await graph.stream(2, { streamMode: "updates" })),
        };
      },
    },

    "a Graph node returning a falsy value: null, 0, '', [], {} and an empty Set come back as they are": {
      from: "pregel.test.ts: should process falsey value",
      async run(lib) {
        const out = [];
        for (const falsy of [null, 0, "", [], {}, new Set()]) {
          const graph = graphInARow(lib, { return_falsy_const: () => falsy });
          const result = await graph.invoke(1);
          out.push({ same: result === falsy, isSet: result instanceof Set, result: result ?? "nullish" });
        }
        return out;
      },
    },

    "batch on a Graph of two slow nodes keeps the input order": {
      from: "pregel.test.ts: should process batch with two processes and delays with graph",
      async run(lib) {
        return graphInARow(lib, { add_one: slowAddOne, add_one_more: slowAddOne }).batch([3, 2, 1, 3, 5]);
      },
    },

    "a Graph's endless loop ends at the recursion limit": {
      from: "pregel.test.ts: Graph (a non-state graph's edges and the recursion limit)",
      async run({ Graph, START }) {
        const endless = new Graph()
          .addNode("a", addOne)
          .addNode("b", addOne)
          .addEdge(START, "a")
          .addEdge("a", "b")
          .addEdge("b", "a")
          .compile();
        return { limit: await errorName(() => endless.invoke(1, { recursionLimit: 5 })) };
      },
    },

    "a Graph with conditional edges (with and without a path map, from a node and from START)": {
      from: "pregel.test.ts: Graph (a non-state graph's edges)",
      // LangGraph.js drops a Graph's conditional edges (its runs stop after the source node).
      differs: "#a-graphs-conditional-edges-route",
      async run({ Graph, START, END }) {
        const double = (x: number) => x * 2;
        const done = (x: number) => `done at ${x}`;
        const withMap = new Graph()
          .addNode("double", double)
          .addNode("finish", done)
          .addEdge(START, "double")
          .addConditionalEdges("double", (x: number) => (x < 20 ? "again" : "stop"), {
            again: "double",
            stop: "finish",
          })
          .addEdge("finish", END)
          .compile();
        const withoutMap = new Graph()
          .addNode("a", double)
          .addNode("big", (x: number) => `big ${x}`)
          .addNode("small", (x: number) => `small ${x}`)
          .addEdge(START, "a")
          .addConditionalEdges("a", (x: number) => (x > 5 ? "big" : "small"))
          .addEdge("big", END)
          .addEdge("small", END)
          .compile();
        const fromStart = new Graph()
          .addNode("a", double)
          .addNode("big", (x: number) => `big ${x}`)
          .addConditionalEdges(START, (x: number) => (x > 5 ? "big" : "a"))
          .addEdge("big", END)
          .addEdge("a", END)
          .compile();
        const outcome = async (graph: any, input: number) => {
          const result = await graph.invoke(input);
          return {
            result: result === undefined ? "undefined" : result,
            updates: await collect(await graph.stream(input, { streamMode: "updates" })),
          };
        };
        return {
          withMap: await outcome(withMap, 3),
          withoutMap: [await outcome(withoutMap, 3), await outcome(withoutMap, 1)],
          fromStart: [await outcome(fromStart, 3), await outcome(fromStart, 10)],
        };
      },
    },

    "a Graph with interruptBefore and a checkpointer: pause, getState, resume with null": {
      from: "python_port/checkpoint.test.ts: Graph with a checkpointer",
      async run(lib) {
        const graph = graphInARow(
          lib,
          { a: addOne, b: (x: number) => x * 10 },
          { checkpointer: new lib.MemorySaver(), interruptBefore: ["b"] },
        );
        const config = thread("g");
        const paused = await graph.invoke(1, config);
        const state = await graph.getState(config);
        const result = await graph.invoke(null, config);
        const after = await graph.getState(config);
        return { paused, next: state.next, result, nextAfter: after.next };
      },
    },

    "a Graph whose edges are invalid is refused when it is compiled": {
      from: "pregel.test.ts: invalid graphs (Graph.validate)",
      async run({ Graph, START, END }) {
        const node = (x: unknown) => x;
        return {
          unknownTarget: await throwsAtAll(() =>
            new Graph().addNode("a", node).addEdge(START, "a").addEdge("a", "missing").compile(),
          ),
          noEntry: await throwsAtAll(() => new Graph().addNode("a", node).addEdge("a", END).compile()),
          fromEnd: await throwsAtAll(() => new Graph().addNode("a", node).addEdge(END, "a")),
          toStart: await throwsAtAll(() => new Graph().addNode("a", node).addEdge("a", START)),
          reservedName: await throwsAtAll(() => new Graph().addNode(END, node)),
          twice: await throwsAtAll(() => new Graph().addNode("a", node).addNode("a", node)),
          valid: await throwsAtAll(() => new Graph().addNode("a", node).addEdge(START, "a").compile()),
        };
      },
    },

    "a Graph run with a timeout: the node is told through its signal and the run rejects": {
      from: "python_port/interrupt.test.ts: should cancel node task on timeout",
      async run(lib) {
        let started = false;
        let cancelled = false;
        const awhile = (_: unknown, config: any) =>
          new Promise<void>((resolve, reject) => {
            started = true;
            const stop = () => {
              cancelled = true;
              clearTimeout(timer);
              reject(new Error("AbortError"));
            };
            const timer = setTimeout(resolve, 1000);
            // On a loaded machine the run may time out before the node starts: its signal is then already aborted.
            if (config?.signal?.aborted) stop();
            else config?.signal?.addEventListener("abort", stop, { once: true });
          });
        const graph = graphInARow(lib, { agent: awhile });
        const rejected = await throwsAtAll(() => graph.invoke(1, { timeout: 20 }));
        return { rejected, started, cancelled };
      },
    },

    "a Graph run aborted through a signal while streaming: the node is told, a checkpoint was written": {
      from: "python_port/checkpoint.test.ts: should not cancel checkpoint put operation when streaming is cancelled",
      async run(lib) {
        let cancelled = false;
        const awhile = (_: unknown, config: any) =>
          new Promise<void>((resolve, reject) => {
            const timer = setTimeout(resolve, 1000);
            config?.signal?.addEventListener(
              "abort",
              () => {
                cancelled = true;
                clearTimeout(timer);
                reject(new Error("AbortError"));
              },
              { once: true },
            );
          });
        const checkpointer = new lib.MemorySaver();
        const graph = graphInARow(lib, { agent: awhile }, { checkpointer });
        const controller = new AbortController();
        const config = { ...thread("1"), signal: controller.signal };
        setTimeout(() => controller.abort(), 40);
        // The stream or its iteration rejects: LangGraph.js's `stream()` promise already waits for the first chunk.
        const rejected = await throwsAtAll(async () => {
          const streamed = await drain(await graph.stream(1, config));
          if (streamed.some((item: any) => item?.threw !== undefined)) throw new Error("the iteration threw");
        });
        const saved = await collect(checkpointer.list(thread("1")));
        return { rejected, cancelled, checkpoints: saved.length > 0 };
      },
    },
  },
  // Retried: "a Graph run with a timeout" relies on LangGraph.js's run timeout, which Node 20 may
  // collect before it fires (COMPATIBILITY.md, "A run's timeout holds under garbage collection").
  { retry: 2 },
);

// --- pregel.test.ts: MessageGraph -----------------------------------------------------------------

compare("pregel low level: MessageGraph", {
  "a MessageGraph agent invoked with one message: the whole conversation, each message with an id": {
    from: "pregel.test.ts: MessageGraph can invoke a single message",
    async run(lib) {
      const app = messageAgent(lib);
      const result: BaseMessage[] = await app.invoke(new HumanMessage("what is the weather in sf?"));
      return result.map(plain);
    },
  },

  "a MessageGraph agent streamed with a list of messages: the last update is the agent's answer": {
    from: "pregel.test.ts: MessageGraph can stream a list of messages",
    async run(lib) {
      const app = messageAgent(lib);
      const chunks = await collect(await app.stream([new HumanMessage("what is the weather in sf?")]));
      return chunks.map((chunk: Record<string, any>) =>
        Object.fromEntries(
          Object.entries(chunk).map(([node, update]) => [
            node,
            Array.isArray(update) ? update.map(plain) : plain(update),
          ]),
        ),
      );
    },
  },

  "a MessageGraph's drawing: its nodes and edges, the conditional ones with their labels": {
    from: "pregel.test.ts: MessageGraph can invoke a single message (getGraph)",
    async run(lib) {
      const drawing = messageAgent(lib).getGraph().toJSON();
      return {
        nodes: drawing.nodes.map((n: any) => n.id).sort(),
        edges: drawing.edges
          .map((e: any) => [e.source, e.target, Boolean(e.conditional), e.data ?? null])
          .sort((a: string[], b: string[]) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
      };
    },
  },

  "a MessageGraph node returning a message with an existing id replaces it; a new one is appended": {
    from: "pregel.test.ts: MessageGraph (the messages reducer)",
    async run({ MessageGraph, START, END }) {
      const app = new MessageGraph()
        .addNode("edit", () => [
          new AIMessage({ content: "edited", id: "m1" }),
          new AIMessage({ content: "new", id: "m3" }),
        ])
        .addEdge(START, "edit")
        .addEdge("edit", END)
        .compile();
      const result: BaseMessage[] = await app.invoke([
        new HumanMessage({ content: "first", id: "m1" }),
        new HumanMessage({ content: "second", id: "m2" }),
      ]);
      return result.map((m) => [m.getType(), m.content, m.id]);
    },
  },
});
