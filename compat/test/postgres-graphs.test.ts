/**
 * The human-review flows of the seeds, run on each runtime's PostgresSaver (the deployment for
 * several machines) instead of its MemorySaver: pause, read, answer, resume from another saver,
 * several interrupts, breakpoints with an edit, time travel, a subgraph's interrupt, a deleted
 * thread. A user of `@langchain/langgraph-checkpoint-postgres` who switches to
 * `@interlude/checkpoint-postgres` sees the same results.
 */
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import pg from "pg";
import { testPostgresUrl } from "../../test/setup/urls.js";
import { compare, cutIds, historyOf, isInterlude, list, type Runtime, thread } from "./harness.js";
import { postgresSaverClass, postgresSaverOf } from "./postgres-savers.js";
import { closeSaver, freshName, freshSchema } from "./saver-storage.js";

/** Runs `body` with a fresh PostgresSaver of the runtime, closed after. */
async function withSaver<T>(lib: Runtime, body: (saver: any) => Promise<T>): Promise<T> {
  const saver = await postgresSaverOf(lib);
  try {
    return await body(saver);
  } finally {
    await closeSaver(saver);
  }
}

/** The seeds' running example: an agent proposes, a human reviews. */
function review(lib: Runtime, checkpointer: unknown, calls = { review: 0 }) {
  const { StateGraph, MessagesAnnotation, START, END, interrupt } = lib;
  return new StateGraph(MessagesAnnotation)
    .addNode("agent", () => ({ messages: [new AIMessage("Refund 120 EUR to ACME?")] }))
    .addNode("review", (s: any) => {
      calls.review++;
      const verdict = interrupt({ question: "Approve?", draft: s.messages.at(-1).content });
      return { messages: [new HumanMessage(`verdict: ${verdict}`)] };
    })
    .addEdge(START, "agent")
    .addEdge("agent", "review")
    .addEdge("review", END)
    .compile({ checkpointer });
}

const contents = (messages: any[]) => messages.map((m) => `${m.getType()}: ${m.content}`);

/** A review answered, then a fork with an edit from the checkpoint before it, continued. */
async function forkBeforeAnswer(lib: Runtime, saver: unknown) {
  const graph = review(lib, saver);
  const config = thread("fork");
  await graph.invoke({ messages: [new HumanMessage("Refund ACME")] }, config);
  await graph.invoke(new lib.Command({ resume: "approved" }), config);
  const beforeReview = (await historyOf(graph, config)).find((s) => s.next.includes("review"));
  const forked = await graph.updateState(beforeReview.config, { messages: [new AIMessage("Refund 80 EUR?")] });
  const fork = await graph.getState(forked);
  const continued = await graph.invoke(null, forked);
  return {
    fork: { next: fork.next, source: fork.metadata.source, messages: contents(fork.values.messages) },
    continued: contents(continued.messages),
    asks: continued.__interrupt__?.map((i: any) => i.value) ?? [],
  };
}

compare("graphs on PostgreSQL", {
  "the review: paused with the question, read, answered; history": {
    from: "seeds: an agent proposes, a human reviews (interrupt, getState, Command resume)",
    run: (lib) =>
      withSaver(lib, async (saver) => {
        const calls = { review: 0 };
        const graph = review(lib, saver, calls);
        const config = thread("review");
        const paused = await graph.invoke({ messages: [new HumanMessage("Refund ACME")] }, config);
        const state = await graph.getState(config);
        const done = await graph.invoke(new lib.Command({ resume: "approved" }), config);
        const after = await graph.getState(config);
        return {
          asked: paused.__interrupt__.map((i: any) => i.value),
          pausedWith: contents(paused.messages),
          next: state.next,
          tasks: state.tasks.map((t: any) => [t.name, t.interrupts.map((i: any) => i.value)]),
          done: contents(done.messages),
          afterNext: after.next,
          history: (await historyOf(graph, config)).map((s) => [s.metadata.source, s.metadata.step, s.next]),
          calls,
        };
      }),
  },

  "answered through another saver on the same database, as another process would": {
    from: "seeds: resume later, in another process",
    async run(lib) {
      const schema = await freshSchema();
      const first = await postgresSaverOf(lib, schema);
      try {
        await review(lib, first).invoke({ messages: [new HumanMessage("Refund ACME")] }, thread("later"));
      } finally {
        await closeSaver(first);
      }
      const second = await postgresSaverOf(lib, schema);
      try {
        const graph = review(lib, second);
        const waiting = await graph.getState(thread("later"));
        const done = await graph.invoke(new lib.Command({ resume: "approved later" }), thread("later"));
        return {
          waiting: waiting.tasks.map((t: any) => t.interrupts.map((i: any) => i.value)),
          done: contents(done.messages),
        };
      } finally {
        await closeSaver(second);
      }
    },
  },

  "a saver in a schema of its own, given LangGraph's way: fromConnString(url, { schema }), then a pool as (pool, undefined, { schema })":
    {
      from: "checkpoint-postgres: PostgresSaver's schema option",
      async run(lib) {
        const PostgresSaver = await postgresSaverClass(lib);
        // Not created here: the saver's setup makes it.
        const schema = freshName();
        const first = PostgresSaver.fromConnString(testPostgresUrl(), { schema });
        const pool = new pg.Pool({ connectionString: testPostgresUrl(), max: 2 });
        const second = new PostgresSaver(pool, undefined, { schema });
        try {
          await first.setup();
          await review(lib, first).invoke({ messages: [new HumanMessage("Refund ACME")] }, thread("schema"));
          const graph = review(lib, second);
          const waiting = await graph.getState(thread("schema"));
          const done = await graph.invoke(new lib.Command({ resume: "approved" }), thread("schema"));
          const tables = await pool.query("SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = $1", [schema]);
          return {
            waiting: waiting.tasks.map((t: any) => t.interrupts.map((i: any) => i.value)),
            done: contents(done.messages),
            tablesInSchema: tables.rows[0].n > 0,
            // The pool given keeps resolving names by its own search_path.
            poolSchema: (await pool.query("SELECT current_schema() AS s")).rows[0].s,
          };
        } finally {
          await Promise.all([closeSaver(first), closeSaver(second)]);
          const admin = new pg.Client({ connectionString: testPostgresUrl() });
          await admin.connect();
          await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).finally(() => admin.end());
        }
      },
    },

  "a node writing out its config: the PostgresStore in it is named, its connection string (password and all) is not": {
    from: "checkpoint-postgres/store: PostgresStore in compile({ store }), a node's config.store",
    async run(lib) {
      const { PostgresStore } = isInterlude(lib)
        ? await import("@interlude/checkpoint-postgres")
        : await import("@langchain/langgraph-checkpoint-postgres/store");
      // The test server trusts every local connection: the password is only there to be looked for.
      const url = new URL(testPostgresUrl());
      url.password = "s3cret-password";
      const store = new PostgresStore({ connectionOptions: url.toString() });
      const written: string[] = [];
      try {
        const { StateGraph, Annotation, START, END } = lib;
        const graph = new StateGraph(Annotation.Root({ topic: Annotation() }))
          .addNode("log", (_state: unknown, config: any) => (written.push(JSON.stringify(config.store)), {}))
          .addEdge(START, "log")
          .addEdge("log", END)
          .compile({ store });
        await graph.invoke({ topic: "refunds" });
        return {
          written: written.length,
          password: written.some((text) => text.includes("s3cret-password")),
          url: written.some((text) => text.includes("postgres://")),
          named: written.every((text) => /Store\]/.test(text)),
        };
      } finally {
        // Both runtimes' stop() ends the pool the store made.
        await store.stop();
      }
    },
  },

  "two interrupts in one node, answered in turn; the node runs again from its start each time": {
    from: "interrupt.test.ts: multiple interrupts in one node are matched by order",
    run: (lib) =>
      withSaver(lib, async (saver) => {
        const { Annotation, StateGraph, START, interrupt, Command } = lib;
        const State = Annotation.Root({ log: list(lib) });
        let runs = 0;
        const graph = new StateGraph(State)
          .addNode("ask", () => {
            runs++;
            const name = interrupt("name?");
            const age = interrupt("age?");
            return { log: [`${name}:${age}`] };
          })
          .addEdge(START, "ask")
          .compile({ checkpointer: saver });
        const config = thread();
        const first = await graph.invoke({ log: [] }, config);
        const second = await graph.invoke(new Command({ resume: "Ada" }), config);
        const done = await graph.invoke(new Command({ resume: 36 }), config);
        return {
          asked: [first, second].map((r: any) => r.__interrupt__.map((i: any) => i.value)),
          done,
          runs,
        };
      }),
  },

  "interrupts of two parallel nodes answered at once by id": {
    from: "interrupt.test.ts: resume multiple interrupts with a map of interrupt ids",
    run: (lib) =>
      withSaver(lib, async (saver) => {
        const { Annotation, StateGraph, START, interrupt, Command } = lib;
        const State = Annotation.Root({ log: list(lib) });
        const graph = new StateGraph(State)
          .addNode("legal", () => ({ log: [`legal:${interrupt("legal ok?")}`] }))
          .addNode("finance", () => ({ log: [`finance:${interrupt("finance ok?")}`] }))
          .addEdge(START, "legal")
          .addEdge(START, "finance")
          .compile({ checkpointer: saver });
        const config = thread();
        await graph.invoke({ log: [] }, config);
        const state = await graph.getState(config);
        const pending = state.tasks.flatMap((t: any) => t.interrupts);
        const answers = Object.fromEntries(pending.map((i: any) => [i.id, i.value.startsWith("legal") ? "yes" : "no"]));
        const done = await graph.invoke(new Command({ resume: answers }), config);
        return {
          pending: pending.map((i: any) => i.value).sort(),
          done: { log: [...done.log].sort() },
          next: (await graph.getState(config)).next,
        };
      }),
  },

  "a breakpoint before the review, the state edited, then continued": {
    from: "interruptBefore + updateState + invoke(null)",
    run: (lib) =>
      withSaver(lib, async (saver) => {
        const { StateGraph, MessagesAnnotation, START, END } = lib;
        const graph = new StateGraph(MessagesAnnotation)
          .addNode("agent", () => ({ messages: [new AIMessage("Refund 120 EUR")] }))
          .addNode("send", (s: any) => ({ messages: [new AIMessage(`sent: ${s.messages.at(-1).content}`)] }))
          .addEdge(START, "agent")
          .addEdge("agent", "send")
          .addEdge("send", END)
          .compile({ checkpointer: saver, interruptBefore: ["send"] });
        const config = thread();
        const stopped = await graph.invoke({ messages: [new HumanMessage("Refund ACME")] }, config);
        const before = await graph.getState(config);
        const edited = await graph.updateState(config, { messages: [new AIMessage("Refund 100 EUR")] });
        const afterEdit = await graph.getState(config);
        const done = await graph.invoke(null, config);
        return {
          stopped: contents(stopped.messages),
          next: before.next,
          editedAs: afterEdit.metadata.source,
          editedNext: afterEdit.next,
          editedConfigKeys: Object.keys(edited.configurable).sort(),
          done: contents(done.messages),
        };
      }),
  },

  "time travel: a replay from before the question asks it again; answered, the thread goes on": {
    from: "time_travel.test.ts: should replay from checkpoint before interrupt and strip stale RESUME writes",
    run: (lib) =>
      withSaver(lib, async (saver) => {
        const calls = { review: 0 };
        const graph = review(lib, saver, calls);
        const config = thread("travel");
        await graph.invoke({ messages: [new HumanMessage("Refund ACME")] }, config);
        await graph.invoke(new lib.Command({ resume: "approved" }), config);
        const beforeReview = (await historyOf(graph, config)).find((s) => s.next.includes("review"));
        const replayed = await graph.invoke(null, beforeReview.config);
        const done = await graph.invoke(new lib.Command({ resume: "declined" }), config);
        return {
          replayedAsks: replayed.__interrupt__.map((i: any) => i.value),
          done: contents(done.messages),
          history: (await historyOf(graph, config)).map((s) => [s.metadata.source, s.metadata.step, s.next]),
          calls,
        };
      }),
  },

  // LangGraph.js with its PostgresSaver: the fork holds the state the review's answer led to
  // ("verdict: approved"), without the edit, and nothing is due; with its MemorySaver it holds
  // the edit with the review due (the next scenario), as Interlude's savers do. The fork's
  // `messages` version (counted 1, 2, 3) is the one the answered branch stored last, and that
  // saver keeps one value per (channel, version).
  "a fork with an edit from before a question answered since: the edit, and the review due": {
    from: "time_travel.test.ts: updateState on an older checkpoint forks from it",
    differs: "#a-fork-from-before-an-answered-question",
    run: (lib) => withSaver(lib, (saver) => forkBeforeAnswer(lib, saver)),
  },

  "the same fork on the MemorySaver": {
    from: "time_travel.test.ts: updateState on an older checkpoint forks from it",
    run: (lib) => forkBeforeAnswer(lib, new lib.MemorySaver()),
  },

  "a subgraph's interrupt: its namespace, the state with subgraphs, the answer": {
    from: "subgraph.test.ts: interrupt inside a subgraph, getState({ subgraphs: true })",
    run: (lib) =>
      withSaver(lib, async (saver) => {
        const { Annotation, StateGraph, START, interrupt, Command } = lib;
        const State = Annotation.Root({ log: list(lib) });
        const child = new StateGraph(State)
          .addNode("check", () => ({ log: [`check:${interrupt("child asks")}`] }))
          .addEdge(START, "check")
          .compile();
        const graph = new StateGraph(State)
          .addNode("prepare", () => ({ log: ["prepare"] }))
          .addNode("child", child)
          .addEdge(START, "prepare")
          .addEdge("prepare", "child")
          .compile({ checkpointer: saver });
        const config = thread();
        await graph.invoke({ log: [] }, config);
        const state = await graph.getState(config, { subgraphs: true });
        const inner = state.tasks[0].state;
        const done = await graph.invoke(new Command({ resume: "fine" }), config);
        return {
          next: state.next,
          interrupts: state.tasks.map((t: any) => t.interrupts.map((i: any) => i.value)),
          innerNext: inner.next,
          innerValues: inner.values,
          innerNs: cutIds(inner.config.configurable.checkpoint_ns.split("|")),
          done,
        };
      }),
  },

  "a deleted thread has nothing left to resume": {
    from: "checkpoint-postgres: deleteThread",
    run: (lib) =>
      withSaver(lib, async (saver) => {
        const graph = review(lib, saver);
        const config = thread("gone");
        await graph.invoke({ messages: [new HumanMessage("Refund ACME")] }, config);
        await saver.deleteThread("gone");
        const state = await graph.getState(config);
        return { values: state.values, next: state.next, history: (await historyOf(graph, config)).length };
      }),
  },
});
