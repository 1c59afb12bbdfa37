/**
 * `interlude serve --postgres` under load, as deployed: its own processes on a fresh database.
 * - More answers at once than a cold server has database connections: every one is answered
 *   (a transaction holding a connection while waiting for another from the same pool once
 *   left the server stuck for good), also with the fewest connections a server may be given,
 *   which it then never exceeds.
 * - Stopped with requests in flight, the server ends its shutdown itself (exit code 0; the
 *   grace timer would exit with 1).
 * - Two server processes and a worker on one database, clients answering through either
 *   server in turn: no answer lost, reordered or applied twice (behaviour, not speed:
 *   `npm run bench:server -- --postgres` prints the figures).
 */
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { testPostgresUrl } from "../../../test/setup/urls.js";
// @ts-expect-error: a plain ESM script without types, shared with `npm run bench:server`.
import { runLoad } from "../bench/http-load.mjs";
// @ts-expect-error: a plain ESM script without types, shared with `npm run bench:server`.
import { startServerProcess } from "../bench/processes.mjs";
import { json } from "./helpers.js";
import { testDatabase } from "./processes.js";

type Server = { url: string; stop(): Promise<number | null> };

const postgres = testPostgresUrl();
/** More than the server's store and saver pools hold together (10 + 10). */
const BURST = 30;
const started: Server[] = [];
let database: string;

async function server(
  options: { worker?: boolean; env?: Record<string, string>; postgres?: string } = {},
): Promise<Server> {
  const s = (await startServerProcess({ postgres: database, ...options })) as Server;
  started.push(s);
  return s;
}

beforeAll(async () => {
  database = await testDatabase("interlude_load");
});
afterAll(async () => {
  await Promise.all(started.map((s) => s.stop()));
});

/** `count` threads of the `loop` graph, each paused at its first question. */
async function pausedThreads(url: string, count: number, rounds = 2): Promise<Array<{ id: string; question: string }>> {
  const threads = [];
  for (let i = 0; i < count; i++) {
    const thread = (await json(`${url}/threads`, { method: "POST", body: "{}" })).body;
    const state = (
      await json(`${url}/threads/${thread.thread_id}/runs/wait`, {
        method: "POST",
        body: JSON.stringify({ assistant_id: "loop", input: { rounds } }),
      })
    ).body;
    threads.push({ id: thread.thread_id as string, question: state.__interrupt__[0].id as string });
  }
  return threads;
}

function answerAll(url: string, threads: Array<{ id: string; question: string }>) {
  return threads.map(({ id, question }, i) =>
    json(`${url}/threads/${id}/runs/wait`, {
      method: "POST",
      body: JSON.stringify({ assistant_id: "loop", command: { resume: { [question]: `a${i}` } } }),
    }),
  );
}

it(`${BURST} answers at once to a cold server: every one is answered`, async () => {
  const warm = await server();
  const threads = await pausedThreads(warm.url, BURST);
  await warm.stop();
  const cold = await server();
  const replies = await Promise.all(answerAll(cold.url, threads));
  for (const [i, reply] of replies.entries()) {
    expect(reply.status).toBe(200);
    expect(reply.body.answers).toEqual([`a${i}`]);
    expect(reply.body.__interrupt__[0].value.n).toBe(1);
  }
}, 120_000);

/** Connections to `url`'s database, counted every few ms until `stop()`, which returns the most seen. */
async function watchConnections(url: string): Promise<{ now(): Promise<number>; stop(): Promise<number> }> {
  const client = new pg.Client({ connectionString: postgres });
  await client.connect();
  const name = new URL(url).pathname.slice(1);
  const now = async () =>
    Number((await client.query("SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1", [name])).rows[0].n);
  let most = 0;
  let watching = true;
  const polling = (async () => {
    while (watching) {
      most = Math.max(most, await now());
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  return {
    now,
    async stop() {
      watching = false;
      await polling;
      await client.end();
      return most;
    },
  };
}

it(`${BURST} answers at once to a cold server given the fewest connections (7): every one is answered, on 7 at most`, async () => {
  // A database of its own: the only connections to it are this test's servers'.
  const own = await testDatabase("interlude_fewest");
  const warm = await server({ postgres: own });
  const threads = await pausedThreads(warm.url, BURST);
  await warm.stop();
  const watch = await watchConnections(own);
  // The stopped server's connections end a moment after it does.
  while ((await watch.now()) > 0) await new Promise((resolve) => setTimeout(resolve, 20));
  const cold = await server({ postgres: own, env: { INTERLUDE_POSTGRES_CONNECTIONS: "7" } });
  const replies = await Promise.all(answerAll(cold.url, threads));
  const most = await watch.stop();
  for (const [i, reply] of replies.entries()) {
    expect(reply.status).toBe(200);
    expect(reply.body.answers).toEqual([`a${i}`]);
  }
  expect(most).toBeGreaterThan(2);
  expect(most).toBeLessThanOrEqual(7);
  await cold.stop();
}, 120_000);

it("a server stopped with answers in flight ends its shutdown itself", async () => {
  const s = await server();
  const threads = await pausedThreads(s.url, BURST);
  const inFlight = answerAll(s.url, threads).map((p) => p.catch(() => undefined));
  // Some answers are queued or running when the signal comes; the process must still end cleanly.
  await Promise.race(inFlight);
  expect(await s.stop()).toBe(0);
  await Promise.all(inFlight);
}, 120_000);

it("two servers and a worker, answers through either server in turn: nothing lost or duplicated", async () => {
  const a = await server();
  const b = await server();
  await server({ worker: true });
  const clients = 10;
  const rounds = 20;
  const result = await runLoad({ urls: [a.url, b.url], clients, rounds });
  expect(result.threads).toHaveLength(clients);
  for (const [c, { threadId, final }] of (result.threads as Array<{ threadId: string; final: any }>).entries()) {
    expect(final.__interrupt__).toBeUndefined();
    expect(final.answers).toEqual(Array.from({ length: rounds }, (_, n) => `c${c}-${n}`));
    for (const url of [a.url, b.url]) {
      const thread = (await json(`${url}/threads/${threadId}`)).body;
      expect(thread.status).toBe("idle");
      expect(thread.values.answers).toEqual(final.answers);
    }
  }
}, 240_000);
