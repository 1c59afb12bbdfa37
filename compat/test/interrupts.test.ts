/**
 * interrupt(), resume, failures and what a stopped step leaves behind.
 */
import { collect, compare, list } from "./harness.js";

compare("interrupts", {
  "after a node failed, new input on the thread runs from the new input": {
    from: "python_port/checkpoint.test.ts: should recover from checkpoints after failures with async nodes",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver } = lib;
      const State = Annotation.Root({ log: list(lib), n: Annotation() });
      let fail = true;
      const graph = new StateGraph(State)
        .addNode("a", (s: any) => ({ log: [`a${s.n}`] }))
        .addNode("b", (s: any) => {
          if (fail) throw new Error("boom");
          return { log: [`b${s.n}`] };
        })
        .addEdge(START, "a")
        .addEdge("a", "b")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      const error = await graph.invoke({ n: 1 }, config).catch((e: Error) => e.message);
      const failed = await graph.getState(config);
      fail = false;
      const done = await graph.invoke({ n: 2 }, config);
      const state = await graph.getState(config);
      return {
        error,
        failedNext: failed.next,
        failedTasks: failed.tasks.map((t: any) => [t.name, t.error?.message]),
        done,
        next: state.next,
      };
    },
  },

  "after a node failed, invoke(null) retries the failed node": {
    from: "python_port/checkpoint.test.ts: should recover from checkpoints after failures with async nodes",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver } = lib;
      const State = Annotation.Root({ log: list(lib) });
      let calls = 0;
      const graph = new StateGraph(State)
        .addNode("a", () => ({ log: ["a"] }))
        .addNode("b", () => {
          if (calls++ === 0) throw new Error("boom");
          return { log: ["b"] };
        })
        .addEdge(START, "a")
        .addEdge("a", "b")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      await graph.invoke({ log: [] }, config).catch(() => undefined);
      return { done: await graph.invoke(null, config), calls };
    },
  },

  "an interrupted sibling: the finished one's writes are in the result and the state": {
    from: "pregel.test.ts: should not cancel node on other node interrupted",
    async run(lib) {
      const { Annotation, StateGraph, START, interrupt, Command, MemorySaver } = lib;
      const State = Annotation.Root({ log: list(lib) });
      let finishedRuns = 0;
      const graph = new StateGraph(State)
        .addNode("ask", () => ({ log: [`ask:${interrupt("q")}`] }))
        .addNode("work", () => {
          finishedRuns++;
          return { log: ["work"] };
        })
        .addEdge(START, "ask")
        .addEdge(START, "work")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      const paused = await graph.invoke({ log: [] }, config);
      const state = await graph.getState(config);
      const done = await graph.invoke(new Command({ resume: "x" }), config);
      return {
        paused,
        values: state.values,
        next: state.next,
        tasks: state.tasks.map((t: any) => [t.name, t.interrupts.length, t.result ?? null]),
        done,
        finishedRuns,
      };
    },
  },

  "a failed sibling: the finished one's writes are in the state and next lists only the failed task": {
    from: "python_port/interrupt.test.ts: should cancel node task when another node throws an exception",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addNode("bad", () => {
          throw new Error("bad");
        })
        .addNode("good", () => ({ log: ["good"] }))
        .addEdge(START, "bad")
        .addEdge(START, "good")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      const error = await graph.invoke({ log: [] }, config).catch((e: Error) => e.message);
      const state = await graph.getState(config);
      return { error, values: state.values, next: state.next };
    },
  },

  "one step's writes reach a reducer ordered by node name, then Sends in order": {
    from: "pregel.test.ts: In one fan out state graph waiting edge",
    async run(lib) {
      const { Annotation, StateGraph, START, Send } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addNode("route", () => ({ log: ["route"] }))
        .addNode("zeta", () => ({ log: ["zeta"] }))
        .addNode("alpha", () => ({ log: ["alpha"] }))
        .addNode("mid", () => ({ log: ["mid"] }))
        .addNode("worker", (a: any) => ({ log: [`worker${a.i}`] }))
        .addEdge(START, "route")
        .addEdge("route", "zeta")
        .addEdge("route", "mid")
        .addConditionalEdges("route", () => [new Send("worker", { i: 1 }), new Send("worker", { i: 2 }), "alpha"])
        .compile();
      return graph.invoke({ log: [] });
    },
  },

  "Command({ goto }) on a finished thread into a node that interrupts: the interrupt is saved and resumable": {
    from: "pregel.test.ts: can goto an interrupt",
    async run(lib) {
      const { Annotation, StateGraph, START, END, interrupt, Command, MemorySaver } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addNode("router", () => new Command({ goto: END }), { ends: ["ask", END] })
        .addNode("ask", () => ({ log: [`ask:${interrupt("q")}`] }))
        .addEdge(START, "router")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      const first = await graph.invoke({ log: ["in"] }, config);
      const paused = await graph.invoke(new Command({ goto: "ask", update: { log: ["update"] } }), config);
      const state = await graph.getState(config);
      const done = await graph.invoke(new Command({ resume: "yes", update: { log: ["with answer"] } }), config);
      const after = await graph.getState(config);
      return {
        first,
        paused,
        next: state.next,
        values: state.values,
        tasks: state.tasks.map((t: any) => [t.name, t.interrupts]),
        done,
        after: [after.next, after.values],
      };
    },
  },

  "NodeInterrupt pauses the graph; invoke(null) after an update continues": {
    from: "pregel.test.ts: should handle dynamic interrupt",
    async run(lib) {
      const { Annotation, StateGraph, START, NodeInterrupt, MemorySaver } = lib;
      const State = Annotation.Root({ n: Annotation() });
      const graph = new StateGraph(State)
        .addNode("check", (s: any) => {
          if (s.n > 5) throw new NodeInterrupt(`too big: ${s.n}`);
          return { n: s.n * 10 };
        })
        .addEdge(START, "check")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      const paused = await graph.invoke({ n: 7 }, config);
      const state = await graph.getState(config);
      await graph.updateState(config, { n: 2 });
      const done = await graph.invoke(null, config);
      return {
        paused: Object.keys(paused),
        value: paused.__interrupt__?.[0]?.value,
        next: state.next,
        done,
      };
    },
  },

  "several interrupts in one node, answered one at a time": {
    from: "pregel.test.ts: can throw a node interrupt multiple times in a single node",
    async run(lib) {
      const { Annotation, StateGraph, START, interrupt, Command, MemorySaver } = lib;
      const State = Annotation.Root({ s: Annotation({ reducer: (a: string, b: string) => a + b }) });
      const graph = new StateGraph(State)
        .addNode("one", () => ({ s: `${interrupt({ value: 1 })} ${interrupt({ value: 2 })}` }))
        .addEdge(START, "one")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      const out: unknown[] = [await collect(await graph.stream({ s: "DE" }, { ...config, streamMode: "values" }))];
      out.push((await graph.getState(config)).tasks.map((t: any) => t.interrupts));
      out.push(await graph.invoke(new Command({ resume: "answer 1" }), config));
      out.push((await graph.getState(config)).tasks.map((t: any) => t.interrupts));
      out.push(await graph.invoke(new Command({ resume: "answer 2" }), config));
      out.push((await graph.getState(config)).tasks.length);
      return out;
    },
  },

  "several interrupts in one node, answered by id": {
    from: "pregel.test.ts: can throw a node interrupt multiple times in a single node",
    async run(lib) {
      const { Annotation, StateGraph, START, interrupt, Command, MemorySaver } = lib;
      const State = Annotation.Root({ s: Annotation() });
      const graph = new StateGraph(State)
        .addNode("one", () => ({ s: `${interrupt("first")} ${interrupt("second")}` }))
        .addEdge(START, "one")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      await graph.invoke({ s: "" }, config);
      let id = (await graph.getState(config)).tasks[0].interrupts[0].id;
      await graph.invoke(new Command({ resume: { [id]: "A" } }), config);
      id = (await graph.getState(config)).tasks[0].interrupts[0].id;
      return graph.invoke(new Command({ resume: { [id]: "B" } }), config);
    },
  },

  "resume multiple interrupts of parallel Sends with a map of answers": {
    from: "pregel.test.ts: resume multiple interrupts",
    async run(lib) {
      const { Annotation, StateGraph, START, END, interrupt, Command, Send, MemorySaver } = lib;
      const State = Annotation.Root({ items: Annotation(), out: list(lib) });
      const graph = new StateGraph(State)
        .addNode("ask", (a: any) => ({ out: [`${a.item}=${interrupt(`value for ${a.item}?`)}`] }))
        .addConditionalEdges(START, (s: any) => s.items.map((item: string) => new Send("ask", { item })))
        .addEdge("ask", END)
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      const paused = await graph.invoke({ items: ["a", "b"] }, config);
      const pending = (await graph.getState(config)).tasks.flatMap((t: any) => t.interrupts);
      const answers = Object.fromEntries(pending.map((i: any) => [i.id, i.value.split(" ")[2].toUpperCase()]));
      const done = await graph.invoke(new Command({ resume: answers }), config);
      return { paused: paused.__interrupt__.map((i: any) => i.value).sort(), done: { ...done, out: done.out.sort() } };
    },
  },

  "interrupt without a checkpointer fails fast": {
    from: "pregel.test.ts: should fail fast when interrupt is called without a checkpointer",
    async run(lib) {
      const { Annotation, StateGraph, START, interrupt } = lib;
      const State = Annotation.Root({ v: Annotation() });
      let after = false;
      const graph = new StateGraph(State)
        .addNode("ask", () => {
          const v = interrupt("q");
          after = true;
          return { v };
        })
        .addEdge(START, "ask")
        .compile();
      // Interlude's class is MissingCheckpointerError, a GraphValueError.
      const outcome = await graph.invoke({ v: 1 }).then(
        () => "ran",
        (e: unknown) => e instanceof lib.GraphValueError,
      );
      return { outcome, after };
    },
  },

  "an interrupt before any write leaves the input state": {
    from: "python_port/interrupt.test.ts: should handle dynamic interrupts with state graphs",
    async run(lib) {
      const { Annotation, StateGraph, START, interrupt, MemorySaver } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addNode("a", () => ({ log: ["a"] }))
        .addNode("ask", () => ({ log: [interrupt({ question: "go?" })] }))
        .addEdge(START, "a")
        .addEdge("a", "ask")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      const paused = await graph.invoke({ log: ["in"] }, config);
      const state = await graph.getState(config);
      return { paused, next: state.next, values: state.values, interrupts: state.tasks[0].interrupts };
    },
  },

  "streaming updates around an interrupt and its resume": {
    from: "python_port/interrupt.test.ts: should handle dynamic interrupts with state graphs",
    async run(lib) {
      const { Annotation, StateGraph, START, interrupt, Command, MemorySaver } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addNode("a", () => ({ log: ["a"] }))
        .addNode("ask", () => ({ log: [`ask:${interrupt("q")}`] }))
        .addNode("c", () => ({ log: ["c"] }))
        .addEdge(START, "a")
        .addEdge("a", "ask")
        .addEdge("ask", "c")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      const first = await collect(await graph.stream({ log: [] }, { ...config, streamMode: "updates" }));
      const second = await collect(
        await graph.stream(new Command({ resume: "ok" }), { ...config, streamMode: ["updates", "values"] }),
      );
      return { first, second };
    },
  },

  "an interrupt in a node reached after a Send": {
    from: "pregel.test.ts: should handle partial pending checkpoint",
    async run(lib) {
      const { Annotation, StateGraph, START, interrupt, Command, Send, MemorySaver } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addNode("fan", () => ({ log: ["fan"] }))
        .addNode("w", (a: any) => ({ log: [`w${a}`] }))
        .addNode("ask", () => ({ log: [`ask:${interrupt("q")}`] }))
        .addEdge(START, "fan")
        .addConditionalEdges("fan", () => [new Send("w", 1), new Send("w", 2)])
        .addEdge("w", "ask")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      const paused = await graph.invoke({ log: [] }, config);
      const done = await graph.invoke(new Command({ resume: "y" }), config);
      return { paused, done };
    },
  },

  "a node that catches the interrupt and returns: resumed with the answer": {
    from: "pregel.test.ts: should handle dynamic interrupt",
    async run(lib) {
      const { Annotation, StateGraph, START, interrupt, Command, MemorySaver } = lib;
      const State = Annotation.Root({ v: Annotation() });
      const graph = new StateGraph(State)
        .addNode("ask", () => ({ v: `got ${interrupt("name?")}` }))
        .addEdge(START, "ask")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      const paused = await graph.invoke({ v: null }, config);
      const done = await graph.invoke(new Command({ resume: "ada" }), config);
      const history: unknown[] = [];
      for await (const s of graph.getStateHistory(config)) history.push([s.metadata.source, s.metadata.step, s.next]);
      return { paused, done, history };
    },
  },

  "interrupt values of any JSON shape come back as given": {
    from: "pregel.test.ts: should handle dynamic interrupt",
    async run(lib) {
      const { Annotation, StateGraph, START, interrupt, Command, MemorySaver } = lib;
      const State = Annotation.Root({ got: Annotation() });
      const graph = new StateGraph(State)
        .addNode("ask", () => ({ got: interrupt({ kind: "form", fields: ["a", "b"], n: 0, ok: false }) }))
        .addEdge(START, "ask")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      const paused = await graph.invoke({}, config);
      const done = await graph.invoke(new Command({ resume: { a: 1, b: [2] } }), config);
      return { paused, done };
    },
  },

  "a resumed node runs again from its start: code before the interrupt runs twice": {
    from: "pregel.test.ts: should handle dynamic interrupt",
    async run(lib) {
      const { Annotation, StateGraph, START, interrupt, Command, MemorySaver } = lib;
      const State = Annotation.Root({ v: Annotation() });
      let before = 0;
      const graph = new StateGraph(State)
        .addNode("ask", () => {
          before++;
          return { v: interrupt("q") };
        })
        .addEdge(START, "ask")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      await graph.invoke({}, config);
      const done = await graph.invoke(new Command({ resume: 1 }), config);
      return { done, before };
    },
  },

  "interruptBefore '*' stops before every node": {
    from: "pregel.test.ts: should invoke two processes with input/output and interrupt",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addNode("a", () => ({ log: ["a"] }))
        .addNode("b", () => ({ log: ["b"] }))
        .addEdge(START, "a")
        .addEdge("a", "b")
        .compile({ checkpointer: new MemorySaver(), interruptBefore: "*" });
      const config = { configurable: { thread_id: "t" } };
      const out: unknown[] = [await graph.invoke({ log: [] }, config)];
      out.push((await graph.getState(config)).next);
      out.push(await graph.invoke(null, config));
      out.push((await graph.getState(config)).next);
      out.push(await graph.invoke(null, config));
      return out;
    },
  },

  "interruptAfter the last node: the thread ends paused with nothing next": {
    from: "pregel.test.ts: should invoke two processes with input/output and interrupt",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addNode("a", () => ({ log: ["a"] }))
        .addEdge(START, "a")
        .compile({ checkpointer: new MemorySaver(), interruptAfter: ["a"] });
      const config = { configurable: { thread_id: "t" } };
      const paused = await graph.invoke({ log: [] }, config);
      const state = await graph.getState(config);
      return { paused, next: state.next };
    },
  },

  "interruptBefore given to invoke instead of compile": {
    from: "pregel.test.ts: should invoke two processes with input/output and interrupt",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addNode("a", () => ({ log: ["a"] }))
        .addNode("b", () => ({ log: ["b"] }))
        .addEdge(START, "a")
        .addEdge("a", "b")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      const paused = await graph.invoke({ log: [] }, { ...config, interruptBefore: ["b"] });
      const done = await graph.invoke(null, config);
      return { paused, done };
    },
  },

  "a second invoke with new input on a paused thread drops the question": {
    from: "python_port/interrupt.test.ts: should handle dynamic interrupts with state graphs",
    async run(lib) {
      const { Annotation, StateGraph, START, interrupt, MemorySaver } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addNode("ask", () => ({ log: [`ask:${interrupt("q")}`] }))
        .addEdge(START, "ask")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      await graph.invoke({ log: ["one"] }, config);
      const again = await graph.invoke({ log: ["two"] }, config);
      const state = await graph.getState(config);
      return { again, next: state.next, values: state.values, interrupts: state.tasks.map((t: any) => t.interrupts) };
    },
  },

  "invoke(null) on a thread paused at an interrupt asks again": {
    from: "python_port/interrupt.test.ts: should handle dynamic interrupts with state graphs",
    async run(lib) {
      const { Annotation, StateGraph, START, interrupt, Command, MemorySaver } = lib;
      const State = Annotation.Root({ log: list(lib) });
      let asked = 0;
      const graph = new StateGraph(State)
        .addNode("ask", () => {
          asked++;
          return { log: [`ask:${interrupt("q")}`] };
        })
        .addEdge(START, "ask")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      await graph.invoke({ log: [] }, config);
      const again = await graph.invoke(null, config);
      const state = await graph.getState(config);
      const done = await graph.invoke(new Command({ resume: "x" }), config);
      return { again, next: state.next, done, asked };
    },
  },

  "an interrupt in a node after a breakpoint": {
    from: "pregel.test.ts: should handle dynamic interrupt",
    async run(lib) {
      const { Annotation, StateGraph, START, interrupt, Command, MemorySaver } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const graph = new StateGraph(State)
        .addNode("a", () => ({ log: ["a"] }))
        .addNode("ask", () => ({ log: [`ask:${interrupt("q")}`] }))
        .addEdge(START, "a")
        .addEdge("a", "ask")
        .compile({ checkpointer: new MemorySaver(), interruptBefore: ["ask"] });
      const config = { configurable: { thread_id: "t" } };
      const out: unknown[] = [await graph.invoke({ log: [] }, config)];
      out.push(await graph.invoke(null, config));
      out.push(await graph.invoke(new Command({ resume: "yes" }), config));
      return out;
    },
  },
  "a node's catch rethrows what isGraphBubbleUp marks, and the question stands": {
    from: "pregel.test.ts: should not swallow interrupts in try/catch",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver, Command, interrupt, isGraphBubbleUp, isGraphInterrupt } = lib;
      const State = Annotation.Root({ log: list(lib) });
      const seen: unknown[] = [];
      const graph = new StateGraph(State)
        .addNode("ask", () => {
          try {
            return { log: [interrupt("q")] };
          } catch (error) {
            seen.push([isGraphBubbleUp(error), isGraphInterrupt(error)]);
            if (isGraphBubbleUp(error)) throw error;
            return { log: ["swallowed"] };
          }
        })
        .addEdge(START, "ask")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      const paused = await graph.invoke({ log: [] }, config);
      const done = await graph.invoke(new Command({ resume: "a" }), config);
      return { paused, done, seen };
    },
  },

  "an answer that fails a zod responseSchema is an invalid resume, and the question can be answered again": async (
    lib,
  ) => {
    const { z } = await import("zod");
    const { Annotation, StateGraph, START, MemorySaver, Command, interrupt, isInvalidResume } = lib;
    const State = Annotation.Root({ approved: Annotation() });
    const graph = new StateGraph(State)
      .addNode("review", () => ({ approved: interrupt("approve?", { responseSchema: z.boolean() }) }))
      .addEdge(START, "review")
      .compile({ checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: "t" } };
    await graph.invoke({}, config);
    const refused = await graph.invoke(new Command({ resume: "yes" }), config).catch((e: unknown) => e);
    const wrapped = new Error("middleware failed", { cause: refused });
    const pending = (await graph.getState(config)).tasks.flatMap((t: any) => t.interrupts.map((i: any) => i.value));
    return {
      invalid: isInvalidResume(refused),
      throughCause: isInvalidResume(wrapped),
      otherError: isInvalidResume(new Error("boom")),
      pending,
      answered: await graph.invoke(new Command({ resume: true }), config),
    };
  },

  "what a run throws, and what a node throws to stop, are BaseLangGraphErrors": async (lib) => {
    const { Annotation, StateGraph, START, MemorySaver, BaseLangGraphError, GraphRecursionError, interrupt } = lib;
    const State = Annotation.Root({ n: Annotation() });
    let stop: unknown;
    const asking = new StateGraph(State)
      .addNode("ask", () => {
        try {
          interrupt("q");
        } catch (e) {
          stop = e;
          throw e;
        }
        return {};
      })
      .addEdge(START, "ask")
      .compile({ checkpointer: new MemorySaver() });
    await asking.invoke({}, { configurable: { thread_id: "t" } });
    const looping = new StateGraph(State)
      .addNode("loop", (s: any) => ({ n: (s.n ?? 0) + 1 }))
      .addEdge(START, "loop")
      .addEdge("loop", "loop")
      .compile();
    const recursion = await looping.invoke({ n: 0 }, { recursionLimit: 3 }).catch((e: unknown) => e);
    return {
      interrupt: stop instanceof BaseLangGraphError,
      recursion: recursion instanceof BaseLangGraphError && recursion instanceof GraphRecursionError,
      plain: new Error("x") instanceof BaseLangGraphError,
      own: new BaseLangGraphError("broken", { lc_error_code: "GRAPH_RECURSION_LIMIT" }).message,
    };
  },

  "RunControl.requestDrain stops the run at the next step boundary with GraphDrained; invoke(null) continues": async (
    lib,
  ) => {
    const { Annotation, StateGraph, START, MemorySaver, RunControl, GraphDrained, GraphBubbleUp, isGraphDrained } = lib;
    const control = new RunControl();
    const graph = new StateGraph(Annotation.Root({ log: list(lib) }))
      .addNode("a", async () => {
        control.requestDrain("sigterm");
        return { log: ["a"] };
      })
      .addNode("b", () => ({ log: ["b"] }))
      .addEdge(START, "a")
      .addEdge("a", "b")
      .compile({ checkpointer: new MemorySaver() });
    const config = { configurable: { thread_id: "t" } };
    const drained = await graph.invoke({ log: [] }, { ...config, control }).catch((e: unknown) => e);
    const state = await graph.getState(config);
    return {
      drained: {
        is: isGraphDrained(drained),
        cls: drained instanceof GraphDrained && drained instanceof GraphBubbleUp,
        reason: drained.reason,
        message: drained.message,
      },
      requested: [control.drainRequested, control.drainReason],
      saved: { values: state.values, next: state.next },
      continued: await graph.invoke(null, config),
    };
  },

  "two resumes of one paused thread at once: LangGraph.js runs both, Interlude one": {
    differs: "#one-run-per-thread-at-a-time",
    async run(lib) {
      const { Annotation, StateGraph, START, MemorySaver, Command, interrupt } = lib;
      let entered = 0;
      let open!: () => void;
      const gate = new Promise<void>((resolve) => (open = resolve));
      const graph = new StateGraph(Annotation.Root({ answers: list(lib) }))
        .addNode("ask", async () => {
          const answer = interrupt("approve?");
          entered++;
          await gate;
          return { answers: [answer] };
        })
        .addEdge(START, "ask")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      await graph.invoke({ answers: [] }, config);
      const settle = (run: Promise<unknown>) =>
        run.then(
          (values) => ({ values }),
          (error: Error) => ({ error: error.name }),
        );
      const first = settle(graph.invoke(new Command({ resume: "first" }), config));
      await new Promise((resolve) => setTimeout(resolve, 20));
      const second = settle(graph.invoke(new Command({ resume: "second" }), config));
      await new Promise((resolve) => setTimeout(resolve, 20));
      open();
      return { first: await first, second: await second, entered, saved: (await graph.getState(config)).values };
    },
  },
});
