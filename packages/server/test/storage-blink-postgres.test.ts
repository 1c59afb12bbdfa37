/**
 * The database fails one statement of a run mid-way, as when PostgreSQL terminates a connection
 * under it (a restart, a fail-over), and takes writes again by the time the run's end would be
 * recorded. API.md ("Storage failures"): a background run is not ended by it but goes back to
 * the queue and continues from its last checkpoint, whatever storage does by then. A cron's run
 * the database failed to queue is made at the next sweep, not skipped to the cron's next time.
 */
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { hooks } from "./fixtures/graphs.mjs";
import { json, movedClock, runEnded, type TestServer, testServer, until, whileRefusing } from "./helpers.js";
import { testDatabase } from "./processes.js";

let server: TestServer;
/** For crons: the sweep is called by the test. */
const clock = movedClock();
beforeAll(async () => {
  const postgresUrl = await testDatabase("interlude_blink");
  server = await testServer({ postgresUrl, now: clock.now, cronSweepMs: 3_600_000 });
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

it("a cron whose run the database failed to queue makes it at the next sweep, not at its next time", async () => {
  const threadId = (await post("/threads", {})).body.thread_id as string;
  const cron = (await post(`/threads/${threadId}/runs/crons`, { assistant_id: "loop", schedule: "0 * * * *" })).body;
  const sweep = (at: number) => clock.sweepCronsAhead(server, at - Date.now());
  const due = Date.parse(cron.next_run_date);
  const refused = {
    event: "INSERT",
    table: "interlude_server_runs",
    when: `NEW.thread_id = '${threadId}'`,
    sqlstate: "57P01",
  } as const;
  await whileRefusing(server.backend.ctx.store.db, refused, () => sweep(due + 1_000));
  await sweep(due + 11_000);
  const runs = await until(async () => {
    const list = (await json(`${server.url}/threads/${threadId}/runs`)).body;
    return list.length > 0 && list;
  });
  expect(runs).toHaveLength(1);
  expect(runs[0].metadata.cron_id).toBe(cron.cron_id);
  const [moved] = (await post("/runs/crons/search", { thread_id: threadId })).body;
  expect(Date.parse(moved.next_run_date)).toBe(due + 60 * 60_000);
});
