/**
 * The PostgreSQL store's round-trip savings keep their meaning: a transaction's held writes
 * commit (or roll back) with it, pipelined reads see them, a held write's failure is the error
 * its transaction reports (not the "transaction aborted" of the statements sent after it), a read
 * whose connection is cut fails alone, a parameter that cannot be sent fails its transaction
 * and nothing else, and an assistant changed through one server is not served
 * stale by another's cache.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BusEvent } from "../dist/events/bus.js";
import { type TestServer, testServer } from "./helpers.js";
import { testDatabase } from "./processes.js";

let a: TestServer;
let b: TestServer;

beforeAll(async () => {
  const database = await testDatabase("interlude_store");
  a = await testServer({ postgresUrl: database });
  b = await testServer({ postgresUrl: database });
}, 60_000);
afterAll(async () => {
  await a?.dispose();
  await b?.dispose();
});

describe("PostgreSQL store", () => {
  it("held writes commit with the transaction, are seen by its later reads, and are undone with it", async () => {
    const db = a.backend.ctx.store.db;
    await db.exec("CREATE TABLE IF NOT EXISTS held_test (k text PRIMARY KEY, v text)");
    const tricky = `it's \\ "quoted" ? $1 ${"é".repeat(3)}`;
    const seen = await db.tx(async (tx) => {
      await tx.write("INSERT INTO held_test (k, v) VALUES (?, ?)", ["one", tricky]);
      await tx.write("INSERT INTO held_test (k, v) VALUES (?, ?)", ["two", null]);
      return tx.reads([
        ["SELECT v FROM held_test WHERE k = ?", ["one"]],
        ["SELECT count(*)::int AS n FROM held_test", []],
      ]);
    });
    expect(seen).toEqual([[{ v: tricky }], [{ n: 2 }]]);
    await expect(
      db.tx(async (tx) => {
        await tx.write("INSERT INTO held_test (k, v) VALUES (?, ?)", ["three", "x"]);
        await tx.write("INSERT INTO held_test (k, v) VALUES (?, ?)", ["one", "again"]); // unique violation at commit
      }),
    ).rejects.toMatchObject({ code: "23505" });
    await expect(
      db.tx(async (tx) => {
        await tx.write("INSERT INTO held_test (k, v) VALUES (?, ?)", ["one", "again"]);
        await tx.all("SELECT v FROM held_test WHERE k = ?", ["two"]); // sent behind the failing write
      }),
    ).rejects.toMatchObject({ code: "23505" });
    expect(await db.all("SELECT k, v FROM held_test ORDER BY k")).toEqual([
      { k: "one", v: tricky },
      { k: "two", v: null },
    ]);
  });

  it("a transaction that need not be durable commits without waiting for its WAL flush, and only it", async () => {
    const db = a.backend.ctx.store.db;
    const setting = (tx: typeof db) => tx.all<{ s: string }>("SELECT current_setting('synchronous_commit') AS s");
    expect(await db.tx(setting, "durability-thread", { durable: false })).toEqual([{ s: "off" }]);
    expect(await db.tx(setting, undefined, { durable: false })).toEqual([{ s: "off" }]);
    expect(await db.tx(setting, "durability-thread")).toEqual([{ s: "on" }]);
    expect(await setting(db)).toEqual([{ s: "on" }]);
  });

  it("a parameter that cannot be sent fails its transaction before anything goes out, and the connection serves the next", async () => {
    const db = a.backend.ctx.store.db;
    await db.exec("CREATE TABLE IF NOT EXISTS held_test (k text PRIMARY KEY, v text)");
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    // More failures than the pool has connections: each is used again after one.
    for (let i = 0; i < 12; i++)
      await expect(
        db.tx(async (tx) => {
          await tx.write("INSERT INTO held_test (k, v) VALUES (?, ?)", ["unsendable", "first"]);
          await tx.write("INSERT INTO held_test (k, v) VALUES (?, ?)", ["unsendable-too", circular]);
          await tx.all("SELECT count(*)::int AS n FROM held_test", []);
        }),
      ).rejects.toThrow(TypeError);
    const rows = await db.tx((tx) => tx.all("SELECT k FROM held_test WHERE k LIKE 'unsendable%'", []));
    expect(rows).toEqual([]);
  });

  it("a connection cut during a pipelined read outside a transaction fails that read, not the process", async () => {
    const db = a.backend.ctx.store.db;
    // The backend ends itself mid-exchange: an unheard 'error' event on the checked-out client would be uncaught.
    await expect(db.reads([["SELECT pg_terminate_backend(pg_backend_pid())", []]])).rejects.toThrow(/terminat/);
    expect(await db.reads([["SELECT 1 AS one", []]])).toEqual([[{ one: 1 }]]);
  });

  it("a statement first sent in an exchange that failed before it runs fine afterwards (prepared again)", async () => {
    const db = a.backend.ctx.store.db;
    await db.exec("CREATE TABLE IF NOT EXISTS held_test (k text PRIMARY KEY, v text)");
    await db.run("INSERT INTO held_test (k, v) VALUES (?, ?) ON CONFLICT (k) DO NOTHING", ["taken", "x"]);
    const fresh = `SELECT ?::text || 'z' AS v, ${process.pid} AS pid`; // a text no connection has prepared
    for (let attempt = 0; attempt < 3; attempt++) {
      await expect(
        db.tx(async (tx) => {
          await tx.write("INSERT INTO held_test (k, v) VALUES (?, ?)", ["taken", "y"]);
          await tx.all(fresh, ["a"]); // skipped by PostgreSQL: the insert before it failed
        }),
      ).rejects.toMatchObject({ code: "23505" });
      await expect(db.tx((tx) => tx.all("SELECT ?::int AS n", ["not a number"]))).rejects.toMatchObject({
        code: "22P02",
      });
    }
    for (let attempt = 0; attempt < 3; attempt++) {
      expect(await db.tx((tx) => tx.all(fresh, ["a"]))).toEqual([{ v: "az", pid: process.pid }]);
      expect(await db.tx((tx) => tx.all("SELECT ?::int AS n", ["7"]))).toEqual([{ n: 7 }]);
    }
  });

  it("an assistant changed through one server is not served stale from another's cache", async () => {
    const created = await a.client().assistants.create({ graphId: "loop", name: "before" });
    // B reads it, and keeps it in its cache.
    expect((await b.client().assistants.get(created.assistant_id)).name).toBe("before");
    const told = new Promise<void>((resolve) => {
      const stop = b.backend.ctx.bus.subscribe((event: BusEvent) => {
        if (event.type === "assistant.changed" && event.assistant_id === created.assistant_id) stop(), resolve();
      });
    });
    await a.client().assistants.update(created.assistant_id, { name: "after" });
    await told;
    expect((await b.client().assistants.get(created.assistant_id)).name).toBe("after");
  });
});
