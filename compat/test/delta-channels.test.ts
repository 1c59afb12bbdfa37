/**
 * Delta channels (`DeltaChannel`, `DeltaValue`, `messagesDeltaReducer`) and the channel classes
 * both runtimes export from their root (`BinaryOperatorAggregate`, `UntrackedValueChannel`), as
 * LangGraph.js's channel tests check them: the classes used on their own, and graphs whose state
 * must read the same live, after a reload by a fresh graph, at every checkpoint of history, after
 * a fork and inside a subgraph.
 *
 * LangGraph.js stores a delta channel as its writes (a full value now and then) and rebuilds it by
 * replaying them; Interlude stores values (COMPATIBILITY.md, "Shapes that differ"). So the raw
 * checkpoint layout is not compared, only what a program reads back through the graph.
 *
 * Skipped (internals, nothing a user reaches through either runtime's root or a graph):
 * delta_channel.test.ts's `checkpoint()` (always undefined there: storage), `replayWrites`,
 * `createCheckpoint`/`deltaChannelsToSnapshot`,
 * `exitDeltaTaskId`, `channelsFromCheckpoint`, `MemorySaver.getDeltaChannelHistory` (Interlude's
 * savers have none: documented), the blob checks ("does not store the full value in non-snapshot
 * checkpoint blobs", the snapshot counts, `DeltaSnapshot`) and the SqliteSaver variant (its saver
 * is not a shared export); channels.test.ts's LastValue, Topic, EphemeralValue and AnyValue
 * classes (neither root exports them: they are reached through keys, Send and joins, which
 * channels.test.ts and graph.test.ts here compare); pregel.io.test.ts's `single`, `readChannel`,
 * `mapOutputValues` and `mapOutputUpdates` (the updates stream's shape is compared in
 * streaming.test.ts; its hidden-task filter has no public way to tag a node); all of
 * pregel.read.test.ts (`PregelNode.getWriters`/`getNode`).
 */
import type { BaseMessage } from "@langchain/core/messages";
import { afterAll, beforeAll, describe } from "vitest";
import { z } from "zod";
import { attempt, collect, compare, type Runtime, thread } from "./harness.js";

/** LangGraph.js's test reducer: every write of a step is a list, appended in order. */
const listReducer = (state: unknown[], writes: unknown[][]) => [...state, ...writes.flat()];

const contents = (messages: BaseMessage[]) => messages.map((m) => m.content);
const messagesModule = () => import("@langchain/core/messages");

/** `pick` of every checkpoint's values, newest first: each one must read as LangGraph.js rebuilds it. */
async function history(graph: any, config: object, pick: (values: any) => unknown) {
  const out: unknown[] = [];
  for await (const snapshot of graph.getStateHistory(config)) out.push(pick(snapshot.values));
  return out;
}

/** A state of one `messages` DeltaChannel folded by `messagesDeltaReducer`. */
const messagesState = (lib: Runtime, options?: object) =>
  lib.Annotation.Root({ messages: new lib.DeltaChannel(lib.messagesDeltaReducer, options) });

/** A chat graph whose node answers each turn with "reply <n>" (an AIMessage without an id). */
function chatGraph(lib: Runtime, saver: unknown, options?: object) {
  const { StateGraph, START, END } = lib;
  let turn = 0;
  return new StateGraph(messagesState(lib, options))
    .addNode("chat", async () => {
      const { AIMessage } = await messagesModule();
      turn += 1;
      return { messages: [new AIMessage({ content: `reply ${turn}` })] };
    })
    .addEdge(START, "chat")
    .addEdge("chat", END)
    .compile({ checkpointer: saver });
}

/** LangGraph.js's DeltaValue test state: a list of strings, each write one string. */
const itemsState = ({ StateSchema, DeltaValue }: Runtime) =>
  new StateSchema({
    items: new DeltaValue(
      z.array(z.string()).default(() => []),
      { inputSchema: z.string(), reducer: (current: string[], writes: string[]) => [...current, ...writes] },
    ),
  });

/** LangGraph.js's Overwrite-parity graph: a, then b (Overwrite ["b"]) beside c ["c"], then d ["d"] when given. */
function overwriteFanOut(lib: Runtime, saver: unknown, withD: boolean) {
  const { Annotation, StateGraph, START, END, DeltaChannel, Overwrite } = lib;
  const graph = new StateGraph(Annotation.Root({ messages: new DeltaChannel(listReducer) }))
    .addNode("a", () => ({ messages: ["a"] }))
    .addNode("b", () => ({ messages: new Overwrite(["b"]) }))
    .addNode("c", () => ({ messages: ["c"] }))
    .addEdge(START, "a")
    .addEdge("a", "b")
    .addEdge("a", "c");
  if (withD)
    graph
      .addNode("d", () => ({ messages: ["d"] }))
      .addEdge("b", "d")
      .addEdge("c", "d");
  else graph.addEdge("b", END).addEdge("c", END);
  return graph.compile({ checkpointer: saver });
}

compare("delta channels", {
  // --- DeltaChannel on its own (a root export of both) ---

  "DeltaChannel refuses a snapshotFrequency that is not a positive integer": {
    from: "delta_channel.test.ts: rejects a non-positive snapshotFrequency",
    async run({ DeltaChannel }) {
      // Error classes differ by design where both refuse (COMPATIBILITY.md, "Shapes that differ").
      return [0, -1, 1.5, 1, 7].map((snapshotFrequency) => {
        try {
          return new DeltaChannel(listReducer, { snapshotFrequency }).snapshotFrequency;
        } catch (error) {
          return { refused: error instanceof Error };
        }
      });
    },
  },

  "a new DeltaChannel is empty until written": {
    from: "delta_channel.test.ts: update applies the batch reducer",
    async run({ DeltaChannel }) {
      const channel = new DeltaChannel(listReducer);
      return { available: channel.isAvailable(), read: attempt(() => channel.get()) };
    },
  },

  "DeltaChannel.update folds a step's writes in one call; an empty update changes nothing": {
    from: "delta_channel.test.ts: update returns false for empty values",
    async run({ DeltaChannel }) {
      const calls: number[] = [];
      const channel = new DeltaChannel((state: number[], writes: number[][]) => {
        calls.push(writes.length);
        return listReducer(state, writes);
      });
      const first = channel.update([[1, 2], [3]]);
      const afterFirst = channel.get();
      const second = channel.update([[4]]);
      const empty = channel.update([]);
      return { first, afterFirst, second, empty, value: channel.get(), available: channel.isAvailable(), calls };
    },
  },

  "DeltaChannel.fromCheckpoint: nothing stored gives the initial value, a stored value is kept": {
    from: "delta_channel.test.ts: fromCheckpoint restores from MISSING, DeltaSnapshot, and plain value",
    async run({ DeltaChannel }) {
      // The DeltaSnapshot case is skipped: that class comes from @langchain/langgraph-checkpoint.
      const spec = new DeltaChannel(listReducer, { snapshotFrequency: 3 });
      const seeded = new DeltaChannel(listReducer, { initialValueFactory: () => ["seed"] });
      const fromPlain = spec.fromCheckpoint([9, 8]);
      fromPlain.update([[7]]);
      return {
        missing: spec.fromCheckpoint(undefined).get(),
        missingSeeded: seeded.fromCheckpoint(undefined).get(),
        plainThenUpdated: fromPlain.get(),
        keepsFrequency: fromPlain.snapshotFrequency,
      };
    },
  },

  "DeltaChannel.update: an Overwrite wins the whole step in any order; two are refused": {
    from: "delta_channel.test.ts: update: Overwrite result is independent of intra-step order",
    async run({ DeltaChannel, Overwrite }) {
      const after = (writes: unknown[]) => {
        const channel = new DeltaChannel(listReducer).fromCheckpoint([100]);
        channel.update(writes);
        return channel.get();
      };
      return {
        orders: [
          [[1], { __overwrite__: [50] }, [4]],
          [{ __overwrite__: [50] }, [1], [4]],
          [[1], [4], new Overwrite([50])],
        ].map(after),
        // An Overwrite of null resets to the initial value.
        toNull: after([new Overwrite(null)]),
        two: attempt(() => after([{ __overwrite__: [1] }, new Overwrite([2])])),
      };
    },
  },

  "one DeltaChannel key in the state and input schemas: equal channels only": {
    from: "delta_channel.test.ts: equals compares reducer and snapshotFrequency",
    async run({ Annotation, StateGraph, START, DeltaChannel }) {
      // `equals` is what StateGraph asks when a key is declared twice: the user-visible part.
      const declare = (input: unknown) => {
        try {
          new StateGraph({
            state: Annotation.Root({ log: new DeltaChannel(listReducer) }),
            input: Annotation.Root({ log: input }),
          })
            .addNode("x", () => ({ log: ["x"] }))
            .addEdge(START, "x")
            .compile();
          return "compiled";
        } catch (error) {
          return { refused: error instanceof Error };
        }
      };
      return {
        sameReducer: declare(new DeltaChannel(listReducer)),
        otherFrequency: declare(new DeltaChannel(listReducer, { snapshotFrequency: 5 })),
        otherReducer: declare(new DeltaChannel((s: unknown[], w: unknown[][]) => listReducer(s, w))),
      };
    },
  },

  // --- messagesDeltaReducer called directly (a root export of both) ---

  "messagesDeltaReducer appends, replaces by id, and gives the same in one batch or two": {
    from: "delta_channel.test.ts: appends, dedups by id and is batching-invariant",
    async run({ messagesDeltaReducer }) {
      const { AIMessage, HumanMessage } = await messagesModule();
      const m1 = new HumanMessage({ id: "1", content: "a" });
      const m2 = new AIMessage({ id: "2", content: "b" });
      const m2b = new AIMessage({ id: "2", content: "b-updated" });
      const shape = (ms: BaseMessage[]) => ms.map((m) => [m.id, m.content]);
      return {
        once: shape(messagesDeltaReducer([], [[m1], [m2], [m2b]])),
        split: shape(messagesDeltaReducer(messagesDeltaReducer([], [[m1], [m2]]), [[m2b]])),
        // A write that is one message, not a list, counts as one.
        flattened: shape(messagesDeltaReducer([], [[m1, m2], m2b])),
      };
    },
  },

  "messagesDeltaReducer: RemoveMessage by id, and REMOVE_ALL_MESSAGES clears what came before it": {
    from: "delta_channel.test.ts: is batching-invariant across the REMOVE_ALL_MESSAGES sentinel",
    async run({ messagesDeltaReducer, REMOVE_ALL_MESSAGES }) {
      const { AIMessage, HumanMessage, RemoveMessage } = await messagesModule();
      const m1 = new HumanMessage({ id: "1", content: "a" });
      const m2 = new AIMessage({ id: "2", content: "b" });
      const m3 = new HumanMessage({ id: "3", content: "c" });
      const all = () => new RemoveMessage({ id: REMOVE_ALL_MESSAGES });
      const ids = (ms: BaseMessage[]) => ms.map((m) => m.id);
      const writes = [[m1], [all()], [m2], [m3]];
      return {
        byId: ids(messagesDeltaReducer([m1, m2], [[new RemoveMessage({ id: "1" })]])),
        unknownId: ids(messagesDeltaReducer([m1], [[new RemoveMessage({ id: "nope" })]])),
        clearAll: ids(messagesDeltaReducer([m1, m2], [[all()]])),
        keepsAfter: ids(messagesDeltaReducer([m1, m2], [[all(), m3]])),
        clearsSameBatch: ids(messagesDeltaReducer([m1], [[m2, all(), m3]])),
        once: ids(messagesDeltaReducer([], writes)),
        split: ids(messagesDeltaReducer(messagesDeltaReducer([], writes.slice(0, 2)), writes.slice(2))),
      };
    },
  },

  "messagesDeltaReducer turns strings and stored message objects into messages": {
    from: "delta_channel.test.ts: coerces raw string writes to typed messages (#7680)",
    async run(lib) {
      const { AIMessage, BaseMessage } = await messagesModule();
      // Interlude coerces message-likes with @langchain/core, loaded on demand outside a graph.
      await lib.loadLangChain?.();
      // Ids are left out: a direct call gives an id-less message one only in Interlude (documented).
      const shape = (ms: BaseMessage[]) => ms.map((m) => [BaseMessage.isInstance(m), m.getType(), m.content]);
      const stored = [{ type: "human", content: "old", id: "x" }];
      return {
        strings: shape(lib.messagesDeltaReducer([], ["hello", "there"])),
        storedState: shape(lib.messagesDeltaReducer(stored, [[new AIMessage({ id: "y", content: "new" })]])),
        storedIds: lib.messagesDeltaReducer(stored, []).map((m: BaseMessage) => m.id),
      };
    },
  },

  // --- DeltaChannel in graphs: live, reloaded, and at every checkpoint ---

  "messages accumulate over four turns, for each durability, at every checkpoint": {
    from: "delta_channel.test.ts: reconstructs accumulated messages across turns (durability=sync, no snapshots)",
    async run(lib) {
      const { HumanMessage } = await messagesModule();
      const out: Record<string, unknown> = {};
      for (const durability of ["async", "sync", "exit"]) {
        const graph = chatGraph(lib, new lib.MemorySaver(), { snapshotFrequency: 1000 });
        const config = { ...thread(), durability };
        for (let i = 0; i < 4; i += 1) await graph.invoke({ messages: [new HumanMessage(`hi ${i}`)] }, config);
        out[durability] = {
          state: contents((await graph.getState(config)).values.messages),
          // The history of "exit" has a scenario of its own, below.
          history: durability === "exit" ? null : await history(graph, config, (v) => contents(v.messages ?? [])),
        };
      }
      return out;
    },
  },

  "durability exit: the history of a delta key, one checkpoint per run": {
    from: "delta_channel.test.ts: reconstructs accumulated messages across turns (durability=exit, no snapshots)",
    differs: "#no-placeholder-checkpoint-for-delta-writes-under-durability-exit",
    async run(lib) {
      const { HumanMessage } = await messagesModule();
      const graph = chatGraph(lib, new lib.MemorySaver(), { snapshotFrequency: 1000 });
      const config = { ...thread(), durability: "exit" };
      for (let i = 0; i < 4; i += 1) await graph.invoke({ messages: [new HumanMessage(`hi ${i}`)] }, config);
      const out: unknown[] = [];
      for await (const { values, metadata } of graph.getStateHistory(config))
        out.push([metadata.source, metadata.step, contents(values.messages ?? [])]);
      return out;
    },
  },

  "snapshotFrequency 2: six turns read the same, now and at every checkpoint": {
    from: "delta_channel.test.ts: writes periodic snapshots and bounds replay depth",
    async run(lib) {
      const { HumanMessage } = await messagesModule();
      const graph = chatGraph(lib, new lib.MemorySaver(), { snapshotFrequency: 2 });
      const config = thread();
      for (let i = 0; i < 6; i += 1) await graph.invoke({ messages: [new HumanMessage(`hi ${i}`)] }, config);
      return {
        state: contents((await graph.getState(config)).values.messages),
        history: await history(graph, config, (v) => (v.messages ?? []).length),
      };
    },
  },

  "a fresh graph over the same saver reads the same messages, with the ids given live": {
    from: "delta_channel.test.ts: reconstructs from a fresh graph instance (cold read)",
    async run(lib) {
      const { HumanMessage } = await messagesModule();
      const saver = new lib.MemorySaver();
      const config = thread("cold");
      await chatGraph(lib, saver).invoke({ messages: [new HumanMessage("first")] }, config);
      const live = await chatGraph(lib, saver).invoke({ messages: [new HumanMessage("second")] }, config);
      const fresh = chatGraph(lib, saver);
      const [one, two] = [await fresh.getState(config), await fresh.getState(config)];
      const ids = (ms: BaseMessage[]) => ms.map((m) => m.id);
      return {
        contents: contents(one.values.messages),
        idsAreStrings: ids(one.values.messages).every((id) => typeof id === "string"),
        stableAcrossReads: JSON.stringify(ids(one.values.messages)) === JSON.stringify(ids(two.values.messages)),
        sameAsLive: JSON.stringify(ids(one.values.messages)) === JSON.stringify(ids(live.messages)),
      };
    },
  },

  "a plain write beside an Overwrite: the Overwrite wins, live and on reload": {
    from: "delta_channel.test.ts: reconstructs concurrent plain + Overwrite writes consistently with live",
    async run(lib) {
      const { StateGraph, START, END, MemorySaver, Overwrite } = lib;
      const { AIMessage, HumanMessage } = await messagesModule();
      const makeGraph = (saver: unknown) =>
        new StateGraph(messagesState(lib))
          .addNode("plain", () => ({ messages: [new AIMessage({ id: "plain-msg", content: "plain" })] }))
          .addNode("reset", () => ({ messages: new Overwrite([new AIMessage({ id: "over-msg", content: "over" })]) }))
          .addEdge(START, "plain")
          .addEdge(START, "reset")
          .addEdge("plain", END)
          .addEdge("reset", END)
          .compile({ checkpointer: saver });
      // Fresh threads, as LangGraph.js's test, against a lucky task order.
      const runs = [];
      for (let i = 0; i < 4; i += 1) {
        const saver = new MemorySaver();
        const config = thread(`fanin-${i}`);
        const live = await makeGraph(saver).invoke(
          { messages: [new HumanMessage({ id: "start-msg", content: "start" })] },
          config,
        );
        const cold = await makeGraph(saver).getState(config);
        runs.push({
          live: contents(live.messages),
          cold: contents(cold.values.messages),
          history: await history(makeGraph(saver), config, (v) => contents(v.messages ?? [])),
        });
      }
      return runs;
    },
  },

  "a sequential Overwrite drops all earlier history, live and on reload": {
    from: "delta_channel.test.ts: sequential Overwrite bypasses the whole prior history",
    async run({ Annotation, StateGraph, START, END, MemorySaver, DeltaChannel, Overwrite }) {
      const graph = new StateGraph(Annotation.Root({ messages: new DeltaChannel(listReducer) }))
        .addNode("a", () => ({ messages: ["a"] }))
        .addNode("b", () => ({ messages: new Overwrite(["b"]) }))
        .addEdge(START, "a")
        .addEdge("a", "b")
        .addEdge("b", END)
        .compile({ checkpointer: new MemorySaver() });
      const config = thread("seq");
      const live = await graph.invoke({ messages: ["START"] }, config);
      return {
        live: live.messages,
        cold: (await graph.getState(config)).values.messages,
        history: await history(graph, config, (v) => v.messages),
      };
    },
  },

  "a parallel Overwrite wins its step and a later append stays, live and on reload": {
    from: "delta_channel.test.ts: parallel Overwrite + plain wins its super-step; reload == live",
    async run(lib) {
      const saver = new lib.MemorySaver();
      const config = thread("par");
      const live = await overwriteFanOut(lib, saver, true).invoke({ messages: ["START"] }, config);
      const fresh = overwriteFanOut(lib, saver, true);
      return {
        live: live.messages,
        cold: (await fresh.getState(config)).values.messages,
        history: await history(fresh, config, (v) => v.messages),
      };
    },
  },

  "after an Overwrite beside a plain write, a later write appends to the overwritten value": {
    from: "delta_channel.test.ts: force-snapshots a channel that saw an Overwrite (snapshot supersteps)",
    async run(lib) {
      // The forced snapshot itself is storage; what it guarantees is the value read back afterwards.
      const saver = new lib.MemorySaver();
      const config = thread("snap-ow");
      const live = await overwriteFanOut(lib, saver, false).invoke({ messages: ["START"] }, config);
      const cold = (await overwriteFanOut(lib, saver, false).getState(config)).values.messages;
      await overwriteFanOut(lib, saver, false).updateState(config, { messages: ["more"] }, "c");
      const next = (await overwriteFanOut(lib, saver, false).getState(config)).values.messages;
      return { live: live.messages, cold, next };
    },
  },

  "two Overwrites of a DeltaChannel in one step are refused; the checkpoints stop at the step before": {
    from: "delta_channel.test.ts: two concurrent Overwrites in one super-step throw",
    async run({ Annotation, StateGraph, START, END, MemorySaver, DeltaChannel, Overwrite }) {
      const graph = new StateGraph(Annotation.Root({ messages: new DeltaChannel(listReducer) }))
        .addNode("a", () => ({ messages: ["a"] }))
        .addNode("b", () => ({ messages: new Overwrite(["b"]) }))
        .addNode("c", () => ({ messages: new Overwrite(["c"]) }))
        .addEdge(START, "a")
        .addEdge("a", "b")
        .addEdge("a", "c")
        .addEdge("b", END)
        .addEdge("c", END)
        .compile({ checkpointer: new MemorySaver() });
      const config = thread("par-err");
      const failed = (promise: Promise<unknown>) =>
        promise.then(
          () => "no error",
          (e: Error) => e.name,
        );
      return {
        run: await failed(graph.invoke({ messages: ["START"] }, config)),
        // Both apply the finished tasks' writes to show the state, and meet the same two Overwrites.
        getState: await failed(graph.getState(config)),
        history: await history(graph, config, (v) => v.messages),
      };
    },
  },

  "durability exit: an Overwrite keeps the appends of later steps on reload": {
    from: "delta_channel.test.ts: exit durability: an Overwrite keeps later-superstep appends on reload",
    async run({ Annotation, StateGraph, START, END, MemorySaver, DeltaChannel, Overwrite }) {
      const saver = new MemorySaver();
      const makeGraph = () =>
        new StateGraph(Annotation.Root({ messages: new DeltaChannel(listReducer) }))
          .addNode("a", () => ({ messages: new Overwrite(["x"]) }))
          .addNode("b", () => ({ messages: ["y"] }))
          .addEdge(START, "a")
          .addEdge("a", "b")
          .addEdge("b", END)
          .compile({ checkpointer: saver });
      const config = { ...thread("exit-ow"), durability: "exit" };
      const live = await makeGraph().invoke({ messages: ["start"] }, config);
      const fresh = makeGraph();
      return {
        live: live.messages,
        cold: (await fresh.getState(config)).values.messages,
        history: await history(fresh, config, (v) => v.messages ?? null),
      };
    },
  },

  "a delta key nobody writes reads as its initial value, in the result and the checkpoint": {
    from: "delta_channel.test.ts: fromCheckpoint restores from MISSING, DeltaSnapshot, and plain value",
    async run({ Annotation, StateGraph, START, MemorySaver, DeltaChannel }) {
      const graph = new StateGraph(
        Annotation.Root({
          log: new DeltaChannel(listReducer),
          seeded: new DeltaChannel(listReducer, { initialValueFactory: () => ["seed"] }),
          other: Annotation(),
        }),
      )
        .addNode("x", () => ({ other: "x" }))
        .addEdge(START, "x")
        .compile({ checkpointer: new MemorySaver() });
      const config = thread();
      const result = await graph.invoke({}, config);
      return { result, state: (await graph.getState(config)).values };
    },
  },

  // --- history, forks, resume and subgraphs: a delta key read where LangGraph.js walks ancestors ---

  "invoke from an older checkpoint forks: the delta key goes on from that checkpoint's value": {
    from: "delta_channel.test.ts: walks ancestors collecting writes oldest→newest with a snapshot seed",
    async run({ Annotation, StateGraph, START, MemorySaver, DeltaChannel }) {
      const graph = new StateGraph(Annotation.Root({ log: new DeltaChannel(listReducer) }))
        .addNode("one", () => ({ log: ["one"] }))
        .addNode("two", () => ({ log: ["two"] }))
        .addEdge(START, "one")
        .addEdge("one", "two")
        .compile({ checkpointer: new MemorySaver() });
      const config = thread();
      await graph.invoke({ log: ["first"] }, config);
      await graph.invoke({ log: ["second"] }, config);
      // The checkpoint of the second run before "two": its value comes from both runs' writes.
      const snapshots = [];
      for await (const snapshot of graph.getStateHistory(config)) snapshots.push(snapshot);
      const beforeTwo = snapshots.find((s) => s.next[0] === "two");
      const forked = await graph.invoke(null, beforeTwo.config);
      const edited = await graph.updateState(beforeTwo.config, { log: ["edit"] });
      return {
        atFork: beforeTwo.values.log,
        forked: forked.log,
        edited: (await graph.getState(edited)).values.log,
        latest: (await graph.getState(config)).values.log,
        history: await history(graph, config, (v) => v.log),
      };
    },
  },

  "an interrupt beside a delta write: the finished sibling's write is kept, not run again": {
    from: "delta_channel.test.ts: reconstructs from a fresh graph instance (cold read)",
    async run({ Annotation, StateGraph, START, MemorySaver, DeltaChannel, Command, interrupt }) {
      let plainRuns = 0;
      const makeGraph = (saver: unknown) =>
        new StateGraph(Annotation.Root({ log: new DeltaChannel(listReducer) }))
          .addNode("plain", () => {
            plainRuns += 1;
            return { log: ["plain"] };
          })
          .addNode("ask", () => ({ log: [`answer ${interrupt("?")}`] }))
          .addEdge(START, "plain")
          .addEdge(START, "ask")
          .compile({ checkpointer: saver });
      const saver = new MemorySaver();
      const config = thread();
      await makeGraph(saver).invoke({ log: ["in"] }, config);
      const paused = await makeGraph(saver).getState(config);
      // Resumed by a fresh graph: the pending write of "plain" comes from the saver.
      const done = await makeGraph(saver).invoke(new Command({ resume: "yes" }), config);
      return { paused: [paused.values.log, paused.next], done: done.log, plainRuns };
    },
  },

  "a subgraph with a delta key: its own state and the parent's, live and after a question": {
    from: "delta_channel.test.ts: reconstructs from a fresh graph instance (cold read)",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver, DeltaChannel, Command, interrupt } = lib;
      const State = Annotation.Root({ log: new DeltaChannel(listReducer) });
      const child = new StateGraph(State)
        .addNode("inner", () => ({ log: ["inner"] }))
        .addNode("ask", () => ({ log: [`answer ${interrupt("?")}`] }))
        .addEdge(START, "inner")
        .addEdge("inner", "ask")
        .compile();
      const graph = new StateGraph(State)
        .addNode("before", () => ({ log: ["before"] }))
        .addNode("child", child)
        .addNode("after", () => ({ log: ["after"] }))
        .addEdge(START, "before")
        .addEdge("before", "child")
        .addEdge("child", "after")
        .compile({ checkpointer: new MemorySaver() });
      const config = thread();
      await graph.invoke({ log: ["in"] }, config);
      const paused = await graph.getState(config, { subgraphs: true });
      const done = await graph.invoke(new Command({ resume: "yes" }), config);
      return {
        parent: paused.values.log,
        child: paused.tasks.map((t: any) => [t.name, t.state?.values?.log, t.state?.next]),
        done: done.log,
        history: await history(graph, config, (v) => v.log),
      };
    },
  },

  "DeltaValue in a StateSchema: writes of another type than the value, a fresh graph reads it back": {
    from: "state/values/delta.test.ts: should reconstruct accumulated state from a checkpointer",
    async run(lib) {
      const { StateGraph, START, END, MemorySaver } = lib;
      const State = itemsState(lib);
      const saver = new MemorySaver();
      const makeGraph = () =>
        new StateGraph(State)
          .addNode("step", (s: any) => ({ items: `n${s.items.length}` }))
          .addEdge(START, "step")
          .addEdge("step", END)
          .compile({ checkpointer: saver });
      const config = thread();
      await makeGraph().invoke({ items: "a" }, config);
      const second = await makeGraph().invoke({ items: "b" }, config);
      const refused = await makeGraph()
        .invoke({ items: ["not", "a", "string"] }, thread("other"))
        .then(
          () => "ran",
          (error: Error) => error instanceof Error,
        );
      return { second: second.items, cold: (await makeGraph().getState(config)).values.items, refused };
    },
  },

  "an Overwrite of a DeltaValue carries a value, not a write": {
    from: "state/values/delta.test.ts: should apply an Overwrite as a hard reset",
    async run(lib) {
      const { StateGraph, START, Overwrite } = lib;
      const result = await new StateGraph(itemsState(lib))
        .addNode("reset", () => ({ items: new Overwrite(["fresh"]) }))
        .addEdge(START, "reset")
        .compile()
        .invoke({ items: "dropped" });
      return result.items;
    },
  },

  // --- the other channel classes both roots export, used on their own ---

  "BinaryOperatorAggregate on its own: folds each update, checkpoints, restores": {
    from: "channels.test.ts: should handle checkpointing correctly",
    async run({ BinaryOperatorAggregate }) {
      const channel = new BinaryOperatorAggregate(
        (a: number, b: number) => a + b,
        () => 0,
      );
      const start = channel.get();
      channel.update([1, 2, 3]);
      const six = channel.get();
      channel.update([4]);
      const saved = channel.checkpoint();
      // The stored value wins over the restoring channel's own initial value.
      const restored = new BinaryOperatorAggregate(
        (a: number, b: number) => a + b,
        () => 99,
      ).fromCheckpoint(saved);
      restored.update([5]);
      const empty = channel.update([]);
      return { start, six, saved, restored: restored.get(), empty };
    },
  },

  "BinaryOperatorAggregate on its own: an Overwrite bypasses the reducer": {
    from: "channels.test.ts: should bypass the reducer when Overwrite is used",
    async run({ BinaryOperatorAggregate, Overwrite }) {
      let calls = 0;
      const sum = () =>
        new BinaryOperatorAggregate(
          (a: number, b: number) => {
            calls += 1;
            return a + b;
          },
          () => 0,
        );
      const after = (channel: any, ...steps: unknown[][]) => {
        for (const step of steps) channel.update(step);
        return channel.get();
      };
      const list = new BinaryOperatorAggregate(
        (a: string[], b: string) => [...a, b],
        () => [],
      );
      const result = {
        instance: after(sum(), [5], [new Overwrite(100)]),
        wireForm: after(sum(), [5], [{ __overwrite__: 100 }]),
        laterIgnored: after(sum(), [5], [new Overwrite(100), 50]),
        earlierThenOverwrite: after(sum(), [10, new Overwrite(42)]),
        firstValue: after(sum().fromCheckpoint(undefined), [new Overwrite(42)]),
        emptyList: after(list, ["a"], [new Overwrite([])]),
        otherTypes: after(list, ["hello"], ["world"], [new Overwrite(["replaced"])]),
        restoredThenAdded: after(sum().fromCheckpoint(after(sum(), [1, 2, 3], [new Overwrite(100)])), [5]),
        two: attempt(() => after(sum(), [new Overwrite(10), new Overwrite(20)])),
      };
      return { ...result, reducerCalls: calls };
    },
  },

  "a BinaryOperatorAggregate without an initial value is empty until written": {
    from: "channels.test.ts: should handle binary operator aggregation correctly",
    async run({ BinaryOperatorAggregate }) {
      const channel = new BinaryOperatorAggregate((a: number, b: number) => a + b);
      const before = { available: channel.isAvailable(), read: attempt(() => channel.get()) };
      channel.update([3, 4]);
      return { before, after: [channel.isAvailable(), channel.get()] };
    },
  },

  "UntrackedValueChannel on its own: last value, guard, initial value, nothing checkpointed": {
    from: "channels.test.ts: should use initialValueFactory when restored from checkpoint",
    async run({ UntrackedValueChannel }) {
      const channel = new UntrackedValueChannel();
      const seen = [0, "", false, null, undefined].map((value) => {
        channel.update([value]);
        return { value: channel.get() ?? String(channel.get()), available: channel.isAvailable() };
      });
      channel.update([42]);
      const withDefault = new UntrackedValueChannel({ initialValueFactory: () => ({ count: 0 }) });
      const fromDefault = withDefault.get();
      withDefault.update([{ count: 5 }]);
      return {
        seen,
        checkpoint: String(channel.checkpoint()),
        guarded: attempt(() => new UntrackedValueChannel().update([1, 2])),
        guardedTrue: attempt(() => new UntrackedValueChannel({ guard: true }).update([1, 2])),
        open: attempt(() => {
          const open = new UntrackedValueChannel({ guard: false });
          open.update([1, 2, 3]);
          return open.get();
        }),
        fromDefault,
        updated: withDefault.get(),
        restoredDefault: withDefault.fromCheckpoint(withDefault.checkpoint()).get(),
      };
    },
  },

  "UntrackedValueChannel is empty until written, and again once restored": {
    from: "channels.test.ts: should reset to empty when restored from checkpoint",
    async run({ UntrackedValueChannel }) {
      const channel = new UntrackedValueChannel();
      const before = { available: channel.isAvailable(), read: attempt(() => channel.get()) };
      channel.update([42]);
      const restored = channel.fromCheckpoint(channel.checkpoint());
      return { before, restored: { available: restored.isAvailable(), read: attempt(() => restored.get()) } };
    },
  },

  "UntrackedValueChannel is named UntrackedValue": {
    from: "channels.test.ts: should have lc_graph_name set to 'UntrackedValue'",
    async run({ UntrackedValueChannel }) {
      return new UntrackedValueChannel().lc_graph_name ?? "none";
    },
  },

  // --- what channels.test.ts and pregel.io.test.ts check, seen through a graph ---

  "plain keys: null is kept through a checkpoint, undefined leaves the key out": {
    from: "channels.test.ts: $channel.name should handle undefined values",
    async run({ Annotation, StateGraph, START, MemorySaver }) {
      const State = Annotation.Root({ gone: Annotation(), nil: Annotation(), zero: Annotation() });
      const graph = new StateGraph(State)
        .addNode("write", () => ({ gone: undefined, nil: null, zero: 0 }))
        .addNode("read", (s: any) => ({ zero: Object.keys(s).sort().length }))
        .addEdge(START, "write")
        .addEdge("write", "read")
        .compile({ checkpointer: new MemorySaver() });
      const config = thread();
      const steps = await collect(await graph.stream({ gone: "x", nil: "y" }, { ...config, streamMode: "values" }));
      const state = await graph.getState(config);
      return { steps, state: state.values, keys: Object.keys(state.values).sort() };
    },
  },

  "a plain key's default: there before any write, replaced by one, the stored value wins": {
    from: "channels.test.ts: should preserve initialValueFactory in checkpoint restoration",
    async run({ Annotation, StateGraph, START, MemorySaver }) {
      const State = Annotation.Root({
        label: Annotation({ reducer: (_a: string, b: string) => b, default: () => "default-value" }),
        zero: Annotation({ reducer: (_a: number, b: number) => b, default: () => 0 }),
        flag: Annotation({ reducer: (_a: boolean, b: boolean) => b, default: () => false }),
        seen: Annotation(),
      });
      const graph = new StateGraph(State)
        .addNode("look", (s: any) => ({ seen: [s.label, s.zero, s.flag] }))
        .addNode("set", () => ({ label: "updated-value" }))
        .addEdge(START, "look")
        .addEdge("look", "set")
        .compile({ checkpointer: new MemorySaver() });
      const config = thread();
      const first = await graph.invoke({}, config);
      const second = await graph.invoke({}, config);
      return { first, second };
    },
  },

  "input that is not an object is refused": {
    from: "pregel.io.test.ts: should throw an error if an invalid chunk type is provided",
    async run({ Annotation, StateGraph, START }) {
      const graph = new StateGraph(Annotation.Root({ a: Annotation() }))
        .addNode("x", () => ({ a: 1 }))
        .addEdge(START, "x")
        .compile();
      const refused = async (input: unknown) =>
        graph.invoke(input).then(
          () => "ran",
          (error: Error) => error.name,
        );
      return { array: await refused(["array", "of", "chunks"]), text: await refused("chunk") };
    },
  },

  "the result and values stream leave out keys no node wrote": {
    from: "pregel.io.test.ts: should return multiple channel values",
    async run({ Annotation, StateGraph, START }) {
      const State = Annotation.Root({ one: Annotation(), two: Annotation(), never: Annotation() });
      const graph = new StateGraph(State)
        .addNode("x", () => ({ two: 4 }))
        .addEdge(START, "x")
        .compile();
      const values = await collect(await graph.stream({ one: 3 }, { streamMode: "values" }));
      return { values, result: await graph.invoke({ one: 3 }) };
    },
  },
});

// LangGraph.js snapshots a delta channel at least every LANGGRAPH_DELTA_MAX_SUPERSTEPS_SINCE_SNAPSHOT
// steps (read lazily); Interlude has no such bound and ignores it. A bound of 2 makes LangGraph.js
// rebuild from forced snapshots: the values must not change.
describe("with LangGraph.js's superstep bound at 2", () => {
  const ENV = "LANGGRAPH_DELTA_MAX_SUPERSTEPS_SINCE_SNAPSHOT";
  const previous = process.env[ENV];
  beforeAll(() => {
    process.env[ENV] = "2";
  });
  afterAll(() => {
    if (previous === undefined) delete process.env[ENV];
    else process.env[ENV] = previous;
  });

  compare("delta channels, forced snapshots", {
    "an idle delta key reads right after four runs, at every checkpoint": {
      from: "delta_channel.test.ts: forces a snapshot once the superstep bound is reached even with no writes",
      async run({ Annotation, StateGraph, START, END, MemorySaver, DeltaChannel }) {
        const State = Annotation.Root({
          counter: new DeltaChannel(listReducer),
          tick: Annotation({ reducer: (a: number, b: number) => b ?? a ?? 0, default: () => 0 }),
        });
        const graph = new StateGraph(State)
          .addNode("seed", () => ({ counter: [1] }))
          .addNode("idle", (s: any) => ({ tick: (s.tick ?? 0) + 1 }))
          .addEdge(START, "seed")
          .addEdge("seed", "idle")
          .addEdge("idle", END)
          .compile({ checkpointer: new MemorySaver() });
        const config = thread("bound");
        for (let i = 0; i < 4; i += 1) await graph.invoke({}, config);
        return {
          state: (await graph.getState(config)).values,
          history: await history(graph, config, (v) => [v.counter, v.tick]),
        };
      },
    },
  });
});
