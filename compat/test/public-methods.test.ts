/**
 * Public methods of LangGraph.js's classes that callers use outside a run: a builder's
 * `allEdges` and `validate()`, a compiled graph's `validate()`, `streamChannelsList`,
 * `streamChannelsAsIs` and `isInterrupted()`, a Command written as JSON, InMemoryStore's
 * `indexConfig`, what a `StateSchema` tells about itself, and the error classes' static
 * `unminifiable_name`.
 */
import { z } from "zod";
import { attempt, channelsOf, compare, type Runtime, thread } from "./harness.js";

/** A StateSchema of each kind of field: plain, defaulted, reduced (its update a string), untracked. */
function schemaOf({ StateSchema, ReducedValue, UntrackedValue }: Runtime) {
  return new StateSchema({
    topic: z.string(),
    count: z.number().default(0),
    notes: new ReducedValue(
      z.array(z.string()).default(() => []),
      {
        inputSchema: z.string(),
        reducer: (all: string[], note: string) => [...all, note],
      },
    ),
    scratch: new UntrackedValue(z.string()),
  });
}

/** What a channel is and holds when new (or the error reading it). */
async function channelView(channel: any) {
  return { kind: channel.lc_graph_name, value: attempt(() => channel.get()) };
}

/** A state graph a -> b (b also waiting on a, as a join), built but not compiled. */
function builder({ Annotation, StateGraph, START }: Runtime) {
  const State = Annotation.Root({ a: Annotation(), b: Annotation() });
  return new StateGraph(State)
    .addNode("first", () => ({ a: 1 }))
    .addNode("second", () => ({ b: 2 }))
    .addEdge(START, "first")
    .addEdge(["first"], "second");
}

compare("public methods", {
  "a builder's allEdges and validate(): the edges as pairs, and what compile would refuse": {
    from: "graph.ts (Graph.validate, allEdges)",
    async run(lib) {
      const { Graph, START, END } = lib;
      const plain = new Graph()
        .addNode("x", (v: number) => v + 1)
        .addEdge(START, "x")
        .addEdge("x", END);
      const unreachable = builder(lib).addNode("lonely", () => ({}));
      const unknownTarget = builder(lib).addEdge("second", "nowhere");
      return {
        stateEdges: [...builder(lib).allEdges],
        plainEdges: [...plain.allEdges],
        valid: attempt(() => builder(lib).validate()),
        plainValid: attempt(() => plain.validate()),
        // The classes differ (Interlude's errors are typed); that each throws is the behaviour.
        unknownInterrupt: typeof attempt(() => builder(lib).validate(["nope"])) === "object",
        unreachable: attempt(() => unreachable.validate()),
        unknownTarget: typeof attempt(() => unknownTarget.validate()) === "object",
      };
    },
  },

  "a compiled graph's validate(), streamChannelsList, streamChannelsAsIs, isInterrupted() and lg_is_pregel": {
    from: "pregel/index.ts (validate, streamChannelsList), graph/state.ts (isInterrupted)",
    async run(lib) {
      const { interrupt, MemorySaver } = lib;
      const graph = builder(lib)
        .addNode("ask", () => ({ b: interrupt("ok?") }))
        .addEdge("second", "ask")
        .compile({ checkpointer: new MemorySaver() });
      const paused = await graph.invoke({}, thread());
      const done = await builder(lib).compile().invoke({});
      return {
        validates: graph.validate() === graph,
        list: graph.streamChannelsList,
        asIs: graph.streamChannelsAsIs,
        paused: graph.isInterrupted(paused),
        done: graph.isInterrupted(done),
        pregel: graph.lg_is_pregel,
      };
    },
  },

  "a Command written as JSON: its update, resume and goto, Sends as JSON, no graph": {
    from: "constants.ts (Command.toJSON)",
    async run({ Command, Send }) {
      return [
        JSON.stringify(new Command({ resume: { ok: true } })),
        JSON.stringify(new Command({ update: { a: 1 }, goto: ["x", new Send("y", { n: 1 })] })),
        JSON.stringify(new Command({ goto: "x", graph: Command.PARENT })),
        new Command({ goto: new Send("y", 2) }).toJSON(),
      ];
    },
  },

  "InMemoryStore's indexConfig without an index": {
    from: "store/memory.ts (indexConfig)",
    async run({ InMemoryStore }) {
      return attempt(() => new InMemoryStore().indexConfig);
    },
  },

  "a StateSchema's keys, channels and JSON Schemas (draft-07, as getJsonSchemaFromSchema gives a field's)": {
    from: "state/schema.ts (getChannels, getJsonSchema, getInputJsonSchema, getChannelKeys, getAllKeys)",
    async run(lib) {
      const schema = schemaOf(lib);
      const channels = schema.getChannels();
      const views: Record<string, unknown> = {};
      for (const [key, channel] of Object.entries(channels)) views[key] = await channelView(channel);
      return {
        keys: schema.getChannelKeys(),
        all: schema.getAllKeys(),
        channels: views,
        state: schema.getJsonSchema(),
        update: schema.getInputJsonSchema(),
        field: lib.getJsonSchemaFromSchema(z.object({ a: z.string() })),
      };
    },
  },

  "a StateSchema's validateInput: fields checked and coerced, other keys passed, a bad field refused": {
    from: "state/schema.ts (validateInput)",
    async run(lib) {
      const schema = schemaOf(lib);
      const refused = await schema.validateInput({ topic: 7 }).then(
        () => false,
        () => true,
      );
      return {
        ok: await schema.validateInput({ topic: "a", notes: "n1", extra: 1 }),
        overwrite: await schema.validateInput({ notes: new lib.Overwrite(["x"]) }),
        notObject: await schema.validateInput(null),
        refused,
      };
    },
  },
  "the error classes' unminifiable_name, and the idiom that compares an error's name with it": {
    from: "errors.ts (static unminifiable_name), channels/base.ts (isAvailable)",
    async run(lib) {
      const names = Object.fromEntries(
        ERROR_CLASSES.map((name) => [name, (lib[name] as { unminifiable_name?: string }).unminifiable_name]),
      );
      const empty = new (channelsOf(lib).LastValue)();
      let idiom: unknown;
      try {
        empty.get();
      } catch (error) {
        idiom = (error as Error).name === lib.EmptyChannelError.unminifiable_name;
      }
      return { names, idiom };
    },
  },
});

/** The error classes both runtimes export by these names. */
const ERROR_CLASSES = [
  "EmptyChannelError",
  "EmptyInputError",
  "GraphDrained",
  "GraphInterrupt",
  "GraphRecursionError",
  "GraphValueError",
  "InvalidUpdateError",
  "MultipleSubgraphsError",
  "NodeError",
  "NodeInterrupt",
  "NodeTimeoutError",
  "ParentCommand",
  "RemoteException",
  "StateGraphInputError",
  "UnknownInterruptError",
  "UnreachableNodeError",
];
