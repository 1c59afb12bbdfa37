/**
 * The database refusing writes mid-run (SQLite made read-only under the server, as a full or
 * read-only disk does): every waiting request ends with 503 STORAGE_FAILED, nothing is applied
 * without a 2xx, and once writes are possible again the thread is free and resumable. And one
 * table refusing (a trigger) half-way through deleting, making or copying a thread: nothing half
 * done is left behind.
 */
import type Database from "better-sqlite3";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { hooks } from "./fixtures/graphs.mjs";
import { json, runEnded, type TestServer, testServer, until, whileRefusing } from "./helpers.js";

let server: TestServer;
let raw: Database.Database;
beforeAll(async () => {
  server = await testServer();
  raw = (server.backend.ctx.store.db as unknown as { raw: Database.Database }).raw;
});
afterAll(() => server?.dispose());
afterEach(() => {
  hooks.during = () => undefined;
  raw.pragma("query_only = 0");
});

/** The next `hooked` node to run makes the database refuse writes (after its run was queued and claimed). */
function refuseWritesMidRun() {
  hooks.during = () => {
    raw.pragma("query_only = 1");
  };
}

async function writesBack(threadId: string) {
  hooks.during = () => undefined;
  raw.pragma("query_only = 0");
  // The failed run is recorded once storage takes writes again.
  await until(async () => (await json(`${server.url}/threads/${threadId}`)).body.status !== "busy");
}

/** The server's store database, for `whileRefusing`. */
const db = () => server.backend.ctx.store.db;

const newThread = async () => (await json(`${server.url}/threads`, { method: "POST", body: "{}" })).body.thread_id;
const post = (path: string, body: unknown) =>
  json(`${server.url}${path}`, { method: "POST", body: JSON.stringify(body) });

describe("the database refuses writes while a run executes", () => {
  it("runs/wait answers 503 STORAGE_FAILED and the thread runs again once writes are back", async () => {
    const threadId = await newThread();
    refuseWritesMidRun();
    const failed = await post(`/threads/${threadId}/runs/wait`, { assistant_id: "hooked", input: {} });
    expect(failed.status).toBe(503);
    expect(failed.body.code).toBe("STORAGE_FAILED");
    await writesBack(threadId);
    const runs = (await json(`${server.url}/threads/${threadId}/runs`)).body;
    expect(runs[0]).toMatchObject({ status: "error" });
    const ended = async () => (await json(`${server.url}/metrics?format=json`)).body.runs_ended;
    // Counted once, when recorded (the first test of this server: nothing ended before).
    expect(await ended()).toEqual({ error: 1 });
    const again = await post(`/threads/${threadId}/runs/wait`, { assistant_id: "hooked", input: {} });
    expect(again).toMatchObject({ status: 200, body: { done: true } });
    expect(await ended()).toEqual({ error: 1, success: 1 });
  });

  it("stateless runs/wait answers 503 and runs/stream ends with an error event; their threads go once writes are back", async () => {
    const count = async () => (await post("/threads/count", {})).body as number;
    const before = await count();
    refuseWritesMidRun();
    const waited = await post("/runs/wait", { assistant_id: "hooked", input: {} });
    expect(waited.status).toBe(503);
    raw.pragma("query_only = 0");
    await until(async () => (await count()) === before);
    refuseWritesMidRun();
    const streamed = await fetch(`${server.url}/runs/stream`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ assistant_id: "hooked", input: {} }),
    });
    const text = await streamed.text();
    expect(text).toMatch(/event: error\ndata: .*STORAGE_FAILED/);
    expect(text).toMatch(/event: end/);
    hooks.during = () => undefined;
    raw.pragma("query_only = 0");
    await until(async () => (await count()) === before);
  });

  it("an inbox answer gets 503, is not applied, and can be given again once writes are back", async () => {
    const threadId = await newThread();
    const asked = await post(`/threads/${threadId}/runs/wait`, { assistant_id: "hooked", input: { ask: true } });
    const interruptId = asked.body.__interrupt__[0].id;
    refuseWritesMidRun();
    const failed = await post("/inbox/answer", { thread_id: threadId, interrupt_id: interruptId, answer: "yes" });
    expect(failed.status).toBe(503);
    await writesBack(threadId);
    const state = (await json(`${server.url}/threads/${threadId}/state`)).body;
    expect(state.interrupts.map((i: { id: string }) => i.id)).toEqual([interruptId]);
    const answered = await post("/inbox/answer", { thread_id: threadId, interrupt_id: interruptId, answer: "yes" });
    expect(answered.status).toBe(200);
    await until(async () => (await json(`${server.url}/threads/${threadId}`)).body.values.answer === "yes");
  });

  it("a background run the database failed mid-way goes back to the queue, and finishes from its checkpoint once writes are back", async () => {
    const threadId = await newThread();
    const ended = async () => (await json(`${server.url}/metrics?format=json`)).body.runs_ended;
    const before = await ended();
    // Only its first try meets the refusal.
    hooks.during = () => {
      raw.pragma("query_only = 1");
      hooks.during = () => undefined;
    };
    const run = (await post(`/threads/${threadId}/runs`, { assistant_id: "hooked", input: {} })).body;
    const runUrl = `${server.url}/threads/${threadId}/runs/${run.run_id}`;
    const joined = json(`${runUrl}/join`);
    // Its first try's log ends without an end: a stream joined here goes on to the outcome.
    const followed = fetch(`${runUrl}/stream`).then((response) => response.text());
    await new Promise((resolve) => setTimeout(resolve, 500));
    // Not ended while the database refuses writes: it waits to go back to the queue.
    expect((await json(runUrl)).body.status).toBe("running");
    raw.pragma("query_only = 0");
    expect(await joined).toMatchObject({ status: 200, body: { done: true } });
    const text = await followed;
    expect(text).toMatch(/event: values\ndata: \{[^\n]*"done":true[^\n]*\n(id: \d+\n)?\nevent: end\n/);
    expect((await json(runUrl)).body).toMatchObject({ status: "success" });
    expect(await ended()).toEqual({ ...before, success: (before.success ?? 0) + 1 });
  });

  it("a background run whose claim meets the refusal stays queued, and executes once writes are back", async () => {
    const threadId = await newThread();
    // Held by a writer elsewhere for a second: the run is refused, queued again and tried every 500 ms.
    await server.backend.ctx.saver.claimThread(threadId, { owner: "another-host/1234/a-run", ttlMs: 1_000 });
    const run = (await post(`/threads/${threadId}/runs`, { assistant_id: "loop", input: { rounds: 1 } })).body;
    const runUrl = `${server.url}/threads/${threadId}/runs/${run.run_id}`;
    await until(async () => (await json(runUrl)).body.status === "pending");
    raw.pragma("query_only = 1");
    // Its next tries' claims are refused: it is not ended meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect((await json(runUrl)).body.status).toBe("pending");
    raw.pragma("query_only = 0");
    const ended = await runEnded(runUrl);
    expect(ended.status).toBe("success");
  });

  it("a write refused outright is 503 STORAGE_FAILED, not 500", async () => {
    raw.pragma("query_only = 1");
    const created = await post("/threads", {});
    expect(created).toMatchObject({ status: 503, body: { code: "STORAGE_FAILED" } });
  });
});

describe("the database refuses to delete a thread's checkpoints", () => {
  it("deleting the thread answers 503 and leaves it to delete again; a thread made again under its id starts empty", async () => {
    const threadId = `deleted-${Date.now()}`;
    await post("/threads", { thread_id: threadId });
    await post(`/threads/${threadId}/runs/wait`, { assistant_id: "slow", input: { tag: "old", delay: 1 } });
    const remove = () => json(`${server.url}/threads/${encodeURIComponent(threadId)}`, { method: "DELETE" });
    // The saver's table alone refuses, as a fault in the middle of a deletion would leave it.
    const refused = await whileRefusing(db(), { event: "DELETE", table: "checkpoints" }, remove);
    expect(refused).toMatchObject({ status: 503, body: { code: "STORAGE_FAILED" } });
    // Still there, so the deletion can be asked again: not gone with its checkpoints left behind.
    expect((await json(`${server.url}/threads/${threadId}`)).status).toBe(200);
    expect((await remove()).status).toBeLessThan(300);
    await post("/threads", { thread_id: threadId });
    const ran = await post(`/threads/${threadId}/runs/wait`, { assistant_id: "slow", input: { tag: "new", delay: 1 } });
    expect(ran.body.log).toEqual(["first:new", "second:new"]);
  });
});

describe("one table refuses inserts half-way through making a thread, a copy or an assistant", () => {
  /** `table` refuses inserts while `during` runs (a fault half-way through making a thread). */
  const refusingInserts = <T>(table: string, during: () => Promise<T>) =>
    whileRefusing(db(), { event: "INSERT", table }, during);

  it("a thread whose TTL cannot be saved is not made, and is made with its TTL when asked again", async () => {
    const threadId = `ttl-${Date.now()}`;
    const create = () => post("/threads", { thread_id: threadId, ttl: { ttl: 5 } });
    // A trigger's refusal is a constraint's to SQLite, a 500 rather than a full disk's 503.
    expect((await refusingInserts("interlude_server_thread_ttl", create)).status).toBe(500);
    // Not made without its TTL (it would never expire, and asking again would be a 409).
    expect((await json(`${server.url}/threads/${threadId}`)).status).toBe(404);
    expect((await create()).status).toBe(200);
    const ttl = raw.prepare("SELECT ttl_ms FROM interlude_server_thread_ttl WHERE thread_id = ?").get(threadId);
    expect(ttl).toEqual({ ttl_ms: 5 * 60_000 });
  });

  it("a thread made with supersteps whose record cannot be written is not made, and is made when asked again", async () => {
    const threadId = `steps-${Date.now()}`;
    const updates = [{ values: { tag: "pre", log: ["first:pre"] }, as_node: "first" }];
    const create = () =>
      post("/threads", { thread_id: threadId, metadata: { graph_id: "slow" }, supersteps: [{ updates }] });
    const refused = await whileRefusing(db(), { event: "UPDATE", table: "interlude_server_threads" }, create);
    expect(refused.status).toBe(500);
    expect((await json(`${server.url}/threads/${threadId}`)).status).toBe(404);
    const made = await create();
    expect(made.body).toMatchObject({ status: "interrupted", values: { tag: "pre", log: ["first:pre"] } });
  });

  it("a copy whose checkpoints cannot be copied leaves no copy behind", async () => {
    const source = (await post("/threads", {})).body.thread_id;
    await post(`/threads/${source}/runs/wait`, { assistant_id: "slow", input: { tag: "c", delay: 1 } });
    const count = async () => (await post("/threads/count", {})).body as number;
    const before = await count();
    const refused = await refusingInserts("checkpoints", () => post(`/threads/${source}/copy`, {}));
    expect(refused).toMatchObject({ status: 503, body: { code: "STORAGE_FAILED" } });
    expect(await count()).toBe(before);
    const copied = await post(`/threads/${source}/copy`, {});
    expect(copied.body.values.log).toEqual(["first:c", "second:c"]);
  });

  it("a copy whose record cannot be written leaves no copy behind, and is made once when asked again", async () => {
    const source = (await post("/threads", {})).body.thread_id;
    await post(`/threads/${source}/runs/wait`, { assistant_id: "slow", input: { tag: "r", delay: 1 } });
    const count = async () => (await post("/threads/count", {})).body as number;
    const before = await count();
    const checkpoints = () => raw.prepare("SELECT COUNT(*) AS n FROM checkpoints").get() as { n: number };
    const stored = checkpoints();
    // The copy's sync is refused (its checkpoints are copied by then).
    const when = `NEW.thread_id <> '${source}'`;
    const refused = await whileRefusing(db(), { event: "UPDATE", table: "interlude_server_threads", when }, () =>
      post(`/threads/${source}/copy`, {}),
    );
    expect(refused.status).toBe(500);
    expect(await count()).toBe(before);
    expect(checkpoints()).toEqual(stored);
    const copied = await post(`/threads/${source}/copy`, {});
    expect(copied.body).toMatchObject({ status: "idle", values: { log: ["first:r", "second:r"] } });
    expect(await count()).toBe(before + 1);
  });

  it("an assistant whose first version cannot be saved is not made, and is made whole when asked again", async () => {
    const assistantId = "00000000-0000-4000-8000-0000000000a1";
    const create = () => post("/assistants", { assistant_id: assistantId, graph_id: "slow", name: "made twice" });
    expect((await refusingInserts("interlude_server_assistant_versions", create)).status).toBe(500);
    expect((await json(`${server.url}/assistants/${assistantId}`)).status).toBe(404);
    expect((await create()).status).toBe(200);
    const versions = await post(`/assistants/${assistantId}/versions`, {});
    expect(versions.body.map((v: { version: number }) => v.version)).toEqual([1]);
  });
});

describe("the database refuses the thread's record after a state edit was saved", () => {
  it("the edit is acknowledged (it is saved: asked again it would apply twice) and the record follows once writes are back", async () => {
    const threadId = (await post("/threads", {})).body.thread_id;
    await post(`/threads/${threadId}/runs/wait`, { assistant_id: "slow", input: { tag: "e", delay: 1 } });
    const edited = await whileRefusing(db(), { event: "UPDATE", table: "interlude_server_threads" }, () =>
      post(`/threads/${threadId}/state`, { values: { log: ["edited"] } }),
    );
    expect(edited.status).toBe(200);
    const log = ["first:e", "second:e", "edited"];
    expect((await json(`${server.url}/threads/${threadId}/state`)).body.values.log).toEqual(log);
    await until(async () => (await json(`${server.url}/threads/${threadId}`)).body.values.log?.length === 3);
    expect((await json(`${server.url}/threads/${threadId}`)).body.values.log).toEqual(log);
  });
});
