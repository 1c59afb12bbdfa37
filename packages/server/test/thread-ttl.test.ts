/**
 * Threads' TTLs, on SQLite and on PostgreSQL: a thread nobody has touched for its TTL goes
 * (strategy "delete") or keeps only its newest checkpoint ("keep_latest"); one touched since,
 * or with a run in progress, stays. The clock is moved instead of waited for, and the sweep is
 * called directly, but for one test of the process's own timer.
 */
import type { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sweep } from "../dist/threads/ttl-sweeper.js";
import { openGate } from "./fixtures/gates.mjs";
import { json, type TestServer, testServer, until, whileRefusing } from "./helpers.js";
import { storages, testDatabase } from "./processes.js";

const MINUTE = 60_000;
/** Never, within a test: the sweep is called by the test. */
const NO_TIMER = 3_600_000;

const backends = storages("interlude_ttl");

describe.each(backends)("thread TTLs on %s", (_name, storage) => {
  let server: TestServer;
  let client: Client;
  /** How far the server's clock is ahead of the real one. */
  let ahead = 0;
  beforeAll(async () => {
    server = await testServer({
      ...(await storage()),
      now: () => Date.now() + ahead,
      threadTtl: { sweepMs: NO_TIMER, default: { strategy: "delete", ms: 10 * MINUTE } },
    });
    client = server.client();
  }, 60_000);
  afterAll(() => server?.dispose());

  /** Runs one sweep with the clock `ms` ahead of now. */
  async function sweepAt(ms: number) {
    ahead = ms;
    try {
      await sweep(server.backend.ctx);
    } finally {
      ahead = 0;
    }
  }
  const exists = async (threadId: string) => (await json(`${server.url}/threads/${threadId}`)).status === 200;

  it("a thread untouched for its TTL goes, with its checkpoints and its pending question", async () => {
    const thread = await client.threads.create({ ttl: 1 });
    await client.runs.wait(thread.thread_id, "loop", { input: { rounds: 1 } });
    expect((await client.threads.getState(thread.thread_id)).next).toEqual(["ask"]);
    const inbox = async () => (await json(`${server.url}/inbox/interrupts?thread_id=${thread.thread_id}`)).body;
    expect((await inbox()).items).toHaveLength(1);
    await sweepAt(MINUTE / 2);
    expect(await exists(thread.thread_id)).toBe(true);
    await sweepAt(MINUTE + 1_000);
    expect(await exists(thread.thread_id)).toBe(false);
    expect((await inbox()).items).toHaveLength(0);
    expect(await server.backend.ctx.saver.getTuple({ configurable: { thread_id: thread.thread_id } })).toBeUndefined();
  });

  it("a thread touched since its expiry was set is looked at again from its last activity, not deleted", async () => {
    // Created with the clock 50 s behind: its expiry is 10 s from now, its last activity now.
    ahead = -50_000;
    const thread = await client.threads.create({ ttl: 1 });
    ahead = 0;
    await sweepAt(20_000);
    expect(await exists(thread.thread_id)).toBe(true);
    await sweepAt(MINUTE + 1_000);
    expect(await exists(thread.thread_id)).toBe(false);
  });

  it("keep_latest keeps the thread at its newest checkpoint, which still resumes", async () => {
    // The SDK's types know "delete" only; LangGraph's API and config take both.
    const thread = (
      await json(`${server.url}/threads`, {
        method: "POST",
        body: JSON.stringify({ ttl: { ttl: 1, strategy: "keep_latest" } }),
      })
    ).body;
    await client.runs.wait(thread.thread_id, "loop", { input: { rounds: 2 } });
    await client.runs.wait(thread.thread_id, "loop", { command: { resume: "first" } });
    expect((await client.threads.getHistory(thread.thread_id, { limit: 100 })).length).toBeGreaterThan(2);
    await sweepAt(MINUTE + 1_000);
    expect(await client.threads.getHistory(thread.thread_id, { limit: 100 })).toHaveLength(1);
    const done = (await client.runs.wait(thread.thread_id, "loop", { command: { resume: "second" } })) as any;
    expect(done.answers).toEqual(["first", "second"]);
  });

  it("a thread with a run in progress stays until the run has ended", async () => {
    const thread = await client.threads.create({ ttl: 1 });
    const gate = `ttl-busy-${_name}`;
    const run = await client.runs.create(thread.thread_id, "slow", { input: { tag: "t", hold: gate } });
    await until(async () => (await client.threads.get(thread.thread_id)).status === "busy");
    await sweepAt(MINUTE + 1_000);
    expect(await exists(thread.thread_id)).toBe(true);
    openGate(gate);
    await client.runs.join(thread.thread_id, run.run_id);
    // Looked at again at the next sweep, and gone then: its TTL counts from the run's end.
    await sweepAt(MINUTE + 1_000 + NO_TIMER);
    expect(await exists(thread.thread_id)).toBe(false);
  });

  it("the default TTL is given to threads created without one, by POST /threads, a run or a copy; an update re-arms it", async () => {
    const created = await client.threads.create();
    const byRun = crypto.randomUUID();
    await client.runs.wait(byRun, "loop", { input: { rounds: 1 }, ifNotExists: "create" });
    const copied = await client.threads.copy(created.thread_id);
    const kept = await client.threads.create();
    await client.threads.update(kept.thread_id, { metadata: { kept: true }, ttl: 30 });
    await sweepAt(10 * MINUTE + 1_000);
    for (const id of [created.thread_id, byRun, copied.thread_id]) expect(await exists(id)).toBe(false);
    expect(await exists(kept.thread_id)).toBe(true);
    await sweepAt(30 * MINUTE + 1_000);
    expect(await exists(kept.thread_id)).toBe(false);
  });

  it("a thread whose deletion fails does not hold up the threads due after it, and goes once its deletion can", async () => {
    const poisoned = await client.threads.create({ ttl: 1 });
    const next = await client.threads.create({ ttl: 1 });
    // The database refuses to delete that one thread's record (a fault of its own, say a lock held for long).
    const refusal = {
      event: "DELETE",
      table: "interlude_server_threads",
      when: `OLD.thread_id = '${poisoned.thread_id}'`,
    } as const;
    await whileRefusing(server.backend.ctx.store.db, refusal, async () => {
      await sweepAt(MINUTE + 1_000);
      expect(await exists(poisoned.thread_id)).toBe(true);
      expect(await exists(next.thread_id)).toBe(false);
    });
    // Taken again once the failed sweep's lease on it has run out.
    await sweepAt(MINUTE + 1_000 + 5 * MINUTE + 1_000);
    expect(await exists(poisoned.thread_id)).toBe(false);
  });

  it("a backlog larger than a batch is worked off in one sweep, not one batch per sweep", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push(
        ...(await Promise.all(
          Array.from({ length: 50 }, async () => (await client.threads.create({ ttl: 2 })).thread_id),
        )),
      );
    await sweepAt(2 * MINUTE + 1_000);
    const left = await client.threads.search({ ids, limit: 1000 });
    expect(left).toHaveLength(0);
  });

  it("threads.prune deletes the threads named, or cuts them to their newest checkpoint, counting those it changed", async () => {
    const gone = await client.threads.create();
    const cut = await client.threads.create();
    await client.runs.wait(cut.thread_id, "loop", { input: { rounds: 2 } });
    await client.runs.wait(cut.thread_id, "loop", { command: { resume: "first" } });
    const busy = await client.threads.create();
    const gate = `prune-busy-${_name}`;
    const run = await client.runs.create(busy.thread_id, "slow", { input: { tag: "t", hold: gate } });
    await until(async () => (await client.threads.get(busy.thread_id)).status === "busy");
    expect(await client.threads.prune([gone.thread_id, gone.thread_id, "no-such-thread"])).toEqual({ pruned_count: 1 });
    expect(await exists(gone.thread_id)).toBe(false);
    const kept = await client.threads.prune([cut.thread_id, busy.thread_id], { strategy: "keep_latest" });
    expect(kept).toEqual({ pruned_count: 1 });
    expect(await client.threads.getHistory(cut.thread_id, { limit: 100 })).toHaveLength(1);
    const done = (await client.runs.wait(cut.thread_id, "loop", { command: { resume: "second" } })) as any;
    expect(done.answers).toEqual(["first", "second"]);
    openGate(gate);
    await client.runs.join(busy.thread_id, run.run_id);
    expect((await client.threads.getHistory(busy.thread_id, { limit: 100 })).length).toBeGreaterThan(1);
  });

  it("a TTL that is not a positive number of minutes is refused with 422 naming it", async () => {
    for (const ttl of [{ ttl: 0 }, { ttl: -5 }, { ttl: 1, strategy: "archive" }, "soon"]) {
      const refused = await json(`${server.url}/threads`, { method: "POST", body: JSON.stringify({ ttl }) });
      expect(refused).toMatchObject({ status: 422, body: { field: expect.stringMatching(/^ttl/) } });
    }
  });
});

describe("the sweep's own timer", () => {
  it("deletes a thread past its TTL without being called", async () => {
    let ahead = 0;
    const server = await testServer({ now: () => Date.now() + ahead, threadTtl: { sweepMs: 20 } });
    try {
      const thread = await server.client().threads.create({ ttl: 1 });
      ahead = 2 * MINUTE;
      await until(async () => (await json(`${server.url}/threads/${thread.thread_id}`)).status === 404);
    } finally {
      await server.dispose();
    }
  });
});

describe("two processes sweeping one backlog on PostgreSQL", () => {
  it("delete each thread once: none is left, and the inbox counts no question twice", async () => {
    const postgresUrl = await testDatabase("interlude_ttl2");
    let ahead = 0;
    const options = { postgresUrl, now: () => Date.now() + ahead, threadTtl: { sweepMs: NO_TIMER } };
    const [a, b] = [await testServer(options), await testServer(options)];
    try {
      const client = a.client();
      const ids = await Promise.all(
        Array.from({ length: 120 }, async () => {
          const thread = await client.threads.create({ ttl: 1 });
          await client.runs.wait(thread.thread_id, "loop", { input: { rounds: 1 } });
          return thread.thread_id;
        }),
      );
      const total = async () => (await json(`${a.url}/inbox/interrupts?limit=1`)).body.total;
      expect(await total()).toBe(120);
      ahead = MINUTE + 1_000;
      await Promise.all([sweep(a.backend.ctx), sweep(b.backend.ctx)]);
      expect(await client.threads.search({ ids, limit: 1000 })).toHaveLength(0);
      expect(await total()).toBe(0);
    } finally {
      await Promise.all([a.dispose(), b.dispose()]);
    }
  }, 60_000);
});
