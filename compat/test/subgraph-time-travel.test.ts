/**
 * Time travel with subgraphs: replaying or forking the parent from a checkpoint taken before or
 * during a subgraph, and replaying, forking or resuming a subgraph from one of its own
 * checkpoints (the config `getState(cfg, { subgraphs: true })` gives for its task).
 */
import { compare, type Runtime, thread } from "./harness.js";

/**
 * Parent: START → executor (a subgraph: step_a → ask_1 → ask_2, two questions) [→ post].
 * `called` records which nodes ran, so a scenario can tell replay from re-execution.
 */
function build(lib: Runtime, options: { persistent?: boolean; post?: boolean; pre?: boolean } = {}) {
  const { Annotation, StateGraph, START, MemorySaver, interrupt } = lib;
  const called: string[] = [];
  const State = Annotation.Root({
    value: Annotation({ reducer: (a: string[], b: string[]) => a.concat(b), default: () => [] as string[] }),
  });
  const node = (name: string, ask?: string) => () => {
    called.push(name);
    return { value: [ask ? `${name}:${interrupt(ask)}` : name] };
  };
  const executor = new StateGraph(State)
    .addNode("step_a", node("step_a"))
    .addNode("ask_1", node("ask_1", "Question 1?"))
    .addNode("ask_2", node("ask_2", "Question 2?"))
    .addEdge(START, "step_a")
    .addEdge("step_a", "ask_1")
    .addEdge("ask_1", "ask_2")
    .compile(options.persistent ? { checkpointer: true } : {});
  let parent = new StateGraph(State).addNode("executor", executor);
  if (options.pre) parent = parent.addNode("pre", node("pre")).addEdge(START, "pre").addEdge("pre", "executor");
  else parent = parent.addEdge(START, "executor");
  if (options.post) parent = parent.addNode("post", node("post")).addEdge("executor", "post");
  const graph = parent.compile({ checkpointer: new MemorySaver() });
  return { graph, called, State };
}

/** The subgraph task's state as `getState(cfg, { subgraphs: true })` gives it. */
async function subState(graph: any, config: unknown) {
  const state = await graph.getState(config, { subgraphs: true });
  return state.tasks.find((t: any) => t.name === "executor")?.state;
}

async function history(graph: any, config: unknown) {
  const out: unknown[] = [];
  for await (const s of graph.getStateHistory(config)) out.push([s.metadata.source, s.next, s.values]);
  return out;
}

const interrupts = (result: any) => result?.__interrupt__?.map((i: any) => i.value);

/** Runs the graph to the end: input, then both answers; returns the subgraph configs seen on the way. */
async function answerAll(lib: Runtime, graph: any, config: unknown) {
  await graph.invoke({ value: [] }, config);
  const atFirst = (await subState(graph, config)).config;
  await graph.invoke(new lib.Command({ resume: "one" }), config);
  const atSecond = (await subState(graph, config)).config;
  const done = await graph.invoke(new lib.Command({ resume: "two" }), config);
  return { atFirst, atSecond, done };
}

compare("time travel into a subgraph", {
  "replay a persistent subgraph from its first interrupt": {
    from: "time_travel.test.ts: should time travel to subgraph checkpoint at first interrupt",
    async run(lib) {
      const { graph, called } = build(lib, { persistent: true });
      const config = thread();
      const { atFirst } = await answerAll(lib, graph, config);
      called.length = 0;
      const replay = await graph.invoke(null, atFirst);
      return { replay: interrupts(replay), values: replay.value, called: [...called] };
    },
  },
  "replay a persistent subgraph from its second interrupt": {
    from: "time_travel.test.ts: should time travel to subgraph checkpoint at second interrupt",
    async run(lib) {
      const { graph, called } = build(lib, { persistent: true });
      const config = thread();
      const { atSecond } = await answerAll(lib, graph, config);
      called.length = 0;
      const replay = await graph.invoke(null, atSecond);
      return { replay: interrupts(replay), called: [...called] };
    },
  },
  "replay a per-task subgraph: it starts again under the forked parent": {
    from: "time_travel.test.ts: should time travel to subgraph checkpoint at first interrupt",
    async run(lib) {
      const { graph, called } = build(lib, { post: true });
      const config = thread();
      const { atFirst } = await answerAll(lib, graph, config);
      called.length = 0;
      const replay = await graph.invoke(null, atFirst);
      return { replay: interrupts(replay), called: [...called], history: await history(graph, config) };
    },
  },
  "after replaying into a subgraph, answers continue the new branch": {
    from: "time_travel.test.ts: should create fork on subgraph time travel and resume from first interrupt",
    async run(lib) {
      const { graph, called } = build(lib, { persistent: true, post: true });
      const config = thread();
      const { atFirst } = await answerAll(lib, graph, config);
      await graph.invoke(null, atFirst);
      called.length = 0;
      const second = await graph.invoke(new lib.Command({ resume: "uno" }), config);
      const done = await graph.invoke(new lib.Command({ resume: "dos" }), config);
      return { second: interrupts(second), done, called: [...called], history: await history(graph, config) };
    },
  },
  "history after replaying into a subgraph": {
    from: "time_travel.test.ts: should verify checkpoint pattern on subgraph time travel",
    async run(lib) {
      const { graph } = build(lib, { persistent: true });
      const config = thread();
      const { atFirst } = await answerAll(lib, graph, config);
      await graph.invoke(null, atFirst);
      return history(graph, config);
    },
  },
  "fork a persistent subgraph with updateState, then run the fork": {
    from: "time_travel.test.ts: should time travel to subgraph checkpoint at first interrupt",
    async run(lib) {
      const { graph, called } = build(lib, { persistent: true });
      const config = thread();
      const { atFirst } = await answerAll(lib, graph, config);
      called.length = 0;
      const fork = await graph.updateState(atFirst, { value: ["forked"] });
      const result = await graph.invoke(null, fork);
      const done = await graph.invoke(new lib.Command({ resume: "again" }), config);
      return { result: interrupts(result), called: [...called], done };
    },
  },
  "the subgraph's state read by its namespace while paused": {
    from: "time_travel.test.ts: should time travel to subgraph checkpoint at first interrupt",
    async run(lib) {
      const { graph } = build(lib, { persistent: true });
      const config = thread();
      await graph.invoke({ value: [] }, config);
      const direct = await graph.getState({ configurable: { thread_id: "t", checkpoint_ns: "executor" } });
      const nested = await subState(graph, config);
      return [direct.values, direct.next, nested.values, nested.next, direct.tasks.map((t: any) => t.name)];
    },
  },
  "the subgraph's history by its namespace": {
    from: "time_travel_extended.test.ts: should preserve original checkpoints when replay creates subgraph branch",
    async run(lib) {
      const { graph } = build(lib, { persistent: true });
      const config = thread();
      const { atFirst } = await answerAll(lib, graph, config);
      await graph.invoke(null, atFirst);
      return history(graph, { configurable: { thread_id: "t", checkpoint_ns: "executor" } });
    },
  },
  "three levels: replay the middle subgraph": {
    from: "time_travel.test.ts: should time travel to middle subgraph in 3-level graph",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver, interrupt, Command } = lib;
      const called: string[] = [];
      const State = Annotation.Root({
        value: Annotation({ reducer: (a: string[], b: string[]) => a.concat(b), default: () => [] as string[] }),
      });
      const ask = (name: string) => () => {
        called.push(name);
        return { value: [`${name}:${interrupt(name)}`] };
      };
      const inner = new StateGraph(State)
        .addNode("ask_1", ask("ask_1"))
        .addNode("ask_2", ask("ask_2"))
        .addEdge(START, "ask_1")
        .addEdge("ask_1", "ask_2")
        .compile({ checkpointer: true });
      const middle = new StateGraph(State)
        .addNode("inner", inner)
        .addEdge(START, "inner")
        .compile({ checkpointer: true });
      const graph = new StateGraph(State)
        .addNode("outer", middle)
        .addEdge(START, "outer")
        .compile({ checkpointer: new MemorySaver() });
      const config = thread();
      await graph.invoke({ value: [] }, config);
      await graph.invoke(new Command({ resume: "a" }), config);
      const mid = await graph.getState(
        { configurable: { thread_id: "t", checkpoint_ns: "outer" } },
        { subgraphs: true },
      );
      await graph.invoke(new Command({ resume: "b" }), config);
      called.length = 0;
      const replay = await graph.invoke(null, mid.config);
      return { replay: interrupts(replay), called: [...called], midNext: mid.next };
    },
  },
});

compare("replaying the parent around a subgraph", {
  "replay the parent from before the subgraph ran": {
    from: "time_travel_extended.test.ts: should replay parent checkpoint before subgraph",
    async run(lib) {
      const { graph, called } = build(lib, { pre: true, post: true });
      const config = thread();
      await answerAll(lib, graph, config);
      const before = (await collectHistory(graph, config)).find((s: any) => s.next.includes("executor"));
      called.length = 0;
      const replay = await graph.invoke(null, before.config);
      return { replay: interrupts(replay), values: replay.value, called: [...called] };
    },
  },
  "replay the parent before a persistent subgraph": {
    from: "time_travel.test.ts: should replay with subgraph and strip stale RESUME writes",
    async run(lib) {
      const { graph, called } = build(lib, { persistent: true, pre: true });
      const config = thread();
      await answerAll(lib, graph, config);
      const before = (await collectHistory(graph, config)).find((s: any) => s.next.includes("executor"));
      called.length = 0;
      const replay = await graph.invoke(null, before.config);
      const resumed = await graph.invoke(new lib.Command({ resume: "again" }), config);
      return { replay: interrupts(replay), resumed: interrupts(resumed), called: [...called] };
    },
  },
  "fork the parent before the subgraph with new state": {
    from: "time_travel_extended.test.ts: should fork parent checkpoint before subgraph with modified state",
    async run(lib) {
      const { graph, called } = build(lib, { pre: true, post: true });
      const config = thread();
      await answerAll(lib, graph, config);
      const before = (await collectHistory(graph, config)).find((s: any) => s.next.includes("executor"));
      const fork = await graph.updateState(before.config, { value: ["edited"] });
      called.length = 0;
      const paused = await graph.invoke(null, fork);
      const one = await graph.invoke(new lib.Command({ resume: "x" }), config);
      const done = await graph.invoke(new lib.Command({ resume: "y" }), config);
      return { paused: interrupts(paused), one: interrupts(one), done, called: [...called] };
    },
  },
  "replay the parent checkpoint where the subgraph was paused": {
    from: "time_travel_extended.test.ts: should replay from parent interrupt checkpoint",
    async run(lib) {
      const { graph, called } = build(lib, { post: true });
      const config = thread();
      await graph.invoke({ value: [] }, config);
      const paused = await graph.getState(config);
      await graph.invoke(new lib.Command({ resume: "one" }), config);
      await graph.invoke(new lib.Command({ resume: "two" }), config);
      called.length = 0;
      const replay = await graph.invoke(null, paused.config);
      const done = await graph.invoke(new lib.Command({ resume: "three" }), config);
      return { replay: interrupts(replay), done: interrupts(done), called: [...called] };
    },
  },
  "resume with the parent's head checkpoint id while a subgraph is paused": {
    from: "time_travel.test.ts: should resume with explicit head checkpoint_id without ReplayState",
    async run(lib) {
      const { graph, called } = build(lib, { persistent: true });
      const config = thread();
      await graph.invoke({ value: [] }, config);
      const head = await graph.getState(config);
      called.length = 0;
      const next = await graph.invoke(new lib.Command({ resume: "one" }), head.config);
      return { next: interrupts(next), called: [...called] };
    },
  },
  "a stateless subgraph starts fresh when the parent replays": {
    from: "time_travel_extended.test.ts: should start stateless subgraph fresh on parent replay",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver } = lib;
      const seen: unknown[] = [];
      const Sub = Annotation.Root({
        items: Annotation({ reducer: (a: string[], b: string[]) => a.concat(b), default: () => [] as string[] }),
      });
      const sub = new StateGraph(Sub)
        .addNode("add", (s: any) => {
          seen.push([...s.items]);
          return { items: ["x"] };
        })
        .addEdge(START, "add")
        .compile();
      const graph = new StateGraph(Sub)
        .addNode("first", () => ({ items: ["f"] }))
        .addNode("sub", sub)
        .addEdge(START, "first")
        .addEdge("first", "sub")
        .compile({ checkpointer: new MemorySaver() });
      const config = thread();
      await graph.invoke({ items: [] }, config);
      const before = (await collectHistory(graph, config)).find((s: any) => s.next.includes("sub"));
      const replay = await graph.invoke(null, before.config);
      return { replay, seen };
    },
  },
  "a persistent subgraph keeps its state when the parent replays": {
    from: "time_travel_extended.test.ts: should retain accumulated subgraph state on parent replay",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver } = lib;
      const seen: unknown[] = [];
      const Sub = Annotation.Root({
        items: Annotation({ reducer: (a: string[], b: string[]) => a.concat(b), default: () => [] as string[] }),
      });
      const sub = new StateGraph(Sub)
        .addNode("add", (s: any) => {
          seen.push([...s.items]);
          return { items: ["x"] };
        })
        .addEdge(START, "add")
        .compile({ checkpointer: true });
      const Parent = Annotation.Root({ n: Annotation() });
      const graph = new StateGraph(Parent)
        .addNode("sub", async (s: any, c: any) => {
          await sub.invoke({ items: [`n${s.n}`] }, c);
          return {};
        })
        .addEdge(START, "sub")
        .compile({ checkpointer: new MemorySaver() });
      const config = thread();
      await graph.invoke({ n: 1 }, config);
      await graph.invoke({ n: 2 }, config);
      const history = await collectHistory(graph, config);
      const firstRun = history.filter((s: any) => s.next.includes("sub")).at(-1);
      await graph.invoke(null, firstRun.config);
      return seen;
    },
  },
});

async function collectHistory(graph: any, config: unknown): Promise<any[]> {
  const out: any[] = [];
  for await (const s of graph.getStateHistory(config)) out.push(s);
  return out;
}

/** A persistent subgraph `sub` (one node that records the state it saw) behind a parent node. */
function accumulating(lib: Runtime, levels: 1 | 2 = 1) {
  const { Annotation, StateGraph, START, MemorySaver } = lib;
  const seen: unknown[] = [];
  const trail = () => Annotation({ reducer: (a: string[], b: string[]) => a.concat(b), default: () => [] as string[] });
  const Inner = Annotation.Root({ innerTrail: trail() });
  const inner = new StateGraph(Inner)
    .addNode("inner_step", (s: any) => {
      seen.push(["inner", [...s.innerTrail]]);
      return { innerTrail: ["inner"] };
    })
    .addEdge(START, "inner_step")
    .compile({ checkpointer: true });
  let sub = inner;
  if (levels === 2) {
    const Mid = Annotation.Root({ midTrail: trail() });
    sub = new StateGraph(Mid)
      .addNode("mid_step", (s: any) => {
        seen.push(["mid", [...s.midTrail]]);
        return { midTrail: ["mid"] };
      })
      .addNode("inner_node", inner)
      .addEdge(START, "mid_step")
      .addEdge("mid_step", "inner_node")
      .compile({ checkpointer: true });
  }
  const Parent = Annotation.Root({ results: trail() });
  const graph = new StateGraph(Parent)
    .addNode("parent_step", () => ({ results: ["p"] }))
    .addNode("sub_node", sub)
    .addEdge(START, "parent_step")
    .addEdge("parent_step", "sub_node")
    .compile({ checkpointer: new MemorySaver() });
  return { graph, seen };
}

compare("time travel into a subgraph, continued", {
  "resume a persistent subgraph's replay with new answers; history keeps both branches": {
    from: "time_travel.test.ts: should create fork on subgraph time travel and resume from first interrupt",
    async run(lib) {
      const { graph, called } = build(lib, { persistent: true });
      const config = thread();
      const { atFirst } = await answerAll(lib, graph, config);
      await graph.invoke(null, atFirst);
      called.length = 0;
      const one = await graph.invoke(new lib.Command({ resume: "new_1" }), config);
      const two = await graph.invoke(new lib.Command({ resume: "new_2" }), config);
      return { one: interrupts(one), two, called: [...called], history: await history(graph, config) };
    },
  },
  "resume from the second interrupt after replaying to it": {
    from: "time_travel.test.ts: should create fork on subgraph time travel and resume from second interrupt",
    async run(lib) {
      const { graph, called } = build(lib, { persistent: true });
      const config = thread();
      const { atSecond } = await answerAll(lib, graph, config);
      await graph.invoke(null, atSecond);
      called.length = 0;
      const done = await graph.invoke(new lib.Command({ resume: "other_2" }), config);
      return { done, called: [...called] };
    },
  },
  "Command resume sent with a subgraph checkpoint's config": {
    from: "time_travel_extended.test.ts: should replay from subgraph checkpoint via getState subgraphs",
    async run(lib) {
      const { graph, called } = build(lib, { persistent: true });
      const config = thread();
      const { atFirst } = await answerAll(lib, graph, config);
      called.length = 0;
      let result: unknown;
      try {
        result = interrupts(await graph.invoke(new lib.Command({ resume: "direct" }), atFirst));
      } catch (error) {
        result = { threw: (error as Error).name };
      }
      const state = await graph.getState(config);
      return { result, called: [...called], next: state.next, values: state.values };
    },
  },
  "replay the parent's checkpoint taken while the subgraph was paused, then resume": {
    from: "time_travel.test.ts: should replay from parent checkpoint with subgraph interrupt then resume",
    async run(lib) {
      const { graph, called } = build(lib, { persistent: true, pre: true });
      const config = thread();
      await graph.invoke({ value: [] }, config);
      const paused = await graph.getState(config);
      await graph.invoke(new lib.Command({ resume: "one" }), config);
      await graph.invoke(new lib.Command({ resume: "two" }), config);
      called.length = 0;
      const replay = await graph.invoke(null, paused.config);
      const one = await graph.invoke(new lib.Command({ resume: "uno" }), config);
      const done = await graph.invoke(new lib.Command({ resume: "dos" }), config);
      return { replay: interrupts(replay), one: interrupts(one), done, called: [...called] };
    },
  },
  "fork after replaying from the parent's interrupt checkpoint": {
    from: "time_travel_extended.test.ts: should fork and resume after replay from parent interrupt checkpoint",
    async run(lib) {
      const { graph, called } = build(lib, { post: true });
      const config = thread();
      await graph.invoke({ value: [] }, config);
      const paused = await graph.getState(config);
      await graph.invoke(new lib.Command({ resume: "one" }), config);
      const fork = await graph.updateState(paused.config, { value: ["edited"] });
      called.length = 0;
      const replay = await graph.invoke(null, fork);
      const one = await graph.invoke(new lib.Command({ resume: "uno" }), config);
      const done = await graph.invoke(new lib.Command({ resume: "dos" }), config);
      return { replay: interrupts(replay), one: interrupts(one), done, called: [...called] };
    },
  },
  "parent replay: each level of nested persistent subgraphs starts from its state then": {
    from: "time_travel_extended.test.ts: should load correct state at all three nesting levels on replay",
    async run(lib) {
      const { graph, seen } = accumulating(lib, 2);
      const config = thread();
      await graph.invoke({ results: [] }, config);
      await graph.invoke({ results: [] }, config);
      const before = (await collectHistory(graph, config)).filter((s: any) => s.next.includes("parent_step"))[0];
      seen.length = 0;
      await graph.invoke(null, before.config);
      const replayed = [...seen];
      seen.length = 0;
      await graph.invoke({ results: [] }, config);
      return { replayed, next: [...seen] };
    },
  },
  "after a parent replay the next run sees the newest subgraph state": {
    from: "time_travel_extended.test.ts: should load latest subgraph state after parent replay on next invoke",
    async run(lib) {
      const { graph, seen } = accumulating(lib);
      const config = thread();
      await graph.invoke({ results: [] }, config);
      await graph.invoke({ results: [] }, config);
      const before = (await collectHistory(graph, config)).filter((s: any) => s.next.includes("parent_step"))[0];
      await graph.invoke(null, before.config);
      await graph.invoke({ results: [] }, config);
      return seen;
    },
  },
  "fork the parent: nested persistent subgraphs start from their state then": {
    from: "time_travel_extended.test.ts: should load correct nested state on fork",
    async run(lib) {
      const { graph, seen } = accumulating(lib, 2);
      const config = thread();
      await graph.invoke({ results: [] }, config);
      await graph.invoke({ results: [] }, config);
      const before = (await collectHistory(graph, config)).filter((s: any) => s.next.includes("sub_node"))[0];
      const fork = await graph.updateState(before.config, { results: ["forked"] });
      seen.length = 0;
      const out = await graph.invoke(null, fork);
      return { out, seen };
    },
  },
  "parent replay with two sibling persistent subgraphs": {
    from: "time_travel_extended.test.ts: should load correct state for parallel sibling subgraphs on replay",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver } = lib;
      const seen: unknown[] = [];
      const trail = () =>
        Annotation({ reducer: (a: string[], b: string[]) => a.concat(b), default: () => [] as string[] });
      const make = (name: string) =>
        new StateGraph(Annotation.Root({ trail: trail() }))
          .addNode("step", (s: any) => {
            seen.push([name, [...s.trail]]);
            return { trail: [name] };
          })
          .addEdge(START, "step")
          .compile({ checkpointer: true });
      const graph = new StateGraph(Annotation.Root({ results: trail() }))
        .addNode("start", () => ({ results: ["s"] }))
        .addNode("left", make("left"))
        .addNode("right", make("right"))
        .addEdge(START, "start")
        .addEdge("start", "left")
        .addEdge("start", "right")
        .compile({ checkpointer: new MemorySaver() });
      const config = thread();
      await graph.invoke({ results: [] }, config);
      await graph.invoke({ results: [] }, config);
      const before = (await collectHistory(graph, config)).filter((s: any) => s.next.includes("left"))[0];
      seen.length = 0;
      await graph.invoke(null, before.config);
      return seen.sort((a: any, b: any) => String(a[0]).localeCompare(String(b[0])));
    },
  },
  "parent replay with a persistent subgraph run in a loop": {
    from: "time_travel_extended.test.ts: should load subgraph state correctly when subgraph runs in a loop",
    async run(lib) {
      const { Annotation, StateGraph, START, END, MemorySaver } = lib;
      const seen: unknown[] = [];
      const trail = () =>
        Annotation({ reducer: (a: string[], b: string[]) => a.concat(b), default: () => [] as string[] });
      const sub = new StateGraph(Annotation.Root({ trail: trail() }))
        .addNode("step", (s: any) => {
          seen.push([...s.trail]);
          return { trail: ["x"] };
        })
        .addEdge(START, "step")
        .compile({ checkpointer: true });
      const Parent = Annotation.Root({
        count: Annotation({ reducer: (a: number, b: number) => a + b, default: () => 0 }),
      });
      const graph = new StateGraph(Parent)
        .addNode("sub_node", sub)
        .addNode("tally", () => ({ count: 1 }))
        .addEdge(START, "sub_node")
        .addEdge("sub_node", "tally")
        .addConditionalEdges("tally", (s: any) => (s.count < 3 ? "sub_node" : END))
        .compile({ checkpointer: new MemorySaver() });
      const config = thread();
      await graph.invoke({ count: 0 }, config);
      const loops = (await collectHistory(graph, config)).filter((s: any) => s.next.includes("sub_node"));
      const second = loops[1];
      seen.length = 0;
      const out = await graph.invoke(null, second.config);
      return { out, seen };
    },
  },
});

compare("time travel into a nested subgraph", {
  "replay a grandchild's checkpoint, streamed with subgraphs": {
    from: "pregel.test.ts: doubly nested graph state",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver } = lib;
      const State = Annotation.Root({ myKey: Annotation() });
      const grandchild = new StateGraph(State)
        .addNode("g1", (s: any) => ({ myKey: `${s.myKey} here` }))
        .addNode("g2", (s: any) => ({ myKey: `${s.myKey} and there` }))
        .addEdge(START, "g1")
        .addEdge("g1", "g2")
        .compile({ interruptBefore: ["g2"] });
      const child = new StateGraph(State).addNode("child1", grandchild).addEdge(START, "child1").compile();
      const graph = new StateGraph(State)
        .addNode("parent1", (s: any) => ({ myKey: `hi ${s.myKey}` }))
        .addNode("child", child)
        .addEdge(START, "parent1")
        .addEdge("parent1", "child")
        .compile({ checkpointer: new MemorySaver() });
      const config = thread();
      await graph.invoke({ myKey: "my value" }, config);
      const childConfig = (await graph.getState(config)).tasks[0].state;
      const grandchildConfig = (await graph.getState(childConfig)).tasks[0].state;
      await graph.invoke(null, config);
      const history = await collectHistory(graph, grandchildConfig);
      const events: unknown[] = [];
      for await (const [ns, chunk] of await graph.stream(null, { ...history[2].config, subgraphs: true }))
        events.push([ns.map((s: string) => s.split(":")[0]), chunk]);
      return { events, values: history.map((s: any) => s.values) };
    },
  },
  "a subgraph snapshot's config maps each namespace to its checkpoint": {
    from: "time_travel.test.ts: should verify checkpoint pattern on subgraph time travel",
    async run(lib) {
      const { graph } = build(lib, { persistent: true });
      const config = thread();
      await graph.invoke({ value: [] }, config);
      const head = await graph.getState(config);
      const sub = await subState(graph, config);
      const map = sub.config.configurable.checkpoint_map;
      await graph.invoke(new lib.Command({ resume: "first" }), config);
      await graph.invoke(null, sub.config);
      const after = await collectHistory(graph, config);
      return {
        keys: Object.keys(map),
        parentIsHead: map[""] === head.config.configurable.checkpoint_id,
        selfIsSub: map.executor === sub.config.configurable.checkpoint_id,
        rootHasNoMap: head.config.configurable.checkpoint_map === undefined,
        forkedFromReplayPoint: after[0].parentConfig.configurable.checkpoint_id === map[""],
        parents: Object.keys(sub.metadata.parents),
      };
    },
  },
});
