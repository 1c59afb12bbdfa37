import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeSaverConformance, ThreadWriter } from "@interlude/checkpoint-conformance";
import { SCHEMA_VERSION, SqliteSaver } from "@interlude/checkpoint-sqlite";
import { StorageError } from "@interlude/core";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";

const dir = mkdtempSync(join(tmpdir(), "interlude-sqlite-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const newFile = () => join(dir, `checkpoints-${files++}.sqlite`);

// Once committing each write by itself, once in group commits (several writes per transaction).
for (const groupCommit of [false, true]) {
  describeSaverConformance(groupCommit ? "SqliteSaver (group commit)" : "SqliteSaver", async (options) => {
    const file = newFile();
    const saver = new SqliteSaver(file, { ttlMs: options?.ttlMs, busyTimeoutMs: 2000, groupCommit });
    const others: SqliteSaver[] = [];
    return {
      saver,
      makeSecondSaver: async () => {
        const other = new SqliteSaver(file, { busyTimeoutMs: 2000, groupCommit });
        others.push(other);
        return other;
      },
      breakStorage: async () => {
        // Another process holding the write lock past our busy timeout: the file is, for us, read-only.
        const blocker = new Database(file);
        blocker.pragma("busy_timeout = 0");
        blocker.exec("BEGIN EXCLUSIVE");
        (saver as unknown as { db: Database.Database }).db.pragma("busy_timeout = 50");
        return {
          async restore() {
            blocker.exec("ROLLBACK");
            blocker.close();
            (saver as unknown as { db: Database.Database }).db.pragma("busy_timeout = 2000");
          },
        };
      },
      close: async () => {
        for (const other of others) await other.close();
        await saver.close();
      },
    };
  });
}

describe("SqliteSaver on a file", () => {
  it("opens in WAL mode with the current schema version, from a path or a connection string", async () => {
    const file = newFile();
    const saver = SqliteSaver.fromConnString(file);
    await saver.close();
    const db = new Database(file);
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(db.prepare("SELECT MAX(version) FROM schema_version").pluck().get()).toBe(SCHEMA_VERSION);
    db.close();
    const again = new SqliteSaver(file);
    await again.close();
    const reopened = new Database(file);
    expect(reopened.prepare("SELECT COUNT(*) FROM schema_version").pluck().get()).toBe(SCHEMA_VERSION);
    reopened.close();
    const memory = SqliteSaver.fromConnString(":memory:");
    const thread = new ThreadWriter(memory);
    await thread.write({ a: 1 });
    expect((await memory.getTuple(thread.config))?.checkpoint.channel_values).toEqual({ a: 1 });
    await memory.close();
  });

  it("reports a read-only file as StorageError and leaves the thread intact", async () => {
    const file = newFile();
    const writer = new SqliteSaver(file);
    const thread = new ThreadWriter(writer);
    await thread.write({ a: 1 });
    await writer.close();
    const readOnly = new SqliteSaver(new Database(file, { readonly: true }));
    const reader = new ThreadWriter(readOnly, thread.threadId);
    const failure = await reader.write({ a: 2 }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StorageError);
    expect((failure as StorageError).message).toMatch(/readonly/i);
    expect((await readOnly.getTuple(thread.config))?.checkpoint.channel_values).toEqual({ a: 1 });
    await readOnly.close();
  });

  it("writes O(message) bytes per step for a thread appending 200-byte messages", async () => {
    const file = newFile();
    const saver = new SqliteSaver(file);
    const thread = new ThreadWriter(saver);
    let messages: unknown[] = [];
    const sizes: number[] = [];
    const db = new Database(file, { readonly: true });
    const bytes = () =>
      db
        .prepare(
          "SELECT SUM(LENGTH(data)) + (SELECT SUM(LENGTH(record) + LENGTH(metadata)) FROM checkpoints) FROM blobs",
        )
        .pluck()
        .get() as number;
    for (let i = 0; i < 500; i++) {
      messages = [...messages, { id: `m${i}`, content: "x".repeat(180) }];
      await thread.write({ messages });
      if (i === 99 || i === 199 || i === 499) sizes.push(bytes());
    }
    const late = (sizes[2]! - sizes[1]!) / 300;
    const early = sizes[0]! / 100;
    console.log(`sqlite: ${late.toFixed(0)} stored bytes per step over steps 200-500 (first 100: ${early.toFixed(0)})`);
    expect(late).toBeLessThan(1_500);
    expect((await saver.getTuple(thread.config))?.checkpoint.channel_values.messages).toEqual(messages);
    db.close();
    await saver.close();
  }, 60_000);

  it("stores records without the id and timestamp their row holds, and reads records written with them", async () => {
    const file = newFile();
    const saver = new SqliteSaver(file);
    const thread = new ThreadWriter(saver);
    await thread.write({ a: 1 });
    await thread.write({ a: 2 });
    const db = new Database(file);
    const rows = db
      .prepare("SELECT checkpoint_id AS id, record FROM checkpoints ORDER BY checkpoint_id")
      .all() as Array<{
      id: string;
      record: string;
    }>;
    expect(rows).toHaveLength(2);
    for (const row of rows)
      expect(Object.keys(JSON.parse(row.record))).toEqual(["v", "channel_versions", "versions_seen"]);
    const slim = await saver.getTuple(thread.config);
    expect(slim?.checkpoint.id).toBe(rows[1]!.id);
    expect(new Date(slim!.checkpoint.ts).toISOString()).toBe(slim!.checkpoint.ts);

    // A record as schema version 3 wrote it: every field in the record, and a timestamp in
    // another form than the row's created_at, which must win.
    const oldTs = "2020-01-02T03:04:05Z";
    const full = { ...JSON.parse(rows[1]!.record), id: rows[1]!.id, ts: oldTs };
    db.prepare("UPDATE checkpoints SET record = ? WHERE checkpoint_id = ?").run(JSON.stringify(full), rows[1]!.id);
    db.close();
    const old = await saver.getTuple(thread.config);
    expect(old?.checkpoint).toEqual({ ...slim!.checkpoint, ts: oldTs });
    const listed = [];
    for await (const tuple of saver.list({ configurable: { thread_id: thread.threadId } }))
      listed.push(tuple.checkpoint.id);
    expect(listed).toEqual([rows[1]!.id, rows[0]!.id]);
    await saver.close();
  });

  it("keeps a timestamp that is not the canonical form of created_at in the record", async () => {
    const saver = new SqliteSaver(":memory:");
    const config = { configurable: { thread_id: "t", checkpoint_ns: "" } };
    const checkpoint = {
      v: 1,
      id: "01a22ed8-e4e7-7000-0000-1467ab278f27",
      ts: "2026-11-30T23:43:36Z",
      channel_values: {},
      channel_versions: {},
      versions_seen: {},
    };
    await saver.put(config, checkpoint, { source: "input", step: -1, parents: {} }, {});
    const record = saver.db.prepare("SELECT record FROM checkpoints").pluck().get() as string;
    expect(JSON.parse(record).ts).toBe(checkpoint.ts);
    expect((await saver.getTuple(config))?.checkpoint).toEqual(checkpoint);
    await saver.close();
  });
});
