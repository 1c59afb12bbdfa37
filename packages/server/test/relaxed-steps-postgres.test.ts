/**
 * On PostgreSQL a run's steps commit without waiting for the WAL flush, and the transaction that
 * records its end waits for it (checkpoint-postgres README): for every run a process of the
 * deployment executes, whether the server that queued it runs it or a worker takes it from
 * pg-boss: either marks the run running in a transaction that takes the thread's claim along
 * (runs/executor.ts `claim`), which hands the run's end to the store. Triggers record the
 * durability each checkpoint and each run's end commit with. A save outside a run (a state
 * update) is durable.
 */
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { clientOf, FIXTURE_CONFIG, type TestServer, testServer } from "./helpers.js";
import { type Child, deploymentOnPostgres, serve } from "./processes.js";

const deployment = deploymentOnPostgres("interlude_relaxed_steps");
let sql: pg.Client;
let queueing: Child & { url: string };
let executing: TestServer;

beforeAll(async () => {
  // A server that executes no run (each goes through pg-boss to the worker), and one that executes its own.
  queueing = await serve(["--config", FIXTURE_CONFIG, "--postgres", deployment.database, "--concurrency", "0"]);
  await deployment.worker(FIXTURE_CONFIG);
  executing = await testServer({ postgresUrl: deployment.database });
  sql = new pg.Client({ connectionString: deployment.database });
  await sql.connect();
  await sql.query(`CREATE TABLE commits_seen (n serial, kind text, thread_id text, mode text);
    CREATE FUNCTION record_checkpoint() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
      INSERT INTO commits_seen (kind, thread_id, mode) VALUES ('checkpoint', NEW.thread_id, current_setting('synchronous_commit'));
      RETURN NEW; END $$;
    CREATE TRIGGER record_checkpoint AFTER INSERT ON interlude_checkpoints FOR EACH ROW EXECUTE FUNCTION record_checkpoint();
    CREATE FUNCTION record_end() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
      INSERT INTO commits_seen (kind, thread_id, mode) VALUES ('end', NEW.thread_id, current_setting('synchronous_commit'));
      RETURN NEW; END $$;
    CREATE TRIGGER record_end AFTER UPDATE OF status ON interlude_server_runs
      FOR EACH ROW WHEN (OLD.status = 'running' AND NEW.status <> 'running') EXECUTE FUNCTION record_end();`);
});
afterAll(async () => {
  await sql?.end();
  await queueing?.stop();
  await executing?.dispose();
});

/** What the thread's commits were, in order: "checkpoint off", "end on", ... */
async function commitsOf(threadId: string): Promise<string[]> {
  const { rows } = await sql.query("SELECT kind, mode FROM commits_seen WHERE thread_id = $1 ORDER BY n", [threadId]);
  return rows.map((row) => `${row.kind} ${row.mode}`);
}

it.each([
  ["a worker takes from the queue", () => clientOf(queueing.url)],
  ["the server that queued it executes", () => executing.client()],
])(
  "the steps of a run %s commit relaxed, its end durably; a state update after it durably",
  async (_, client) => {
    const thread = await client().threads.create();
    const run = await client().runs.create(thread.thread_id, "slow", { input: { tag: "r", delay: 1 } });
    const done = (await client().runs.join(thread.thread_id, run.run_id)) as { log: string[] };
    expect(done.log).toEqual(["first:r", "second:r"]);
    await client().threads.updateState(thread.thread_id, { values: { tag: "after" } });
    const commits = await commitsOf(thread.thread_id);
    // The run's input, its start and its two steps, then its end; then the update's checkpoint.
    const steps = Array.from({ length: 4 }, () => "checkpoint off");
    expect(commits).toEqual([...steps, "end on", "checkpoint on"]);
  },
  60_000,
);
