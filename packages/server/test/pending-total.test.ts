/**
 * The inbox's total of pending interrupts comes from counters kept by the database (triggers),
 * not from counting every row: it must stay exact through pauses, resumes, a question a
 * deadline withdraws and deleted threads, on SQLite and on PostgreSQL, with and without a
 * graph filter, and agree with the rows actually listed.
 */
import type { Client } from "@langchain/langgraph-sdk";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SqliteDb } from "../dist/store/db.js";
import { PENDING_COUNTED_BY_STORE, PENDING_COUNTS } from "../dist/store/pending-counts.js";
import { MIGRATIONS, migrate } from "../dist/store/schema.js";
import { Store } from "../dist/store/store.js";
import { json, type TestServer, testServer, until } from "./helpers.js";
import { testDatabase } from "./processes.js";

// The server reads ages against this clock: a test moves it forward instead of waiting.
let clockAhead = 0;
const now = () => Date.now() + clockAhead;

async function postgresServer(): Promise<TestServer> {
  return testServer({
    now,
    postgresUrl: await testDatabase("interlude_pending_total"),
  });
}

describe.each([
  ["SQLite", () => testServer({ now })],
  ["PostgreSQL", postgresServer],
])("the inbox total on %s", (_name, start) => {
  let server: TestServer;
  let client: Client;
  beforeAll(async () => {
    server = await start();
    client = server.client();
  });
  afterAll(() => server?.dispose());

  /** The counted total, next to what listing every row (and the per-graph rows) shows. */
  async function totals(graph?: string) {
    const filter = graph ? `&graph_id=${graph}` : "";
    const listed = await json(`${server.url}/inbox/interrupts?limit=500${filter}`);
    return { total: listed.body.total, rows: listed.body.items.length };
  }

  async function pause(graph: string, input: Record<string, unknown>) {
    const thread = await client.threads.create();
    const state = (await client.runs.wait(thread.thread_id, graph, { input })) as any;
    return { threadId: thread.thread_id, interruptId: state.__interrupt__[0].id as string };
  }

  const resume = (graph: string, p: { threadId: string; interruptId: string }, answer: unknown) =>
    client.runs.wait(p.threadId, graph, { command: { resume: { [p.interruptId]: answer } } }) as Promise<any>;

  it("counts pauses, resumes, withdrawn questions and deleted threads, per graph and in all", async () => {
    expect(await totals()).toEqual({ total: 0, rows: 0 });
    const loopA = await pause("loop", { rounds: 2 });
    const loopB = await pause("loop", { rounds: 2 });
    const approval = await pause("approval", { request: { service: "svc" } });
    expect(await totals()).toEqual({ total: 3, rows: 3 });
    expect(await totals("loop")).toEqual({ total: 2, rows: 2 });
    expect(await totals("approval")).toEqual({ total: 1, rows: 1 });
    expect(await totals("nope")).toEqual({ total: 0, rows: 0 });

    // Answering the first of two rounds asks the next question: one resolved, one created.
    const next = await resume("loop", loopA, "one");
    expect(await totals("loop")).toEqual({ total: 2, rows: 2 });
    await resume("loop", { threadId: loopA.threadId, interruptId: next.__interrupt__[0].id }, "two");
    expect(await totals("loop")).toEqual({ total: 1, rows: 1 });

    // A deadline that errors the thread withdraws its question.
    const expiring = await pause("deadline", { seconds: 0.2, onTimeout: { error: "too late" } });
    expect(await totals()).toEqual({ total: 3, rows: 3 });
    await until(async () => (await client.threads.get(expiring.threadId)).status === "error");
    expect(await totals()).toEqual({ total: 2, rows: 2 });
    expect(await totals("deadline")).toEqual({ total: 0, rows: 0 });

    await client.threads.delete(approval.threadId);
    expect(await totals()).toEqual({ total: 1, rows: 1 });
    expect(await totals("approval")).toEqual({ total: 0, rows: 0 });
    await client.threads.delete(loopB.threadId);
    expect(await totals()).toEqual({ total: 0, rows: 0 });
  });

  it("an age filter counts what is older: the counted total less the younger ones", async () => {
    const before = (await totals()).total;
    await pause("loop", { rounds: 1 });
    await pause("approval", { request: { service: "svc" } });
    const older = async (filter = "") =>
      (await json(`${server.url}/inbox/interrupts?min_age_seconds=60${filter}`)).body.total;
    expect(await older()).toBe(before);
    clockAhead = 61_000;
    try {
      expect(await older()).toBe(before + 2);
      expect(await older("&graph_id=approval")).toBe((await totals("approval")).total);
    } finally {
      clockAhead = 0;
    }
  });

  it("filters the counters cannot answer are still counted exactly", async () => {
    const a = await pause("approval", { request: { service: "zeta-svc" } });
    await pause("approval", { request: { service: "zeta-svc" } });
    const ofThread = await json(`${server.url}/inbox/interrupts?thread_id=${a.threadId}`);
    expect(ofThread.body.total).toBe(1);
    expect((await json(`${server.url}/inbox/interrupts?q=zeta-svc`)).body.total).toBe(2);
    expect((await json(`${server.url}/inbox/interrupts?q=absent`)).body.total).toBe(0);
  });
});

describe("upgrading a database with interrupts pending", () => {
  it("the counters start from the rows already there, kept by triggers and then by the store", async () => {
    const raw = new Database(":memory:");
    const db = new SqliteDb(raw);
    // The schema before the counters, with four interrupts pending (two of graph x).
    await migrate(db, MIGRATIONS.indexOf(PENDING_COUNTS));
    const store = new Store(db);
    const pending = (thread: string, graph: string | null) => ({
      thread_id: thread,
      interrupt_id: "question",
      graph_id: graph,
      assistant_id: null,
      value: {},
      response_schema: null,
      ns: [],
      created_at: new Date().toISOString(),
      deadline_at: null,
    });
    const insert = raw.prepare(
      "INSERT INTO interlude_server_pending (thread_id, interrupt_id, graph_id, value, ns, created_at) VALUES (?, 'question', ?, '{}', '[]', ?)",
    );
    for (const [thread, graph] of [
      ["a", "x"],
      ["b", "x"],
      ["c", null],
      ["d", null],
    ] as const)
      insert.run(thread, graph, new Date().toISOString());
    // Counted by the triggers, before the store counts its own changes.
    await migrate(db, MIGRATIONS.indexOf(PENDING_COUNTED_BY_STORE));
    raw.prepare("DELETE FROM interlude_server_pending WHERE thread_id = 'd'").run();
    await migrate(db);
    expect((await store.pending({})).total).toBe(3);
    expect((await store.pending({ graph_id: "x" })).total).toBe(2);
    await store.tx((tx) => tx.replacePending("a", [pending("a", "x")], []));
    expect((await store.pending({})).total).toBe(2);
    expect((await store.pending({ graph_id: "x" })).total).toBe(1);
    // An answer and the next question in one graph: no change; in another graph: both counted.
    await store.tx((tx) =>
      tx.replacePending("b", [pending("b", "x")], [{ ...pending("b", "x"), interrupt_id: "next" }]),
    );
    await store.tx((tx) =>
      tx.replacePending("c", [pending("c", null)], [{ ...pending("c", "x"), interrupt_id: "next" }]),
    );
    expect((await store.pending({})).total).toBe(2);
    expect((await store.pending({ graph_id: "x" })).total).toBe(2);
    await store.deleteThread("b");
    expect((await store.pending({})).total).toBe(1);
    expect((await store.pending({ graph_id: "x" })).total).toBe(1);
    raw.close();
  });
});
