/**
 * The database fails one statement of a run mid-way, as when PostgreSQL terminates a connection
 * under it (a restart, a fail-over), and takes writes again by the time the run's end would be
 * recorded. API.md ("Storage failures"): a background run is not ended by it but goes back to
 * the queue and continues from its last checkpoint, whatever storage does by then.
 */
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { hooks } from "./fixtures/graphs.mjs";
import { json, runEnded, type TestServer, testServer, until, whileRefusing } from "./helpers.js";
import { testDatabase } from "./processes.js";

let server: TestServer;
beforeAll(async () => {
  server = await testServer({ postgresUrl: await testDatabase("interlude_blink") });
});
afterAll(() => server?.dispose());
afterEach(() => {
  hooks.during = () => undefined;
});
const post = (path: string, body: unknown) =>
  json(`${server.url}${path}`, { method: "POST", body: JSON.stringify(body) });

it("a background run whose step the database failed goes back to the queue and finishes, not ended in error", async () => {
  const db = server.backend.ctx.store.db;
  const threadId = (await post("/threads", {})).body.thread_id as string;
  const refused = { event: "INSERT", table: "interlude_checkpoints", sqlstate: "57P01" } as const;
  let started: () => void = () => undefined;
  let resume: () => void = () => undefined;
  const inStep = new Promise<void>((resolve) => (started = resolve));
  const goOn = new Promise<void>((resolve) => (resume = resolve));
  // The first try's step waits for the refusal to be in place; the next tries run through.
  hooks.during = async () => {
    hooks.during = () => undefined;
    started();
    await goOn;
  };
  const run = (await post(`/threads/${threadId}/runs`, { assistant_id: "hooked", input: {} })).body;
  await inStep;
  await whileRefusing(db, refused, async () => {
    resume();
    // The step's checkpoint is refused; the run is then recorded, or queued again.
    await until(async () => {
      const [row] = await db.all<{ status: string; attempt: number }>(
        "SELECT status, attempt FROM interlude_server_runs WHERE run_id = ?",
        [run.run_id],
      );
      return row !== undefined && (row.status === "error" || row.attempt > 1 || row.status === "pending");
    }, 10_000);
  });
  const ended = await runEnded(`${server.url}/threads/${threadId}/runs/${run.run_id}`, 20_000);
  expect(ended.status).toBe("success");
  expect((await json(`${server.url}/threads/${threadId}/state`)).body.values.done).toBe(true);
});
