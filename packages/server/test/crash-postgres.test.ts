/**
 * One of two PostgreSQL servers killed (SIGKILL) while 10 clients answer questions through both
 * in turn, as fast as they can: every answer acknowledged by either server is kept, none is
 * applied twice, the survivor finds the runs the dead one left running and queues them again
 * (each continues to its thread's next question), and every thread resumes through it. Leases and claims are shortened through the
 * environment so that this takes seconds.
 */
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
// @ts-expect-error: a plain ESM script without types, shared with `npm run bench:server`.
import { startServerProcess } from "../bench/processes.mjs";
import { expectResumable, post } from "./crashed-threads.js";
import { json, testServer, until } from "./helpers.js";
import { testDatabase } from "./processes.js";

const CLIENTS = 10;
const env = { INTERLUDE_RUN_LEASE_MS: "500", INTERLUDE_CLAIM_TTL_MS: "500" };
type Server = { url: string; stop(signal?: string): Promise<number | null> };
const servers: Server[] = [];
let database: string;

beforeAll(async () => {
  database = await testDatabase("interlude_crash_pg");
}, 60_000);
afterAll(async () => {
  for (const server of servers) await server.stop();
});

it("keeps every acknowledged answer through either server, applies none twice, and resumes every thread on the survivor", async () => {
  const doomed: Server = await startServerProcess({ postgres: database, env });
  servers.push(doomed);
  const survivor: Server = await startServerProcess({ postgres: database, env });
  servers.push(survivor);
  const acked: string[][] = [];
  const threads: string[] = [];
  let killed = false;
  const client = async (c: number) => {
    const thread = await post(`${survivor.url}/threads`, {});
    threads[c] = thread.thread_id;
    acked[c] = [];
    const path = (n: number) => `${[doomed, survivor][(c + n) % 2]!.url}/threads/${thread.thread_id}/runs/wait`;
    let state = await post(path(0), { assistant_id: "loop", input: { rounds: 100_000 } });
    for (let n = 0; !killed; n++) {
      const answer = `c${c}-${n}`;
      try {
        state = await post(path(n), {
          assistant_id: "loop",
          command: { resume: { [state.__interrupt__[0].id]: answer } },
        });
      } catch {
        return; // through the killed server: unacknowledged
      }
      acked[c]!.push(answer);
    }
  };
  const clients = Array.from({ length: CLIENTS }, (_, c) => client(c));
  await until(async () => acked.length === CLIENTS && acked.every((a) => a?.length >= 20), 30_000);
  killed = true;
  await doomed.stop("SIGKILL");
  await Promise.all(clients);

  for (const [c, threadId] of threads.entries()) await expectResumable(survivor.url, threadId, acked[c]!, 20_000);
  // Nothing was left running or queued by the dead server.
  const { body } = await json(`${survivor.url}/metrics?format=json`);
  expect(body.queue).toMatchObject({ n_pending: 0, n_running: 0 });
}, 120_000);

it("a wait run queued behind another for a server that died goes to the queue: its thread's line moves on, its input applied", async () => {
  const doomed: Server = await startServerProcess({ postgres: database, env });
  servers.push(doomed);
  const survivor: Server = await startServerProcess({ postgres: database, env });
  servers.push(survivor);
  const thread = await post(`${survivor.url}/threads`, {});
  const wait = (server: Server, body: unknown) =>
    json(`${server.url}/threads/${thread.thread_id}/runs/wait`, { method: "POST", body: JSON.stringify(body) });
  const runs = async () => (await json(`${survivor.url}/threads/${thread.thread_id}/runs`)).body as any[];
  // The first run executes in the survivor; the second is queued behind it by the doomed server's client.
  const first = wait(survivor, { assistant_id: "slow", input: { tag: "one", delay: 1500, secondDelay: 1 } });
  await until(async () => (await runs()).length === 1);
  const queued = wait(doomed, {
    assistant_id: "slow",
    input: { tag: "two", delay: 1, secondDelay: 1 },
    multitask_strategy: "enqueue",
  }).catch(() => "server gone");
  await until(async () => (await runs()).length === 2);
  await doomed.stop("SIGKILL");
  expect(await queued).toBe("server gone");
  expect((await first).status).toBe(200);
  // Its owner is gone: a sweep of the survivor hands it to the queue, which executes it.
  const ended = await until(async () => {
    const all = await runs();
    return all.every((r) => r.status === "success") && all;
  }, 20_000);
  expect(ended.map((r) => r.kwargs.input.tag).sort()).toEqual(["one", "two"]);
  const state = (await json(`${survivor.url}/threads/${thread.thread_id}`)).body;
  expect(state.status).toBe("idle");
  expect(state.values.log).toEqual(["first:one", "second:one", "first:two", "second:two"]);
}, 60_000);

it("a background run for the queue is queued in the transaction that inserts it, its pg-boss job with it", async () => {
  // A server that executes no run queues every background run (no slot of its own to claim it
  // in), on a database of its own: no other process takes the run (and updates its row).
  const own = await testDatabase("interlude_queued_job");
  const server = await testServer({ postgresUrl: own, concurrency: 0 });
  const admin = new pg.Client({ connectionString: own });
  await admin.connect();
  try {
    const thread = await post(`${server.url}/threads`, {});
    const run = await post(`${server.url}/threads/${thread.thread_id}/runs`, { assistant_id: "loop", input: {} });
    // Rows written by one transaction carry its id (xmin): a process killed after that commit
    // cannot leave the run queued without the job a worker takes it by.
    const xmin = async (sql: string) =>
      (await admin.query<{ xmin: string }>(sql, [run.run_id])).rows.map((r) => r.xmin);
    const [inserted] = await xmin("SELECT xmin::text FROM interlude_server_runs WHERE run_id = $1");
    expect(await xmin("SELECT xmin::text FROM interlude_pgboss.job WHERE data->>'run_id' = $1")).toEqual([inserted]);
  } finally {
    await admin.end();
    await server.dispose();
  }
}, 60_000);

it("a wait run first in its thread's line whose start was lost is started by its own server's sweep", async () => {
  const own = await testDatabase("interlude_lost_start");
  const server = await testServer({ postgresUrl: own, runLeaseMs: 400 });
  const admin = new pg.Client({ connectionString: own });
  await admin.connect();
  try {
    const thread = await post(`${server.url}/threads`, {});
    const { rows } = await admin.query<{ assistant_id: string }>(
      "SELECT assistant_id FROM interlude_server_assistants WHERE graph_id = 'slow'",
    );
    // Queued for this server a while ago, first in line: the run.dispatch that should have started it never came.
    const queuedAt = new Date(Date.now() - 60_000).toISOString();
    await admin.query(
      `INSERT INTO interlude_server_runs (run_id, thread_id, assistant_id, created_at, updated_at, status, metadata,
         multitask_strategy, kwargs, identity, owner, attempt, error) VALUES ($1, $2, $3, $4, $4, 'pending', '{}', 'reject', $5, 'anonymous', $6, 0, NULL)`,
      [
        crypto.randomUUID(),
        thread.thread_id,
        rows[0]!.assistant_id,
        queuedAt,
        JSON.stringify({ input: { tag: "late", delay: 1, secondDelay: 1 } }),
        server.backend.ctx.processId,
      ],
    );
    const state = await until(async () => {
      const t = (await json(`${server.url}/threads/${thread.thread_id}`)).body;
      return t.status === "idle" && t.values?.log && t;
    });
    expect(state.values.log).toEqual(["first:late", "second:late"]);
  } finally {
    await admin.end();
    await server.dispose();
  }
}, 60_000);
