import { existsSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { describeSaverConformance, makeCheckpoint, ThreadWriter } from "@interlude/checkpoint-conformance";
import { SCHEMA_VERSION, SqliteSaver } from "@interlude/checkpoint-sqlite";
import { CheckpointConflictError, StorageError } from "@interlude/core";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";

const dir = mkdtempSync(join(tmpdir(), "interlude-sqlite-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const newFile = () => join(dir, `checkpoints-${files++}.sqlite`);

// Once committing each write by itself, once in group commits (several writes per transaction).
for (const groupCommit of [false, true]) {
  describeSaverConformance(
    groupCommit ? "SqliteSaver (group commit)" : "SqliteSaver",
    async (options) => {
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
    },
    { sharedStorage: true, breakable: true, fencesWrites: true },
  );
}

/**
 * Text of common words, the same for the same `seed`: each call continues `start` with words
 * until it is at least `length` characters long.
 */
function proseOf(seed: number): (start: string, length: number) => string {
  const words = "the of and to in is you that it he was for on are as with his they at be this have from".split(" ");
  return (start, length) => {
    let out = start;
    while (out.length < length) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      out += `${words[seed % words.length]} `;
    }
    return out;
  };
}
describe("SqliteSaver on a file", () => {
  it("refuses an option it does not take before opening anything, naming what it takes", () => {
    const file = newFile();
    expect(() => SqliteSaver.fromConnString(file, { journalMode: "wal" } as never)).toThrow(
      expect.objectContaining({
        code: "INVALID_SAVER_OPTION",
        message: expect.stringMatching(/journalMode .*walCheckpointer/),
      }),
    );
    expect(existsSync(file)).toBe(false);
  });

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

  it("keeps the runtime's record and metadata as arrays, and reads every form earlier versions wrote", async () => {
    const file = newFile();
    const saver = new SqliteSaver(file);
    const thread = new ThreadWriter(saver);
    await thread.write({ a: 1 });
    await thread.write({ a: 2 });
    const db = new Database(file);
    const rows = db
      .prepare("SELECT checkpoint_id AS id, record, metadata FROM checkpoints ORDER BY checkpoint_id")
      .all() as Array<{ id: string; record: string; metadata: string }>;
    expect(rows).toHaveLength(2);
    // Schema 7: version 2 is named twice, so it is kept once and named by its index.
    expect(JSON.parse(rows[1]!.record)).toEqual([[2], { a: 0 }, { node: { a: 0 } }]);
    expect(JSON.parse(rows[1]!.metadata)).toEqual(["loop", 0]);
    const compact = await saver.getTuple(thread.config);
    expect(compact?.checkpoint).toMatchObject({ v: 1, id: rows[1]!.id, channel_versions: { a: 2 } });
    expect(new Date(compact!.checkpoint.ts).toISOString()).toBe(compact!.checkpoint.ts);
    expect(compact?.metadata).toEqual({ source: "loop", step: 0, parents: {} });

    const rewrite = db.prepare("UPDATE checkpoints SET record = ?, metadata = ? WHERE checkpoint_id = ?");
    // Schema versions 5 and 6: the versions as they are.
    rewrite.run(JSON.stringify([{ a: 2 }, { node: { a: 2 } }]), rows[1]!.metadata, rows[1]!.id);
    expect((await saver.getTuple(thread.config))?.checkpoint).toEqual(compact!.checkpoint);
    // Schema version 4: an object without id, and ts only when not canonical.
    const { id: _id, ...slim } = compact!.checkpoint;
    const { channel_values: _values, ts: _ts, ...slimRecord } = slim;
    rewrite.run(JSON.stringify(slimRecord), JSON.stringify(compact!.metadata), rows[1]!.id);
    expect((await saver.getTuple(thread.config))?.checkpoint).toEqual(compact!.checkpoint);
    // Schema version 3 and earlier: every field, and a timestamp in another form than the
    // row's created_at, which must win.
    const oldTs = "2020-01-02T03:04:05Z";
    rewrite.run(
      JSON.stringify({ ...slimRecord, id: rows[1]!.id, ts: oldTs }),
      JSON.stringify(compact!.metadata),
      rows[1]!.id,
    );
    db.close();
    const old = await saver.getTuple(thread.config);
    expect(old?.checkpoint).toEqual({ ...compact!.checkpoint, ts: oldTs });
    expect(old?.metadata).toEqual(compact!.metadata);
    const listed = [];
    for await (const tuple of saver.list({ configurable: { thread_id: thread.threadId } }, { filter: { step: 0 } }))
      listed.push(tuple.checkpoint.id);
    expect(listed).toEqual([rows[1]!.id]);
    await saver.close();
  });

  it("keeps a non-canonical timestamp, parents and user metadata keys, and other records whole", async () => {
    const saver = new SqliteSaver(":memory:");
    const config = { configurable: { thread_id: "t", checkpoint_ns: "" } };
    const kept = () =>
      saver.db.prepare("SELECT record, metadata FROM checkpoints ORDER BY checkpoint_id DESC").get() as {
        record: string;
        metadata: string;
      };
    const checkpoint = {
      v: 1,
      id: "01a22ed8-e4e7-7000-0000-1467ab278f27",
      ts: "2026-11-30T23:43:36Z",
      channel_values: {},
      channel_versions: {},
      versions_seen: {},
    };
    const parents = { "": "01a22ed8-e4e7-7000-0000-0467ab278f27" };
    await saver.put(config, checkpoint, { source: "input", step: -1, parents }, {});
    expect(JSON.parse(kept().record)).toEqual([{}, {}, checkpoint.ts]);
    expect(JSON.parse(kept().metadata)).toEqual(["input", -1, parents]);
    expect(await saver.getTuple(config)).toMatchObject({
      checkpoint,
      metadata: { source: "input", step: -1, parents },
    });

    // A record of another version and metadata with a user key: objects, read back as written.
    const other = { ...checkpoint, v: 2, id: "01a22ed8-e4e8-7000-0000-1467ab278f27", ts: new Date().toISOString() };
    const metadata = { source: "update" as const, step: 0, parents: {}, user: "ada" };
    await saver.put(config, other, metadata, {});
    expect(JSON.parse(kept().record)).toEqual({ v: 2, channel_versions: {}, versions_seen: {} });
    expect(JSON.parse(kept().metadata)).toEqual(metadata);
    expect(await saver.getTuple(config)).toMatchObject({ checkpoint: other, metadata });
    await saver.close();
  });

  it("stores large delta segments deflated, in parts when they stay large, and removes parts with their blobs", async () => {
    const saver = new SqliteSaver(":memory:");
    const prose = proseOf(7);
    const text = (i: number) => prose(`message ${i} `, 180);
    const packed = () =>
      saver.db.prepare("SELECT packing, LENGTH(data) AS bytes FROM blobs WHERE packing IS NOT NULL").all() as Array<{
        packing: number;
        bytes: number | null;
      }>;
    const parts = () => saver.db.prepare("SELECT COUNT(*) FROM blob_parts").pluck().get() as number;
    const write = async (thread: ThreadWriter, content: (i: number) => string) => {
      let messages: unknown[] = [];
      for (let i = 0; i < 70; i++) {
        messages = [...messages, { id: `m${i}`, content: content(i) }];
        await thread.write({ messages });
      }
      return messages;
    };

    // Repetitive messages: the segments where the list reaches 32 and 64 messages (~200 bytes each) deflate to a few hundred bytes.
    const repetitive = new ThreadWriter(saver);
    const same = await write(repetitive, (i) => `message ${i} `.padEnd(180, "lorem ipsum "));
    expect(packed()).toHaveLength(2);
    for (const row of packed()) expect(row.bytes).toBeLessThan(800);
    expect(parts()).toBe(0);
    expect((await saver.getTuple(repetitive.config))?.checkpoint.channel_values.messages).toEqual(same);

    // Varied text deflates to ~2 kB per segment: kept in parts.
    const varied = new ThreadWriter(saver);
    const messages = await write(varied, text);
    expect(packed().filter((row) => row.bytes === null)).toHaveLength(2);
    expect(parts()).toBeGreaterThan(2);
    expect((await saver.getTuple(varied.config))?.checkpoint.channel_values.messages).toEqual(messages);
    // Another saver on the connection (no lineage in memory) reads the same chains.
    const fresh = new SqliteSaver(saver.db);
    expect((await fresh.getTuple(varied.config))?.checkpoint.channel_values.messages).toEqual(messages);
    expect((await fresh.getTuple(repetitive.config))?.checkpoint.channel_values.messages).toEqual(same);

    // Pruned: a reset leaves the segments unreachable from the checkpoint kept.
    await varied.write({ messages: [] });
    await saver.prune(varied.threadId, { keepLast: 1 });
    expect(parts()).toBe(0);
    expect((await saver.getTuple(varied.config))?.checkpoint.channel_values.messages).toEqual([]);
    // Deleted with the thread.
    const another = new ThreadWriter(saver);
    await write(another, text);
    expect(parts()).toBeGreaterThan(2);
    await saver.deleteThread(another.threadId);
    expect(parts()).toBe(0);
    await saver.close();
  });

  it("packs a delta whose row would not fit its page, so that no blob spills into an overflow page of its own", async () => {
    const saver = new SqliteSaver(":memory:");
    const prose = proseOf(11);
    // ~950 characters with the row's keys: over what a cell keeps (~1 kB), under the old fixed 1 kB threshold.
    const message = (i: number) => ({ id: `m${i}`, content: prose(`message ${i} `, 940).slice(0, 940) });
    const thread = new ThreadWriter(saver);
    // The first write is a full copy, never packed: a short one, that fits whatever the thread's id.
    let messages: unknown[] = [{ id: "m", content: "hello" }];
    await thread.write({ messages });
    for (let i = 0; i < 11; i++) {
      messages = [...messages, message(i)];
      await thread.write({ messages });
    }
    const overflow = saver.db
      .prepare("SELECT COUNT(*) FROM dbstat WHERE name IN ('blobs', 'blob_parts') AND pagetype = 'overflow'")
      .pluck()
      .get();
    expect(overflow).toBe(0);
    expect(saver.db.prepare("SELECT COUNT(*) FROM blobs WHERE packing IS NOT NULL").pluck().get()).toBe(11);
    expect((await saver.getTuple(thread.config))?.checkpoint.channel_values.messages).toEqual(messages);
    expect((await new SqliteSaver(saver.db).getTuple(thread.config))?.checkpoint.channel_values.messages).toEqual(
      messages,
    );
    await saver.close();
  });

  it("packs a checkpoint's metadata and a pending write's data whose row would not fit its page, and reads them back", async () => {
    const file = newFile();
    const saver = new SqliteSaver(file);
    // An answer kept in the metadata (as the resume record keeps it) and written: ~950 characters each.
    const answer = "yes, but change the second paragraph: ".repeat(25);
    const config = { configurable: { thread_id: `thread-${"x".repeat(30)}`, checkpoint_ns: "" } };
    const checkpoint = {
      v: 1,
      id: "01a22ed8-e4e7-7000-0000-1467ab278f27",
      ts: new Date().toISOString(),
      channel_values: {},
      channel_versions: {},
      versions_seen: {},
    };
    const metadata = { source: "loop" as const, step: 3, parents: {}, review: answer };
    const saved = await saver.put(config, checkpoint, metadata, {});
    await saver.putWrites(saved, [["answer", answer]], "task-1");
    const overflow = saver.db
      .prepare("SELECT COUNT(*) FROM dbstat WHERE name IN ('checkpoints', 'writes') AND pagetype = 'overflow'")
      .pluck()
      .get();
    expect(overflow).toBe(0);
    const packed = (table: string) => saver.db.prepare(`SELECT packing FROM ${table}`).pluck().all();
    expect(packed("checkpoints")).toEqual([1]);
    expect(packed("writes")).toEqual([1]);
    await saver.close();
    // Read back by a saver that has nothing cached: the tuple, and a listing filtered on the metadata.
    const reader = new SqliteSaver(file);
    const tuple = await reader.getTuple(config);
    expect(tuple?.metadata).toEqual(metadata);
    expect(tuple?.pendingWrites).toEqual([["task-1", "answer", answer]]);
    const listed = [];
    for await (const found of reader.list(config, { filter: { step: 3 } })) listed.push(found);
    expect(listed.map((found) => found.metadata)).toEqual([metadata]);
    await reader.close();
  });

  it("releases a run's claim in the transaction of its last put or writes; releaseThread then commits nothing", async () => {
    const file = newFile();
    const saver = new SqliteSaver(file);
    const other = new SqliteSaver(file);
    const thread = new ThreadWriter(saver);
    const first = await thread.write({ answer: "a" });
    const { threadId } = thread;
    // Moves whenever another connection commits: tells whether `saver` wrote anything.
    const commitsSeen = () => other.db.pragma("data_version", { simple: true });
    const claim = (owner: string) => saver.claimThread(threadId, { owner, ttlMs: 60_000 });
    expect(await claim("run-1")).toBe(true);
    const last = (expectedHead: string | null) =>
      saver.put(
        first,
        makeCheckpoint({ answer: "b" }, { answer: 2 }),
        { source: "loop", step: 1, parents: {} },
        { answer: 2 },
        { expectedHead, releaseClaim: "run-1" },
      );
    await expect(last(null)).rejects.toBeInstanceOf(CheckpointConflictError);
    expect((await other.claimHolder(threadId))?.owner).toBe("run-1");
    const saved = await last(thread.head!);
    expect(await other.claimHolder(threadId)).toBeUndefined();
    // A late heartbeat does not take the claim back; the run's releaseThread writes nothing.
    expect(await claim("run-1")).toBe(false);
    const before = commitsSeen();
    await saver.releaseThread(threadId, "run-1");
    expect(commitsSeen()).toBe(before);

    expect(await claim("run-2")).toBe(true);
    await saver.putWrites(saved, [["answer", "last"]], "task-1", { releaseClaim: "run-2" });
    expect(await other.claimHolder(threadId)).toBeUndefined();
    await saver.releaseThread(threadId, "run-2");
    expect((await other.getTuple(saved))?.pendingWrites).toEqual([["task-1", "answer", "last"]]);
    expect(await other.claimThread(threadId, { owner: "run-3", ttlMs: 60_000 })).toBe(true);
    await other.close();
    await saver.close();
  });

  it("commits a claim with the next save, or at the end of the event-loop turn when none follows", async () => {
    const file = newFile();
    const saver = new SqliteSaver(file);
    const other = new SqliteSaver(file);
    const thread = new ThreadWriter(saver);
    await thread.write({ answer: "a" });
    const claim = { owner: "run-1", ttlMs: 60_000 };
    expect(await saver.claimThread(thread.threadId, claim)).toBe(true);
    // Held in the open batch, whose write lock keeps other connections' claims waiting.
    expect(await other.claimHolder(thread.threadId)).toBeUndefined();
    const contender = other.claimThread(thread.threadId, { owner: "run-2", ttlMs: 60_000 });
    await thread.write({ answer: "b" });
    expect((await other.claimHolder(thread.threadId))?.owner).toBe("run-1");
    expect(await contender).toBe(false);
    expect(await saver.claimThread("idle", claim)).toBe(true);
    await new Promise((resolve) => setImmediate(resolve));
    expect((await other.claimHolder("idle"))?.owner).toBe("run-1");
    await other.close();
    await saver.close();
  });

  it("leaves the thread as it was and unclaimed when the process stops after a claim and an input checkpoint not yet committed", async () => {
    const file = newFile();
    const db = new Database(file);
    const saver = new SqliteSaver(db);
    const thread = new ThreadWriter(saver);
    await thread.write({ answer: "a" });
    const before = thread.head;
    expect(await saver.claimThread(thread.threadId, { owner: "run-1", ttlMs: 60_000 })).toBe(true);
    // As a run saves its input checkpoint: without waiting for the commit, which its next save makes.
    await thread.write({ answer: "b" }, {}, { expectedHead: before ?? null, durable: false });
    db.close(); // as a kill: the open batch is never committed
    const after = new SqliteSaver(file);
    expect((await after.getTuple({ configurable: { thread_id: thread.threadId } }))?.checkpoint.id).toBe(before);
    expect(await after.claimHolder(thread.threadId)).toBeUndefined();
    expect(await after.claimThread(thread.threadId, { owner: "run-2", ttlMs: 60_000 })).toBe(true);
    await after.close();
  });

  it("waits without blocking for a batch of this process on the file when connections spell its path differently (relative, through a link)", async () => {
    const file = newFile();
    const batched = new SqliteSaver(file, { groupCommit: true });
    // Blocking in SQLite's busy handler would wait out the timeout: the batch commits only once the event loop turns.
    const link = join(dir, `link-${files++}.sqlite`);
    symlinkSync(file, link);
    const other = new SqliteSaver(relative(process.cwd(), file), { busyTimeoutMs: 2_000 });
    const linked = new SqliteSaver(link, { busyTimeoutMs: 2_000 });
    const thread = new ThreadWriter(batched);
    await thread.write({ answer: "a" });
    expect(await batched.claimThread(thread.threadId, { owner: "run-1", ttlMs: 60_000 })).toBe(true);
    const contender = other.claimThread(thread.threadId, { owner: "run-2", ttlMs: 60_000 });
    const linkedContender = linked.claimThread(thread.threadId, { owner: "run-3", ttlMs: 60_000 });
    expect(await contender).toBe(false);
    expect(await linkedContender).toBe(false);
    expect((await other.claimHolder(thread.threadId))?.owner).toBe("run-1");
    await linked.close();
    await other.close();
    await batched.close();
  });

  it("records a thread's activity at most once a second, and the idle sweep allows for that lag", async () => {
    let now = 1_000_000;
    const saver = new SqliteSaver(newFile(), { now: () => now, ttlMs: 10_000 });
    const activity = () => saver.db.prepare("SELECT updated_at FROM heads").pluck().get();
    const thread = new ThreadWriter(saver);
    await thread.write({ answer: "a" });
    now += 900;
    await thread.write({ answer: "b" });
    expect(activity()).toBe(1_000_000); // under a second later: the heads row is not rewritten
    now += 200;
    await thread.write({ answer: "c" });
    expect(activity()).toBe(1_001_100);
    now += 900;
    await thread.write({ answer: "d" }); // the last activity, recorded as 1_001_100
    now += 10_000 - 1;
    expect(await saver.sweep()).toBe(0); // idle for less than ttlMs
    now += 1_000 + 2;
    expect(await saver.sweep()).toBe(1);
    expect(await saver.getTuple(thread.config)).toBeUndefined();
    await saver.close();
  });

  it("upgrades a file of schema version 4 in place and refuses one newer than the package", async () => {
    const file = newFile();
    const first = new SqliteSaver(file);
    const thread = new ThreadWriter(first);
    await thread.write({ a: 1 });
    await first.close();
    // Back to version 4 as that package left it: no packing column or parts, records as objects.
    const db = new Database(file);
    db.exec(
      "ALTER TABLE blobs DROP COLUMN packing; DROP TABLE blob_parts; ALTER TABLE checkpoints DROP COLUMN inline;" +
        "ALTER TABLE checkpoints DROP COLUMN packing; ALTER TABLE writes DROP COLUMN packing;" +
        "INSERT INTO blobs (thread_id, checkpoint_ns, channel, version, data) SELECT thread_id, checkpoint_ns, 'a', 1, '1' FROM checkpoints;" +
        "DELETE FROM schema_version WHERE version > 4",
    );
    db.prepare("UPDATE checkpoints SET record = ?, metadata = ?").run(
      JSON.stringify({ v: 1, channel_versions: { a: 1 }, versions_seen: {} }),
      JSON.stringify({ source: "input", step: -1, parents: {} }),
    );
    db.close();
    const upgraded = new SqliteSaver(file);
    expect(upgraded.db.prepare("SELECT MAX(version) FROM schema_version").pluck().get()).toBe(SCHEMA_VERSION);
    expect((await upgraded.getTuple(thread.config))?.checkpoint.channel_values).toEqual({ a: 1 });
    const next = thread.through(upgraded);
    await next.write({ a: 2 });
    expect((await upgraded.getTuple(next.config))?.checkpoint.channel_values).toEqual({ a: 2 });
    upgraded.db.prepare("INSERT INTO schema_version (version) VALUES (?)").run(SCHEMA_VERSION + 1);
    await upgraded.close();
    let refusal: unknown;
    try {
      new SqliteSaver(file);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(StorageError);
    expect((refusal as Error).message).toMatch(/newer than this @interlude\/checkpoint-sqlite.*upgrade the package/);
  });
});
