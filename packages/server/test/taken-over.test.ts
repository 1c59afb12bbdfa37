/**
 * A queued run claimed again elsewhere while it executes here (its lease lapsed while the
 * database was away from this process, and another process's sweep put it back in the queue):
 * this process's execution ends, but the run goes on under the other claim, which alone ends it.
 * The other process is played by the test, which claims the run in the database and renews that
 * claim's lease until it "dies"; then this process's sweep takes the run back.
 */
import type Database from "better-sqlite3";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { hooks } from "./fixtures/graphs.mjs";
import { json, type TestServer, testServer, until } from "./helpers.js";

let server: TestServer;
let raw: Database.Database;
/** The other process's death: its claim's lease is no longer renewed. */
let otherProcessDies: () => void = () => undefined;
beforeAll(async () => {
  server = await testServer({ runLeaseMs: 300 });
  raw = (server.backend.ctx.store.db as unknown as { raw: Database.Database }).raw;
});
afterAll(() => server?.dispose());
afterEach(() => {
  hooks.during = () => undefined;
  otherProcessDies();
});

const post = (path: string, body: unknown) =>
  json(`${server.url}${path}`, { method: "POST", body: JSON.stringify(body) });

/** Claims the thread's running run as another process would (its next attempt), renewing its lease until stopped. */
function claimElsewhere(threadId: string): () => void {
  const running = "thread_id = ? AND status = 'running'";
  raw.prepare(`UPDATE interlude_server_runs SET attempt = attempt + 1 WHERE ${running}`).run(threadId);
  const renew = setInterval(() => {
    raw
      .prepare(`UPDATE interlude_server_runs SET updated_at = ? WHERE ${running}`)
      .run(new Date().toISOString(), threadId);
  }, 50);
  return () => clearInterval(renew);
}

it("the execution that lost its claim leaves the run, its answers and the thread to the claim that has it", async () => {
  const threadId = (await post("/threads", {})).body.thread_id;
  const asked = await post(`/threads/${threadId}/runs/wait`, { assistant_id: "hooked", input: { ask: true } });
  const [question] = asked.body.__interrupt__;
  const ended = async () => (await json(`${server.url}/metrics?format=json`)).body.runs_ended;
  const before = await ended();
  let claimed = false;
  hooks.during = () => {
    hooks.during = () => undefined;
    otherProcessDies = claimElsewhere(threadId);
    claimed = true;
  };
  const resume = { assistant_id: "hooked", command: { resume: { [question.id]: "yes" } } };
  const run = (await post(`/threads/${threadId}/runs`, resume)).body;
  const runUrl = `${server.url}/threads/${threadId}/runs/${run.run_id}`;
  const answerState = () =>
    (raw.prepare("SELECT state FROM interlude_server_answers WHERE run_id = ?").get(run.run_id) as { state: string })
      .state;

  // Executed here to its end, which this process cannot record: the other claim's run goes on.
  await until(async () => claimed && !server.backend.ctx.executing.has(run.run_id));
  expect((await json(runUrl)).body).toMatchObject({ status: "running" });
  expect((await json(`${server.url}/threads/${threadId}`)).body.status).toBe("busy");
  expect(answerState()).toBe("reserved");
  expect(await ended()).toEqual(before);

  // The other process dies: its lease lapses, this process's sweep takes the run back and ends it, once.
  otherProcessDies();
  expect(await json(`${runUrl}/join`)).toMatchObject({ status: 200, body: { answer: "yes", done: true } });
  expect((await json(runUrl)).body.status).toBe("success");
  expect((await json(`${server.url}/threads/${threadId}`)).body.status).toBe("idle");
  expect(answerState()).toBe("applied");
  expect(await ended()).toEqual({ ...before, success: (before.success ?? 0) + 1 });
  const again = await post(`/threads/${threadId}/runs/wait`, resume);
  expect(again).toMatchObject({ status: 409, body: { code: "ALREADY_ANSWERED", answer: "yes" } });
});
