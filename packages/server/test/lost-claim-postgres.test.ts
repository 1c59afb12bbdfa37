/**
 * A process taken for dead that is not: its event loop is blocked mid-node for longer than the
 * run's lease, another server's sweep ends the wait run `RUN_LOST` and settles its answer as not
 * applied; then the blocked process wakes up and its node returns. It must save nothing more of
 * that run (its claim on the thread was revoked with the sweep), so that the answer, given
 * again, is taken and applied once (not refused UNKNOWN_INTERRUPT by a thread that moved on
 * behind the record's back). The blocked process is this test's own server; the other is an
 * `interlude serve` process on the same database. The block waits, without yielding, until the
 * other process has recorded the run's end.
 */
import { execFileSync } from "node:child_process";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { testPostgresUrl } from "../../../test/setup/urls.js";
// @ts-expect-error: a plain ESM script without types, shared with `npm run bench:server`.
import { startServerProcess } from "../bench/processes.mjs";
import { hooks } from "./fixtures/graphs.mjs";
import { json, type TestServer, testServer } from "./helpers.js";
import { freshDatabase } from "./processes.js";

const LEASE_MS = 600;
const name = `interlude_lost_claim_${process.pid}_${Date.now() % 1e6}`;
let database: string;
let server: TestServer;
let other: { url: string; stop(): Promise<number | null> };

beforeAll(async () => {
  database = await freshDatabase(testPostgresUrl(), name);
  server = await testServer({ postgresUrl: database, runLeaseMs: LEASE_MS, claimTtlMs: LEASE_MS });
  const env = { INTERLUDE_RUN_LEASE_MS: String(LEASE_MS), INTERLUDE_CLAIM_TTL_MS: String(LEASE_MS) };
  other = await startServerProcess({ postgres: database, env });
}, 60_000);
afterAll(async () => {
  await other?.stop();
  await server?.dispose();
});
afterEach(() => {
  hooks.during = () => undefined;
});

const post = (url: string, body: unknown) => json(url, { method: "POST", body: JSON.stringify(body) });

const RUN_LOST = "SELECT 1 FROM interlude_server_runs WHERE thread_id = $1 AND status = 'error'";
/** The thread synced after its run was taken for lost (runs/failure.ts, endStopped): stopped with an error. */
const THREAD_SYNCED = "SELECT 1 FROM interlude_server_threads WHERE thread_id = $1 AND status = 'error'";

/**
 * Blocks this process (no timer, no I/O) until `until` finds a row for the thread (by default:
 * a run of the thread has ended `error`) in the database, read by a child process that polls
 * for it: this process cannot renew anything meanwhile.
 */
function blockUntilLost(threadId: string, until = RUN_LOST): void {
  const poll = `
    import pg from "pg";
    const client = new pg.Client({ connectionString: process.env.DATABASE });
    await client.connect();
    const until = Date.now() + 20_000;
    for (;;) {
      const { rows } = await client.query(process.env.UNTIL, [process.env.THREAD]);
      if (rows.length) break;
      if (Date.now() > until) throw new Error("not found in 20 s for thread " + process.env.THREAD + ": " + process.env.UNTIL);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await client.end();`;
  execFileSync(process.execPath, ["--input-type=module", "-e", poll], {
    env: { ...process.env, DATABASE: database, THREAD: threadId, UNTIL: until },
    timeout: 30_000,
  });
}

it("a run taken for dead by another server saves nothing once it wakes up: its answer, given again, is applied once", async () => {
  const threadId = (await post(`${server.url}/threads`, {})).body.thread_id;
  const asked = await post(`${server.url}/threads/${threadId}/runs/wait`, {
    assistant_id: "hooked",
    input: { ask: true },
  });
  const [question] = asked.body.__interrupt__;
  let blocked = false;
  hooks.during = () => {
    hooks.during = () => undefined;
    blockUntilLost(threadId);
    blocked = true;
  };
  const resume = { assistant_id: "hooked", command: { resume: { [question.id]: "yes" } } };
  const lost = await post(`${server.url}/threads/${threadId}/runs/wait`, resume);
  expect(blocked).toBe(true);
  expect(lost).toMatchObject({ status: 200, body: { __error__: { code: "RUN_LOST" } } });

  // Where the other server left it: at the question, the answer not applied.
  const state = (await json(`${other.url}/threads/${threadId}/state`)).body;
  expect(state.values.answer).toBeUndefined();
  expect(state.interrupts.map((i: { id: string }) => i.id)).toEqual([question.id]);

  const again = await post(`${other.url}/threads/${threadId}/runs/wait`, resume);
  expect(again).toMatchObject({ status: 200, body: { answer: "yes", done: true } });
  const thrice = await post(`${server.url}/threads/${threadId}/runs/wait`, resume);
  expect(thrice).toMatchObject({ status: 409, body: { code: "ALREADY_ANSWERED" } });
}, 60_000);

it("a run taken for dead that then stops at a question leaves the thread as the checkpoints hold it, not at its question", async () => {
  // A claim renewed rarely: awake, the run finds no refusal before it ends (as when the database was away).
  const rare = await testServer({ postgresUrl: database, runLeaseMs: LEASE_MS, claimTtlMs: 60_000 });
  try {
    await askedOnceAwake(rare.url);
  } finally {
    await rare.dispose();
  }
}, 60_000);

/** A run on the server at `url` that stops at a question once awake, after the other server took it for lost. */
async function askedOnceAwake(url: string) {
  const threadId = (await post(`${url}/threads`, {})).body.thread_id;
  // Blocked inside its node, after its last save, until the other server has ended it and synced
  // the thread: once awake, it asks, and its question's writes go with its end.
  hooks.during = () => {
    hooks.during = () => undefined;
    blockUntilLost(threadId, THREAD_SYNCED);
  };
  const lost = await post(`${url}/threads/${threadId}/runs/wait`, { assistant_id: "hooked", input: { ask: true } });
  expect(lost).toMatchObject({ status: 200, body: { __error__: { code: "RUN_LOST" } } });

  // Its claim was revoked: the question was not saved, and the thread does not offer it.
  const state = (await json(`${other.url}/threads/${threadId}/state`)).body;
  expect(state.next).toEqual(["work"]);
  expect(state.interrupts).toEqual([]);
  for (const either of [url, other.url]) {
    const thread = (await json(`${either}/threads/${threadId}`)).body;
    expect(thread).toMatchObject({ status: "error", interrupts: {} });
  }
  // Continued with a run without input, it asks; the answer is applied.
  const asked = await post(`${other.url}/threads/${threadId}/runs/wait`, { assistant_id: "hooked" });
  const [question] = asked.body.__interrupt__;
  const resume = { assistant_id: "hooked", command: { resume: { [question.id]: "yes" } } };
  const done = await post(`${url}/threads/${threadId}/runs/wait`, resume);
  expect(done).toMatchObject({ status: 200, body: { answer: "yes", done: true } });
}
