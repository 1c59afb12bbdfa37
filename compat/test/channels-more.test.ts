/**
 * The channel classes of the `/channels` entry used on their own (`LastValue`, `EphemeralValue`,
 * `Topic`, `NamedBarrierValue`, `AnyValue`, ...), as channels.test.ts checks them; what
 * constants.test.ts checks of `Overwrite`, `Command` and `Send` through their public names; the
 * run's configurable fields handed to a saver's put() (python_port/checkpoint.test.ts); the
 * Mermaid drawing of a prebuilt agent (diagrams.test.ts). Where Interlude differs, undocumented,
 * the last block holds the channel classes LangGraph.js has, used on their own, and two documented
 * differences (COMPATIBILITY.md).
 *
 * Already compared elsewhere: `BinaryOperatorAggregate`, `UntrackedValueChannel`, `DeltaChannel`
 * and `messagesDeltaReducer` on their own (delta-channels.test.ts), the other diagrams
 * (pregel-more.test.ts), tracing.test.ts (cancellation-retry-tracing.test.ts, run-control.test.ts,
 * state-checkpoint-more.test.ts), the rest of python_port/checkpoint.test.ts (time-travel,
 * state-updates, state-checkpoint-more, retries, interrupts, pregel-low-level).
 *
 * Skipped (not public): hash.test.ts (`XXH3` is not exported by any entry);
 * constants.test.ts's `_getOverwriteValue` and `_deserializeCommandSendObjectGraph` (marked
 * internal; what they do is compared through `Overwrite`, `Command` and `Send` below);
 * delta_channel.test.ts's storage helpers (`createCheckpoint`, `channelsFromCheckpoint`,
 * `exitDeltaTaskId`, ...: not provided, COMPATIBILITY.md "Import specifiers").
 */
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { ChatResult } from "@langchain/core/outputs";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { attempt, channelsOf, compare, list, prebuiltOf, pregelOf, type Runtime, thread } from "./harness.js";

/**
 * What a channel holds (a copy: LangGraph.js's Topic hands out its own list), without calling
 * `get()` on an empty one (Topic's empty `get()` is compared apart).
 */
function held(channel: any) {
  const value = channel.isAvailable() ? attempt(() => channel.get()) : "empty";
  return Array.isArray(value) ? [...value] : value;
}

/** Applies each step's writes in turn: whether the step changed the channel, and what it then holds (copied). */
function steps(channel: any, writes: unknown[][]) {
  return writes.map((step) => {
    const updated = attempt(() => channel.update(step));
    return { updated, value: held(channel) };
  });
}

/** The falsy values channels.test.ts writes to every channel class. */
const FALSY = [0, "", false, null];

/** A channel made by `make`, written `value`, then restored from its checkpoint: what both read. */
function roundTrip(make: () => any, value: unknown) {
  const channel = make();
  channel.update([value]);
  const restored = make().fromCheckpoint(channel.checkpoint());
  return { read: attempt(() => channel.get()), restored: held(restored) };
}

/** A chat model that is never called: a prebuilt agent needs one to be drawn. */
class UncalledModel extends BaseChatModel {
  _llmType() {
    return "uncalled";
  }
  override bindTools(): any {
    return this;
  }
  async _generate(): Promise<ChatResult> {
    throw new Error("not called");
  }
}

/** A two-node graph: `route` returns what `decide` gives it, `worker` logs its input. */
function routed(lib: Runtime, decide: () => unknown) {
  const { Annotation, StateGraph, START } = lib;
  return new StateGraph(Annotation.Root({ log: list(lib) }))
    .addNode("route", decide, { ends: ["worker"] })
    .addNode("worker", (arg: any) => ({ log: [arg.log === undefined ? arg : "state"] }))
    .addEdge(START, "route")
    .compile();
}

/** A class of the user's own, as constants.test.ts's TaskEnvelope. */
class TaskEnvelope {
  constructor(readonly id: string) {}
}

/** A Send argument's payload of non-plain objects. */
const envelopePayload = () => ({
  tags: new Set(["p"]),
  meta: new Map([["k", "v"]]),
  at: new Date(0),
  task: new TaskEnvelope("t"),
});

/** Whether a payload's objects kept their classes. */
const kinds = (p: any) => [
  p.tags instanceof Set,
  p.meta instanceof Map,
  p.at instanceof Date,
  p.task instanceof TaskEnvelope,
];

/** A graph that sends `send` from START; its `worker` logs what classes its payload kept. */
const sendingGraph = (lib: Runtime, send: unknown, checkpointer?: unknown) =>
  new lib.StateGraph(lib.Annotation.Root({ log: list(lib) }))
    .addNode("worker", (arg: any) => ({ log: [kinds(arg.payload)] }))
    .addConditionalEdges(lib.START, () => [send])
    .compile({ checkpointer });

compare("channel classes of the /channels entry, used on their own", {
  "LastValue: empty until written, one write per step, each step's write read back": {
    from: "channels.test.ts: should handle last value correctly",
    async run(lib) {
      const { LastValue } = channelsOf(lib);
      const channel = new LastValue();
      return {
        empty: [channel.isAvailable(), attempt(() => channel.get())],
        two: attempt(() => channel.update([5, 6])),
        steps: steps(channel, [[3], [4], []]),
      };
    },
  },

  "LastValue: restored from its checkpoint, falsy values too": {
    from: "channels.test.ts: should handle restoring from checkpoint correctly",
    async run(lib) {
      const { LastValue } = channelsOf(lib);
      return [100, ...FALSY].map((value) => roundTrip(() => new LastValue(), value));
    },
  },

  "LastValue and EphemeralValue: undefined is a value once written": {
    from: "channels.test.ts: $channel.name should handle undefined values",
    async run(lib) {
      const { LastValue, EphemeralValue } = channelsOf(lib);
      const read = (channel: any) => [attempt(() => channel.get()), ...steps(channel, [[undefined], [3], [undefined]])];
      return { last: read(new LastValue()), ephemeral: read(new EphemeralValue()) };
    },
  },

  "EphemeralValue without its guard: the last of several writes, cleared by a step without any": {
    from: "channels.test.ts: EphemeralValue with guard: false: should handle ephemeral value correctly",
    async run(lib) {
      const { EphemeralValue } = channelsOf(lib);
      const open = new EphemeralValue(false);
      return {
        empty: attempt(() => open.get()),
        steps: steps(open, [[3], [4, 5], [], []]),
        guarded: attempt(() => new EphemeralValue().update([4, 5])),
        falsy: FALSY.map((value) => roundTrip(() => new EphemeralValue(false), value)),
        restoredGuard: attempt(() => new EphemeralValue(false).fromCheckpoint(1).update([2, 3])),
      };
    },
  },

  "Topic: a step's writes replace the last step's, written lists are flattened, restored from its checkpoint": {
    from: "channels.test.ts: Topic: should handle updates and get operations",
    async run(lib) {
      const { Topic } = channelsOf(lib);
      const channel = new Topic();
      const seen = steps(channel, [["a", "b"], [["c", "d"], "d"], [], ["e"]]);
      const checkpoint = channel.checkpoint();
      return {
        seen,
        checkpoint,
        restored: held(new Topic().fromCheckpoint(checkpoint)),
        falsy: FALSY.map((value) => roundTrip(() => new Topic(), value)),
      };
    },
  },

  "Topic with unique: a value seen in any step is not added again, also after a restore": {
    from: "channels.test.ts: Topic with unique: true: should de-dupe from checkpoint",
    async run(lib) {
      const { Topic } = channelsOf(lib);
      const channel = new Topic({ unique: true });
      const seen = steps(channel, [["a", "b"], ["b", ["c", "d"], "d"], [], ["e"]]);
      const checkpoint = channel.checkpoint();
      const restored = new Topic({ unique: true }).fromCheckpoint(checkpoint);
      const flat = new Topic({ unique: true }).fromCheckpoint(["e"]);
      return {
        seen,
        checkpoint,
        restored: [held(restored), ...steps(restored, [["d", "f"]])],
        // A flat (values-only) checkpoint knows only its values: "d" is taken again.
        flat: [held(flat), ...steps(flat, [["d", "f"]])],
      };
    },
  },

  "Topic with accumulate (and unique): values kept across steps and restored": {
    from: "channels.test.ts: Topic with accumulate and unique: true: should create and use a checkpoint",
    async run(lib) {
      const { Topic } = channelsOf(lib);
      return [{ accumulate: true }, { accumulate: true, unique: true }].map((options) => {
        const channel = new Topic(options);
        const seen = steps(channel, [["a", "b"], ["b", ["c", "d"], "d"], []]);
        const restored = new Topic(options).fromCheckpoint(channel.checkpoint());
        return { seen, restored: [held(restored), ...steps(restored, [["d", "e"]])] };
      });
    },
  },

  "NamedBarrierValue: available once every name has written, consumed, restored": {
    from: "channels.test.ts (channels/named_barrier_value.ts, the join of addEdge([a, b], c))",
    async run(lib) {
      const { NamedBarrierValue } = channelsOf(lib);
      const channel = new NamedBarrierValue(new Set(["a", "b"]));
      const progress = [["a"], ["a"], ["b"]].map((step) => [channel.update(step), channel.isAvailable()]);
      const restored = new NamedBarrierValue(new Set(["a", "b"])).fromCheckpoint(channel.checkpoint());
      return {
        progress,
        checkpoint: channel.checkpoint(),
        restored: restored.isAvailable(),
        consumed: [channel.consume(), channel.isAvailable(), channel.consume()],
      };
    },
  },

  "a Pregel node joining a Topic nothing wrote, with the Topic in the output: left out of both": {
    from: "channels.test.ts: Topic: should handle updates and get operations (through Pregel)",
    async run(lib) {
      const { LastValue, Topic } = channelsOf(lib);
      const { Pregel, Channel } = pregelOf(lib);
      const node = Channel.subscribeTo(["input"])
        .join(["inbox"])
        .pipe((x: any) => Object.keys(x).sort())
        .pipe(Channel.writeTo(["output"]));
      const app = new Pregel({
        nodes: { node },
        channels: { input: new LastValue(), inbox: new Topic(), output: new LastValue() },
        inputChannels: "input",
        outputChannels: ["output", "inbox"],
      });
      return app.invoke(1);
    },
  },

  "in a Pregel: a LastValueAfterFinish trigger runs its node once the rest is done; an AnyValue takes several writes": {
    from: "channels.test.ts: LastValueAfterFinish, AnyValue (through Pregel)",
    async run(lib) {
      const { LastValue, LastValueAfterFinish, AnyValue, Topic } = channelsOf(lib);
      const { Pregel, Channel } = pregelOf(lib);
      const log = (name: string) => (x: unknown) => `${name}:${JSON.stringify(x)}`;
      const nodes = {
        first: Channel.subscribeTo("input")
          .pipe(log("first"))
          .pipe(Channel.writeTo(["log", "later", "any"])),
        second: Channel.subscribeTo("input")
          .pipe(log("second"))
          .pipe(Channel.writeTo(["any"])),
        chain: Channel.subscribeTo("any")
          .pipe(log("chain"))
          .pipe(Channel.writeTo(["log", "next"])),
        tail: Channel.subscribeTo("next")
          .pipe(log("tail"))
          .pipe(Channel.writeTo(["log"])),
        summary: Channel.subscribeTo("later")
          .pipe(log("summary"))
          .pipe(Channel.writeTo(["log"])),
      };
      const app = new Pregel({
        nodes,
        channels: {
          input: new LastValue(),
          later: new LastValueAfterFinish(),
          any: new AnyValue(),
          next: new LastValue(),
          log: new Topic({ accumulate: true }),
        },
        inputChannels: "input",
        outputChannels: ["log"],
      });
      return app.invoke(1);
    },
  },
});

compare("channel instances as a StateGraph's keys", {
  "a LastValueAfterFinish key is read once the rest of the run is done": {
    from: "channels.test.ts: LastValueAfterFinish (as a state key)",
    async run(lib) {
      const { LastValueAfterFinish } = channelsOf(lib);
      const { Annotation, StateGraph, START } = lib;
      const seen: unknown[] = [];
      const graph = new StateGraph(Annotation.Root({ log: list(lib), later: new LastValueAfterFinish() }))
        .addNode("a", () => ({ log: ["a"], later: "from a" }))
        .addNode("b", (s: any) => {
          seen.push(s.later ?? "none");
          return { log: ["b"] };
        })
        .addEdge(START, "a")
        .addEdge("a", "b")
        .compile();
      return { out: await graph.invoke({ log: [] }), seen };
    },
  },
});

/**
 * A channel class of one's own that forgets its value after two steps that did not write it:
 * it counts the empty updates each runtime sends it (`update([])`) at every step it is not written.
 */
function expiringChannel(lib: Runtime) {
  const { BaseChannel } = channelsOf(lib);
  const { EmptyChannelError } = lib;
  class Expiring extends BaseChannel {
    lc_graph_name = "Expiring";
    value: unknown = undefined;
    quiet = 0;
    fromCheckpoint(saved?: [unknown, number]) {
      const channel = new Expiring();
      if (saved) [channel.value, channel.quiet] = saved;
      return channel as any;
    }
    update(values: unknown[]) {
      if (values.length > 0) {
        this.value = values.at(-1);
        this.quiet = 0;
        return true;
      }
      if (this.value === undefined) return false;
      this.quiet += 1;
      if (this.quiet >= 2) this.value = undefined;
      return true;
    }
    get() {
      if (this.value === undefined) throw new EmptyChannelError();
      return this.value;
    }
    checkpoint() {
      return this.value === undefined ? undefined : [this.value, this.quiet];
    }
    isAvailable() {
      return this.value !== undefined;
    }
  }
  return new Expiring();
}

compare("a channel class of one's own hears of every step", {
  "as a StateGraph key, with a checkpointer: its value is gone after two steps that did not write it": {
    from: "pregel/algo.ts _applyWrites: channels not updated in a step are notified of it (update([]))",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver } = lib;
      const seen: unknown[] = [];
      const look = (name: string) => (s: any) => {
        seen.push([name, s.note ?? "gone"]);
        return { log: [name] };
      };
      const graph = new StateGraph(Annotation.Root({ log: list(lib), note: expiringChannel(lib) }))
        .addNode("write", () => ({ note: "hello", log: ["write"] }))
        .addNode("one", look("one"))
        .addNode("two", look("two"))
        .addNode("three", look("three"))
        .addEdge(START, "write")
        .addEdge("write", "one")
        .addEdge("one", "two")
        .addEdge("two", "three")
        .compile({ checkpointer: new MemorySaver() });
      const config = thread();
      const out = await graph.invoke({ log: [] }, config);
      const history = [];
      for await (const snapshot of graph.getStateHistory(config))
        history.push([snapshot.next, snapshot.values.note ?? "gone"]);
      return { out, seen, history };
    },
  },
  "in a Pregel: an actor joining it reads it until it expires": {
    from: "pregel/algo.ts _applyWrites: channels not updated in a step are notified of it (update([]))",
    async run(lib) {
      const { Pregel, Channel } = pregelOf(lib);
      const { LastValue } = channelsOf(lib);
      const seen: unknown[] = [];
      const app = new Pregel({
        nodes: {
          tick: Channel.subscribeTo("count")
            .pipe((count: number) => count + 1)
            .pipe(Channel.writeTo([], { count: (count: number) => (count <= 4 ? count : undefined) })),
          seed: Channel.subscribeTo("input")
            .pipe(() => "hello")
            .pipe(Channel.writeTo(["note"])),
          watcher: Channel.subscribeTo(["count"])
            .join(["note"])
            .pipe((s: any) => seen.push([s.count, s.note ?? "gone"])),
        },
        channels: { input: new LastValue(), count: new LastValue(), note: expiringChannel(lib) },
        inputChannels: ["input", "count"],
        outputChannels: ["count"],
      });
      return { out: await app.invoke({ input: 1, count: 0 }), seen };
    },
  },
});

compare("a low-level node triggered by one of several channels", {
  // LangGraph.js's _procInput: a channel the node subscribes to (and so is triggered by) that is
  // empty when another one triggers it means no task for that step.
  "runs only in steps where each of the channels it subscribes to holds a value": {
    from: "pregel/algo.ts _procInput: an empty trigger channel makes no task",
    async run(lib) {
      const { Pregel, Channel } = pregelOf(lib);
      const { LastValue, EphemeralValue } = channelsOf(lib);
      const seen: unknown[] = [];
      const app = new Pregel({
        nodes: {
          tick: Channel.subscribeTo("count")
            .pipe((count: number) => count + 1)
            .pipe(
              Channel.writeTo([], {
                count: (count: number) => (count <= 4 ? count : undefined),
                odd: (count: number) => (count % 2 === 1 ? count : undefined),
              }),
            ),
          watcher: Channel.subscribeTo(["count", "odd"]).pipe((s: any) => seen.push({ ...s })),
        },
        channels: { count: new LastValue(), odd: new EphemeralValue() },
        inputChannels: ["count"],
        outputChannels: ["count"],
      });
      return { out: await app.invoke({ count: 0 }), seen };
    },
  },
});

compare("joining channels to a node that reads one", {
  "Channel.subscribeTo(one channel).join([...])": {
    differs: "#refused-instead-of-ignored",
    from: "pregel/read.ts PregelNode.join",
    async run(lib) {
      const { Pregel, Channel } = pregelOf(lib);
      const { LastValue } = channelsOf(lib);
      const made = attempt(() => Channel.subscribeTo("a").join(["b"]));
      if (!(made instanceof Object) || "threw" in made) return { made };
      const app = new Pregel({
        nodes: { reader: (made as any).pipe(Channel.writeTo(["out"])) },
        channels: { a: new LastValue(), b: new LastValue(), out: new LastValue() },
        inputChannels: ["a", "b"],
        outputChannels: ["out"],
      });
      return { read: await app.invoke({ a: 1, b: 2 }) };
    },
  },
});

compare("Overwrite, Command and Send through their public names", {
  "an Overwrite's other wire forms in a node's update: JSON round trip and { type, value }": {
    from: "constants.test.ts: recognizes the discriminator form from another runtime",
    async run(lib) {
      const { Annotation, StateGraph, START, Overwrite } = lib;
      const write = (update: unknown) =>
        new StateGraph(Annotation.Root({ log: list(lib) }))
          .addNode("write", () => ({ log: update }))
          .addEdge(START, "write")
          .compile()
          .invoke({ log: ["input"] });
      return {
        jsonRoundTrip: await write(JSON.parse(JSON.stringify(new Overwrite(["b"])))),
        discriminator: await write({ type: "__overwrite__", value: ["b"] }),
        // Look-alikes are plain writes, reduced as any other.
        lookAlike: await write([{ value: ["b"] }, { type: "human", value: "hi" }]),
      };
    },
  },

  "a Send's argument keeps its Set, Map, Date and class instance, through a graph": {
    from: "constants.test.ts: preserves non-plain objects in Send args",
    async run(lib) {
      const send = new lib.Send("worker", { payload: envelopePayload() });
      const inCommand = new lib.Command({ goto: [send] }).goto[0].args.payload;
      return {
        sent: kinds(send.args.payload),
        inCommand: [inCommand.tags === send.args.payload.tags, inCommand.task === send.args.payload.task],
        ran: await sendingGraph(lib, send).invoke({ log: [] }),
      };
    },
  },

  "Command.goto is always a list": {
    from: "constants.test.ts: properly converts goto arrays in serialized Commands",
    async run({ Command, Send }) {
      const goto = (command: any) => command.goto.map((g: any) => (g instanceof Send ? ["Send", g.node] : g));
      return {
        one: goto(new Command({ goto: "next" })),
        many: goto(new Command({ goto: ["a", "b", new Send("c", { x: 1 })] })),
        none: goto(new Command({ update: { x: 1 } })),
      };
    },
  },
});

compare("checkpoint metadata and drawings", {
  // LangGraph.js's test saver merges put()'s configurable into the metadata it stores: the fields must reach it.
  "a saver's put() is handed the run's configurable fields, also across an interrupt": {
    from: "python_port/checkpoint.test.ts: verifies that a run's configurable fields are merged with checkpoint config",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver } = lib;
      const puts: unknown[] = [];
      class Recording extends MemorySaver {
        async put(config: any, checkpoint: unknown, metadata: any, ...rest: unknown[]) {
          const { thread_id, test_config_1, test_config_2 } = config.configurable;
          puts.push([metadata.source, thread_id, test_config_1 ?? null, test_config_2 ?? null]);
          return super.put(config, checkpoint, metadata, ...rest);
        }
      }
      const build = (interruptBefore?: string[]) =>
        new StateGraph(Annotation.Root({ log: list(lib) }))
          .addNode("agent", () => ({ log: ["agent"] }))
          .addNode("tools", () => ({ log: ["tools"] }))
          .addEdge(START, "agent")
          .addEdge("agent", "tools")
          .compile({ checkpointer: new Recording(), interruptBefore });
      const config = (id: string) => ({ configurable: { thread_id: id, test_config_1: "foo", test_config_2: "bar" } });
      await build().invoke({ log: [] }, config("1"));
      const paused = build(["tools"]);
      await paused.invoke({ log: [] }, config("2"));
      await paused.invoke(null, config("2"));
      // A later run without the fields: the saver is not handed those of earlier runs.
      await paused.invoke({ log: [] }, thread("2"));
      return puts;
    },
  },

  "a prebuilt agent's Mermaid drawing": {
    from: "diagrams.test.ts: prebuilt agent",
    async run(lib) {
      await lib.loadLangChain?.();
      const search = tool(async () => "result", { name: "search", schema: z.object({ query: z.string() }) });
      const agent = prebuiltOf(lib).createReactAgent({ llm: new UncalledModel({}), tools: [search] });
      return agent.getGraph().drawMermaid();
    },
  },
});

// --- Interlude differs from LangGraph.js here, undocumented -----------------------------------

compare("channels, Overwrite, Command: the rest of the /channels entry and of constants.ts", {
  // All twelve (Interlude also has AfterFinish and Trigger, which LangGraph.js has not).
  "the channel classes the /channels entry exports": {
    from: "channels.test.ts (imports of channels/index.ts)",
    async run(lib) {
      const names = [
        "AnyValue",
        "BaseChannel",
        "BinaryOperatorAggregate",
        "DeltaChannel",
        "DynamicBarrierValue",
        "EphemeralValue",
        "LastValue",
        "LastValueAfterFinish",
        "NamedBarrierValue",
        "NamedBarrierValueAfterFinish",
        "Topic",
        "UntrackedValueChannel",
      ];
      const channels = channelsOf(lib);
      return names.filter((name) => typeof channels[name] !== "function");
    },
  },

  // The last of several writes, cleared (true) then unchanged (false) by empty steps.
  "AnyValue: the last of several writes; a step without writes clears it": {
    from: "channels.test.ts: AnyValue: should return correct boolean from update()",
    async run(lib) {
      const { AnyValue } = channelsOf(lib);
      const channel = new AnyValue();
      return {
        empty: attempt(() => channel.get()),
        steps: steps(channel, [[3], [4, 5], [], [], [7], [undefined]]),
        falsy: FALSY.map((value) => roundTrip(() => new AnyValue(), value)),
      };
    },
  },

  // `new LastValue(factory)` holds factory() until written, and keeps it through fromCheckpoint.
  "LastValue with an initial value factory": {
    from: "channels.test.ts: LastValue with initialValueFactory: should initialize with default value from factory",
    async run(lib) {
      const { LastValue } = channelsOf(lib);
      let calls = 0;
      const factory = () => `value-${++calls}`;
      const channel = new LastValue(factory);
      const first = [channel.isAvailable(), attempt(() => channel.get())];
      channel.update(["updated"]);
      return {
        first,
        second: attempt(() => new LastValue(factory).get()),
        updated: channel.get(),
        restored: attempt(() => new LastValue(factory).fromCheckpoint(channel.checkpoint()).get()),
        restoredFromNothing: attempt(() => new LastValue(() => 0).fromCheckpoint(undefined).get()),
      };
    },
  },

  // LangGraph.js: get() of an empty Topic (never written, or after a step without writes) throws
  // EmptyChannelError. Interlude: returns [].
  "Topic.get() on an empty topic": {
    differs: "#an-empty-channel-read-on-its-own",
    from: "channels.test.ts: Topic: should handle updates and get operations",
    async run(lib) {
      const { Topic } = channelsOf(lib);
      const channel = new Topic();
      const fresh = attempt(() => channel.get());
      channel.update(["a"]);
      channel.update([]);
      return { fresh, cleared: attempt(() => channel.get()) };
    },
  },

  // LangGraph.js: checkpoint() of an empty LastValue, EphemeralValue or AnyValue throws
  // EmptyChannelError, of an empty Topic (or a consumed barrier) gives []. Interlude: undefined for all.
  "checkpoint() of an empty channel": {
    from: "channels.test.ts: Topic: should checkpoint an empty topic as a flat empty list",
    differs: "#an-empty-channel-read-on-its-own",
    async run(lib) {
      const { LastValue, EphemeralValue, AnyValue, Topic, NamedBarrierValue } = channelsOf(lib);
      const consumed = new NamedBarrierValue(new Set(["a"]));
      consumed.update(["a"]);
      consumed.consume();
      const empty = [new LastValue(), new EphemeralValue(), new AnyValue(), new Topic(), consumed];
      return empty.map((channel) => attempt(() => channel.checkpoint()));
    },
  },

  // Every channel class extends BaseChannel and is named by lc_graph_name.
  "the channel classes are BaseChannels, with their lc_graph_name": {
    from: "channels.test.ts: UntrackedValueChannel: should have lc_graph_name set to 'UntrackedValue'",
    async run(lib) {
      const channels = channelsOf(lib);
      const reducer = (a: unknown) => a;
      const made = {
        LastValue: new channels.LastValue(),
        EphemeralValue: new channels.EphemeralValue(),
        Topic: new channels.Topic(),
        BinaryOperatorAggregate: new channels.BinaryOperatorAggregate(reducer),
        NamedBarrierValue: new channels.NamedBarrierValue(new Set(["a"])),
        UntrackedValueChannel: new channels.UntrackedValueChannel(),
        DeltaChannel: new channels.DeltaChannel(reducer),
      };
      return Object.entries(made).map(([name, channel]) => [
        name,
        channel instanceof channels.BaseChannel,
        (channel as any).lc_graph_name ?? null,
      ]);
    },
  },

  // A BaseChannel subclass inherits equals() (identity).
  "BaseChannel gives its subclasses equals()": {
    from: "delta_channel.test.ts: equals compares reducer and snapshotFrequency (BaseChannel.equals)",
    async run(lib) {
      const { BaseChannel } = channelsOf(lib);
      class Counter extends BaseChannel {
        n = 0;
        fromCheckpoint(saved?: number) {
          const channel = new Counter();
          channel.n = saved ?? 0;
          return channel as any;
        }
        update(values: number[]) {
          this.n += values.length;
          return values.length > 0;
        }
        get() {
          return this.n;
        }
        checkpoint() {
          return this.n;
        }
      }
      const a = new Counter();
      return attempt(() => [(a as any).equals(a), (a as any).equals(new Counter())]);
    },
  },

  // get() of an incomplete barrier throws EmptyChannelError, of a complete one gives undefined; a
  // name it does not wait for is an InvalidUpdateError; consume() empties it. (Its checkpoint then
  // is in "checkpoint() of an empty channel".)
  "NamedBarrierValue: get(), a name it does not wait for, consumed": {
    from: "channels.test.ts (channels/named_barrier_value.ts)",
    async run(lib) {
      const { NamedBarrierValue } = channelsOf(lib);
      const channel = new NamedBarrierValue(new Set(["a", "b"]));
      const incomplete = attempt(() => channel.get());
      const unknown = attempt(() => channel.update(["z"]));
      channel.update(["a", "b"]);
      const complete = attempt(() => channel.get());
      return { incomplete, unknown, complete, consumed: [channel.consume(), channel.isAvailable()] };
    },
  },

  // LangGraph.js: with a checkpointer, a class instance in a state key or a Send's argument reaches
  // the next node as it is (the checkpoint keeps a plain copy). Interlude: SerializationError
  // ("register the class with registerSerializable"), at the write.
  "a class instance in a checkpointed state key, and in a Send's argument": {
    differs: "#a-class-instance-in-saved-state-is-registered",
    from: "constants.test.ts: preserves non-plain objects in Send args (with a checkpointer)",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver, Send } = lib;
      const keyed = new StateGraph(Annotation.Root({ task: Annotation(), seen: Annotation() }))
        .addNode("a", () => ({ task: new TaskEnvelope("x") }))
        .addNode("b", (s: any) => ({ seen: s.task instanceof TaskEnvelope }))
        .addEdge(START, "a")
        .addEdge("a", "b")
        .compile({ checkpointer: new MemorySaver() });
      const sent = sendingGraph(lib, new Send("worker", { payload: envelopePayload() }), new MemorySaver());
      const fail = (error: Error) => error.name;
      return {
        key: await keyed.invoke({}, thread()).then((out: any) => out.seen, fail),
        send: await sent.invoke({ log: [] }, thread()).then((out: any) => out.log, fail),
      };
    },
  },

  // Overwrite.isInstance(x) is true of an Overwrite and of its wire forms.
  "Overwrite.isInstance": {
    from: "constants.test.ts: recognizes an Overwrite instance",
    async run({ Overwrite }) {
      return attempt(() =>
        [new Overwrite(1), { __overwrite__: 1 }, { lg_name: "Overwrite" }, { value: 1 }].map(Overwrite.isInstance),
      );
    },
  },

  // isCommand() is false of a plain object that looks like a Command (it must be a class instance).
  "isCommand of a plain object with lg_name Command": {
    from: "constants.test.ts: converts serialized Command to Command objects",
    async run({ isCommand, Command }) {
      return [isCommand(new Command({ goto: "x" })), isCommand({ lg_name: "Command", goto: "x" })];
    },
  },

  // A plain { node, args } in Command.goto is made a Send (the node runs with args).
  "Command.goto with a plain { node, args }: a Send": {
    from: "constants.test.ts: converts SendInterface to Send objects",
    async run(lib) {
      const { Command, Send } = lib;
      const command = new Command({ goto: { node: "worker", args: { n: 1 } } });
      const listed = new Command({ goto: ["worker", { node: "worker", args: { n: 2 } }] });
      return {
        isSend: command.goto[0] instanceof Send,
        ran: await routed(lib, () => listed)
          .invoke({ log: [] })
          .catch((error: Error) => error.name),
      };
    },
  },
});
