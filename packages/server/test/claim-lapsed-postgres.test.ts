/**
 * A run whose claim on its thread lapsed and was swept while it executed (its process cut off
 * from PostgreSQL for longer than the claim's TTL, then back) must not have its end recorded
 * without its last writes: those go with the record of its end (runs/joined-saver.ts) and are
 * fenced off by the lost claim. It goes back to the queue and continues from its last checkpoint.
 */
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { hooks } from "./fixtures/graphs.mjs";
import { json, runEnded, type TestServer, testServer } from "./helpers.js";
import { testDatabase } from "./processes.js";

let server: TestServer;
beforeAll(async () => {
  server = await testServer({ postgresUrl: await testDatabase("interlude_claim_lapsed") });
});
afterAll(() => server?.dispose());
afterEach(() => {
  hooks.during = () => undefined;
});
const post = (path: string, body: unknown) =>
  json(`${server.url}${path}`, { method: "POST", body: JSON.stringify(body) });

it("a run whose claim was swept before its question was saved asks it again, answerable", async () => {
  const db = server.backend.ctx.store.db;
  const threadId = (await post("/threads", {})).body.thread_id as string;
  // The first try's node finds its claim gone, as the sweep of lapsed claims leaves it.
  hooks.during = async () => {
    hooks.during = () => undefined;
    await db.run(`DELETE FROM interlude_claims WHERE thread_id = '${threadId}'`);
  };
  const run = (await post(`/threads/${threadId}/runs`, { assistant_id: "hooked", input: { ask: true } })).body;
  expect((await runEnded(`${server.url}/threads/${threadId}/runs/${run.run_id}`, 20_000)).status).toBe("success");
  // The question the thread shows is the one its checkpoints hold: answering it is taken.
  const state = (await json(`${server.url}/threads/${threadId}/state`)).body;
  expect(state.interrupts).toHaveLength(1);
  const resume = { assistant_id: "hooked", command: { resume: { [state.interrupts[0].id]: "yes" } } };
  const answered = await post(`/threads/${threadId}/runs/wait`, resume);
  expect(answered.status).toBe(200);
  expect(answered.body).toMatchObject({ answer: "yes", done: true });
});

it("a wait run whose claim was swept before its question was saved goes on, and its client gets the question", async () => {
  const db = server.backend.ctx.store.db;
  const threadId = (await post("/threads", {})).body.thread_id as string;
  hooks.during = async () => {
    hooks.during = () => undefined;
    await db.run(`DELETE FROM interlude_claims WHERE thread_id = '${threadId}'`);
  };
  const waited = await post(`/threads/${threadId}/runs/wait`, { assistant_id: "hooked", input: { ask: true } });
  expect(waited.status).toBe(200);
  const [question] = waited.body.__interrupt__;
  const resume = { assistant_id: "hooked", command: { resume: { [question.id]: "yes" } } };
  const answered = await post(`/threads/${threadId}/runs/wait`, resume);
  expect(answered).toMatchObject({ status: 200, body: { answer: "yes", done: true } });
});
