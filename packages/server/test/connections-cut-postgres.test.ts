/**
 * PostgreSQL cutting every connection of two servers and a worker under load, and for a while
 * taking no new ones (a restart or a fail-over, as the servers see it), while clients answer
 * questions through both servers in turn:
 * - no request is answered 500: what the database refused is `503 STORAGE_FAILED`;
 * - a client that gives an answer refused 503 again until it is taken (API.md, "Storage
 *   failures"), through `runs/wait` or a background run it joins, ends with every answer
 *   applied once, in order: one the thread already holds is refused as `ALREADY_ANSWERED`,
 *   naming it, even when its run was declared lost or taken over meanwhile;
 * - afterwards nothing is left queued or running, and the queue still takes background runs.
 * Leases and claims are shortened through the environment so that lost runs are found in time.
 */
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { testPostgresUrl } from "../../../test/setup/urls.js";
// @ts-expect-error: a plain ESM script without types, shared with `npm run bench:server`.
import { startServerProcess } from "../bench/processes.mjs";
import { json, until } from "./helpers.js";
import { freshDatabase } from "./processes.js";

const CLIENTS = 8;
const env = { INTERLUDE_RUN_LEASE_MS: "500", INTERLUDE_CLAIM_TTL_MS: "500" };
type Server = { url: string; stop(): Promise<number | null>; output(): string };
const servers: Server[] = [];
const name = `interlude_cut_${process.pid}_${Date.now() % 1e6}`;
let admin: pg.Client;
/** The test's database (its URL), which the servers share. */
let database: string;

beforeAll(async () => {
  const postgres = testPostgresUrl();
  database = await freshDatabase(postgres, name);
  admin = new pg.Client({ connectionString: postgres });
  await admin.connect();
  servers.push(await startServerProcess({ postgres: database, env }));
  servers.push(await startServerProcess({ postgres: database, env }));
  servers.push(await startServerProcess({ postgres: database, env, worker: true }));
}, 60_000);
afterAll(async () => {
  await admin?.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`).catch(() => undefined);
  for (const server of servers) await server.stop();
  await admin?.end();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function cutConnections() {
  await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", [name]);
}

/**
 * Every response that was not a 200, by status and code, with the request that met it first:
 * only 503 STORAGE_FAILED and 409 ALREADY_ANSWERED may appear.
 */
const refusals = new Map<string, { count: number; first: string }>();

function refused(key: string, request: string) {
  const seen = refusals.get(key);
  if (seen) seen.count++;
  else refusals.set(key, { count: 1, first: request });
}

/** Sends `init` to `url` until the answer is not 503 (the database was away); returns that answer. */
async function untilStored(url: string, init: RequestInit = {}): Promise<{ status: number; body: any }> {
  for (;;) {
    const response = await json(url, init);
    if (response.status === 200) return response;
    refused(`${response.status} ${response.body?.code}`, `${init.method ?? "GET"} ${new URL(url).pathname}`);
    if (response.status !== 503) return response;
    await sleep(50);
  }
}

const postUntilStored = (url: string, body: unknown) =>
  untilStored(url, { method: "POST", body: JSON.stringify(body) });

type Question = { id: string };

/** What each client's thread is doing, and since when: said if the clients do not end. */
const doing = new Map<string, string>();
const started = Date.now();
const now = (threadId: string, what: string) => doing.set(threadId, `${what} (at ${(Date.now() - started) / 1000} s)`);

/**
 * The question the thread waits for, continuing it with a run without input if it stopped
 * between steps. Such a run refused 503 may have been queued all the same (API.md): the client
 * looks at the thread again (busy while it goes on) before creating another.
 */
async function pendingQuestion(url: string, threadId: string): Promise<Question> {
  for (;;) {
    const thread = await json(`${url}/threads/${threadId}`);
    now(threadId, `looking at the thread: ${thread.status} ${thread.body?.status}`);
    if (thread.status === 200 && thread.body.status !== "busy") {
      const [question] = Object.values(thread.body.interrupts as Record<string, Question[]>).flat();
      if (question) return question;
      const init = { method: "POST", body: JSON.stringify({ assistant_id: "loop" }) };
      const continued = await json(`${url}/threads/${threadId}/runs/wait`, init);
      if (continued.status === 200) return continued.body.__interrupt__[0];
      refused(`${continued.status} ${continued.body?.code}`, `POST /threads/${threadId}/runs/wait (no input)`);
    }
    await sleep(50);
  }
}

/** An answer refused other than 503: taken before the failure that refused it, the thread holds it and says so. */
function expectHeld(refusal: { status: number; body: any }, question: Question, answer: string) {
  expect(refusal).toMatchObject({ status: 409, body: { code: "ALREADY_ANSWERED", interrupt_id: question.id, answer } });
}

/**
 * The thread's first question; its first run given again if it ended lost (RUN_LOST: a run
 * declared lost is queued again and its wait follows it, but not past its third loss).
 */
async function firstQuestion(url: string, threadId: string): Promise<Question> {
  for (;;) {
    now(threadId, "first run");
    const first = await postUntilStored(`${url}/threads/${threadId}/runs/wait`, {
      assistant_id: "loop",
      input: { rounds: 1e6 },
    });
    if (!first.body.__error__) return first.body.__interrupt__[0];
    expect(first.body.__error__.code).toBe("RUN_LOST");
    refused("run RUN_LOST", `first run on ${threadId}`);
  }
}

/**
 * `answer` given through `runs/wait` on `url`; given again when the run ended lost (its server
 * could not renew its lease while the database was away, three times: another server's sweep
 * queues it again twice, then ends it `RUN_LOST`: API.md). The thread's next question.
 */
async function answerWaiting(url: string, threadId: string, question: Question, answer: string): Promise<Question> {
  const resume = { assistant_id: "loop", command: { resume: { [question.id]: answer } } };
  for (;;) {
    now(threadId, `runs/wait with ${answer} on ${url}`);
    const given = await postUntilStored(`${url}/threads/${threadId}/runs/wait`, resume);
    if (given.status === 200 && !given.body.__error__) return given.body.__interrupt__[0];
    if (given.status === 200) {
      expect(given.body.__error__.code).toBe("RUN_LOST");
      refused("run RUN_LOST", `wait on ${threadId}`);
      continue;
    }
    expectHeld(given, question, answer);
    return pendingQuestion(url, threadId);
  }
}

/**
 * `answer` given by a background run created on `url`, joined through `joinUrl` (the other
 * server); given again when the run ends failed by the database, or lost (its process held for
 * gone three times, as a waited run can be: answerWaiting). The thread's next question.
 */
async function answerQueued(url: string, joinUrl: string, threadId: string, question: Question, answer: string) {
  const resume = { assistant_id: "loop", command: { resume: { [question.id]: answer } } };
  for (;;) {
    now(threadId, `a background run with ${answer} on ${url}`);
    const created = await postUntilStored(`${url}/threads/${threadId}/runs`, resume);
    if (created.status !== 200) {
      expectHeld(created, question, answer);
      return pendingQuestion(url, threadId);
    }
    now(threadId, `joining ${created.body.run_id} through ${joinUrl}`);
    const joined = await untilStored(`${joinUrl}/threads/${threadId}/runs/${created.body.run_id}/join`);
    if (!joined.body.__error__) return joined.body.__interrupt__[0] as Question;
    const { code } = joined.body.__error__;
    expect(["STORAGE_FAILED", "RUN_LOST"]).toContain(code);
    refused(`run ${code}`, `join ${created.body.run_id}`);
  }
}

/**
 * Where the clients are (whereClientsAre), what each process says it holds (its metrics: runs
 * executing, connections waited for), the database's sessions (one idle in a transaction, or
 * waiting for a lock, holds the others up), and the end of what each process printed.
 */
async function diagnostics(): Promise<string> {
  const held = await Promise.all(
    servers.map(async (server, n) => {
      if (!server.url) return `process ${n}: serves no HTTP`;
      const metrics = await json(`${server.url}/metrics?format=json`, { signal: AbortSignal.timeout(2000) }).catch(
        (error: Error) => ({ status: error.name, body: null }),
      );
      const { runs_executing, postgres, workers } = metrics.body ?? {};
      return `process ${n} (${server.url}) metrics: ${metrics.status} ${JSON.stringify({ runs_executing, postgres, workers })}`;
    }),
  );
  const { rows } = await admin.query(
    `SELECT pid, application_name, state, wait_event_type, wait_event, (now() - xact_start)::text AS in_transaction, left(query, 160) AS query
     FROM pg_stat_activity WHERE datname = $1 ORDER BY xact_start NULLS LAST`,
    [name],
  );
  const sessions = rows.map((row) => JSON.stringify(row));
  const printed = servers.map((server, n) => `process ${n} printed, last:\n${server.output().slice(-3000)}`);
  return [await whereClientsAre(), ...held, "database sessions:", ...sessions, ...printed].join("\n");
}

/**
 * Each client's thread: what its client was doing, the thread's status and its newest runs
 * (status, the process that executes it when one must, attempt, times), read from the database
 * (a stalled server would not answer).
 */
async function whereClientsAre(): Promise<string> {
  const lines = [];
  const reader = new pg.Client({ connectionString: database });
  await reader.connect();
  for (const [threadId, what] of doing) {
    const thread = await reader.query(`SELECT status, updated_at FROM interlude_server_threads WHERE thread_id = $1`, [
      threadId,
    ]);
    const runs = await reader.query(
      `SELECT run_id, status, owner, attempt, created_at, updated_at FROM interlude_server_runs
       WHERE thread_id = $1 ORDER BY created_at DESC LIMIT 3`,
      [threadId],
    );
    lines.push(
      `${threadId}: ${what}; thread ${JSON.stringify(thread.rows[0])}; newest runs ${JSON.stringify(runs.rows)}`,
    );
  }
  await reader.end();
  return lines.join("\n");
}

it("every answer given again after a 503 until taken is applied once, in order, through cuts and a refusal of connections", async () => {
  const [a, b] = servers as [Server, Server];
  let stop = false;
  const acked: string[][] = [];
  const threads: string[] = [];
  const client = async (c: number) => {
    const url = (n: number) => [a, b][(c + n) % 2]!.url;
    const thread = (await postUntilStored(`${url(0)}/threads`, {})).body.thread_id as string;
    threads[c] = thread;
    acked[c] = [];
    let question = await firstQuestion(url(0), thread);
    for (let n = 0; !stop; n++) {
      const answer = `c${c}-${n}`;
      question =
        c % 2 === 0
          ? await answerWaiting(url(n), thread, question, answer)
          : await answerQueued(url(n), url(n + 1), thread, question, answer);
      acked[c]!.push(answer);
    }
  };
  // A client that fails stops the others, so that the test ends with its failure.
  const clients = Array.from({ length: CLIENTS }, (_, c) =>
    client(c).catch((error) => {
      stop = true;
      throw error;
    }),
  );
  await until(
    async () => stop || (acked.length === CLIENTS && acked.every((answers) => answers?.length >= 10)),
    30_000,
  ).catch(async () => {
    throw new Error(`clients not at 10 answers each in 30 s, before any cut:\n${await diagnostics()}`);
  });
  await cutConnections();
  await sleep(1500);
  // Taking no connections for three leases: runs whose process cannot renew them are found lost.
  await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
  await cutConnections();
  await sleep(1500);
  await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
  await sleep(1500);
  await cutConnections();
  await sleep(1500);
  stop = true;
  // A client that never ends (a request left unanswered, a thread busy for good) says where it is.
  const ended = await Promise.race([Promise.all(clients).then(() => true), sleep(60_000).then(() => false)]);
  if (!ended) throw new Error(`clients not ended 60 s after the cuts:\n${await diagnostics()}`);

  const expected = ["503 STORAGE_FAILED", "409 ALREADY_ANSWERED", "run STORAGE_FAILED", "run RUN_LOST"];
  const unexpected = [...refusals].filter(([key]) => !expected.includes(key));
  expect(unexpected.map(([key, { first }]) => `${key} (first: ${first})`)).toEqual([]);
  // The cuts met requests in flight: the checks above are not vacuous.
  expect(refusals.get("503 STORAGE_FAILED")?.count).toBeGreaterThan(0);
  for (const [c, threadId] of threads.entries()) {
    const thread = (await json(`${b.url}/threads/${threadId}`)).body;
    expect(thread.values.answers).toEqual(acked[c]);
    expect(thread.status).toBe("interrupted");
  }
  // The queue takes a background run after the cuts, and a server waits for it through the bus.
  const thread = (await postUntilStored(`${a.url}/threads`, {})).body.thread_id;
  const run = (await postUntilStored(`${a.url}/threads/${thread}/runs`, { assistant_id: "loop", input: {} })).body;
  const joined = await json(`${b.url}/threads/${thread}/runs/${run.run_id}/join`);
  expect(joined.body.__interrupt__[0].value).toEqual({ question: "next?", n: 0 });
  await until(async () => {
    const { body } = await json(`${a.url}/metrics?format=json`);
    return body.queue.n_pending === 0 && body.queue.n_running === 0;
  });
}, 120_000);
