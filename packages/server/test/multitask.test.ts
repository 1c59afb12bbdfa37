/** Double-texting: a second run on a busy thread, with each multitask strategy; and cancel. */

import { GroupCommit } from "@interlude/checkpoint-sqlite";
import type { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SqliteDb } from "../dist/store/db.js";
import { openGate } from "./fixtures/gates.mjs";
import { json, type TestServer, testServer, until } from "./helpers.js";

let server: TestServer;
let client: Client;
beforeAll(async () => {
  // A cancelled node that ignored its AbortSignal would hold its run for this long (past the
  // test's timeout): a cancel that returns shows the node stopped because it was told to.
  server = await testServer({ abortGraceMs: 600_000 });
  client = server.client();
});
afterAll(() => server?.dispose());

let gates = 0;

/**
 * A thread whose run is inside its first step: held there until the test calls the returned
 * `release()` (then each step takes 1 ms), or, with `abortable`, until the run is told to stop.
 */
async function busyThread(tag: string, { abortable = false } = {}) {
  const thread = await client.threads.create();
  const hold = `multitask-${gates++}`;
  const input = abortable ? { tag, delay: 600_000, abortable } : { tag, delay: 1, hold };
  const first = await client.runs.create(thread.thread_id, "slow", { input });
  // The input is saved; commits are batched per event-loop turn: the batch holding it must have committed.
  await until(async () => (await client.threads.getState(thread.thread_id)).next.includes("first"));
  await GroupCommit.of((server.backend.ctx.store.db as SqliteDb).raw).settled();
  return { thread, first, release: () => openGate(hold) };
}

describe("multitask strategies", () => {
  it("reject (the default): 409 and the first run goes on", async () => {
    const { thread, first, release } = await busyThread("a");
    await expect(client.runs.create(thread.thread_id, "slow", { input: { tag: "b" } })).rejects.toThrow(
      /409.*already running a task/,
    );
    await expect(
      client.runs.wait(thread.thread_id, "slow", { input: { tag: "b" }, multitaskStrategy: "reject" }),
    ).rejects.toThrow(/409/);
    release();
    const values = (await client.runs.join(thread.thread_id, first.run_id)) as any;
    expect(values.log).toEqual(["first:a", "second:a"]);
  });

  it("enqueue: the second run starts when the first has finished", async () => {
    const { thread, first, release } = await busyThread("a");
    const second = await client.runs.create(thread.thread_id, "slow", {
      input: { tag: "b", delay: 10 },
      multitaskStrategy: "enqueue",
    });
    expect(second.status).toBe("pending");
    release();
    const values = (await client.runs.join(thread.thread_id, second.run_id)) as any;
    expect(values.log).toEqual(["first:a", "second:a", "first:b", "second:b"]);
    expect((await client.runs.get(thread.thread_id, first.run_id)).status).toBe("success");
    expect((await client.threads.get(thread.thread_id)).status).toBe("idle");
  });

  it("interrupt: the first run stops where it is and the second continues from there", async () => {
    const { thread, first, release } = await busyThread("a");
    // The first run is told to stop before its step may end.
    const second = await client.runs.create(thread.thread_id, "slow", {
      input: { tag: "b", delay: 10 },
      multitaskStrategy: "interrupt",
    });
    release();
    const values = (await client.runs.join(thread.thread_id, second.run_id)) as any;
    expect((await client.runs.get(thread.thread_id, first.run_id)).status).toBe("interrupted");
    // The first run stopped after the step it was in; its work so far is kept, and its pending
    // step is dropped by the new input, which runs from the start (LangGraph's semantics for new input).
    expect(values.log).toEqual(["first:a", "first:b", "second:b"]);
    const history = await client.threads.getHistory(thread.thread_id, { limit: 20 });
    expect(
      history.find((s) => s.metadata?.source === "loop" && (s.values as any).tag === "a" && s.next.includes("second")),
    ).toBeTruthy();
  });

  it("rollback: the first run is deleted and its progress undone", async () => {
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, "slow", { input: { tag: "base", delay: 1 } });
    // Its first step done, the first run waits in its second until told to stop.
    const first = await client.runs.create(thread.thread_id, "slow", {
      input: { tag: "a", delay: 1, secondDelay: 600_000, abortable: true },
    });
    await until(async () => ((await client.threads.getState(thread.thread_id)).values as any).log?.includes("first:a"));
    const values = (await client.runs.wait(thread.thread_id, "slow", {
      input: { tag: "b", delay: 1 },
      multitaskStrategy: "rollback",
    })) as any;
    expect(values.log).toEqual(["first:base", "second:base", "first:b", "second:b"]);
    await expect(client.runs.get(thread.thread_id, first.run_id)).rejects.toThrow(/404/);
  });

  it("rollback of a thread's first run starts it afresh", async () => {
    const { thread } = await busyThread("a", { abortable: true });
    const values = (await client.runs.wait(thread.thread_id, "slow", {
      input: { tag: "b", delay: 1 },
      multitaskStrategy: "rollback",
    })) as any;
    expect(values.log).toEqual(["first:b", "second:b"]);
  });
});

describe("cancel", () => {
  it.each(["interrupt", "rollback", "enqueue"] as const)(
    "%s takes no answer from the run that carries it: another answer to its question waits for it and is refused 409",
    async (multitask_strategy) => {
      const { thread_id } = await client.threads.create();
      const paused = (await client.runs.wait(thread_id, "soak_flat", { input: { rounds: 2, delay: 1_000 } })) as any;
      const [question] = paused.__interrupt__;
      const resume = (answer: string) => ({ command: { resume: { [question.id]: answer } } });
      // Its run spends a second in the step after the one that takes the answer.
      const first = await client.runs.create(thread_id, "soak_flat", resume("first"));
      const second = await json(`${server.url}/threads/${thread_id}/runs/wait`, {
        method: "POST",
        body: JSON.stringify({ assistant_id: "soak_flat", ...resume("second"), multitask_strategy }),
      });
      expect(second).toMatchObject({ status: 409, body: { code: "ALREADY_ANSWERED", answer: "first" } });
      expect(((await client.runs.join(thread_id, first.run_id)) as any).answers).toEqual(["first"]);
      expect(await client.runs.get(thread_id, first.run_id)).toMatchObject({ status: "success" });
      expect(await client.runs.list(thread_id)).toHaveLength(2);
    },
  );

  it("cancels a running run at once when its node listens to the signal; the thread is free again", async () => {
    const { thread, first } = await busyThread("a", { abortable: true });
    await client.runs.cancel(thread.thread_id, first.run_id, true);
    expect((await client.runs.get(thread.thread_id, first.run_id)).status).toBe("interrupted");
    expect(((await client.threads.getState(thread.thread_id)).values as any).log ?? []).toEqual([]);
    expect((await client.threads.get(thread.thread_id)).status).not.toBe("busy");
    await client.runs
      .create(thread.thread_id, "slow", { input: { tag: "b", delay: 1 } })
      .then((run) => client.runs.cancel(thread.thread_id, run.run_id, true));
  });

  it("cancels a running run between steps", async () => {
    const { thread, first, release } = await busyThread("a");
    // Told to stop while in its first step, which ends only after that.
    await client.runs.cancel(thread.thread_id, first.run_id, false);
    release();
    await client.runs.join(thread.thread_id, first.run_id);
    expect((await client.runs.get(thread.thread_id, first.run_id)).status).toBe("interrupted");
    expect(((await client.threads.getState(thread.thread_id)).values as any).log).toEqual(["first:a"]);
  });

  it("cancels a queued run before it starts", async () => {
    const { thread, first, release } = await busyThread("a");
    const queued = await client.runs.create(thread.thread_id, "slow", {
      input: { tag: "never" },
      multitaskStrategy: "enqueue",
    });
    await client.runs.cancel(thread.thread_id, queued.run_id);
    release();
    expect((await client.runs.get(thread.thread_id, queued.run_id)).status).toBe("interrupted");
    const values = (await client.runs.join(thread.thread_id, first.run_id)) as any;
    expect(values.log).toEqual(["first:a", "second:a"]);
  });
});
