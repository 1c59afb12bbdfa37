import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GroupCommit, startWalCheckpointer } from "@interlude/checkpoint-sqlite";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";

const dir = mkdtempSync(join(tmpdir(), "interlude-group-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

function open(): { db: Database.Database; path: string } {
  const path = join(dir, `db-${files++}.sqlite`);
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  db.pragma("busy_timeout = 2000");
  db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)");
  return { db, path };
}

describe("GroupCommit", () => {
  it("commits concurrent writes in shared batches, each resolved only once committed", async () => {
    const { db, path } = open();
    const group = GroupCommit.of(db);
    const insert = db.prepare("INSERT INTO t (v) VALUES (?)");
    const reader = new Database(path, { readonly: true });
    const count = () => reader.prepare("SELECT COUNT(*) FROM t").pluck().get() as number;
    const writes = Array.from({ length: 50 }, (_, i) => group.write(() => insert.run(`v${i}`).lastInsertRowid));
    // Nothing is visible to another connection before the batch commits.
    expect(count()).toBe(0);
    const ids = await Promise.all(writes);
    expect(new Set(ids).size).toBe(50);
    expect(count()).toBe(50);
    reader.close();
    db.close();
  });

  it("undoes only the logical transaction that failed", async () => {
    const { db } = open();
    const group = GroupCommit.of(db);
    const insert = db.prepare("INSERT INTO t (id, v) VALUES (?, ?)");
    const results = await Promise.allSettled([
      group.write(() => insert.run(1, "kept")),
      group.write(() => {
        insert.run(2, "undone");
        throw new Error("refused");
      }),
      group.write(async () => {
        insert.run(3, "kept too");
        await Promise.resolve();
      }),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(db.prepare("SELECT id FROM t ORDER BY id").pluck().all()).toEqual([1, 3]);
    db.close();
  });

  it("waits for another connection's batch without blocking the event loop", async () => {
    const { db, path } = open();
    const other = new Database(path);
    other.pragma("busy_timeout = 2000");
    const first = GroupCommit.of(db).write(() => db.prepare("INSERT INTO t (v) VALUES ('a')").run());
    // The second connection's batch must wait for the first one's commit, which needs the event loop.
    const second = GroupCommit.of(other).write(() => other.prepare("INSERT INTO t (v) VALUES ('b')").run());
    await Promise.all([first, second]);
    expect(db.prepare("SELECT v FROM t ORDER BY id").pluck().all()).toEqual(["a", "b"]);
    other.close();
    db.close();
  });
});

describe("startWalCheckpointer", () => {
  it("keeps the WAL file short under continuous writes, losing nothing", async () => {
    const { db, path } = open();
    const checkpointer = startWalCheckpointer(db, { intervalMs: 5, truncateAfterPages: 64 })!;
    expect(checkpointer).toBeDefined();
    const group = GroupCommit.of(db);
    const insert = db.prepare("INSERT INTO t (v) VALUES (?)");
    const payload = "x".repeat(2000);
    let written = 0;
    let largest = 0;
    const until = Date.now() + 1500;
    while (Date.now() < until) {
      await Promise.all(Array.from({ length: 20 }, () => group.write(() => insert.run(payload))));
      written += 20;
      largest = Math.max(largest, statSync(`${path}-wal`).size);
    }
    await checkpointer.stop();
    // Without truncation the log holds every page written (tens of MB here); with it, a small fraction.
    const bytes = written * payload.length;
    expect(bytes).toBeGreaterThan(8_000_000);
    expect(largest).toBeLessThan(bytes / 8);
    expect(db.prepare("SELECT COUNT(*) FROM t").pluck().get()).toBe(written);
    db.close();
  });

  it("leaves an in-memory database alone", () => {
    const db = new Database(":memory:");
    expect(startWalCheckpointer(db)).toBeUndefined();
    db.close();
  });
});
