/**
 * PostgreSQL itself crashing under load (an immediate stop: no shutdown checkpoint, the log not
 * yet written lost) and recovering on restart, fsync on, while clients answer as fast as they
 * can: every answer a client was told of is in its thread afterwards, in order, and every thread
 * takes its next answer through the same server. (A PostgreSQL process that crashes leaves what
 * it wrote of its log to the operating system: a commit that did not wait for its flush is lost
 * only with the machine, which this does not show; checkpoint-postgres README.)
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { startPostgres } from "../../../test/setup/postgres.mjs";
// @ts-expect-error: a plain ESM script without types, shared with `npm run bench:server`.
import { startServerProcess } from "../bench/processes.mjs";
import { json, until } from "./helpers.js";
import { freshDatabase } from "./processes.js";

const CLIENTS = 10;
let postgres: Awaited<ReturnType<typeof startPostgres>>;
let server: { url: string; stop(): Promise<number | null> };

beforeAll(async () => {
  postgres = await startPostgres({ durable: true });
  const database = await freshDatabase(postgres.url, "interlude_database_crash");
  server = await startServerProcess({ postgres: database });
}, 60_000);
afterAll(async () => {
  await server?.stop();
  postgres?.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The thread's answers as the server reads them, once the database answers again. */
async function storedAnswers(threadId: string): Promise<string[]> {
  const state = await until(async () => {
    const read = await json(`${server.url}/threads/${threadId}/state`);
    return read.status === 200 && read;
  }, 20_000);
  return state.body.values.answers ?? [];
}

/**
 * The question the thread waits for; a thread whose run failed as the database went (after its
 * answer was applied, before it asked again) is continued with a run without input, as API.md
 * says to.
 */
async function question(threadId: string): Promise<{ id: string }> {
  const thread = await json(`${server.url}/threads/${threadId}`);
  const [pending] = Object.values(thread.body.interrupts as Record<string, Array<{ id: string }>>).flat();
  if (pending) return pending;
  expect(thread.body.status).toBe("error");
  const continued = await json(`${server.url}/threads/${threadId}/runs/wait`, {
    method: "POST",
    body: JSON.stringify({ assistant_id: "loop" }),
  });
  return continued.body.__interrupt__[0];
}

it("every answer acknowledged before PostgreSQL crashed is kept, in order, once it has recovered", async () => {
  let stop = false;
  const acknowledged = new Map<string, string[]>();
  const client = async (c: number) => {
    const wait = (threadId: string, body: unknown) =>
      json(`${server.url}/threads/${threadId}/runs/wait`, { method: "POST", body: JSON.stringify(body) });
    const thread = await json(`${server.url}/threads`, { method: "POST", body: "{}" });
    const threadId: string = thread.body.thread_id;
    acknowledged.set(threadId, []);
    let reply = await wait(threadId, { assistant_id: "loop", input: { rounds: 1e6 } });
    // Answers as fast as it can until one is not acknowledged (the database went) or it is told to stop.
    for (let n = 0; !stop && reply.status === 200 && !reply.body.__error__; n++) {
      const answer = `c${c}-${n}`;
      const question = reply.body.__interrupt__[0];
      reply = await wait(threadId, { assistant_id: "loop", command: { resume: { [question.id]: answer } } });
      if (reply.status === 200 && !reply.body.__error__) acknowledged.get(threadId)!.push(answer);
    }
  };
  const clients = Array.from({ length: CLIENTS }, (_, c) => client(c));
  // Under way: every client has had answers acknowledged, and has one in flight.
  await until(
    async () => acknowledged.size === CLIENTS && [...acknowledged.values()].every((a) => a.length >= 5),
    60_000,
  );
  postgres.crashAndRestart();
  // Clients whose requests all missed the outage answer on a little, then stop.
  await sleep(500);
  stop = true;
  await Promise.all(clients);

  for (const [threadId, answers] of acknowledged) {
    const stored = await storedAnswers(threadId);
    // Every acknowledged answer, in order; at most one more, applied as the database went.
    expect(stored.slice(0, answers.length)).toEqual(answers);
    expect(stored.length - answers.length).toBeLessThanOrEqual(1);
    // And the thread goes on from there.
    const next = await json(`${server.url}/threads/${threadId}/runs/wait`, {
      method: "POST",
      body: JSON.stringify({ assistant_id: "loop", command: { resume: { [(await question(threadId)).id]: "after" } } }),
    });
    expect(next.status).toBe(200);
    expect(await storedAnswers(threadId)).toEqual([...stored, "after"]);
  }
}, 120_000);
