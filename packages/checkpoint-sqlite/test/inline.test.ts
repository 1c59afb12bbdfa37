import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ThreadWriter } from "@interlude/checkpoint-conformance";
import { SCHEMA_VERSION, SqliteSaver } from "@interlude/checkpoint-sqlite";
import { decodeInline, INLINE_ROW_CHARS, INLINE_VALUE_CHARS, InlineRow, inlinable } from "@interlude/core/saver-kit";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";

const dir = mkdtempSync(join(tmpdir(), "interlude-inline-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const newFile = () => join(dir, `inline-${files++}.sqlite`);

/** Channel -> version of the rows of `blobs`, and each checkpoint row's inline channels, oldest first. */
function stored(db: Database.Database) {
  const blobs = db.prepare("SELECT channel, version FROM blobs ORDER BY version, channel").all() as Array<{
    channel: string;
    version: number;
  }>;
  const rows = db.prepare("SELECT inline FROM checkpoints ORDER BY checkpoint_id").pluck().all() as Array<
    string | null
  >;
  return {
    blobs: blobs.map((b) => `${b.channel}@${b.version}`),
    inline: rows.map((row) => [...decodeInline(row).keys()]),
  };
}

/** Every checkpoint's values as a fresh connection reads them (no head cache), oldest first. */
async function history(file: string, threadId: string) {
  const reader = new SqliteSaver(file, { cachedThreads: 0 });
  const values = [];
  for await (const tuple of reader.list({ configurable: { thread_id: threadId } }))
    values.unshift(tuple.checkpoint.channel_values);
  await reader.close();
  return values;
}

describe("small values in the checkpoint row (inline.ts)", () => {
  it("keeps small whole values in the row, carries unchanged ones forward, and leaves arrays and large values to blobs", async () => {
    const file = newFile();
    const saver = new SqliteSaver(file);
    const thread = new ThreadWriter(saver);
    const large = "x".repeat(INLINE_VALUE_CHARS + 1);
    await thread.write({ request: { amount: 120 }, items: ["a"] });
    await thread.write({ draft: "Refund", note: large });
    await thread.write({ decision: "yes", items: ["a", "b"] });
    expect(stored(saver.db)).toEqual({
      // The array's append is a delta on its first version, which a put must find in blobs.
      blobs: ["items@1", "note@2", "items@3"],
      inline: [["request"], ["draft", "request"], ["decision", "request", "draft"]],
    });
    await saver.close();
    expect(await history(file, thread.threadId)).toEqual([
      { request: { amount: 120 }, items: ["a"] },
      { request: { amount: 120 }, items: ["a"], draft: "Refund", note: large },
      { request: { amount: 120 }, items: ["a", "b"], draft: "Refund", note: large, decision: "yes" },
    ]);
  });

  it("carries values from the parent's row when the head cache does not hold it, and after a prune", async () => {
    const file = newFile();
    const saver = new SqliteSaver(file, { cachedThreads: 0 });
    const thread = new ThreadWriter(saver);
    await thread.write({ a: 1, b: "two" });
    await thread.write({ c: true });
    await thread.write({ a: 3 });
    expect(stored(saver.db).inline).toEqual([
      ["a", "b"],
      ["c", "a", "b"],
      ["a", "b", "c"],
    ]);
    expect(stored(saver.db).blobs).toEqual([]);
    expect(await saver.prune(thread.threadId, { keepLast: 1 })).toBe(2);
    expect((await saver.getTuple(thread.config))?.checkpoint.channel_values).toEqual({ a: 3, b: "two", c: true });
    await thread.write({ d: null });
    expect((await saver.getTuple(thread.config))?.checkpoint.channel_values).toEqual({
      a: 3,
      b: "two",
      c: true,
      d: null,
    });
    await saver.close();
  });

  it("puts what no longer fits in the row into blobs, carried values included", async () => {
    const file = newFile();
    const saver = new SqliteSaver(file);
    const thread = new ThreadWriter(saver);
    const value = (n: number) => `${n}`.padEnd(250, "v");
    const first: Record<string, string> = {};
    for (let n = 0; n < 4; n++) first[`c${n}`] = value(n);
    await thread.write(first);
    // Written first, the new value takes the room the last carried one had.
    await thread.write({ z: value(9) });
    const { blobs, inline } = stored(saver.db);
    expect(inline).toEqual([
      ["c0", "c1", "c2", "c3"],
      ["z", "c0", "c1", "c2"],
    ]);
    expect(blobs).toEqual(["c3@1"]);
    await saver.close();
    expect((await history(file, thread.threadId))[1]).toEqual({ ...first, z: value(9) });
  });

  it("reads a file of schema version 6 (values in blobs) and writes on it", async () => {
    const file = newFile();
    const first = new SqliteSaver(file);
    const thread = new ThreadWriter(first);
    await thread.write({ a: 1, b: "two" });
    await first.close();
    // As schema 6 left it: every value in blobs, no inline column.
    const db = new Database(file);
    db.exec(`INSERT INTO blobs (thread_id, checkpoint_ns, channel, version, data) VALUES
               ('${thread.threadId}', '', 'a', 1, '1'), ('${thread.threadId}', '', 'b', 1, '"two"');
             ALTER TABLE checkpoints DROP COLUMN inline; ALTER TABLE checkpoints DROP COLUMN packing;
             ALTER TABLE writes DROP COLUMN packing; DELETE FROM schema_version WHERE version > 6`);
    db.close();
    for (const cachedThreads of [0, 1000]) {
      const upgraded = new SqliteSaver(file, { cachedThreads });
      expect(upgraded.db.prepare("SELECT MAX(version) FROM schema_version").pluck().get()).toBe(SCHEMA_VERSION);
      const next = thread.through(upgraded);
      // With the cache, the put carries the parent's values from what this read looked up in blobs.
      if (cachedThreads) await upgraded.getTuple(thread.config);
      await next.write({ c: cachedThreads });
      expect((await upgraded.getTuple(next.config))?.checkpoint.channel_values).toEqual({
        a: 1,
        b: "two",
        c: cachedThreads,
      });
      thread.config = next.config;
      Object.assign(thread, { values: next.values, versions: next.versions, step: next.step });
      await upgraded.close();
    }
    expect((await history(file, thread.threadId)).map((values) => values.c)).toEqual([undefined, 0, 1000]);
  });
});

describe("the inline column's form", () => {
  it("round-trips channel names and values of any characters", () => {
    const row = new InlineRow();
    const values: Record<string, string> = { "": "1", "a:b": '"x:y"', "12:3": "{}", "ü🙂": '"ü🙂:"' };
    for (const [channel, data] of Object.entries(values)) expect(row.add(channel, data)).toBe(true);
    expect(Object.fromEntries(decodeInline(row.encode()))).toEqual(values);
    expect(new InlineRow().encode()).toBeNull();
    expect(decodeInline(null).size).toBe(0);
  });

  it("refuses a value once the row is full, and damaged text", () => {
    const row = new InlineRow();
    expect(row.add("a", "x".repeat(INLINE_ROW_CHARS))).toBe(true);
    expect(row.add("b", "1")).toBe(false);
    expect(() => decodeInline("5:ab")).toThrow(/damaged/);
    expect(() => decodeInline("1:a9:xy")).toThrow(/damaged/);
    expect(() => decodeInline("x:a1:y")).toThrow(/damaged/);
    expect(() => decodeInline("1:az:y")).toThrow(/damaged/);
  });

  it("keeps only small whole values that are not arrays", () => {
    expect(inlinable(null, '{"a":1}')).toBe(true);
    expect(inlinable(null, "[1]")).toBe(false);
    expect(inlinable(1, '"x"')).toBe(false);
    expect(inlinable(null, new Uint8Array([1]))).toBe(false);
    expect(inlinable(null, null)).toBe(false);
    expect(inlinable(null, "x".repeat(INLINE_VALUE_CHARS + 1))).toBe(false);
  });
});
