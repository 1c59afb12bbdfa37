/**
 * PostgreSQL refusing writes mid-run (the database switched to read-only and its sessions cut,
 * as in a fail-over to a standby), then coming back: waiting requests end with 503
 * STORAGE_FAILED, nothing is applied without a 2xx, and the thread is free and resumable after.
 */
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { testPostgresUrl } from "../../../test/setup/urls.js";
import { hooks } from "./fixtures/graphs.mjs";
import { json, type TestServer, testServer, until } from "./helpers.js";
import { freshDatabase } from "./processes.js";

const name = `interlude_faults_${process.pid}_${Date.now() % 1e6}`;
let server: TestServer;
let admin: pg.Client;

/** Every new session of the database is read-only (or not), and the current ones are cut. */
async function readOnly(on: boolean) {
  await admin.query(`ALTER DATABASE ${name} SET default_transaction_read_only = ${on ? "on" : "off"}`);
  await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", [name]);
}

beforeAll(async () => {
  const database = await freshDatabase(testPostgresUrl(), name);
  admin = new pg.Client({ connectionString: testPostgresUrl() });
  await admin.connect();
  server = await testServer({ postgresUrl: database });
}, 60_000);
afterAll(async () => {
  await readOnly(false).catch(() => undefined);
  await server?.dispose();
  await admin?.end();
});
afterEach(() => {
  hooks.during = () => undefined;
});

const post = (path: string, body: unknown) =>
  json(`${server.url}${path}`, { method: "POST", body: JSON.stringify(body) });

async function writesBack(threadId: string) {
  hooks.during = () => undefined;
  await readOnly(false);
  await until(async () => {
    const thread = await json(`${server.url}/threads/${threadId}`).catch(() => undefined);
    return thread?.status === 200 && thread.body.status !== "busy";
  }, 30_000);
}

describe("PostgreSQL refuses writes while a run executes", () => {
  it("runs/wait answers 503 and the thread runs again once writes are back", async () => {
    const threadId = (await post("/threads", {})).body.thread_id;
    let once = true;
    hooks.during = async () => {
      if (once) (once = false), await readOnly(true);
    };
    const failed = await post(`/threads/${threadId}/runs/wait`, { assistant_id: "hooked", input: {} });
    expect(failed).toMatchObject({ status: 503, body: { code: "STORAGE_FAILED" } });
    await writesBack(threadId);
    const again = await post(`/threads/${threadId}/runs/wait`, { assistant_id: "hooked", input: {} });
    expect(again).toMatchObject({ status: 200, body: { done: true } });
  });

  it("an inbox answer gets 503, is not applied, and can be given again", async () => {
    const threadId = (await post("/threads", {})).body.thread_id;
    const asked = await post(`/threads/${threadId}/runs/wait`, { assistant_id: "hooked", input: { ask: true } });
    const interruptId = asked.body.__interrupt__[0].id;
    let once = true;
    hooks.during = async () => {
      if (once) (once = false), await readOnly(true);
    };
    const failed = await post("/inbox/answer", { thread_id: threadId, interrupt_id: interruptId, answer: "yes" });
    expect(failed.status).toBe(503);
    await writesBack(threadId);
    const state = (await json(`${server.url}/threads/${threadId}/state`)).body;
    expect(state.interrupts.map((i: { id: string }) => i.id)).toEqual([interruptId]);
    const answered = await post("/inbox/answer", { thread_id: threadId, interrupt_id: interruptId, answer: "yes" });
    expect(answered.status).toBe(200);
    await until(async () => (await json(`${server.url}/threads/${threadId}`)).body.values.answer === "yes");
  });
});

describe("GET /ok?check_db=1, the health check a load balancer calls, and GET /metrics", () => {
  it("answers 503 while the database takes no connections, 200 once it does again; /ok alone stays 200", async () => {
    expect(await json(`${server.url}/ok?check_db=1`)).toMatchObject({ status: 200, body: { ok: true } });
    const connections = async (allow: boolean) => {
      await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS ${allow}`);
      await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", [name]);
    };
    await connections(false);
    try {
      const refused = await json(`${server.url}/ok?check_db=1`);
      expect(refused).toMatchObject({ status: 503, body: { code: "STORAGE_FAILED" } });
      expect(refused.body.message).toMatch(/^The database did not answer the health check: /);
      expect(await json(`${server.url}/ok`)).toMatchObject({ status: 200, body: { ok: true } });
      // A scrape fails with it, rather than answering the figures it could not read.
      const scraped = await json(`${server.url}/metrics?format=json`);
      expect(scraped).toMatchObject({ status: 503, body: { code: "STORAGE_FAILED" } });
      expect(scraped.body.message).toMatch(/^The database did not answer the metrics' backlog query: /);
    } finally {
      await connections(true);
    }
    await until(async () => (await json(`${server.url}/ok?check_db=true`)).status === 200, 15_000);
    expect((await json(`${server.url}/metrics?format=json`)).status).toBe(200);
  });
});
