/**
 * The functional API: entrypoint(), task(), getPreviousState(), entrypoint.final.
 */
import { collect, compare } from "./harness.js";

compare("functional API", {
  "an entrypoint calling tasks returns their results": {
    from: "func.test.ts: basic task and entrypoint",
    async run({ entrypoint, task, MemorySaver }) {
      const double = task("double", async (x: number) => x * 2);
      const graph = entrypoint({ name: "g", checkpointer: new MemorySaver() }, async (xs: number[]) =>
        Promise.all(xs.map((x) => double(x))),
      );
      return graph.invoke([1, 2, 3], { configurable: { thread_id: "t" } });
    },
  },

  "an entrypoint's history, with the list options": {
    from: "func.test.ts (the entrypoint is a Pregel: getStateHistory(config, options))",
    async run({ entrypoint, MemorySaver }) {
      const graph = entrypoint({ name: "g", checkpointer: new MemorySaver() }, async (n: number) => n + 1);
      const config = { configurable: { thread_id: "t" } };
      for (const n of [1, 2, 3]) await graph.invoke(n, config);
      const history = async (options?: Record<string, unknown>) =>
        (await collect(graph.getStateHistory(config, options))).map((snapshot) => snapshot.metadata?.step);
      // Interlude records one more checkpoint per run (COMPATIBILITY.md, "Shapes that differ"):
      // compared are the limit and the order, newest first.
      const two = (await history({ limit: 2 })) as number[];
      return { two: two.length, newestFirst: two[0]! > two[1]!, more: (await history()).length > 2 };
    },
  },

  "an entrypoint without a checkpointer runs its tasks": {
    from: "func.test.ts: basic task and entrypoint",
    async run({ entrypoint, task }) {
      const add = task("add", async (a: number, b: number) => a + b);
      const graph = entrypoint("sum", async (n: number) => add(n, await add(n, 1)));
      return graph.invoke(5);
    },
  },

  "entrypoint.stream updates: one chunk per finished task, then the output": {
    from: "func.test.ts: streams in the correct order",
    async run({ entrypoint, task, MemorySaver }) {
      const double = task("double", async (x: number) => x * 2);
      const graph = entrypoint({ name: "g", checkpointer: new MemorySaver() }, async (xs: number[]) => {
        const out: number[] = [];
        for (const x of xs) out.push(await double(x));
        return out;
      });
      return collect(await graph.stream([1, 2], { configurable: { thread_id: "t" }, streamMode: "updates" }));
    },
  },

  "entrypoint.stream values: the output once": {
    from: "func.test.ts: streams in the correct order",
    async run({ entrypoint, task, MemorySaver }) {
      const double = task("double", async (x: number) => x * 2);
      const graph = entrypoint({ name: "g", checkpointer: new MemorySaver() }, async (xs: number[]) =>
        Promise.all(xs.map((x) => double(x))),
      );
      return collect(await graph.stream([1, 2], { configurable: { thread_id: "t" }, streamMode: "values" }));
    },
  },

  "getState of an entrypoint thread: the output is the values": {
    from: "func.test.ts: stores previous returned value in state",
    async run({ entrypoint, MemorySaver }) {
      const graph = entrypoint({ name: "g", checkpointer: new MemorySaver() }, async (x: number) => ({ got: x }));
      const config = { configurable: { thread_id: "t" } };
      await graph.invoke(1, config);
      const state = await graph.getState(config);
      return { values: state.values, next: state.next, tasks: state.tasks };
    },
  },

  "two tasks that each interrupt: answered in turn": {
    from: "func.test.ts: handles multiple interrupts from tasks",
    async run({ entrypoint, task, interrupt, Command, MemorySaver }) {
      const addParticipant = task("add-participant", async (name: string) => {
        const ok = interrupt(`Add ${name}?`);
        return ok ? `Added ${name}` : `Skipped ${name}`;
      });
      const program = entrypoint({ name: "program", checkpointer: new MemorySaver() }, async () => {
        const first = await addParticipant("James");
        const second = await addParticipant("Will");
        return [first, second];
      });
      const config = { configurable: { thread_id: "t" } };
      const out: unknown[] = [await program.invoke("start", config)];
      out.push(await program.invoke(new Command({ resume: true }), config));
      out.push(await program.invoke(new Command({ resume: false }), config));
      return out;
    },
  },

  "an interrupt in the entrypoint itself, then resumed": {
    from: "func.test.ts: can interrupt the entrypoint",
    async run({ entrypoint, task, interrupt, Command, MemorySaver }) {
      let calls = 0;
      const prep = task("prep", async (s: string) => {
        calls++;
        return `${s}!`;
      });
      const graph = entrypoint({ name: "g", checkpointer: new MemorySaver() }, async (s: string) => {
        const prepared = await prep(s);
        const answer = interrupt({ prepared });
        return { prepared, answer };
      });
      const config = { configurable: { thread_id: "t" } };
      const paused = await graph.invoke("hi", config);
      const done = await graph.invoke(new Command({ resume: "ok" }), config);
      return { paused, done, calls };
    },
  },

  "several interrupts in an entrypoint, answered one at a time": {
    from: "func.test.ts: handles multiple interrupts in an imperative style",
    async run({ entrypoint, interrupt, Command, MemorySaver }) {
      const graph = entrypoint({ name: "g", checkpointer: new MemorySaver() }, async () => {
        const a = interrupt("first?");
        const b = interrupt("second?");
        const c = interrupt("third?");
        return [a, b, c];
      });
      const config = { configurable: { thread_id: "t" } };
      const out: unknown[] = [await graph.invoke({}, config)];
      for (const answer of ["x", "y", "z"]) out.push(await graph.invoke(new Command({ resume: answer }), config));
      return out;
    },
  },

  "a task that returns a falsy value is not run again": {
    from: "func.test.ts: can handle falsy return values from tasks",
    async run({ entrypoint, task, interrupt, Command, MemorySaver }) {
      let calls = 0;
      const zero = task("zero", async () => {
        calls++;
        return 0;
      });
      const graph = entrypoint({ name: "g", checkpointer: new MemorySaver() }, async () => {
        const z = await zero();
        const answer = interrupt("go?");
        return { z, answer };
      });
      const config = { configurable: { thread_id: "t" } };
      await graph.invoke({}, config);
      const done = await graph.invoke(new Command({ resume: "go" }), config);
      return { done, calls };
    },
  },

  "getPreviousState returns the last run's output on the same thread": {
    from: "func.test.ts: stores previous returned value in state",
    async run({ entrypoint, getPreviousState, MemorySaver }) {
      const seen: unknown[] = [];
      const graph = entrypoint({ name: "g", checkpointer: new MemorySaver() }, async (input: string) => {
        const previous = getPreviousState();
        seen.push(previous);
        return { previous, current: input };
      });
      const a = { configurable: { thread_id: "a" } };
      const out = [await graph.invoke("1", a), await graph.invoke("2", a)];
      out.push(await graph.invoke("3", { configurable: { thread_id: "b" } }));
      return { out, seen };
    },
  },

  "entrypoint.final returns one value and saves another": {
    from: "func.test.ts: can return a final value separately from the persisted value",
    async run({ entrypoint, getPreviousState, MemorySaver }) {
      const graph = entrypoint({ name: "g", checkpointer: new MemorySaver() }, async (n: number) => {
        const previous = getPreviousState() ?? 0;
        return entrypoint.final({ value: n + previous, save: n });
      });
      const config = { configurable: { thread_id: "t" } };
      return [await graph.invoke(1, config), await graph.invoke(2, config), await graph.invoke(3, config)];
    },
  },

  "Entrypoint#updateState sets what getPreviousState returns": {
    from: "func.test.ts: stores previous returned value in state, allows updating state",
    async run({ entrypoint, getPreviousState, MemorySaver }) {
      const graph = entrypoint({ name: "g", checkpointer: new MemorySaver() }, async (input: string) => ({
        previous: getPreviousState(),
        current: input,
      }));
      const config = { configurable: { thread_id: "t" } };
      await graph.updateState(config, { a: -1 });
      const first = await graph.invoke("1", config);
      await graph.updateState(config, { a: 3 });
      const second = await graph.invoke("2", config);
      return { first, second };
    },
  },

  "an error thrown by a task reaches the caller": {
    from: "func.test.ts: propagates errors thrown from tasks",
    async run({ entrypoint, task, MemorySaver }) {
      const fail = task("fail", async () => {
        throw new Error("task failed");
      });
      const graph = entrypoint({ name: "g", checkpointer: new MemorySaver() }, async () => fail());
      return graph.invoke({}, { configurable: { thread_id: "t" } }).catch((e: Error) => e.message);
    },
  },

  "an error thrown by the entrypoint reaches the caller": {
    from: "func.test.ts: propagates errors thrown from entrypoints",
    async run({ entrypoint, MemorySaver }) {
      const graph = entrypoint({ name: "g", checkpointer: new MemorySaver() }, async () => {
        throw new Error("entrypoint failed");
      });
      return graph.invoke({}, { configurable: { thread_id: "t" } }).catch((e: Error) => e.message);
    },
  },

  "a task called from a graph node streams its own update": {
    from: "func.test.ts: should send updates immediately when streaming",
    async run({ Annotation, StateGraph, START, task }) {
      const double = task("double", async (x: number) => x * 2);
      const State = Annotation.Root({ v: Annotation() });
      const graph = new StateGraph(State)
        .addNode("n", async (s: any) => ({ v: await double(s.v) }))
        .addEdge(START, "n")
        .compile();
      return collect(await graph.stream({ v: 5 }, { streamMode: "updates" }));
    },
  },

  "a task interrupting inside a graph node, resumed": {
    from: "func.test.ts: task with interrupts",
    async run({ Annotation, StateGraph, START, task, interrupt, Command, MemorySaver }) {
      const ask = task("ask", async (q: string) => interrupt(q));
      const State = Annotation.Root({ a: Annotation(), b: Annotation() });
      const graph = new StateGraph(State)
        .addNode("n", async () => ({ a: await ask("first?"), b: await ask("second?") }))
        .addEdge(START, "n")
        .compile({ checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "t" } };
      const out: unknown[] = [await graph.invoke({}, config)];
      out.push(await graph.invoke(new Command({ resume: "A" }), config));
      out.push(await graph.invoke(new Command({ resume: "B" }), config));
      return out;
    },
  },

  "an entrypoint's stream is also a ReadableStream": async (lib) => {
    const { entrypoint, MemorySaver } = lib;
    const workflow = entrypoint({ name: "double", checkpointer: new MemorySaver() }, async (n: number) => n * 2);
    const stream = await workflow.stream(21, { configurable: { thread_id: "t" } });
    const locked = [stream.locked];
    const reader = stream.getReader();
    locked.push(stream.locked);
    const chunks = [];
    for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(r.value);
    return { chunks, locked };
  },
});
