/**
 * A process follows the runs it executes, and the wait and stream runs of its clients, through
 * their logs in memory (runs/broker.ts); its waiters (joins, waits, streams) follow the log until
 * it closes. Another process may end or take such a run while it is queued, and each way it did
 * used to leave the log open and its waiters waiting for good:
 * - a background run that found its thread claimed by another writer goes back to the queue, to
 *   be tried again shortly where it was tried (runs/executor.ts); ended elsewhere meanwhile, the
 *   retry finds it no longer queued and closes the log;
 * - a wait run queued behind its thread's running run, cancelled through another server: that
 *   server tells the run's process, which closes the log.
 * Runs taken by the queue while their process was held for gone are closed by the lease sweep
 * (runs/lease.ts, closeLogsOfRunsElsewhere).
 * And a retry whose claim meets the database away leaves the background run queued, to execute
 * once it is back (runs/failure.ts, queueAgain): it used to end it `error` (STORAGE_FAILED)
 * though nothing of it had executed.
 */
import { PostgresSaver } from "@interlude/checkpoint-postgres";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { testPostgresUrl } from "../../../test/setup/urls.js";
import { hooks } from "./fixtures/graphs.mjs";
import { json, runEnded, type TestServer, testServer, until } from "./helpers.js";
import { databaseForFile } from "./processes.js";

const database = databaseForFile("interlude_busy_retry");
let executing: TestServer;
let other: TestServer;
let pool: pg.Pool;

beforeAll(async () => {
  executing = await testServer({ postgresUrl: database.url });
  // Executes no runs: the run is tried by `executing` only.
  other = await testServer({ postgresUrl: database.url, concurrency: 0 });
  pool = new pg.Pool({ connectionString: database.url, max: 2 });
  // Its idle connection is cut with the others in the last scenario.
  pool.on("error", () => undefined);
}, 60_000);
afterAll(async () => {
  hooks.during = () => undefined;
  await other?.dispose();
  await executing?.dispose();
  await pool?.end();
});

const post = (url: string, body: unknown) => json(url, { method: "POST", body: JSON.stringify(body) });

/** `request`'s response, or "no answer" after 5 s. */
const within5s = (request: Promise<unknown>) =>
  Promise.race([request, new Promise((resolve) => setTimeout(() => resolve("no answer"), 5_000))]);

it("a run ended elsewhere while it waits to retry a busy thread answers its joins in the process that tried it", async () => {
  const thread = (await post(`${executing.url}/threads`, {})).body.thread_id as string;
  // A writer on another machine holds the thread (its claim lapses in a minute).
  await new PostgresSaver(pool).claimThread(thread, { owner: "another-host/1234/a-run", ttlMs: 60_000 });
  const run = (await post(`${executing.url}/threads/${thread}/runs`, { assistant_id: "loop", input: { rounds: 1 } }))
    .body;
  // Tried, refused by the claim, queued again until the next try.
  await until(async () => {
    const { body } = await json(`${executing.url}/threads/${thread}/runs/${run.run_id}`);
    return body.status === "pending";
  }, 10_000);
  const joined = json(`${executing.url}/threads/${thread}/runs/${run.run_id}/join`);
  await new Promise((resolve) => setTimeout(resolve, 100));
  const cancelled = await post(`${other.url}/threads/${thread}/runs/${run.run_id}/cancel`, {});
  expect(cancelled.status).toBeLessThan(300);
  expect(await within5s(joined)).toMatchObject({ status: 200 });
  const { body } = await json(`${executing.url}/threads/${thread}/runs/${run.run_id}`);
  expect(body.status).toBe("interrupted");
}, 30_000);

/**
 * On a new thread of `url`: a background run held in its node until `release`, and a wait run
 * queued behind it (`waited`, its response; `queued`, its id).
 */
async function waitQueuedBehindHeldRun(url: string) {
  const thread = (await post(`${url}/threads`, {})).body.thread_id as string;
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  hooks.during = () => held;
  const first = (await post(`${url}/threads/${thread}/runs`, { assistant_id: "hooked", input: {} })).body;
  await until(async () => (await json(`${url}/threads/${thread}/runs/${first.run_id}`)).body.status === "running");
  const waited = post(`${url}/threads/${thread}/runs/wait`, {
    assistant_id: "hooked",
    input: {},
    multitask_strategy: "enqueue",
  });
  const queued = await until(async () => {
    const { body } = await json(`${url}/threads/${thread}/runs?status=pending`);
    return body[0] as { run_id: string } | undefined;
  });
  return { thread, waited, queued: queued.run_id, release };
}

it("a wait run queued behind another, cancelled through another server, is answered where it waits", async () => {
  const { thread, waited, queued, release } = await waitQueuedBehindHeldRun(executing.url);
  try {
    const cancelled = await post(`${other.url}/threads/${thread}/runs/${queued}/cancel`, {});
    expect(cancelled.status).toBeLessThan(300);
    expect(await within5s(waited)).toMatchObject({ status: 200 });
    expect((await json(`${executing.url}/threads/${thread}/runs/${queued}`)).body.status).toBe("interrupted");
  } finally {
    release();
  }
}, 30_000);

it("a wait run queued here that another process ended without a word is answered at this process's next sweep", async () => {
  // Sweeps every 300 ms (half a lease).
  const swept = await testServer({ postgresUrl: database.url, runLeaseMs: 600 });
  const { waited, queued, release } = await waitQueuedBehindHeldRun(swept.url);
  try {
    // As a process that took this one for gone and ended the run would, and whose word was lost.
    await database.sql.query(
      "UPDATE interlude_server_runs SET status = 'interrupted', owner = NULL WHERE run_id = $1",
      [queued],
    );
    expect(await within5s(waited)).toMatchObject({ status: 200 });
  } finally {
    release();
    await swept.dispose();
  }
}, 30_000);

it("a background run whose retry meets the database away stays queued, and executes once it is back", async () => {
  const thread = (await post(`${executing.url}/threads`, {})).body.thread_id as string;
  // Held by a writer elsewhere for 3 s.
  await new PostgresSaver(pool).claimThread(thread, { owner: "another-host/1234/a-run", ttlMs: 3_000 });
  const run = (await post(`${executing.url}/threads/${thread}/runs`, { assistant_id: "loop", input: { rounds: 1 } }))
    .body;
  await until(
    async () => (await json(`${executing.url}/threads/${thread}/runs/${run.run_id}`)).body.status === "pending",
    10_000,
  );
  // Its next try, 500 ms on, finds no database.
  const name = new URL(database.url).pathname.slice(1);
  const admin = new pg.Client({ connectionString: testPostgresUrl() });
  await admin.connect();
  try {
    await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
    await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> $2", [
      name,
      (await database.sql.query("SELECT pg_backend_pid() AS pid")).rows[0].pid,
    ]);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
  } finally {
    await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
    await admin.end();
  }
  const ended = await runEnded(`${executing.url}/threads/${thread}/runs/${run.run_id}`, 20_000);
  expect(ended.status).toBe("success");
}, 40_000);
