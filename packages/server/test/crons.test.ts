/**
 * Crons through the LangGraph SDK, on SQLite and on PostgreSQL: a thread's cron makes a run on
 * its thread each time its schedule comes round, a stateless cron a run on a new thread
 * (deleted after unless kept); disabled or ended crons make none; search, count, update and
 * delete. The clock is moved instead of waited for, and the sweep is called by the test.
 */
import type { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, movedClock, type TestServer, testServer, until, whileRefusing } from "./helpers.js";
import { storages } from "./processes.js";

const MINUTE = 60_000;
/** Never, within a test: the sweep is called by the test. */
const NO_TIMER = 3_600_000;

describe.each(storages("interlude_crons"))("crons on %s", (_name, storage) => {
  let server: TestServer;
  let client: Client;
  const clock = movedClock();
  beforeAll(async () => {
    server = await testServer({ ...(await storage()), now: clock.now, cronSweepMs: NO_TIMER });
    client = server.client();
  }, 60_000);
  afterAll(() => server?.dispose());

  /** One sweep (or two at once) with the clock `ms` ahead of now. */
  const sweepAt = (ms: number, sweeps = 1) => clock.sweepCronsAhead(server, ms, sweeps);
  const runsOf = async (threadId: string) => client.runs.list(threadId, { limit: 100 });
  const threadCount = async () =>
    (await client.threads.search({ limit: 10_000, metadata: { graph_id: "loop" } })).length;

  it("a thread's cron makes a run on the thread each time its schedule comes round, and only then", async () => {
    const thread = await client.threads.create();
    const cron = await client.crons.createForThread(thread.thread_id, "loop", {
      schedule: "*/10 * * * *",
      input: { rounds: 3 },
      metadata: { team: "ops" },
    });
    expect(cron).toMatchObject({ thread_id: thread.thread_id, schedule: "*/10 * * * *", enabled: true });
    const first = Date.parse(cron.next_run_date!);
    expect(first).toBeGreaterThan(Date.now());
    expect(first).toBeLessThanOrEqual(Date.now() + 10 * MINUTE);
    await sweepAt(0);
    expect(await runsOf(thread.thread_id)).toHaveLength(0);
    // Two processes sweeping at once make one run.
    await sweepAt(first - Date.now() + 1_000, 2);
    const runs = await until(async () => {
      const list = await runsOf(thread.thread_id);
      return list.length === 1 && list[0]!.status !== "pending" && list[0]!.status !== "running" && list;
    });
    expect(runs[0]!.metadata).toMatchObject({ cron_id: cron.cron_id });
    expect((await client.threads.getState(thread.thread_id)).values).toEqual({ rounds: 3, answers: [] });
    const [moved] = await client.crons.search({ threadId: thread.thread_id });
    expect(Date.parse(moved!.next_run_date!)).toBe(first + 10 * MINUTE);
    await sweepAt(first - Date.now() + 1_000);
    expect(await runsOf(thread.thread_id)).toHaveLength(1);
    await sweepAt(first - Date.now() + 10 * MINUTE + 1_000);
    await until(async () => (await runsOf(thread.thread_id)).length === 2);
  });

  it("a stateless cron runs each time on a new thread, deleted once the run ends unless kept", async () => {
    const before = await threadCount();
    const dropped = await client.crons.create("loop", { schedule: "0 * * * *", input: { rounds: 1 } });
    const kept = await client.crons.create("loop", {
      schedule: "0 * * * *",
      input: { rounds: 1 },
      onRunCompleted: "keep",
    });
    expect(dropped).toMatchObject({ thread_id: null, on_run_completed: "delete" });
    expect(kept).toMatchObject({ thread_id: null, on_run_completed: "keep" });
    await sweepAt(61 * MINUTE);
    // Each made a thread; the kept one stays, paused at its question. The two runs race: wait for
    // the dropped thread to be gone and the one left to have paused, in whichever order they come.
    const thread = await until(async () => {
      if ((await threadCount()) !== before + 1) return undefined;
      const [newest] = await client.threads.search({
        limit: 1,
        metadata: { graph_id: "loop" },
        sortBy: "created_at",
        sortOrder: "desc",
      });
      return newest && (await client.threads.getState(newest.thread_id)).next.length > 0 ? newest : undefined;
    }, 15_000);
    expect((await client.threads.getState(thread!.thread_id)).next).toEqual(["ask"]);
    const [run] = await runsOf(thread!.thread_id);
    expect(run!.metadata).toMatchObject({ cron_id: kept.cron_id });
    await client.crons.delete(dropped.cron_id);
    await client.crons.delete(kept.cron_id);
  });

  it("a disabled cron makes no run until enabled; one past its end makes none and has no next run", async () => {
    const thread = await client.threads.create();
    const cron = await client.crons.createForThread(thread.thread_id, "loop", {
      schedule: "* * * * *",
      input: { rounds: 1 },
      enabled: false,
    });
    await sweepAt(5 * MINUTE);
    expect(await runsOf(thread.thread_id)).toHaveLength(0);
    await client.crons.update(cron.cron_id, { enabled: true });
    await sweepAt(5 * MINUTE);
    await until(async () => (await runsOf(thread.thread_id)).length === 1);
    await client.crons.delete(cron.cron_id);

    const ending = await client.crons.createForThread(thread.thread_id, "loop", {
      schedule: "* * * * *",
      input: { rounds: 1 },
      endTime: new Date(Date.now() + 90_000).toISOString(),
    });
    await sweepAt(10 * MINUTE);
    const [ended] = (await client.crons.search({ threadId: thread.thread_id })).filter(
      (c) => c.cron_id === ending.cron_id,
    );
    expect(ended!.next_run_date).toBeNull();
    expect(await runsOf(thread.thread_id)).toHaveLength(1);
    await client.crons.delete(ending.cron_id);
  });

  it("searches, counts, updates and deletes crons; refuses a schedule it cannot read", async () => {
    const thread = await client.threads.create();
    const a = await client.crons.createForThread(thread.thread_id, "loop", {
      schedule: "0 9 * * 1",
      metadata: { kind: "weekly" },
    });
    const b = await client.crons.create("loop", {
      schedule: "30 8 * * *",
      timezone: "Europe/Paris",
      metadata: { kind: "daily" },
    });
    expect(await client.crons.count({ metadata: { kind: "weekly" } })).toBe(1);
    expect((await client.crons.search({ threadId: thread.thread_id })).map((c) => c.cron_id)).toEqual([a.cron_id]);
    const daily = await client.crons.search({ metadata: { kind: "daily" }, select: ["cron_id", "timezone"] });
    expect(daily).toEqual([{ cron_id: b.cron_id, timezone: "Europe/Paris" }]);
    // 08:30 in Paris is 06:30 or 07:30 UTC.
    expect(new Date(b.next_run_date!).getUTCMinutes()).toBe(30);
    expect([6, 7]).toContain(new Date(b.next_run_date!).getUTCHours());
    const updated = await client.crons.update(a.cron_id, { schedule: "15 * * * *" });
    expect(updated).toMatchObject({ schedule: "15 * * * *", metadata: { kind: "weekly" } });
    expect(new Date(updated.next_run_date!).getUTCMinutes()).toBe(15);
    await client.crons.delete(a.cron_id);
    await client.crons.delete(b.cron_id);
    expect(await client.crons.count({ metadata: { kind: "weekly" } })).toBe(0);
    expect((await json(`${server.url}/runs/crons/${a.cron_id}`, { method: "DELETE" })).status).toBe(404);

    const refused = await json(`${server.url}/runs/crons`, {
      method: "POST",
      body: JSON.stringify({ assistant_id: "loop", schedule: "every tuesday" }),
    });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ code: "INVALID_REQUEST", field: "schedule" });
    const webhook = await json(`${server.url}/runs/crons`, {
      method: "POST",
      body: JSON.stringify({ assistant_id: "loop", schedule: "* * * * *", webhook: "https://example.com/hook" }),
    });
    expect(webhook.status).toBe(422);
  });
  it("a cron whose next run cannot be set does not hold up the crons due with it", async () => {
    const [stuck, other] = [await client.threads.create(), await client.threads.create()];
    const schedule = { schedule: "*/10 * * * *", input: { rounds: 1 } };
    const poisoned = await client.crons.createForThread(stuck.thread_id, "loop", schedule);
    await client.crons.createForThread(other.thread_id, "loop", schedule);
    // The database refuses to set that one cron's next run (a time on the minute: not a sweep's lease).
    const when = `OLD.cron_id = '${poisoned.cron_id}' AND NEW.next_run_at LIKE '%:00.000Z'`;
    await whileRefusing(server.backend.ctx.store.db, { event: "UPDATE", table: "interlude_server_crons", when }, () =>
      sweepAt(Date.parse(poisoned.next_run_date!) - Date.now() + 1_000),
    );
    await until(async () => (await runsOf(other.thread_id)).length === 1);
  });

  it("a cron's run is made with its next run or not at all: once for each time it comes due, even if its process fails in between", async () => {
    const thread = await client.threads.create();
    const cron = await client.crons.createForThread(thread.thread_id, "loop", { schedule: "*/10 * * * *", input: {} });
    const due = Date.parse(cron.next_run_date!);
    // Its next run cannot be set, as if its process died once the run was queued.
    const when = `OLD.cron_id = '${cron.cron_id}' AND NEW.next_run_at LIKE '%:00.000Z'`;
    await whileRefusing(server.backend.ctx.store.db, { event: "UPDATE", table: "interlude_server_crons", when }, () =>
      sweepAt(due - Date.now() + 1_000),
    );
    expect(await runsOf(thread.thread_id)).toHaveLength(0);
    // Due again once its lease has passed: its run is made then, once.
    await sweepAt(due - Date.now() + 2 * MINUTE);
    await until(async () => (await runsOf(thread.thread_id)).length === 1);
    await sweepAt(due - Date.now() + 3 * MINUTE);
    expect(await runsOf(thread.thread_id)).toHaveLength(1);
    const [moved] = await client.crons.search({ threadId: thread.thread_id });
    expect(Date.parse(moved!.next_run_date!)).toBe(due + 10 * MINUTE);
  });

  it("a cron for a thread that is not there is refused with 404, and none is made", async () => {
    const before = await client.crons.count();
    const refused = await json(`${server.url}/threads/${crypto.randomUUID()}/runs/crons`, {
      method: "POST",
      body: JSON.stringify({ assistant_id: "loop", schedule: "0 3 * * *" }),
    });
    expect(refused).toMatchObject({ status: 404, body: { code: "NOT_FOUND" } });
    expect(await client.crons.count()).toBe(before);
  });

  it("a thread's crons go with the thread, an assistant's with the assistant", async () => {
    const thread = await client.threads.create();
    await client.crons.createForThread(thread.thread_id, "loop", { schedule: "* * * * *" });
    const assistant = await client.assistants.create({ graphId: "loop", name: "nightly" });
    await client.crons.create(assistant.assistant_id, { schedule: "0 3 * * *" });
    expect(await client.crons.count({ threadId: thread.thread_id })).toBe(1);
    expect(await client.crons.count({ assistantId: assistant.assistant_id })).toBe(1);
    await client.threads.delete(thread.thread_id);
    await client.assistants.delete(assistant.assistant_id);
    expect(await client.crons.count({ threadId: thread.thread_id })).toBe(0);
    expect(await client.crons.count({ assistantId: assistant.assistant_id })).toBe(0);
  });
});

describe("INTERLUDE_CRON_SWEEP_MS", () => {
  const withSweepEnv = async <T>(value: string, body: () => Promise<T>): Promise<T> => {
    process.env.INTERLUDE_CRON_SWEEP_MS = value;
    try {
      return await body();
    } finally {
      delete process.env.INTERLUDE_CRON_SWEEP_MS;
    }
  };

  it("sets how often crons are looked for: a schedule by the second makes a run each look", async () => {
    const server = await withSweepEnv("200", () => testServer());
    try {
      const client = server.client();
      const thread = await client.threads.create();
      await client.crons.createForThread(thread.thread_id, "loop", { schedule: "* * * * * *", input: { rounds: 1 } });
      // Within six seconds, where the default (a look every 10 s) would make none or one.
      await until(async () => (await client.runs.list(thread.thread_id)).length >= 3, 6_000);
    } finally {
      await server.dispose();
    }
  });

  it("is refused with what to do when it is not a positive number of milliseconds", async () => {
    await expect(withSweepEnv("soon", () => testServer())).rejects.toThrow(
      "INTERLUDE_CRON_SWEEP_MS=soon is not a positive number of milliseconds; unset it for the default (10000).",
    );
  });
});
