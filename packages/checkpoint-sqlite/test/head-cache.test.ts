import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ThreadWriter } from "@interlude/checkpoint-conformance";
import { SqliteSaver } from "@interlude/checkpoint-sqlite";
import {
  CheckpointConflictError,
  type CheckpointTuple,
  INTERRUPT,
  InvalidSaverOptionError,
  RESUME,
} from "@interlude/core";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { HeadCache } from "../src/head-cache.js";

const dir = mkdtempSync(join(tmpdir(), "interlude-head-cache-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const newFile = () => join(dir, `cache-${files++}.sqlite`);
const child = fileURLToPath(new URL("./fixtures/put-child.mjs", import.meta.url));

const latest = (saver: SqliteSaver, writer: ThreadWriter) =>
  saver.getTuple({ configurable: { thread_id: writer.threadId, checkpoint_ns: writer.ns } });

/** What a reader must see: the tuple as read straight from the file, without any cache. */
async function fromFile(file: string, writer: ThreadWriter): Promise<CheckpointTuple | undefined> {
  const saver = new SqliteSaver(file, { cachedThreads: 0 });
  try {
    return await latest(saver, writer);
  } finally {
    await saver.close();
  }
}

for (const groupCommit of [false, true]) {
  describe(`SqliteSaver's cache of the newest checkpoint${groupCommit ? " (group commit)" : ""}`, () => {
    it("reads back exactly what the file holds after puts, appends, pending writes and replaced writes", async () => {
      const file = newFile();
      const saver = new SqliteSaver(file, { groupCommit });
      const writer = new ThreadWriter(saver);
      let messages: string[] = [];
      for (let step = 0; step < 40; step++) {
        messages = [...messages, `message ${step}`];
        // As the run loop writes (compare-and-swap on the head), and sometimes without the check.
        const options = step % 5 === 4 ? {} : { expectedHead: writer.head ?? null };
        const config = await writer.write(step % 3 === 0 ? { messages, count: step } : { messages }, {}, options);
        // A value that is not plain data (a Date) is parsed at every read instead of copied.
        await saver.putWrites(
          config,
          [
            ["count", step],
            ["at", new Date(step)],
          ],
          `task-${step}`,
        );
        await saver.putWrites(config, [[INTERRUPT, [{ id: "i1", value: `ask ${step}` }]]], "task-ask");
        await saver.putWrites(config, [[INTERRUPT, [{ id: "i1", value: `ask again ${step}` }]]], "task-ask");
        await saver.putWrites(config, [[RESUME, ["yes"]]], "task-ask");
        if (step % 7 === 0) await saver.getTuple(config); // sometimes a read between writes
        await saver.flush();
        expect(await latest(saver, writer)).toEqual(await fromFile(file, writer));
      }
      await saver.close();
    });

    it("hands out fresh objects: changing a tuple it returned changes no later read", async () => {
      const saver = new SqliteSaver(newFile(), { groupCommit });
      const writer = new ThreadWriter(saver);
      const values = { request: { amount: 120, items: [1, 2] }, list: ["a"] };
      // A Date in the metadata is not plain data: it is parsed at every read instead of copied.
      const config = await writer.write(values, { at: new Date(5) } as never, { expectedHead: null });
      const written = { extra: [1] };
      await saver.putWrites(config, [["list", written]], "task");
      values.request.items.push(3); // the caller reusing what it put
      written.extra.push(3); // and what it wrote
      for (let read = 0; read < 3; read++) {
        const tuple = await latest(saver, writer);
        expect(tuple?.checkpoint.channel_values).toEqual({ request: { amount: 120, items: [1, 2] }, list: ["a"] });
        expect(tuple?.pendingWrites).toEqual([["task", "list", { extra: [1] }]]);
        expect(tuple?.metadata.step).toBe(-1);
        expect((tuple!.metadata as unknown as { at: Date }).at).toEqual(new Date(5));
        (tuple!.checkpoint.channel_values.request as { items: number[] }).items.push(4);
        (tuple!.checkpoint.channel_values.list as string[]).length = 0;
        (tuple!.pendingWrites![0]![2] as { extra: number[] }).extra.push(2);
        tuple!.checkpoint.channel_versions.list = 99;
        tuple!.metadata.step = 99;
      }
      await saver.close();
    });

    it("sees a checkpoint and writes another connection added after it cached the thread", async () => {
      const file = newFile();
      const saver = new SqliteSaver(file, { groupCommit });
      const other = new SqliteSaver(file, { groupCommit });
      const writer = new ThreadWriter(saver);
      await writer.write({ value: "mine", list: ["a"] });
      expect((await latest(saver, writer))?.checkpoint.channel_values).toEqual({ value: "mine", list: ["a"] });
      const config = await writer.through(other).write({ value: "theirs" });
      await other.putWrites(config, [["value", "pending"]], "their-task");
      await other.flush();
      const seen = await latest(saver, writer);
      expect(seen?.checkpoint.id).toBe(config.configurable?.checkpoint_id);
      expect(seen?.checkpoint.channel_values).toEqual({ value: "theirs", list: ["a"] });
      expect(seen?.pendingWrites).toEqual([["their-task", "value", "pending"]]);
      await other.close();
      await saver.close();
    });

    it("refuses a put on the cached head after another connection put a newer checkpoint", async () => {
      const file = newFile();
      const saver = new SqliteSaver(file, { groupCommit });
      const other = new SqliteSaver(file, { groupCommit });
      const writer = new ThreadWriter(saver);
      await writer.write({ value: "mine" }, {}, { expectedHead: null });
      const cached = writer.head;
      await writer.through(other).write({ value: "theirs" }, {}, { expectedHead: cached });
      await other.flush();
      // The put's compare-and-swap takes the head from the cache only while no other connection has committed.
      await expect(writer.write({ value: "again" }, {}, { expectedHead: cached })).rejects.toBeInstanceOf(
        CheckpointConflictError,
      );
      await other.close();
      await saver.close();
    });

    it("refuses a first put on a thread it read as empty once another connection gave it a checkpoint", async () => {
      const file = newFile();
      const saver = new SqliteSaver(file, { groupCommit });
      const other = new SqliteSaver(file, { groupCommit });
      const writer = new ThreadWriter(saver);
      expect(await latest(saver, writer)).toBeUndefined();
      await writer.through(other).write({ value: "theirs" }, {}, { expectedHead: null });
      await other.flush();
      await expect(writer.write({ value: "mine" }, {}, { expectedHead: null })).rejects.toBeInstanceOf(
        CheckpointConflictError,
      );
      // Read empty again, then written on this connection: the next put finds that head.
      const fresh = new ThreadWriter(saver);
      expect(await latest(saver, fresh)).toBeUndefined();
      const first = await fresh.write({ value: 1 }, {}, { expectedHead: null });
      await expect(fresh.write({ value: 2 }, {}, { expectedHead: null })).rejects.toBeInstanceOf(
        CheckpointConflictError,
      );
      expect((await latest(saver, fresh))?.checkpoint.id).toBe(first.configurable?.checkpoint_id);
      await other.close();
      await saver.close();
    });

    it("sees pending writes another connection added to the very checkpoint it cached", async () => {
      const file = newFile();
      const saver = new SqliteSaver(file, { groupCommit });
      const other = new SqliteSaver(file, { groupCommit });
      const writer = new ThreadWriter(saver);
      const config = await writer.write({ value: 1 });
      await saver.putWrites(config, [[INTERRUPT, [{ id: "i1", value: "approve?" }]]], "task");
      expect((await latest(saver, writer))?.pendingWrites).toHaveLength(1);
      await other.putWrites(config, [[INTERRUPT, [{ id: "i1", value: "changed" }]]], "task");
      await other.flush();
      const changed = [["task", INTERRUPT, [{ id: "i1", value: "changed" }]]];
      expect((await latest(saver, writer))?.pendingWrites).toEqual(changed);
      expect((await saver.getTuple(config))?.pendingWrites).toEqual(changed);
      await other.close();
      await saver.close();
    });

    it("sees what another process wrote", async () => {
      const file = newFile();
      const saver = new SqliteSaver(file, { groupCommit });
      const writer = new ThreadWriter(saver);
      await writer.write({ value: "mine", kept: 1 });
      await saver.flush();
      expect((await latest(saver, writer))?.checkpoint.channel_values.value).toBe("mine");
      const id = execFileSync(process.execPath, [child, file, writer.threadId, "from the child"], { encoding: "utf8" });
      const seen = await latest(saver, writer);
      expect(seen?.checkpoint.id).toBe(id);
      expect(seen?.checkpoint.channel_values).toEqual({ value: "from the child", kept: 1 });
      expect(seen?.pendingWrites).toEqual([["child-task", "value", "from the child, pending"]]);
      await saver.close();
    });

    it("is shared by the savers of one connection, so each sees the others' writes", async () => {
      const db = new Database(newFile());
      const saver = new SqliteSaver(db, { groupCommit });
      const sibling = new SqliteSaver(db, { groupCommit });
      const writer = new ThreadWriter(saver);
      await writer.write({ value: 1 });
      await latest(saver, writer);
      const config = await writer.through(sibling).write({ value: 2 });
      expect((await latest(saver, writer))?.checkpoint.id).toBe(config.configurable?.checkpoint_id);
      await sibling.deleteThread(writer.threadId);
      expect(await latest(saver, writer)).toBeUndefined();
      await sibling.close();
      await saver.close();
      db.close();
    });

    it("forgets a thread this saver pruned or deleted", async () => {
      const file = newFile();
      const saver = new SqliteSaver(file, { groupCommit });
      const writer = new ThreadWriter(saver);
      for (let step = 0; step < 5; step++) await writer.write({ list: Array.from({ length: step + 1 }, (_, i) => i) });
      await saver.prune(writer.threadId, { keepLast: 1 });
      expect(await latest(saver, writer)).toEqual(await fromFile(file, writer));
      await saver.deleteThread(writer.threadId);
      expect(await latest(saver, writer)).toBeUndefined();
      await saver.close();
    });
  });
}

describe("HeadCache", () => {
  const head = (id: string, bytes = 10) => ({
    id,
    parentId: null,
    createdAt: 0,
    record: "r".repeat(bytes),
    metadata: "{}",
    blobs: new Map(),
    writes: [],
  });

  it("keeps at most `threads` threads, dropping the least recently used", () => {
    const cache = new HeadCache({ threads: 2, bytes: 1e9 });
    cache.read("a", "", head("1"));
    cache.read("b", "", head("1"));
    cache.get("a", "");
    cache.read("c", "", head("1"));
    expect([cache.get("a", "")?.id, cache.get("b", ""), cache.get("c", "")?.id]).toEqual(["1", undefined, "1"]);
  });

  it("keeps the order of use through threads forgotten and read again", () => {
    const cache = new HeadCache({ threads: 2, bytes: 1e9 });
    cache.read("a", "", head("1"));
    cache.read("b", "", head("1"));
    cache.forget("b");
    cache.read("b", "", head("2"));
    cache.get("a", "");
    cache.get("a", ""); // the most recently used again: nothing moves
    cache.read("c", "", head("1"));
    expect([cache.get("a", "")?.id, cache.get("b", ""), cache.get("c", "")?.id]).toEqual(["1", undefined, "1"]);
  });

  it("keeps at most `bytes` bytes, and nothing bigger than that", () => {
    const cache = new HeadCache({ threads: 100, bytes: 1000 });
    cache.read("a", "", head("1", 200));
    cache.read("b", "", head("1", 200));
    expect(cache.size).toBe(1);
    cache.read("c", "", head("1", 5000));
    expect(cache.size).toBe(0);
  });

  it("empties when the data version moves, and keeps nothing when off", () => {
    const cache = new HeadCache({ threads: 10, bytes: 1e9 });
    cache.check(1);
    cache.read("a", "", head("1"));
    cache.check(1);
    expect(cache.size).toBe(1);
    cache.check(2);
    expect(cache.size).toBe(0);
    const off = new HeadCache({ threads: 0, bytes: 1e9 });
    off.read("a", "", head("1"));
    expect(off.size).toBe(0);
  });

  it("refuses a cachedThreads or cachedBytes that is not a whole number of at least 0", () => {
    for (const bad of [Number.NaN, -1, 2.5, Number.POSITIVE_INFINITY]) {
      expect(() => new SqliteSaver(":memory:", { cachedThreads: bad })).toThrow(InvalidSaverOptionError);
      expect(() => new SqliteSaver(":memory:", { cachedBytes: bad })).toThrow(InvalidSaverOptionError);
    }
    expect(() => new SqliteSaver(":memory:", { cachedBytes: 0.5 })).toThrow(
      /cachedBytes is 0.5; it must be a whole number/,
    );
  });
});
