/**
 * A server killed between a run's question, parked for the finish's transaction
 * (runs/joined-saver.ts), and that transaction's commit: the question is not stored and the
 * store still has the run running; the thread stays at its last checkpoint. Another server
 * takes the run over once its lease lapses (the claim's made-up owner is known dead) and asks
 * the question again from that checkpoint. The lease and the claim are shortened through the
 * environment so this takes seconds.
 */
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { FIXTURE_CONFIG, json, until } from "./helpers.js";
import { deploymentOnPostgres } from "./processes.js";

const SHORT = { INTERLUDE_RUN_LEASE_MS: "1500", INTERLUDE_CLAIM_TTL_MS: "1500" };
/** The advisory lock the test holds to stop a question's insert half-way. */
const GATE = 4242;
const deployment = deploymentOnPostgres("interlude_joined_crash");
const server = () => deployment.serve(FIXTURE_CONFIG, SHORT);
let admin: pg.Client;

beforeAll(async () => {
  admin = new pg.Client({ connectionString: deployment.database });
  await admin.connect();
}, 60_000);

afterAll(async () => {
  await admin?.end();
});

it("a server killed before the finish commits the question it parked: another server asks it again from the last checkpoint", async () => {
  const first = await server();
  const threadId = (await json(`${first.url}/threads`, { method: "POST", body: "{}" })).body.thread_id;
  // A question's insert waits for the test's lock, inside the finish's transaction (not yet committed).
  await admin.query(`CREATE FUNCTION hold_question() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM pg_advisory_xact_lock_shared(${GATE}); RETURN NEW; END $$;
    CREATE TRIGGER hold_question BEFORE INSERT ON interlude_writes FOR EACH ROW
      WHEN (NEW.channel = '__interrupt__') EXECUTE FUNCTION hold_question();`);
  await admin.query("SELECT pg_advisory_lock($1)", [GATE]);
  // A background run (a request's own run would be recorded lost instead): claimed where it is queued.
  const queued = await json(`${first.url}/threads/${threadId}/runs`, {
    method: "POST",
    body: JSON.stringify({ assistant_id: "loop", input: { rounds: 1 } }),
  });
  expect(queued.status).toBe(200);
  // The finish's transaction waits on the lock, the question in it: the server dies there.
  await until(async () => {
    const { rows } = await admin.query(
      `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND NOT granted
        AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      [GATE],
    );
    return rows[0].n > 0;
  });
  first.process.kill("SIGKILL");
  await new Promise((resolve) => first.process.once("exit", resolve));
  await admin.query("SELECT pg_advisory_unlock($1)", [GATE]);
  // The dead server's connections end (the finish's transaction rolled back, its COMMIT never sent).
  await until(
    async () =>
      (
        await admin.query(
          "SELECT FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'",
        )
      ).rowCount === 0,
  );
  await admin.query("DROP TRIGGER hold_question ON interlude_writes");
  // Nothing of the finish was kept: the run is still running, and no question is stored.
  const questions = async () =>
    (
      await admin.query(
        "SELECT count(*)::int AS n FROM interlude_writes WHERE thread_id = $1 AND channel = '__interrupt__'",
        [threadId],
      )
    ).rows[0].n;
  expect(await questions()).toBe(0);
  const { rows } = await admin.query("SELECT status FROM interlude_server_runs WHERE thread_id = $1", [threadId]);
  expect(rows.map((r) => r.status)).toEqual(["running"]);

  const second = await server();
  // Taken over once its lease lapses, and continued from the checkpoint: the question is asked again, once.
  const thread = await until(async () => {
    const body = (await json(`${second.url}/threads/${threadId}`)).body;
    return body.status === "interrupted" && body;
  }, 20_000);
  expect(Object.values(thread.interrupts).flat()).toHaveLength(1);
  expect(await questions()).toBe(1);
  const state = (await json(`${second.url}/threads/${threadId}/state`)).body;
  expect(state.interrupts.map((i: any) => i.value)).toEqual([{ question: "next?", n: 0 }]);
  const runs = (await json(`${second.url}/threads/${threadId}/runs`)).body as Array<{ status: string }>;
  expect(runs.map((r) => r.status)).toEqual(["success"]);
  const done = await json(`${second.url}/threads/${threadId}/runs/wait`, {
    method: "POST",
    body: JSON.stringify({ assistant_id: "loop", command: { resume: "yes" } }),
  });
  expect(done.body.answers).toEqual(["yes"]);
}, 60_000);
