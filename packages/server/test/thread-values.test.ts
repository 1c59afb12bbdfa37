/**
 * A thread's state larger than the server's `rowValuesLimit` is not copied into the thread's row
 * at each answer (store/thread-values.ts): every read of the thread gets it from the newest
 * checkpoint, and a search filtering on values finds it and pages as before, on SQLite and on
 * PostgreSQL. A state under the limit stays in the row.
 */
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SqliteDb } from "../dist/store/db.js";
import { Store } from "../dist/store/store.js";
import { newThread } from "../dist/threads/new-thread.js";
import { checkpointValues } from "../dist/threads/values.js";
import { jsonLongerThan } from "../dist/wire/json-length.js";
import { openGate } from "./fixtures/gates.mjs";
import { type TestServer, testServer, until } from "./helpers.js";
import { storages } from "./processes.js";

/** Over the limit the tests set (1 kB of JSON), as an agent's conversation grows over it. */
const DETAIL = "a long context for the reviewer ".repeat(100);

describe.each(storages("interlude_values"))("thread values kept in the checkpoint, on %s", (_name, storage) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await testServer({ ...(await storage()), rowValuesLimit: 1024 });
  }, 60_000);
  afterAll(async () => {
    await server?.dispose();
  });

  const row = async (threadId: string) =>
    (
      await server.backend.ctx.store.db.all<{ values: string | null; values_checkpoint_id: string | null }>(
        `SELECT "values", values_checkpoint_id FROM interlude_server_threads WHERE thread_id = ?`,
        [threadId],
      )
    )[0]!;

  /** A `loop` thread paused at its first question, with `detail` in its state. */
  async function paused(detail: string, metadata: Record<string, unknown> = {}) {
    const client = server.client();
    const thread = await client.threads.create({ metadata });
    const state = (await client.runs.wait(thread.thread_id, "loop", { input: { rounds: 3, detail } })) as any;
    expect(state.__interrupt__).toHaveLength(1);
    return { id: thread.thread_id, state };
  }

  /** Counts the checkpoints the store loads values from, from now on. */
  function countLoads() {
    const { ctx } = server.backend;
    const counter = { loads: 0 };
    ctx.store.threadValues.readFromCheckpoints(
      (thread, checkpointId) => (counter.loads++, checkpointValues(ctx, thread, checkpointId)),
      1024,
    );
    return counter;
  }

  it("a large state: the row keeps only its short fields, and the thread, its search and its answers read it whole", async () => {
    const client = server.client();
    const { id, state } = await paused(DETAIL);
    const first = await client.threads.getState(id);
    // The row keeps the fields a search compares; the long one stays in the checkpoint.
    expect(await row(id)).toEqual({
      values: JSON.stringify({ rounds: 3, answers: [] }),
      values_checkpoint_id: first.checkpoint.checkpoint_id,
    });
    const checkpoint = first.values as Record<string, unknown>;
    expect(checkpoint).toMatchObject({ rounds: 3, detail: DETAIL, answers: [] });
    expect((await client.threads.get(id)).values).toEqual(checkpoint);
    expect(state).toMatchObject(checkpoint);

    const answered = (await client.runs.wait(id, "loop", {
      command: { resume: { [state.__interrupt__[0].id]: "first" } },
    })) as any;
    expect(answered).toMatchObject({ detail: DETAIL, answers: ["first"] });
    expect((await client.threads.get(id)).values).toEqual({ rounds: 3, detail: DETAIL, answers: ["first"] });
    const second = (await client.threads.getState(id)).checkpoint.checkpoint_id;
    expect(second).not.toBe(first.checkpoint.checkpoint_id);
    expect(await row(id)).toEqual({
      values: JSON.stringify({ rounds: 3, answers: ["first"] }),
      values_checkpoint_id: second,
    });

    // An edit of the metadata leaves the state where it is.
    const patched = await client.threads.update(id, { metadata: { edited: true } });
    expect(patched.values).toMatchObject({ answers: ["first"] });
    expect((await row(id)).values_checkpoint_id).toBe(second);
    expect((await client.threads.get(id)).values).toMatchObject({ detail: DETAIL, answers: ["first"] });

    // A copy reads its own checkpoint.
    const copy = await client.threads.copy(id);
    expect(copy.values).toEqual({ rounds: 3, detail: DETAIL, answers: ["first"] });
    expect((await client.threads.get(copy.thread_id)).values).toEqual(copy.values);
  });

  it("while a run is in progress, the thread reads the values of its last sync, not the run's newer checkpoint", async () => {
    const client = server.client();
    const { thread_id } = await client.threads.create();
    await client.runs.wait(thread_id, "slow", { input: { tag: DETAIL, delay: 1 } });
    const done = (await client.threads.get(thread_id)).values;
    expect(done).toMatchObject({ log: [`first:${DETAIL}`, `second:${DETAIL}`] });
    const gate = `thread-values-${Date.now()}`;
    const run = await client.runs.create(thread_id, "slow", { input: { tag: "next", hold: gate, delay: 1 } });
    // The run has saved its input's checkpoint and waits at the gate in its first step.
    await until(async () => ((await client.threads.getState(thread_id)).values as any).tag === "next");
    expect((await client.threads.get(thread_id)).values).toEqual(done);
    openGate(gate);
    await client.runs.join(thread_id, run.run_id);
    expect((await client.threads.get(thread_id)).values).toMatchObject({
      tag: "next",
      log: [`first:${DETAIL}`, `second:${DETAIL}`, "first:next", "second:next"],
    });
  });

  it("a search that does not select the values loads none from a checkpoint", async () => {
    const client = server.client();
    const batch = `select-${Date.now()}`;
    const { id } = await paused(DETAIL, { batch });
    const counter = countLoads();
    const listed = await client.threads.search({ metadata: { batch }, select: ["thread_id", "status"] });
    expect(listed).toEqual([{ thread_id: id, status: "interrupted" }]);
    expect(counter.loads).toBe(0);
    const picked = await client.threads.search({ metadata: { batch }, select: ["thread_id", "values"] });
    expect(picked).toEqual([{ thread_id: id, values: { rounds: 3, detail: DETAIL, answers: [] } }]);
    expect(counter.loads).toBe(1);
  });

  it("routes that show no thread values load none: state, history, delete", async () => {
    const client = server.client();
    const { id } = await paused(DETAIL);
    const counter = countLoads();
    expect((await client.threads.getState(id)).values).toMatchObject({ detail: DETAIL });
    expect((await client.threads.getHistory(id)).length).toBeGreaterThan(0);
    await client.threads.delete(id);
    expect(counter.loads).toBe(0);
  });

  it("a small state stays in the row", async () => {
    const { id } = await paused("short");
    const { values, values_checkpoint_id } = await row(id);
    expect(JSON.parse(values!)).toEqual({ rounds: 3, detail: "short", answers: [] });
    expect(values_checkpoint_id).toBeNull();
  });

  it("a search on values finds large and small states alike, pages and counts as before", async () => {
    const client = server.client();
    const batch = `batch-${Date.now()}`;
    // Newest first: large, small, large, small, large.
    const made: Array<{ id: string; large: boolean }> = [];
    for (let i = 0; i < 5; i++) {
      const large = i % 2 === 0;
      made.push({ id: (await paused(large ? DETAIL : "short", { batch })).id, large });
    }
    const newestFirst = made.map((m) => m.id).reverse();
    const search = (values: Record<string, unknown>, page: { limit?: number; offset?: number } = {}) =>
      client.threads.search({ metadata: { batch }, values, ...page });

    expect((await search({ rounds: 3 })).map((t) => t.thread_id)).toEqual(newestFirst);
    expect((await search({ detail: DETAIL })).map((t) => t.thread_id)).toEqual(
      newestFirst.filter((id) => made.find((m) => m.id === id)!.large),
    );
    expect((await search({ detail: "short" })).map((t) => t.thread_id)).toEqual(
      newestFirst.filter((id) => !made.find((m) => m.id === id)!.large),
    );
    expect(await search({ detail: "neither" })).toEqual([]);
    expect(await search({ missing: 1 })).toEqual([]);
    expect((await search({ rounds: 3 }, { limit: 2, offset: 1 })).map((t) => t.thread_id)).toEqual(
      newestFirst.slice(1, 3),
    );
    for (const found of await search({ detail: DETAIL })) expect(found.values).toMatchObject({ detail: DETAIL });
    expect(await client.threads.count({ metadata: { batch }, values: { detail: DETAIL } })).toBe(3);
    expect(await client.threads.count({ metadata: { batch }, values: { rounds: 3 } })).toBe(5);
  });

  it("a filter on a short field pages and counts in SQL: it loads only its page's states", async () => {
    const client = server.client();
    const batch = `short-field-${Date.now()}`;
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.unshift((await paused(DETAIL, { batch })).id);
    const counter = countLoads();
    const page = await client.threads.search({ metadata: { batch }, values: { rounds: 3 }, limit: 2, offset: 1 });
    expect(page.map((t) => t.thread_id)).toEqual(ids.slice(1, 3));
    expect(page[0]!.values).toMatchObject({ detail: DETAIL });
    expect(counter.loads).toBe(2);
    expect(await client.threads.count({ metadata: { batch }, values: { rounds: 3, answers: [] } })).toBe(5);
    expect(await client.threads.count({ metadata: { batch }, values: { rounds: 4 } })).toBe(0);
    expect(counter.loads).toBe(2);
    // A filter value as long as the field the rows left out is compared once loaded.
    expect(await client.threads.count({ metadata: { batch }, values: { detail: DETAIL } })).toBe(5);
    expect(counter.loads).toBe(7);
  });

  it("a row written before search fields gets them at the first values search, and is found", async () => {
    const client = server.client();
    const batch = `before-fields-${Date.now()}`;
    const { id } = await paused(DETAIL, { batch });
    const { db } = server.backend.ctx.store;
    await db.run(`UPDATE interlude_server_threads SET "values" = NULL WHERE thread_id = ?`, [id]);
    const counter = countLoads();
    const found = await client.threads.search({ metadata: { batch }, values: { rounds: 3 } });
    expect(found.map((t) => t.thread_id)).toEqual([id]);
    expect(JSON.parse((await row(id)).values!)).toEqual({ rounds: 3, answers: [] });
    expect(counter.loads).toBe(2); // once to heal the row, once for the page
    await client.threads.search({ metadata: { batch }, values: { rounds: 3 } });
    expect(counter.loads).toBe(3); // healed once per process
  });
});

it("rows written without search fields are healed in batches, each from its own checkpoint", async () => {
  const store = new Store(new SqliteDb(new Database(":memory:")));
  await store.setup();
  const ids = Array.from({ length: 250 }, (_, i) => `thread-${String(i).padStart(3, "0")}`);
  for (const id of ids) await store.insertThread(newThread(id));
  // As the release before search fields left a large state: no values, a checkpoint named.
  await store.db.run(
    `UPDATE interlude_server_threads SET "values" = NULL, values_checkpoint_id = 'checkpoint-' || thread_id`,
  );
  const loaded: string[] = [];
  store.threadValues.readFromCheckpoints(async (thread, checkpointId) => {
    loaded.push(checkpointId);
    return { id: thread.thread_id, conversation: "x".repeat(3000) };
  }, 1024);
  expect(await store.countThreads({ values: { id: "thread-123" } })).toBe(1);
  expect(loaded.sort()).toEqual(ids.map((id) => `checkpoint-${id}`));
  const rows = await store.db.all<{ thread_id: string; values: string; values_checkpoint_id: string }>(
    `SELECT thread_id, "values", values_checkpoint_id FROM interlude_server_threads ORDER BY thread_id`,
  );
  expect(rows).toEqual(
    ids.map((id) => ({ thread_id: id, values: JSON.stringify({ id }), values_checkpoint_id: `checkpoint-${id}` })),
  );
});

it("a limit that is not a number of bytes is refused with CONFIG_INVALID", async () => {
  for (const rowValuesLimit of [-1, Number.NaN])
    await expect(testServer({ rowValuesLimit })).rejects.toMatchObject({
      code: "CONFIG_INVALID",
      message: expect.stringMatching(/rowValuesLimit must be a number of bytes/),
    });
});

describe("jsonLongerThan, the sync's measure of a state", () => {
  const states: unknown[] = [
    {},
    { a: "x" },
    { answers: Array.from({ length: 40 }, (_, i) => `answer ${i}`) },
    { n: [1, 2.5, -3, true, false, null], nested: { deep: { deeper: ["é", 'a"b'] } } },
    { at: new Date(0), list: [] },
    { skipped: undefined, fn: () => 1, kept: [undefined, 1], 'quoted"key': "line\nbreak" },
  ];
  it("never says longer than JSON.stringify writes, and says it near that length", () => {
    for (const state of states) {
      const length = JSON.stringify(state).length;
      for (let limit = 0; limit <= length + 2; limit++)
        if (jsonLongerThan(state, limit)) expect(length, JSON.stringify(state)).toBeGreaterThan(limit);
      expect(jsonLongerThan(state, Math.ceil(length * 0.75) - 1)).toBe(true);
    }
  });
  it("agrees with the length of JSON.stringify, away from its estimates' margin", () => {
    for (const state of states) {
      const length = JSON.stringify(state).length;
      expect(jsonLongerThan(state, Math.floor(length / 2))).toBe(true);
      expect(jsonLongerThan(state, length * 2 + 10)).toBe(false);
    }
  });
  it("writes LangChain messages through toJSON, and stops early on a large or cyclic state", () => {
    const message = { secret: "x".repeat(5000), toJSON: () => ({ type: "ai", content: "short" }) };
    expect(jsonLongerThan({ messages: [message] }, 200)).toBe(false);
    expect(jsonLongerThan({ messages: [{ content: "x".repeat(5000) }] }, 200)).toBe(true);
    const cyclic: Record<string, unknown> = { name: "loop" };
    cyclic.self = cyclic;
    expect(jsonLongerThan(cyclic, 10_000)).toBe(true);
  });
});

describe("a values filter longer than a row's fields, over many threads", () => {
  const LONG = "a conversation no row keeps a copy of ".repeat(40);
  /** 300 threads whose states live in checkpoints; every tenth, from thread-004 on, holds LONG. */
  async function threads() {
    const store = new Store(new SqliteDb(new Database(":memory:")));
    await store.setup();
    for (let i = 0; i < 300; i++) await store.insertThread(newThread(`thread-${String(i).padStart(3, "0")}`));
    // Rows with search fields ({}: the conversation was too long to keep) and their checkpoint named.
    await store.db.run(`UPDATE interlude_server_threads SET "values" = '{}', values_checkpoint_id = thread_id`);
    const loads: string[] = [];
    const holdsLong = (id: string) => Number(id.slice(-3)) % 10 === 4;
    store.threadValues.readFromCheckpoints(async (thread) => {
      loads.push(thread.thread_id);
      return { conversation: holdsLong(thread.thread_id) ? LONG : "another one" };
    }, 1024);
    // Newest first; the threads share a creation time, so the id orders them.
    const matches = Array.from({ length: 300 }, (_, i) => `thread-${String(299 - i).padStart(3, "0")}`).filter(
      holdsLong,
    );
    return { store, loads, matches };
  }
  const ids = (found: Array<{ thread_id: string }>) => found.map((t) => t.thread_id);

  it("a page loads the states of the chunks up to its last match, not of every thread", async () => {
    const { store, loads, matches } = await threads();
    // The first chunk (16 rows) holds two matches, thread-294 and thread-284; the third is in the next (32).
    expect(ids(await store.threads({ values: { conversation: LONG }, limit: 2 }))).toEqual(matches.slice(0, 2));
    expect(loads).toHaveLength(16);
    loads.length = 0;
    expect(ids(await store.threads({ values: { conversation: LONG }, limit: 3 }))).toEqual(matches.slice(0, 3));
    expect(loads).toHaveLength(16 + 32);
    loads.length = 0;
    expect(ids(await store.threads({ values: { conversation: LONG }, limit: 3, offset: 25 }))).toEqual(
      matches.slice(25, 28),
    );
    expect(loads).toHaveLength(300);
    const page = await store.threadPage({ values: { conversation: LONG }, limit: 4 });
    expect(ids(page.threads)).toEqual(matches.slice(0, 4));
    expect(page.more).toBe(true);
    expect(page.threads[0]!.values).toEqual({ conversation: LONG });
  });

  it("a count and a search without a limit read every chunk", async () => {
    const { store, loads, matches } = await threads();
    expect(await store.countThreads({ values: { conversation: LONG } })).toBe(30);
    expect(loads).toHaveLength(300);
    expect(ids(await store.threads({ values: { conversation: LONG } }))).toEqual(matches);
    expect(await store.countThreads({ values: { conversation: "another one".repeat(100) } })).toBe(0);
  });

  it("a thread created between two chunks shifts the rows: the one read again is not listed twice", async () => {
    const { store, matches } = await threads();
    let created = false;
    store.threadValues.readFromCheckpoints(async (thread) => {
      if (!created) {
        created = true;
        // Sorts first (its id is the largest): the next chunk starts with the last row of this one.
        await store.insertThread(newThread("thread-999"));
        await store.db.run(
          `UPDATE interlude_server_threads SET "values" = '{}', values_checkpoint_id = thread_id WHERE thread_id = 'thread-999'`,
        );
      }
      return { conversation: Number(thread.thread_id.slice(-3)) % 10 === 4 ? LONG : "another one" };
    }, 1024);
    // thread-284, the second match, is the 16th row of the first chunk and the first of the next.
    expect(ids(await store.threads({ values: { conversation: LONG }, limit: 3 }))).toEqual(matches.slice(0, 3));
  });
});
