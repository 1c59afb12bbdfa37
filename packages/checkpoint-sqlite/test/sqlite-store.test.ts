import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeStoreConformance } from "@interlude/checkpoint-conformance";
import { SqliteSaver, SqliteStore } from "@interlude/checkpoint-sqlite";
import { Annotation, type LangGraphRunnableConfig, START, StateGraph } from "@interlude/core";
import { describe, expect, it } from "vitest";

const dir = mkdtempSync(join(tmpdir(), "interlude-store-"));
let files = 0;

describeStoreConformance(
  "SqliteStore",
  async () => {
    const file = join(dir, `store-${files++}.db`);
    const opened: SqliteStore[] = [new SqliteStore(file)];
    return {
      store: opened[0]!,
      reopen: async () => {
        const again = new SqliteStore(file);
        opened.push(again);
        return again;
      },
      close: async () => {
        for (const store of opened) store.close();
      },
    };
  },
  { durable: true },
);

describe("SqliteStore's options", () => {
  it("refuses one it does not take before opening the file", () => {
    const file = join(dir, "refused.db");
    expect(() => new SqliteStore(file, { busyTimeout: 100 } as never)).toThrow(
      expect.objectContaining({
        code: "UNSUPPORTED_STORE_OPTION",
        message: expect.stringContaining("SqliteStore takes busyTimeoutMs"),
      }),
    );
    expect(existsSync(file)).toBe(false);
  });
});

describe("SqliteStore beside a saver of the same process", () => {
  it("waits without blocking for the batch a saver's claim holds open on the file, then commits at once", async () => {
    const file = join(dir, `store-${files++}.db`);
    const saver = new SqliteSaver(file);
    // Blocking in SQLite's busy handler would wait out the timeout: the batch commits only once the event loop turns.
    const store = new SqliteStore(file, { busyTimeoutMs: 2_000 });
    expect(await saver.claimThread("thread-1", { owner: "run-1", ttlMs: 60_000 })).toBe(true);
    await store.put(["memories"], "k", { v: 1 });
    const reader = new SqliteStore(file);
    expect((await reader.get(["memories"], "k"))?.value).toEqual({ v: 1 });
    reader.close();
    store.close();
    await saver.close();
  });
});

describe("A saver and a store opened while this process holds a batch open on the file", () => {
  it("open without waiting for that batch when the file's schema is current", async () => {
    const file = join(dir, `store-${files++}.db`);
    const saver = new SqliteSaver(file, { groupCommit: true });
    new SqliteStore(file).close();
    // The claim waits in the open batch until the end of the event-loop turn.
    expect(await saver.claimThread("thread-1", { owner: "run-1", ttlMs: 60_000 })).toBe(true);
    // Taking the write lock to migrate would block in SQLite's busy handler, and the batch commits only once the event loop turns.
    const second = new SqliteSaver(file, { busyTimeoutMs: 2_000 });
    const store = new SqliteStore(file, { busyTimeoutMs: 2_000 });
    expect(await second.claimThread("thread-1", { owner: "run-2", ttlMs: 60_000 })).toBe(false);
    store.close();
    await second.close();
    await saver.close();
  });
});

describe("SqliteStore with a graph", () => {
  it("remembers across threads and across processes' worth of reopening, in the saver's own file", async () => {
    const file = join(dir, "graph.db");
    const State = Annotation.Root({ user: Annotation<string>(), visits: Annotation<number>() });
    const build = (store: SqliteStore, saver: SqliteSaver) =>
      new StateGraph(State)
        .addNode("count", async (state, config: LangGraphRunnableConfig) => {
          const seen = await config.store!.search(["visits", state.user], { limit: 100 });
          await config.store!.put(["visits", state.user], `v${seen.length}`, { at: seen.length });
          return { visits: seen.length + 1 };
        })
        .addEdge(START, "count")
        .compile({ store, checkpointer: saver });
    const saver = new SqliteSaver(file);
    const store = new SqliteStore(saver.db);
    expect((await build(store, saver).invoke({ user: "ada" }, { configurable: { thread_id: "a" } })).visits).toBe(1);
    await saver.close();
    const saver2 = new SqliteSaver(file);
    const store2 = new SqliteStore(saver2.db);
    const result = await build(store2, saver2).invoke({ user: "ada" }, { configurable: { thread_id: "b" } });
    expect(result.visits).toBe(2);
    await saver2.close();
  });
});
