/**
 * Interrupt deadlines on PostgreSQL are pg-boss jobs (runs/pgboss-dispatcher.ts): the job is
 * inserted in the transaction that records the question, so no question is left whose
 * deadline nobody checks; and a deadline job taken by a process that never saw it is expired a
 * lease later and fired, not left for pg-boss's default 15 minutes.
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
  database = await testDatabase("interlude_deadlines");
  // Executes nothing and takes no deadline jobs: each test starts the process that does.
  queuer = await testServer({ postgresUrl: database, concurrency: 0, runLeaseMs: LEASE_MS });
  admin = new pg.Client({ connectionString: database });
  await admin.connect();
}, 60_000);
afterAll(async () => {
  await admin?.end();
  await queuer?.dispose();
});

const taker = () => testServer({ postgresUrl: database, runLeaseMs: LEASE_MS });

/** A thread paused at the `deadline` graph's question, executed by a process stopped right after. */
async function pausedWithDeadline(seconds: number, onTimeout: unknown): Promise<string> {
  const executor = await taker();
  try {
    const thread = (await json(`${queuer.url}/threads`, { method: "POST", body: "{}" })).body.thread_id;
    const paused = await json(`${executor.url}/threads/${thread}/runs/wait`, {
      method: "POST",
      body: JSON.stringify({ assistant_id: "deadline", input: { seconds, onTimeout } }),
    });
    expect(paused.body.__interrupt__).toHaveLength(1);
    return thread;
  } finally {
    await executor.dispose();
  }
}

it("a question's deadline job is inserted in the transaction that records the question", async () => {
  await admin.query(`
    CREATE TABLE noted (what text, xid text);
    CREATE FUNCTION note_xid() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN INSERT INTO noted VALUES (TG_ARGV[0], pg_current_xact_id()::text); RETURN NEW; END $$;
    CREATE TRIGGER noted_job AFTER INSERT ON interlude_pgboss.job
      FOR EACH ROW WHEN (NEW.name = 'interlude-deadline') EXECUTE FUNCTION note_xid('job');
    CREATE TRIGGER noted_question AFTER INSERT OR UPDATE ON interlude_server_pending
      FOR EACH ROW WHEN (NEW.deadline_at IS NOT NULL) EXECUTE FUNCTION note_xid('question');`);
  try {
    await pausedWithDeadline(3600, { resume: "late" });
    const { rows } = await admin.query("SELECT what, xid FROM noted ORDER BY what");
    expect(rows.map((row) => row.what)).toEqual(["job", "question"]);
    expect(rows[0].xid).toBe(rows[1].xid);
  } finally {
    await admin.query(`
      DROP TRIGGER noted_job ON interlude_pgboss.job;
      DROP TRIGGER noted_question ON interlude_server_pending;
      DROP FUNCTION note_xid; DROP TABLE noted;`);
  }
});

it("a deadline job taken by a process that never saw it fires a few leases later", async () => {
  const thread = await pausedWithDeadline(1, { resume: "by default" });
  // Once due, a process fetches the job and the reply is lost: taken in the database, by nobody.
  const thief = new PgBoss({
    connectionString: database,
    schema: "interlude_pgboss",
    schedule: false,
    supervise: false,
  });
  thief.on("error", () => undefined);
  await thief.start();
  try {
    const fetched = await until(async () => {
      const jobs = await thief.fetch<{ thread_id: string }>("interlude-deadline");
      return jobs.length > 0 && jobs;
    }, 10_000);
    expect(fetched.map((job) => job.data.thread_id)).toEqual([thread]);
  } finally {
    await thief.stop({ graceful: false, wait: true });
  }
  const started = Date.now();
  const server = await taker();
  try {
    // Expired a lease (1 s) after it was taken, at a maintenance (every lease), and fired.
    const answered = await until(async () => {
      const { body } = await json(`${queuer.url}/threads/${thread}/state`);
      return body.values?.answer !== undefined && body;
    }, 8_000);
    expect(answered.values.answer).toBe("by default");
    expect(Date.now() - started).toBeLessThan(8_000);
  } finally {
    await server.dispose();
  }
});
