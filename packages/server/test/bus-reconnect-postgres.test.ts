/**
 * A background run is taken when the bus says it was queued (run.queued); a notification sent
 * while a process's LISTEN connection was away (the database restarted, the connection cut) is
 * lost. Once the connection is back the process looks for queued runs at once, instead of at
 * its queue's next safety poll (runs/queue-consumer.ts, every 15 s); and a cancel it missed is
 * read from the run's record at its next lease renewal (runs/lease.ts).
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { followSse, json, runEnded, type TestServer, testServer, until } from "./helpers.js";
import { databaseForFile } from "./processes.js";

let queuer: TestServer;
let taker: TestServer;
const database = databaseForFile("interlude_bus_reconnect");

beforeAll(async () => {
  // Only queues: the run can only be taken by the other process.
  queuer = await testServer({ postgresUrl: database.url, concurrency: 0 });
  // A short lease: renewed every third of a second.
  taker = await testServer({ postgresUrl: database.url, runLeaseMs: 1_000 });
});
afterAll(async () => {
  await queuer?.dispose();
  await taker?.dispose();
});

it("a run queued while the taking process's LISTEN connection was cut is taken once it is back, well before the next poll", async () => {
  const thread = (await json(`${queuer.url}/threads`, { method: "POST", body: "{}" })).body.thread_id;
  // Every LISTEN connection of the database cut (named `interlude <process id>`; the pools' add the pool's
  // name): they reconnect after 500 ms, and the run's run.queued goes meanwhile.
  const cut = await database.sql.query(
    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name ~ '^interlude [^ ]+$'",
  );
  expect(cut.rowCount).toBe(2);
  const queued = Date.now();
  const run = await json(`${queuer.url}/threads/${thread}/runs`, {
    method: "POST",
    body: JSON.stringify({ assistant_id: "loop", input: { rounds: 1 } }),
  });
  expect(run.status).toBe(200);
  // Both servers started moments ago: the taker's first safety poll is ~15 s away.
  const ended = await runEnded(`${queuer.url}/threads/${thread}/runs/${run.body.run_id}`, 5_000);
  expect(ended.status).toBe("success");
  expect(Date.now() - queued).toBeLessThan(5_000);
  const state = (await json(`${queuer.url}/threads/${thread}/state`)).body;
  expect(state.next).toEqual(["ask"]);
}, 30_000);

it("an inbox stream whose server's LISTEN connection was cut is told to list again, then hears every event", async () => {
  const stream = await followSse(`${queuer.url}/inbox/events`);
  try {
    await until(async () => stream.events.some((e) => e.event === "ready"));
    const cut = await database.sql.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1",
      [`interlude ${queuer.backend.ctx.processId}`],
    );
    expect(cut.rowCount).toBe(1);
    const resync = await until(async () => stream.events.find((e) => e.event === "resync"), 5_000);
    expect(Date.parse(resync.data.at)).toBeGreaterThan(0);
    // A question asked through the other server from then on reaches the stream.
    const thread = await taker.client().threads.create();
    await taker.client().runs.wait(thread.thread_id, "loop", { input: { rounds: 1 } });
    const created = await until(async () =>
      stream.events.find((e) => e.event === "interrupt.created" && e.data.thread_id === thread.thread_id),
    );
    expect(created.data.value).toBeTruthy();
  } finally {
    stream.close();
  }
}, 30_000);

it("a run told to stop, whose run.cancel its process never heard, stops at its next lease renewal", async () => {
  const thread = await queuer.client().threads.create();
  const input = { tag: "unheard", delay: 60_000, abortable: true };
  const run = await queuer.client().runs.create(thread.thread_id, "slow", { input });
  await until(async () => (await queuer.client().runs.get(thread.thread_id, run.run_id)).status === "running");
  expect(taker.backend.ctx.executing.has(run.run_id)).toBe(true);
  // The stop recorded as a cancel records it, and its run.cancel lost (never published).
  expect(await queuer.backend.ctx.store.requestStop(run.run_id, "interrupt")).toBe(true);
  const stopped = await until(async () => {
    const { status } = await queuer.client().runs.get(thread.thread_id, run.run_id);
    return status !== "pending" && status !== "running" && status;
  }, 5_000);
  expect(stopped).toBe("interrupted");
  // Its process lets it go once its end is recorded and what follows that commit is done (its events, the joined saver let go).
  await until(async () => !taker.backend.ctx.executing.has(run.run_id), 5_000);
}, 30_000);
