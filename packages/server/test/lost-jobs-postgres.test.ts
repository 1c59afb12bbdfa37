/**
 * A background run whose queue job was lost is still executed, within a few leases
 * (runs/stranded-runs.ts): a job taken by a process that never saw it (the fetch's reply lost
 * with its connection) is expired one lease after it was taken, not after pg-boss's 15 minutes;
 * a run left without any job (its dispatch lost between two statements) is given one.
 */
import pg from "pg";
import PgBoss from "pg-boss";
import { afterAll, beforeAll, expect, it } from "vitest";
import { json, type TestServer, testServer, until } from "./helpers.js";
import { testDatabase } from "./processes.js";

const LEASE_MS = 1_000;

let database: string;
let queuer: TestServer;
let admin: pg.Client;

beforeAll(async () => {
  database = await testDatabase("interlude_lost_jobs");
  // Only queues: the runs below are left to a process started after their job was lost.
  queuer = await testServer({ postgresUrl: database, concurrency: 0, runLeaseMs: LEASE_MS });
  admin = new pg.Client({ connectionString: database });
  await admin.connect();
}, 60_000);
afterAll(async () => {
  await admin?.end();
  await queuer?.dispose();
});

async function queueRun(): Promise<{ thread: string; run: string }> {
  const thread = (await json(`${queuer.url}/threads`, { method: "POST", body: "{}" })).body.thread_id;
  const run = await json(`${queuer.url}/threads/${thread}/runs`, {
    method: "POST",
    body: JSON.stringify({ assistant_id: "loop", input: { rounds: 1 } }),
  });
  expect(run.status).toBe(200);
  return { thread, run: run.body.run_id };
}

async function jobsOf(runId: string): Promise<string[]> {
  const { rows } = await admin.query(
    "SELECT state FROM interlude_pgboss.job WHERE name = 'interlude-run' AND data->>'run_id' = $1 ORDER BY created_on",
    [runId],
  );
  return rows.map((row) => row.state);
}

/** A process that takes queued runs, started now and stopped after: the run ends within `withinMs`. */
async function endsOnceTaken(thread: string, run: string, withinMs: number): Promise<void> {
  const started = Date.now();
  const taker = await testServer({ postgresUrl: database, runLeaseMs: LEASE_MS });
  try {
    const ended = await until(async () => {
      const { body } = await json(`${queuer.url}/threads/${thread}/runs/${run}`);
      return body.status !== "pending" && body.status !== "running" && body;
    }, withinMs);
    expect(ended.status).toBe("success");
    expect(Date.now() - started).toBeLessThan(withinMs);
    expect((await json(`${queuer.url}/threads/${thread}/state`)).body.next).toEqual(["ask"]);
  } finally {
    await taker.dispose();
  }
}

it("a run whose job was fetched by a process that never saw it is executed a few leases later", async () => {
  const { thread, run } = await queueRun();
  // A process fetches the job, and the reply is lost: the job is taken in the database, by nobody.
  const thief = new PgBoss({
    connectionString: database,
    schema: "interlude_pgboss",
    schedule: false,
    supervise: false,
  });
  thief.on("error", () => undefined);
  await thief.start();
  try {
    const fetched = await thief.fetch<{ run_id: string }>("interlude-run");
    expect(fetched.map((job) => job.data.run_id)).toEqual([run]);
  } finally {
    await thief.stop({ graceful: false, wait: true });
  }
  expect(await jobsOf(run)).toEqual(["active"]);
  // Expired one lease (1 s) after it was taken, at a maintenance (every lease), and taken again.
  await endsOnceTaken(thread, run, 8_000);
  expect(await jobsOf(run)).toEqual(["completed"]);
});

it("a run left without a job, first in its thread's line, is given one", async () => {
  const { thread, run } = await queueRun();
  // As if the process that made it first in its line died before sending its job.
  const deleted = await admin.query("DELETE FROM interlude_pgboss.job WHERE data->>'run_id' = $1", [run]);
  expect(deleted.rowCount).toBe(1);
  await endsOnceTaken(thread, run, 8_000);
  expect(await jobsOf(run)).toEqual(["completed"]);
});
