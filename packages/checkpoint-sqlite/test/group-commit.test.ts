import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GroupCommit, SqliteSaver, startWalCheckpointer } from "@interlude/checkpoint-sqlite";
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

/**
 * A file whose next batch can be made to fail at COMMIT, a real failure of the file: `spoil()`
 * writes (without waiting) a row that breaks a deferred foreign key, which SQLite checks only
 * then. `failed` resolves when the group reports a batch failed.
 */
function failingAtCommit() {
  const { db } = open();
  db.exec(`PRAGMA foreign_keys = ON;
    CREATE TABLE parent (id INTEGER PRIMARY KEY);
    CREATE TABLE child (parent INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED)`);
  const group = GroupCommit.of(db);
  const failed = new Promise<void>((resolve) => group.onFailure(resolve));
  const spoil = () => group.write(() => db.prepare("INSERT INTO child (parent) VALUES (42)").run(), { durable: false });
  return { db, group, failed, spoil };
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

  it("commits the open batch at once on commitNow, not at the end of the event-loop turn", async () => {
    const { db, path } = open();
    const group = GroupCommit.of(db);
    const reader = new Database(path, { readonly: true });
    const count = () => reader.prepare("SELECT COUNT(*) FROM t").pluck().get() as number;
    await group.write(() => db.prepare("INSERT INTO t (v) VALUES ('a')").run(), { durable: false });
    expect(count()).toBe(0);
    const committed = group.commitNow();
    // Committed before the caller awaits: no turn of the event loop in between.
    expect(db.inTransaction).toBe(false);
    expect(count()).toBe(1);
    await committed;
    reader.close();
    db.close();
  });

  it("leaves a logical transaction under way to finish before its batch commits", async () => {
    const { db } = open();
    const group = GroupCommit.of(db);
    const insert = db.prepare("INSERT INTO t (v) VALUES (?)");
    let go!: () => void;
    const gate = new Promise<void>((resolve) => (go = resolve));
    let started!: () => void;
    const halfway = new Promise<void>((resolve) => (started = resolve));
    const writing = group.write(async () => {
      insert.run("first half");
      started();
      await gate;
      insert.run("second half");
    });
    await halfway;
    const committed = group.commitNow();
    expect(db.inTransaction).toBe(true);
    go();
    await Promise.all([writing, committed]);
    expect(db.inTransaction).toBe(false);
    expect(db.prepare("SELECT v FROM t ORDER BY id").pluck().all()).toEqual(["first half", "second half"]);
    db.close();
  });

  it("rejects commitNow when the batch it commits fails", async () => {
    const { db, group, spoil } = failingAtCommit();
    const mark = group.mark();
    await spoil();
    await expect(group.commitNow(mark)).rejects.toThrow(/FOREIGN KEY/);
    expect(db.prepare("SELECT COUNT(*) FROM child").pluck().get()).toBe(0);
    db.close();
  });

  it("reports a write made with durable: false whose end-of-turn commit failed, after that batch is gone", async () => {
    const { db, group, failed, spoil } = failingAtCommit();
    const mark = group.mark();
    await spoil();
    await failed;
    await expect(group.settled(mark)).rejects.toThrow(/FOREIGN KEY/);
    // A later batch that commits: writes made since then are durable, earlier ones were lost.
    const later = group.mark();
    await group.write(() => db.prepare("INSERT INTO parent (id) VALUES (1)").run());
    await expect(group.settled(later)).resolves.toBeUndefined();
    await expect(group.settled(mark)).rejects.toThrow(/FOREIGN KEY/);
    expect(db.prepare("SELECT COUNT(*) FROM child").pluck().get()).toBe(0);
    db.close();
  });
});

describe("startWalCheckpointer", () => {
  const payload = "x".repeat(2000);
  const PAGE = 4096;

  /** Writes `batches` batches of 20 rows, returning the largest size the WAL file reached. */
  async function writeBatches(
    db: Database.Database,
    path: string,
    batches: number | (() => boolean),
  ): Promise<{ written: number; largest: number }> {
    const group = GroupCommit.of(db);
    const insert = db.prepare("INSERT INTO t (v) VALUES (?)");
    let written = 0;
    let largest = 0;
    const more = typeof batches === "number" ? () => written < batches * 20 : batches;
    while (more()) {
      await Promise.all(Array.from({ length: 20 }, () => group.write(() => insert.run(payload))));
      written += 20;
      largest = Math.max(largest, statSync(`${path}-wal`).size);
    }
    return { written, largest };
  }

  it("keeps the WAL file bounded under continuous writes even when the worker never runs", async () => {
    const { db, path } = open();
    // The worker's timer never fires in this test: a machine so loaded that it gets no CPU.
    const checkpointer = startWalCheckpointer(db, { intervalMs: 3_600_000, truncateAfterPages: 64 })!;
    expect(checkpointer).toBeDefined();
    const { written, largest } = await writeBatches(db, path, 300);
    await checkpointer.stop();
    // Without a bound the log holds every page written (12 MB here); the backstop keeps it at
    // 4 x 64 pages plus the batch that crossed it.
    expect(written * payload.length).toBe(12_000_000);
    expect(largest).toBeLessThan((4 * 64 + 32) * PAGE);
    expect(db.prepare("SELECT COUNT(*) FROM t").pluck().get()).toBe(written);
    db.close();
  });

  it("empties the WAL once it passes truncateAfterPages, losing no write made meanwhile", async () => {
    const { db, path } = open();
    let truncations = 0;
    let sizeAtTruncation = -1;
    const checkpointer = startWalCheckpointer(db, {
      intervalMs: 5,
      truncateAfterPages: 64,
      onTruncate: () => {
        truncations++;
        sizeAtTruncation = statSync(`${path}-wal`).size;
      },
    })!;
    // Writes go on until the worker has emptied the log once, however late it gets to run.
    const { written } = await writeBatches(db, path, () => truncations === 0);
    const after = await writeBatches(db, path, 10);
    await checkpointer.stop();
    expect(sizeAtTruncation).toBe(0);
    expect(db.prepare("SELECT COUNT(*) FROM t").pluck().get()).toBe(written + after.written);
    db.close();
  });

  it("leaves an in-memory database alone", () => {
    const db = new Database(":memory:");
    expect(startWalCheckpointer(db)).toBeUndefined();
    db.close();
  });
});

describe("SqliteSaver's flush", () => {
  it("fails a saver's flush when a claim it made without waiting was lost with its batch", async () => {
    const { db, failed, spoil } = failingAtCommit();
    const saver = new SqliteSaver(db);
    expect(await saver.claimThread("t", { owner: "me", ttlMs: 60_000 })).toBe(true);
    // Another writer on the connection spoils the batch the claim waits in.
    await spoil();
    await failed;
    await expect(saver.flush()).rejects.toMatchObject({ code: "STORAGE_FAILED" });
    expect(await saver.claimHolder("t")).toBeUndefined();
    // Reported once: the next flush covers only what was written since.
    await expect(saver.flush()).resolves.toBeUndefined();
    await saver.close();
    db.close();
  });

  it("commits a saver's writes made without waiting on its flush, without a turn of the event loop", async () => {
    const { db } = open();
    const saver = new SqliteSaver(db);
    expect(await saver.claimThread("t", { owner: "me", ttlMs: 60_000 })).toBe(true);
    expect(db.inTransaction).toBe(true);
    const flushed = saver.flush();
    expect(db.inTransaction).toBe(false);
    await flushed;
    expect((await saver.claimHolder("t"))?.owner).toBe("me");
    await saver.close();
    db.close();
  });
});
