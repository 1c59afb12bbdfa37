/**
 * What the queue on PostgreSQL (pg-boss jobs, runs/pgboss-dispatcher.ts) may lose, and how each
 * loss is made good within a few leases (runs/stranded-runs.ts):
 * - a job taken by a process that never saw it (the fetch's reply lost with its connection) is
 *   expired one lease after it was taken, not after pg-boss's default 15 minutes, and taken again:
 *   a run's and a deadline's;
 * - a run left without any job (its dispatch lost between two statements) is given one;
 * - a deadline's job is inserted in the transaction that records its question, so none is left
 *   that nobody checks;
 * - a deadline whose job gave up (every try failed, as while storage refused its run) is given a
 *   new one, while its question is unanswered.
 */
import PgBoss from "pg-boss";
import { afterAll, beforeAll, expect, it } from "vitest";
import { json, runEnded, type TestServer, testServer, until } from "./helpers.js";
import { databaseForFile } from "./processes.js";

const LEASE_MS = 1_000;
/** Two leases and a maintenance, with room for a loaded machine. */
const WITHIN_MS = 8_000;

const database = databaseForFile("interlude_queue_losses");
let queuer: TestServer;

beforeAll(async () => {
  // Executes nothing and takes no jobs: each test starts the process that does, once the job is lost.
  queuer = await testServer({ postgresUrl: database.url, concurrency: 0, runLeaseMs: LEASE_MS });
});
afterAll(async () => {
  await queuer?.dispose();
});

/** Runs `body` with a process that executes runs and takes jobs, started now and stopped after. */
async function withTaker<T>(body: (taker: TestServer) => Promise<T>): Promise<T> {
  const taker = await testServer({ postgresUrl: database.url, runLeaseMs: LEASE_MS });
  try {
    return await body(taker);
  } finally {
    await taker.dispose();
  }
}

/** A process fetches a job of `queue` once one is due, and the reply is lost: taken in the database, by nobody. */
async function loseJob<T extends object>(queue: string): Promise<T> {
  const thief = new PgBoss({
    connectionString: database.url,
    schema: "interlude_pgboss",
    schedule: false,
    supervise: false,
  });
  thief.on("error", () => undefined);
  await thief.start();
  try {
    const [job, ...more] = await until(async () => {
      const jobs = await thief.fetch<T>(queue);
      return jobs.length > 0 && jobs;
    }, 10_000);
    expect(more).toEqual([]);
    return job!.data;
  } finally {
    await thief.stop({ graceful: false, wait: true });
  }
}

async function newThread(): Promise<string> {
  return (await json(`${queuer.url}/threads`, { method: "POST", body: "{}" })).body.thread_id;
}

/** A background run of the `loop` graph, queued through the process that executes nothing. */
async function queueRun(): Promise<{ thread: string; run: string }> {
  const thread = await newThread();
  const run = await json(`${queuer.url}/threads/${thread}/runs`, {
    method: "POST",
    body: JSON.stringify({ assistant_id: "loop", input: { rounds: 1 } }),
  });
  expect(run.status).toBe(200);
  return { thread, run: run.body.run_id };
}

async function jobsOf(runId: string): Promise<string[]> {
  const { rows } = await database.sql.query(
    "SELECT state FROM interlude_pgboss.job WHERE name = 'interlude-run' AND data->>'run_id' = $1 ORDER BY created_on",
    [runId],
  );
  return rows.map((row) => row.state);
}

/** Once a process takes queued runs, the run ends within WITHIN_MS. */
function endsOnceTaken(thread: string, run: string): Promise<void> {
  return withTaker(async () => {
    const started = Date.now();
    const ended = await runEnded(`${queuer.url}/threads/${thread}/runs/${run}`, WITHIN_MS);
    expect(ended.status).toBe("success");
    expect(Date.now() - started).toBeLessThan(WITHIN_MS);
    expect((await json(`${queuer.url}/threads/${thread}/state`)).body.next).toEqual(["ask"]);
  });
}

/** A thread paused at the `deadline` graph's question, executed by a process stopped right after. */
function pausedWithDeadline(seconds: number, onTimeout: unknown): Promise<string> {
  return withTaker(async (executor) => {
    const thread = await newThread();
    const paused = await json(`${executor.url}/threads/${thread}/runs/wait`, {
      method: "POST",
      body: JSON.stringify({ assistant_id: "deadline", input: { seconds, onTimeout } }),
    });
    expect(paused.body.__interrupt__).toHaveLength(1);
    return thread;
  });
}

/** The thread's one deadline job failed its every try: pg-boss takes it no more. */
async function deadlineJobGaveUp(thread: string): Promise<void> {
  const failed = await database.sql.query(
    "UPDATE interlude_pgboss.job SET state = 'failed' WHERE name = 'interlude-deadline' AND data->>'thread_id' = $1",
    [thread],
  );
  expect(failed.rowCount).toBe(1);
}

it("a run whose job was fetched by a process that never saw it is executed a few leases later", async () => {
  const { thread, run } = await queueRun();
  expect((await loseJob<{ run_id: string }>("interlude-run")).run_id).toBe(run);
  expect(await jobsOf(run)).toEqual(["active"]);
  await endsOnceTaken(thread, run);
  expect(await jobsOf(run)).toEqual(["completed"]);
});

it("a run left without a job, first in its thread's line, is given one", async () => {
  const { thread, run } = await queueRun();
  // As if the process that made it first in its line died before sending its job.
  const deleted = await database.sql.query("DELETE FROM interlude_pgboss.job WHERE data->>'run_id' = $1", [run]);
  expect(deleted.rowCount).toBe(1);
  await endsOnceTaken(thread, run);
  expect(await jobsOf(run)).toEqual(["completed"]);
});

it("a question's deadline job is inserted in the transaction that records the question", async () => {
  await database.sql.query(`
    CREATE TABLE noted (what text, xid text);
    CREATE FUNCTION note_xid() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN INSERT INTO noted VALUES (TG_ARGV[0], pg_current_xact_id()::text); RETURN NEW; END $$;
    CREATE TRIGGER noted_job AFTER INSERT ON interlude_pgboss.job
      FOR EACH ROW WHEN (NEW.name = 'interlude-deadline') EXECUTE FUNCTION note_xid('job');
    CREATE TRIGGER noted_question AFTER INSERT OR UPDATE ON interlude_server_pending
      FOR EACH ROW WHEN (NEW.deadline_at IS NOT NULL) EXECUTE FUNCTION note_xid('question');`);
  try {
    await pausedWithDeadline(3600, { resume: "late" });
    const { rows } = await database.sql.query("SELECT what, xid FROM noted ORDER BY what");
    expect(rows.map((row) => row.what)).toEqual(["job", "question"]);
    expect(rows[0].xid).toBe(rows[1].xid);
  } finally {
    await database.sql.query(`
      DROP TRIGGER noted_job ON interlude_pgboss.job;
      DROP TRIGGER noted_question ON interlude_server_pending;
      DROP FUNCTION note_xid; DROP TABLE noted;`);
  }
});

it("a deadline job taken by a process that never saw it fires a few leases later", async () => {
  const thread = await pausedWithDeadline(1, { resume: "by default" });
  expect((await loseJob<{ thread_id: string }>("interlude-deadline")).thread_id).toBe(thread);
  await withTaker(async () => {
    const started = Date.now();
    const answered = await until(async () => {
      const { body } = await json(`${queuer.url}/threads/${thread}/state`);
      return body.values?.answer !== undefined && body;
    }, WITHIN_MS);
    expect(answered.values.answer).toBe("by default");
    expect(Date.now() - started).toBeLessThan(WITHIN_MS);
  });
});

it("a deadline whose job gave up after its tries fires a few leases later, its question still unanswered", async () => {
  const thread = await pausedWithDeadline(1, { resume: "by default" });
  // Every try failed (its run refused while storage was failing): pg-boss takes it no more.
  await deadlineJobGaveUp(thread);
  await withTaker(async () => {
    const answered = await until(async () => {
      const { body } = await json(`${queuer.url}/threads/${thread}/state`);
      return body.values?.answer !== undefined && body;
    }, WITHIN_MS);
    expect(answered.values.answer).toBe("by default");
  });
});

it("an error deadline whose job gave up once it had recorded its answer records the thread's error a few leases later", async () => {
  const thread = await pausedWithDeadline(1, { error: "too late" });
  const {
    rows: [question],
  } = await database.sql.query("SELECT interrupt_id FROM interlude_server_pending WHERE thread_id = $1", [thread]);
  // Its answer was recorded, then every try of the thread's error failed.
  await database.sql.query(
    "INSERT INTO interlude_server_answers (thread_id, interrupt_id, by, answer, at, run_id, state) VALUES ($1, $2, 'deadline', NULL, $3, NULL, 'applied')",
    [thread, question.interrupt_id, new Date().toISOString()],
  );
  await deadlineJobGaveUp(thread);
  await withTaker(async () => {
    const failed = await until(async () => {
      const { body } = await json(`${queuer.url}/threads/${thread}`);
      return body.status === "error" && body;
    }, WITHIN_MS);
    expect(failed.error).toMatchObject({ code: "DEADLINE_EXPIRED", message: "too late" });
  });
});
