/**
 * Where LangGraph's human-in-the-loop goes silently wrong, Interlude does the right thing or
 * refuses with a typed error, and the thread stays paused and resumable after every refusal.
 */

import {
  AmbiguousResumeError,
  Annotation,
  Command,
  END,
  InterruptMismatchError,
  InvalidResumeError,
  interrupt,
  MemorySaver,
  NothingToResumeError,
  START,
  type StandardSchemaV1,
  StateGraph,
  ThreadBusyError,
  ThreadClaimLostError,
  task,
  UnknownInterruptError,
} from "@interlude/core";
import { describe, expect, it } from "vitest";

const concat = { reducer: (a: string[], b: string[]) => a.concat(b), default: () => [] as string[] };
const thread = (id: string) => ({ configurable: { thread_id: id } });

function twoApprovals() {
  const State = Annotation.Root({ log: Annotation<string[]>(concat) });
  return new StateGraph(State)
    .addNode("legal", () => ({ log: [`legal:${interrupt({ review: "contract" })}`] }))
    .addNode("finance", () => ({ log: [`finance:${interrupt({ review: "budget" })}`] }))
    .addEdge(START, "legal")
    .addEdge(START, "finance")
    .compile({ checkpointer: new MemorySaver() });
}

describe("1. an ambiguous answer", () => {
  it("is refused when several interrupts are pending, listing them; an id map then works", async () => {
    const graph = twoApprovals();
    const config = thread("ambiguous");
    const paused = await graph.invoke({}, config);
    const error = await graph.invoke(new Command({ resume: "yes" }), config).catch((e) => e);
    expect(error).toBeInstanceOf(AmbiguousResumeError);
    expect(error.code).toBe("AMBIGUOUS_RESUME");
    // The pending questions in the thread's order (getState's); the run told them in its tasks' order.
    const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);
    expect([...error.pending].sort(byId)).toEqual(
      paused.__interrupt__!.map(({ id, value }) => ({ id, value })).sort(byId),
    );
    expect(error.message).toContain(paused.__interrupt__![0]!.id);
    expect(error.message).toMatch(/resume: \{ "<interrupt id>": answer/);
    // Nothing changed: same questions, same ids; answering by id finishes the run.
    expect((await graph.getState(config)).interrupts.map((i) => i.id)).toEqual(
      error.pending.map((i: { id: string }) => i.id),
    );
    const [finance, legal] = paused.__interrupt__!;
    const done = await graph.invoke(new Command({ resume: { [legal!.id]: "ok", [finance!.id]: "no" } }), config);
    expect(done.log).toEqual(["finance:no", "legal:ok"]);
  });
});

describe("2. nothing to resume", () => {
  const State = Annotation.Root({ v: Annotation<string>() });
  const build = (interruptBefore?: string[]) =>
    new StateGraph(State)
      .addNode("ask", () => ({ v: interrupt<unknown, string>("q") }))
      .addNode("after", () => ({}))
      .addEdge(START, "ask")
      .addEdge("ask", "after")
      .compile({ checkpointer: new MemorySaver(), interruptBefore });

  it("on a thread that never ran", async () => {
    const error = await build()
      .invoke(new Command({ resume: 1 }), thread("nobody"))
      .catch((e) => e);
    expect(error).toBeInstanceOf(NothingToResumeError);
    expect(error.reason).toBe("unknown_thread");
    expect(error.message).toMatch(/never run/);
  });

  it("on a finished thread", async () => {
    const graph = build();
    await graph.invoke({}, thread("finished"));
    await graph.invoke(new Command({ resume: "a" }), thread("finished"));
    const error = await graph.invoke(new Command({ resume: "b" }), thread("finished")).catch((e) => e);
    expect(error).toBeInstanceOf(NothingToResumeError);
    expect(error.reason).toBe("finished");
  });

  it("on a thread paused at a static breakpoint, saying to use invoke(null)", async () => {
    const graph = build(["ask"]);
    await graph.invoke({}, thread("bp"));
    const error = await graph.invoke(new Command({ resume: "x" }), thread("bp")).catch((e) => e);
    expect(error.reason).toBe("breakpoint");
    expect(error.message).toMatch(/invoke\(null, config\)/);
    const resumed = await graph.invoke(null, thread("bp"));
    expect(resumed.__interrupt__![0]!.value).toBe("q");
  });

  it("on a thread whose last run failed before a step, saying so and to use invoke(null)", async () => {
    const State = Annotation.Root({ n: Annotation<number>() });
    let fail = true;
    const graph = new StateGraph(State)
      .addNode("flaky", () => {
        if (fail) throw new Error("the model is down");
        return { n: 1 };
      })
      .addEdge(START, "flaky")
      .addEdge("flaky", END)
      .compile({ checkpointer: new MemorySaver() });
    await expect(graph.invoke({ n: 0 }, thread("failed"))).rejects.toThrow("the model is down");
    const error = await graph.invoke(new Command({ resume: "x" }), thread("failed")).catch((e) => e);
    expect(error).toBeInstanceOf(NothingToResumeError);
    expect(error.reason).toBe("breakpoint");
    // Not told it is at a breakpoint it never had: either cause is named.
    expect(error.message).toMatch(/static breakpoint .*or its last run stopped before those steps \(an error/);
    fail = false;
    expect(await graph.invoke(null, thread("failed"))).toEqual({ n: 1 });
  });

  it("a map naming an id that is not pending raises UnknownInterruptError with the pending ids", async () => {
    const graph = build();
    const paused = await graph.invoke({}, thread("unknown-id"));
    const bogus = "0".repeat(32);
    const error = await graph.invoke(new Command({ resume: { [bogus]: "x" } }), thread("unknown-id")).catch((e) => e);
    expect(error).toBeInstanceOf(UnknownInterruptError);
    expect(error.unknownIds).toEqual([bogus]);
    expect(error.pending.map((p: { id: string }) => p.id)).toEqual([paused.__interrupt__![0]!.id]);
    expect((await graph.invoke(new Command({ resume: "right" }), thread("unknown-id"))).v).toBe("right");
  });
});

describe("3. an answer is bound to its question", () => {
  it("a plan regenerated differently on replay is not approved by the old answer", async () => {
    let version = 0;
    const State = Annotation.Root({ approved: Annotation<string>() });
    const graph = new StateGraph(State)
      .addNode("plan", () => {
        const plan = `plan #${++version}`;
        return { approved: `${interrupt<unknown, string>({ approve: plan })} ${plan}` };
      })
      .addEdge(START, "plan")
      .compile({ checkpointer: new MemorySaver() });
    const config = thread("regenerated");
    await graph.invoke({}, config);
    const error = await graph.invoke(new Command({ resume: "approved" }), config).catch((e) => e);
    expect(error).toBeInstanceOf(InterruptMismatchError);
    expect(error.answered).toEqual({ approve: "plan #1" });
    expect(error.asked).toEqual({ approve: "plan #2" });
    expect(error.message).toContain('Node "plan"');
    // Still paused on the question the reviewer saw.
    expect((await graph.getState(config)).interrupts[0]!.value).toEqual({ approve: "plan #1" });
  });

  it("the same node with plan generation in task() is stable, so the approval applies", async () => {
    let version = 0;
    const makePlan = task("make_plan", () => `plan #${++version}`);
    const State = Annotation.Root({ approved: Annotation<string>() });
    const graph = new StateGraph(State)
      .addNode("plan", async () => {
        const plan = await makePlan();
        return { approved: `${interrupt<unknown, string>({ approve: plan })} ${plan}` };
      })
      .addEdge(START, "plan")
      .compile({ checkpointer: new MemorySaver() });
    await graph.invoke({}, thread("stable"));
    expect((await graph.invoke(new Command({ resume: "approved" }), thread("stable"))).approved).toBe(
      "approved plan #1",
    );
  });

  it("interrupt(value, { key }) matches answers by key when the order changes by design", async () => {
    const State = Annotation.Root({ order: Annotation<string[]>(), answers: Annotation<string>() });
    const graph = new StateGraph(State)
      .addNode("form", (s) => {
        const got = s.order.map(
          (field) => `${field}=${interrupt<unknown, string>(`what is your ${field}?`, { key: field })}`,
        );
        return { answers: got.join(",") };
      })
      .addEdge(START, "form")
      .compile({ checkpointer: new MemorySaver() });
    const config = thread("keyed");
    const first = await graph.invoke({ order: ["name", "age"] }, config);
    expect(first.__interrupt__![0]).toMatchObject({ value: "what is your name?", key: "name" });
    // The order flips while paused; the name's answer still goes to the name.
    const second = await graph.invoke(new Command({ resume: "Ada", update: { order: ["age", "name"] } }), config);
    expect(second.__interrupt__![0]).toMatchObject({ value: "what is your age?", key: "age" });
    expect((await graph.invoke(new Command({ resume: "36" }), config)).answers).toBe("age=36,name=Ada");
  });
});

describe("4. a swallowed interrupt", () => {
  it("still pauses when the node catches it and throws something else", async () => {
    const State = Annotation.Root({ ok: Annotation<boolean>() });
    const graph = new StateGraph(State)
      .addNode("careless", () => {
        try {
          return { ok: interrupt<unknown, boolean>("approve?") };
        } catch {
          throw new Error("wrapped");
        }
      })
      .addEdge(START, "careless")
      .compile({ checkpointer: new MemorySaver() });
    const paused = await graph.invoke({}, thread("rethrown"));
    expect(paused.__interrupt__![0]!.value).toBe("approve?");
    expect(await graph.invoke(new Command({ resume: true }), thread("rethrown"))).toEqual({ ok: true });
  });
});

describe("5. side effects in task()", () => {
  it("an error is saved and re-thrown on replay instead of calling again", async () => {
    let calls = 0;
    const charge = task("charge", () => {
      calls++;
      throw new Error("card declined");
    });
    const State = Annotation.Root({ outcome: Annotation<string>() });
    const graph = new StateGraph(State)
      .addNode("pay", async () => {
        let outcome: string;
        try {
          await charge();
          outcome = "charged";
        } catch (e) {
          outcome = `failed: ${(e as Error).message}`;
        }
        return { outcome: `${outcome} / ${interrupt<unknown, string>("confirm")}` };
      })
      .addEdge(START, "pay")
      .compile({ checkpointer: new MemorySaver() });
    await graph.invoke({}, thread("saved-error"));
    const result = await graph.invoke(new Command({ resume: "ok" }), thread("saved-error"));
    expect(result.outcome).toBe("failed: card declined / ok");
    expect(calls).toBe(1);
  });

  it("a retryable task runs again after an error", async () => {
    let calls = 0;
    const flaky = task({ name: "flaky", retryable: true }, () => {
      calls++;
      if (calls === 1) throw new Error("timeout");
      return "ok";
    });
    const State = Annotation.Root({ outcome: Annotation<string>() });
    const graph = new StateGraph(State)
      .addNode("n", async () => {
        const first = await flaky().catch(() => "error");
        return { outcome: `${first} / ${interrupt<unknown, string>("go?")}` };
      })
      .addEdge(START, "n")
      .compile({ checkpointer: new MemorySaver() });
    await graph.invoke({}, thread("retryable"));
    const result = await graph.invoke(new Command({ resume: "go" }), thread("retryable"));
    expect(calls).toBe(2);
    expect(result.outcome).toBe("ok / go");
  });
});

describe("6. validated answers", () => {
  interface Approval {
    approved: boolean;
    comment?: string;
  }
  const approvalSchema: StandardSchemaV1<unknown, Approval> & { toJSONSchema(): Record<string, unknown> } = {
    "~standard": {
      version: 1,
      vendor: "test",
      validate(value) {
        const v = value as Partial<Approval> | null;
        if (typeof v !== "object" || v === null) return { issues: [{ message: "expected an object" }] };
        if (typeof v.approved !== "boolean") return { issues: [{ message: "must be a boolean", path: ["approved"] }] };
        return { value: v as Approval };
      },
    },
    toJSONSchema: () => ({
      type: "object",
      properties: { approved: { type: "boolean" }, comment: { type: "string" } },
      required: ["approved"],
    }),
  };
  const State = Annotation.Root({ decision: Annotation<Approval>() });
  const graph = new StateGraph(State)
    .addNode("review", () => ({ decision: interrupt({ plan: "p" }, { responseSchema: approvalSchema }) }))
    .addEdge(START, "review")
    .compile({ checkpointer: new MemorySaver() });

  it("exposes the JSON Schema of the expected answer on the pending interrupt", async () => {
    const paused = await graph.invoke({}, thread("schema-1"));
    expect(paused.__interrupt__![0]!.responseSchema).toEqual(approvalSchema.toJSONSchema());
  });

  it("refuses an invalid answer with its issues; the interrupt stays pending with the same id", async () => {
    const config = thread("schema-2");
    const paused = await graph.invoke({}, config);
    const id = paused.__interrupt__![0]!.id;
    const error = await graph.invoke(new Command({ resume: { approved: "yes" } }), config).catch((e) => e);
    expect(error).toBeInstanceOf(InvalidResumeError);
    expect(error.interruptId).toBe(id);
    expect(error.issues).toEqual([{ message: "must be a boolean", path: ["approved"] }]);
    expect(error.message).toContain("approved: must be a boolean");
    expect((await graph.getState(config)).interrupts.map((i) => i.id)).toEqual([id]);
    expect(await graph.invoke(new Command({ resume: { approved: true } }), config)).toEqual({
      decision: { approved: true },
    });
  });
});

describe("7. one writer per thread", () => {
  it("of two concurrent resumes in one process, exactly one runs; the other gets ThreadBusyError before any node runs", async () => {
    let entered = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let running!: () => void;
    const started = new Promise<void>((r) => (running = r));
    const State = Annotation.Root({ v: Annotation<string>() });
    const graph = new StateGraph(State)
      .addNode("ask", async () => {
        const answer = interrupt<unknown, string>("q");
        entered++;
        running();
        await gate;
        return { v: answer };
      })
      .addEdge(START, "ask")
      .compile({ checkpointer: new MemorySaver() });
    const config = thread("busy");
    await graph.invoke({}, config);
    const first = graph.invoke(new Command({ resume: "first" }), config);
    await started; // the first resume holds the thread while its node runs
    const second = await graph.invoke(new Command({ resume: "second" }), config).catch((e) => e);
    expect(second).toBeInstanceOf(ThreadBusyError);
    expect(second.code).toBe("THREAD_BUSY");
    release();
    expect(await first).toEqual({ v: "first" });
    expect(entered).toBe(1);
  });
});

describe("7b. the claim given back with the run's last writes", () => {
  /** Records the saver calls that write pending writes or release a claim, in order. */
  class RecordingSaver extends MemorySaver {
    readonly calls: string[] = [];
    override async putWrites(...args: Parameters<MemorySaver["putWrites"]>) {
      this.calls.push(args[3]?.releaseClaim ? "putWrites+release" : "putWrites");
      return super.putWrites(...args);
    }
    override async put(...args: Parameters<MemorySaver["put"]>) {
      this.calls.push(args[4]?.releaseClaim ? "put+release" : "put");
      return super.put(...args);
    }
    override async releaseThread(threadId: string, owner: string) {
      this.calls.push("releaseThread");
      return super.releaseThread(threadId, owner);
    }
  }

  it("a run paused at two questions offers its claim with the last of its writes only, then releases it", async () => {
    const saver = new RecordingSaver();
    const State = Annotation.Root({ log: Annotation<string[]>(concat) });
    const graph = new StateGraph(State)
      .addNode("legal", () => ({ log: [`legal:${interrupt("contract?")}`] }))
      .addNode("finance", () => ({ log: [`finance:${interrupt("budget?")}`] }))
      .addEdge(START, "legal")
      .addEdge(START, "finance")
      .compile({ checkpointer: saver });
    const paused = await graph.invoke({}, thread("release-paused"));
    expect(saver.calls).toEqual(["put", "put", "putWrites", "putWrites+release", "releaseThread"]);
    const answers = Object.fromEntries(paused.__interrupt__!.map((i) => [i.id, "ok"]));
    expect(await graph.invoke(new Command({ resume: answers }), thread("release-paused"))).toEqual({
      log: ["finance:ok", "legal:ok"],
    });
  });

  it("a finished run offers its claim with its last checkpoint, whatever the durability", async () => {
    for (const durability of ["sync", "async", "exit"] as const) {
      const saver = new RecordingSaver();
      const graph = new StateGraph(Annotation.Root({ n: Annotation<number>() }))
        .addNode("one", (s) => ({ n: s.n + 1 }))
        .addNode("two", (s) => ({ n: s.n * 10 }))
        .addEdge(START, "one")
        .addEdge("one", "two")
        .compile({ checkpointer: saver });
      expect(await graph.invoke({ n: 1 }, { ...thread(`release-done-${durability}`), durability })).toEqual({ n: 20 });
      // The input, START's step, "one", then "two"'s with the release; "exit" saves only the last.
      const last = durability === "exit" ? ["put+release"] : ["put", "put", "put", "put+release"];
      expect(saver.calls).toEqual([...last, "releaseThread"]);
      const tuple = await saver.getTuple(thread(`release-done-${durability}`));
      expect(tuple?.checkpoint.channel_values).toMatchObject({ n: 20 });
    }
  });

  it("a failed run offers its claim with its error's write, and the thread can be run again", async () => {
    const saver = new RecordingSaver();
    let fail = true;
    const graph = new StateGraph(Annotation.Root({ v: Annotation<string>() }))
      .addNode("work", () => {
        if (fail) throw new Error("boom");
        return { v: "done" };
      })
      .addEdge(START, "work")
      .compile({ checkpointer: saver });
    await expect(graph.invoke({}, thread("release-failed"))).rejects.toThrow("boom");
    expect(saver.calls).toEqual(["put", "put", "putWrites+release", "releaseThread"]);
    fail = false;
    expect(await graph.invoke(null, thread("release-failed"))).toEqual({ v: "done" });
  });
});

describe("7c. a claim lost while the run works", () => {
  /** Blocks the process as a long pause would (no timer fires, so no heartbeat renews the claim). */
  const pause = (ms: number) => {
    const until = Date.now() + ms;
    while (Date.now() < until);
  };

  function pausing(saver: MemorySaver, takenBy?: string) {
    return new StateGraph(Annotation.Root({ v: Annotation<string>(), after: Annotation<string>() }))
      .addNode("work", (_s, config) => {
        pause(120);
        // Another caller claims the thread while this run's claim has lapsed.
        if (takenBy)
          void saver.claimThread(config.configurable!.thread_id as string, { owner: takenBy, ttlMs: 60_000 });
        return { v: "late" };
      })
      .addNode("after", () => ({ after: "done" }))
      .addEdge(START, "work")
      .addEdge("work", "after")
      .compile({ checkpointer: saver });
  }

  it("stops the run with ThreadClaimLostError before its next write once another caller took the thread", async () => {
    const saver = new MemorySaver();
    const config = { ...thread("claim-lost"), claimTtlMs: 50 };
    const error = await pausing(saver, "other")
      .invoke({}, config)
      .catch((e) => e);
    expect(error).toBeInstanceOf(ThreadClaimLostError);
    expect(error.code).toBe("THREAD_CLAIM_LOST");
    // Nothing of the node was saved: the thread is where the run's last write left it.
    const tuple = await saver.getTuple(thread("claim-lost"));
    expect(tuple?.checkpoint.channel_values.v).toBeUndefined();
    expect(tuple?.pendingWrites ?? []).toEqual([]);
    // The other caller holds the thread still: the lost run released nothing of it.
    expect(await saver.claimThread("claim-lost", { owner: "third", ttlMs: 60_000 })).toBe(false);
  });

  it("goes on when its claim lapsed but nobody took it: the claim is renewed before the write", async () => {
    const saver = new MemorySaver();
    const config = { ...thread("claim-lapsed"), claimTtlMs: 50 };
    expect(await pausing(saver).invoke({}, config)).toEqual({ v: "late", after: "done" });
  });
});

describe("6b. validated answers with a real validator (zod 4)", () => {
  it("refuses a bad answer with zod's issues and exposes zod's JSON Schema", async () => {
    const { z } = await import("zod");
    const schema = z.object({ approved: z.boolean(), comment: z.string().optional() });
    const State = Annotation.Root({ decision: Annotation<unknown>() });
    const graph = new StateGraph(State)
      .addNode("review", () => ({ decision: interrupt({ plan: "p" }, { responseSchema: schema }) }))
      .addEdge(START, "review")
      .compile({ checkpointer: new MemorySaver() });
    const config = thread("zod");
    const paused = await graph.invoke({}, config);
    expect(paused.__interrupt__![0]!.responseSchema).toMatchObject({
      type: "object",
      properties: { approved: { type: "boolean" } },
      required: ["approved"],
    });
    const error = await graph.invoke(new Command({ resume: { approved: "yes" } }), config).catch((e) => e);
    expect(error).toBeInstanceOf(InvalidResumeError);
    expect(error.issues[0].path).toEqual(["approved"]);
    expect(await graph.invoke(new Command({ resume: { approved: false, comment: "no" } }), config)).toEqual({
      decision: { approved: false, comment: "no" },
    });
  });
});

describe("4b. a swallowed interrupt without a checkpointer", () => {
  it("still fails, naming the node, instead of silently finishing", async () => {
    const State = Annotation.Root({ ok: Annotation<boolean>() });
    const graph = new StateGraph(State)
      .addNode("careless", () => {
        try {
          return { ok: interrupt<unknown, boolean>("approve?") };
        } catch {
          return { ok: false };
        }
      })
      .addEdge(START, "careless")
      .compile();
    const error = await graph.invoke({}).catch((e) => e);
    expect(error.code).toBe("MISSING_CHECKPOINTER");
    expect(error.message).toContain('"careless"');
  });
});
