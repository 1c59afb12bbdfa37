/**
 * Public methods of LangGraph.js's classes that callers use outside a run: a builder's
 * `allEdges` and `validate()`, a compiled graph's `validate()`, `streamChannelsList`,
 * `streamChannelsAsIs` and `isInterrupted()`, a Command written as JSON, and InMemoryStore's
 * `indexConfig`.
 */
import { attempt, compare, type Runtime, thread } from "./harness.js";

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

  "a compiled graph's validate(), streamChannelsList, streamChannelsAsIs and isInterrupted()": {
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
});
