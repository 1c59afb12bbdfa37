/**
 * A process taken for dead that is not: its event loop is blocked mid-node for longer than the
 * run's lease, another server's sweep queues the wait run again and it continues there from its
 * last checkpoint; then the blocked process wakes up and its node returns. It must save nothing
 * more of that run (its claim on the thread was revoked with the sweep), so that the answer is
 * applied once, and its wait, still connected, answers with the end the other process recorded.
 * The blocked process is this test's own server; the other is an `interlude serve` process on
 * the same database. The block waits, without yielding, until the other process has recorded
 * the run's end.
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

/** The thread's run, taken for lost by the other server, has ended there (runs/lease.ts: queued again, continued). */
const ENDED_ELSEWHERE =
  "SELECT 1 FROM interlude_server_runs WHERE thread_id = $1 AND status = 'success' AND kwargs::jsonb->>'lost' = '1'";

/**
 * Blocks this process (no timer, no I/O) until the thread's run, taken for lost by the other
 * server, has ended there, read in the database by a child process that polls for it: this
 * process cannot renew anything meanwhile.
 */
function blockUntilEndedElsewhere(threadId: string): void {
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
    env: { ...process.env, DATABASE: database, THREAD: threadId, UNTIL: ENDED_ELSEWHERE },
    timeout: 30_000,
  });
}

it("a run taken for dead by another server continues there; once awake it saves nothing, and its wait answers with the run's end", async () => {
  const threadId = (await post(`${server.url}/threads`, {})).body.thread_id;
  const asked = await post(`${server.url}/threads/${threadId}/runs/wait`, {
    assistant_id: "hooked",
    input: { ask: true },
  });
  const [question] = asked.body.__interrupt__;
  let blocked = false;
  hooks.during = () => {
    hooks.during = () => undefined;
    blockUntilEndedElsewhere(threadId);
    blocked = true;
  };
  const resume = { assistant_id: "hooked", command: { resume: { [question.id]: "yes" } } };
  const waited = await post(`${server.url}/threads/${threadId}/runs/wait`, resume);
  expect(blocked).toBe(true);
  // The other server took the run over and finished it: the wait, still connected here, gets that end.
  expect(waited).toMatchObject({ status: 200, body: { answer: "yes", done: true } });

  // Applied once: one step answered it, and the woken run added nothing after the other's end.
  const history = (await post(`${other.url}/threads/${threadId}/history`, { limit: 20 })).body as any[];
  expect(history.filter((c) => c.metadata?.resume).length).toBe(1);
  expect(history[0].next).toEqual([]);
  const again = await post(`${other.url}/threads/${threadId}/runs/wait`, resume);
  expect(again).toMatchObject({ status: 409, body: { code: "ALREADY_ANSWERED", answer: "yes" } });
}, 60_000);

it("a run taken for dead that then stops at a question leaves the thread at the question of the run that took over", async () => {
  // A claim renewed rarely: awake, the run finds no refusal before it ends (as when the database was away).
  const rare = await testServer({ postgresUrl: database, runLeaseMs: LEASE_MS, claimTtlMs: 60_000 });
  try {
    await askedOnceAwake(rare.url);
  } finally {
    await rare.dispose();
  }
}, 60_000);

/** A run on the server at `url` that stops at a question once awake, after the other server took it over and asked. */
async function askedOnceAwake(url: string) {
  const threadId = (await post(`${url}/threads`, {})).body.thread_id;
  // Blocked inside its node, after its last save, until the other server has continued the run
  // to its question: once awake, it asks too, and its question's writes go with its end.
  hooks.during = () => {
    hooks.during = () => undefined;
    blockUntilEndedElsewhere(threadId);
  };
  const waited = await post(`${url}/threads/${threadId}/runs/wait`, { assistant_id: "hooked", input: { ask: true } });
  expect(waited.status).toBe(200);
  const [question] = waited.body.__interrupt__;

  // Its claim was revoked: one question saved, the other server's, which the thread offers.
  const history = (await post(`${other.url}/threads/${threadId}/history`, { limit: 20 })).body as any[];
  expect(history.filter((c) => c.tasks?.some((t: any) => t.interrupts?.length)).length).toBe(1);
  for (const either of [url, other.url]) {
    const thread = (await json(`${either}/threads/${threadId}`)).body;
    expect(thread.status).toBe("interrupted");
    expect(Object.values(thread.interrupts).flat()).toMatchObject([{ id: question.id }]);
  }
  const resume = { assistant_id: "hooked", command: { resume: { [question.id]: "yes" } } };
  const done = await post(`${url}/threads/${threadId}/runs/wait`, resume);
  expect(done).toMatchObject({ status: 200, body: { answer: "yes", done: true } });
}
