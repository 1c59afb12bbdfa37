import { makeCheckpoint, ThreadWriter } from "@interlude/checkpoint-conformance";
import { PostgresSaver, type PostgresSaverOptions } from "@interlude/checkpoint-postgres";
import { InvalidSaverOptionError, JsonSerializer } from "@interlude/core";
import pg from "pg";
import { afterAll, describe, expect, it, vi } from "vitest";
import { testPostgresUrl } from "../../../test/setup/urls.js";
import { wrapStatements } from "./fixtures/statements.js";
import { untilWaitingForLocks } from "./locks.js";

const url = testPostgresUrl();

const latest = (saver: PostgresSaver, threadId: string) => saver.getTuple({ configurable: { thread_id: threadId } });

/** Two processes' savers on one database (each with its own pool, as separate processes would have). */
describe("PostgresSaver's head cache", () => {
  const savers: PostgresSaver[] = [];
  const saverOn = (options?: PostgresSaverOptions) => {
    const saver = new PostgresSaver(url, options);
    savers.push(saver);
    return saver;
  };
  afterAll(async () => {
    await Promise.all(savers.map((saver) => saver.close()));
  });

  /** The kinds of rows each load of `saver` got back ('c': the whole checkpoint, 's': "the one you hold"). */
  const watchLoads = (saver: PostgresSaver) => {
    const heads: string[] = [];
    wrapStatements(saver, async (statement, send) => {
      const result = await send(statement);
      const head = result.rows.find((r) => r.kind === "c" || r.kind === "s");
      if (head) heads.push(head.kind as string);
      return result;
    });
    return heads;
  };
  const claimAndLoad = async (saver: PostgresSaver, threadId: string, owner: string) => {
    expect(await saver.claimThread(threadId, { owner, ttlMs: 60_000 })).toBe(true);
    const tuple = await latest(saver, threadId);
    await saver.releaseThread(threadId, owner);
    return tuple;
  };
  /** A step as the run loop writes it: compare-and-swap on the head it read. */
  const step = (thread: ThreadWriter, updates: Record<string, unknown>) =>
    thread.write(updates, {}, { expectedHead: thread.head ?? null });

  it("loads a thread it wrote itself without its rows: PostgreSQL only confirms the head and sends the writes", async () => {
    const a = saverOn();
    const thread = new ThreadWriter(a);
    await step(thread, { answer: "a", list: [1, 2] });
    const saved = await step(thread, { answer: "b" });
    await a.putWrites(saved, [["answer", "pending"]], "task-1");
    const heads = watchLoads(a);
    const claimed = await claimAndLoad(a, thread.threadId, "run-1");
    const read = await latest(a, thread.threadId);
    expect(heads).toEqual(["s", "s"]);
    for (const tuple of [claimed, read]) {
      expect(tuple?.checkpoint.channel_values).toEqual({ answer: "b", list: [1, 2] });
      expect(tuple?.checkpoint.id).toBe(thread.head);
      expect(tuple?.pendingWrites).toEqual([["task-1", "answer", "pending"]]);
    }
  });

  it("a second saver writing the thread invalidates the first's cache, for claims and plain reads", async () => {
    const [a, b] = [saverOn(), saverOn()];
    const thread = new ThreadWriter(a);
    await step(thread, { answer: "from a", n: 0 });
    const heads = watchLoads(a);
    // Two processes taking turns on one thread, each claiming it, loading it and writing a step.
    let writer = thread;
    for (let n = 1; n <= 6; n++) {
      const saver = n % 2 ? b : a;
      const loaded = await claimAndLoad(saver, thread.threadId, `run-${n}`);
      expect(loaded?.checkpoint.channel_values).toEqual({ answer: writer.values.answer, n: n - 1 });
      writer = writer.through(saver);
      await step(writer, { answer: `step ${n}`, n });
    }
    // a wrote the last step: it holds it. b wrote the one before: a's plain read must see b's next one.
    expect(heads).toEqual(["c", "c", "c"]);
    await step(writer.through(b), { answer: "b again", n: 7 });
    expect((await latest(a, thread.threadId))?.checkpoint.channel_values).toEqual({ answer: "b again", n: 7 });
    expect(heads.at(-1)).toBe("c");
  });

  it("sees the same checkpoint id written again by another saver (a new row version)", async () => {
    const [a, b] = [saverOn(), saverOn()];
    const thread = new ThreadWriter(a);
    const first = await step(thread, { answer: "a" });
    const second = await step(thread, { answer: "b" });
    expect((await latest(a, thread.threadId))?.checkpoint.channel_values.answer).toBe("b");
    const id = second.configurable!.checkpoint_id as string;
    const rewritten = { ...makeCheckpoint({ answer: "rewritten" }, { answer: 9 }), id };
    await b.put(first, rewritten, { source: "update", step: 2, parents: {} }, { answer: 9 });
    const tuple = await claimAndLoad(a, thread.threadId, "run-1");
    expect(tuple?.checkpoint.id).toBe(id);
    expect(tuple?.checkpoint.channel_values.answer).toBe("rewritten");
  });

  it("sees a blob of the head it holds rewritten in place by another saver writing an older checkpoint id again", async () => {
    const [a, b] = [saverOn(), saverOn()];
    const thread = new ThreadWriter(a);
    // A list: a blob row of its own (small strings are kept in the checkpoint row, inline-values.ts).
    const first = await step(thread, { answer: ["a"] });
    // The head's `answer` is the first checkpoint's blob (version 1): the second put wrote only `other`.
    await step(thread, { other: "x" });
    const heads = watchLoads(a);
    expect((await latest(a, thread.threadId))?.checkpoint.channel_values).toEqual({ answer: ["a"], other: "x" });
    // b writes the first checkpoint again, with another value at the same version: the blob is
    // rewritten in place and the head's checkpoint row is untouched.
    const id = first.configurable!.checkpoint_id as string;
    const rewritten = { ...makeCheckpoint({ answer: ["rewritten"] }, { answer: 1 }), id };
    await b.put(
      { configurable: { thread_id: thread.threadId } },
      rewritten,
      { source: "update", step: 0, parents: {} },
      {
        answer: 1,
      },
    );
    const fresh = saverOn({ cachedThreads: 0 });
    const expected = (await latest(fresh, thread.threadId))?.checkpoint.channel_values;
    expect(expected).toEqual({ answer: ["rewritten"], other: "x" });
    expect((await latest(a, thread.threadId))?.checkpoint.channel_values).toEqual(expected);
    expect((await claimAndLoad(a, thread.threadId, "run-1"))?.checkpoint.channel_values).toEqual(expected);
    expect(heads).toEqual(["s", "c", "s"]);
  });

  it("sees pending writes another saver added to the head it holds", async () => {
    const [a, b] = [saverOn(), saverOn()];
    const thread = new ThreadWriter(a);
    const saved = await step(thread, { answer: "a" });
    expect((await claimAndLoad(a, thread.threadId, "run-1"))?.pendingWrites).toEqual([]);
    await b.putWrites(saved, [["answer", "from b"]], "task-b");
    await a.putWrites(saved, [["answer", "from a"]], "task-a");
    expect((await claimAndLoad(a, thread.threadId, "run-2"))?.pendingWrites).toEqual([
      ["task-b", "answer", "from b"],
      ["task-a", "answer", "from a"],
    ]);
  });

  it("reads again when the previous owner let go of the claim while the claim was being taken", async () => {
    // Its connections are named, so that only they are looked for (other test files share the server).
    const name = `claim-race-${process.pid}-${Date.now()}`;
    const pool = new pg.Pool({ connectionString: url, application_name: name, max: 2 });
    const a = new PostgresSaver(pool);
    const thread = new ThreadWriter(a);
    const saved = await step(thread, { answer: "a" });
    const checkpointId = saved.configurable!.checkpoint_id as string;
    const previous = new pg.Client({ connectionString: url });
    await previous.connect();
    try {
      // Another process's run holds the thread, and stores its last writes with the release.
      await previous.query("INSERT INTO interlude_claims VALUES ($1, 'run-old', now() + interval '1 minute')", [
        thread.threadId,
      ]);
      await previous.query("BEGIN");
      await previous.query(
        `INSERT INTO interlude_writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, data)
         VALUES ($1, '', $2, 'task-old', 0, 'answer', convert_to('"late"', 'UTF8'))`,
        [thread.threadId, checkpointId],
      );
      await previous.query("DELETE FROM interlude_claims WHERE thread_id = $1", [thread.threadId]);
      // The claim's statement starts (its snapshot has neither) and waits for the claim's row.
      const claiming = a.claimThread(thread.threadId, { owner: "run-new", ttlMs: 60_000 });
      await untilWaitingForLocks(url, name);
      await previous.query("COMMIT");
      expect(await claiming).toBe(true);
    } finally {
      await previous.end();
    }
    const loaded = await latest(a, thread.threadId);
    expect(loaded?.pendingWrites).toEqual([["task-old", "answer", "late"]]);
    await a.releaseThread(thread.threadId, "run-new");
    await a.close();
    await pool.end();
  });

  it("reads appended lists right when two savers take turns writing them as deltas", async () => {
    const [a, b] = [saverOn(), saverOn()];
    let writer = new ThreadWriter(a);
    let messages: string[] = [];
    for (let n = 0; n < 40; n++) {
      // Ten appends by one saver, then ten by the other, each loading the thread first.
      const saver = Math.floor(n / 10) % 2 ? b : a;
      const loaded = await claimAndLoad(saver, writer.threadId, `run-${n}`);
      expect(loaded?.checkpoint.channel_values.messages ?? []).toEqual(messages);
      messages = [...((loaded?.checkpoint.channel_values.messages as string[]) ?? []), `m${n}`];
      writer = writer.through(saver);
      await step(writer, { messages });
    }
    expect(a.stats.deltaBlobsWritten + b.stats.deltaBlobsWritten).toBeGreaterThan(20);
    expect((await claimAndLoad(a, writer.threadId, "last"))?.checkpoint.channel_values.messages).toEqual(messages);
  });

  /**
   * A thread of 40 messages `a` wrote (each longer than a value the checkpoint row keeps inline,
   * so each delta is a blob row), and `append`: a saver loads it and appends to the very list it
   * loaded, as a run does (then it writes a delta), checking it read what was written last.
   */
  const messagesThread = async (a: PostgresSaver, settings: Record<string, string>) => {
    let writer = new ThreadWriter(a);
    const message = (text: string) => ({ text: text.padEnd(300, ".") });
    let messages: Array<{ text: string }> = [];
    for (let n = 0; n < 40; n++) {
      messages = [...messages, message(`m${n}`)];
      await step(writer, { messages, settings });
    }
    const append = async (saver: PostgresSaver, turn: string) => {
      const loaded = await claimAndLoad(saver, writer.threadId, turn);
      expect(loaded?.checkpoint.channel_values).toEqual({ messages, settings });
      messages = [...(loaded!.checkpoint.channel_values.messages as typeof messages), message(turn)];
      writer = writer.through(saver);
      await step(writer, { messages });
    };
    const readByAnother = async () =>
      expect(
        (await latest(saverOn({ cachedThreads: 0 }), writer.threadId))?.checkpoint.channel_values.messages,
      ).toEqual(messages);
    return { append, readByAnother };
  };

  it("loads a head another saver appended to as the rows it does not hold: the new link, not the whole chain", async () => {
    const [a, b] = [saverOn(), saverOn()];
    const thread = await messagesThread(a, { tone: "plain" });
    // The blob rows each load of `a` got back.
    const blobRows: number[] = [];
    wrapStatements(a, async (statement, send) => {
      const result = await send(statement);
      if (result.rows.some((r) => r.kind === "c" || r.kind === "s"))
        blobRows.push(result.rows.filter((r) => r.kind === "b").length);
      return result;
    });
    for (let turn = 0; turn < 4; turn++) {
      await thread.append(b, `b-${turn}`);
      await thread.append(a, `a-${turn}`);
    }
    // b's first append is a full copy (it had not written the thread); then a's loads get b's one delta.
    // The other links of the chain, and `settings`, a holds.
    expect(blobRows).toEqual([1, 1, 1, 1]);
    expect(a.stats.deltaBlobsWritten + b.stats.deltaBlobsWritten).toBeGreaterThan(40);
    await thread.readByAnother();
  });

  it("builds a list another saver appended to on its private copy: a load parses the record, metadata and new items only", async () => {
    const serde = new JsonSerializer();
    const [a, b] = [saverOn({ serde }), saverOn()];
    const thread = await messagesThread(a, { tone: "plain", long: "x".repeat(400) });
    // b's first write is a full copy; a then continues b's list, and b continues a's.
    await thread.append(b, "b-0");
    await thread.append(a, "a-0");
    await thread.append(b, "b-1");
    const loads = vi.spyOn(serde, "loads");
    await thread.append(a, "a-1");
    // The record, the metadata and b's one delta: not the 40 links below it, nor `settings`.
    expect(loads).toHaveBeenCalledTimes(3);
    loads.mockRestore();
    // a continued the chain it built on: its next write was a delta, and every saver reads it back.
    await thread.append(b, "b-2");
    expect(a.stats.deltaBlobsWritten).toBeGreaterThan(40);
    await thread.readByAnother();
  });

  it("reads everything again when a blob row below the ones it holds was rewritten in place", async () => {
    const [a, b] = [saverOn({ serde: new JsonSerializer() }), saverOn()];
    const thread = new ThreadWriter(a);
    const long = (text: string) => text.padEnd(300, ".");
    // Three checkpoints: the list's full copy, then two appends, each a blob row based on the one before.
    const first = await step(thread, { list: [long("a")] });
    const loaded = await latest(a, thread.threadId);
    const items = loaded!.checkpoint.channel_values.list as string[];
    await step(thread, { list: [...items, long("b")] });
    const held = (await latest(a, thread.threadId))!.checkpoint.channel_values.list as string[];
    await step(thread, { list: [...held, long("c")] });
    expect(a.stats.deltaBlobsWritten).toBe(2);
    // b writes a step and a loads it: a now names the rows it holds when it loads the thread.
    let writer = thread.through(b);
    await step(writer, { other: "b" });
    expect((await claimAndLoad(a, thread.threadId, "run-0"))?.checkpoint.channel_values.other).toBe("b");
    writer = writer.through(a);
    await step(writer, { other: "a" });
    // b writes the first checkpoint again with another value at the same version (the bottom of
    // the chain), then a step on top, so that a's head is replaced but the rows a holds above the
    // rewritten one are not.
    const id = first.configurable!.checkpoint_id as string;
    const version = (await latest(a, thread.threadId))!.checkpoint.channel_versions.list!;
    const bottom = (await b.getTuple(first))!.checkpoint.channel_versions.list!;
    expect(bottom).not.toBe(version);
    await b.put(
      { configurable: { thread_id: thread.threadId } },
      { ...makeCheckpoint({ list: [long("rewritten")] }, { list: bottom }), id },
      { source: "update", step: 0, parents: {} },
      { list: bottom },
    );
    await step(writer.through(b), { other: "x" });
    const fresh = (await latest(saverOn({ cachedThreads: 0 }), thread.threadId))?.checkpoint.channel_values;
    expect(fresh?.list).toEqual([long("rewritten"), long("b"), long("c")]);
    expect((await claimAndLoad(a, thread.threadId, "run-1"))?.checkpoint.channel_values).toEqual(fresh);
  });

  it("serves a head it holds from private copies: a load parses only the pending writes", async () => {
    const serde = new JsonSerializer();
    const a = saverOn({ serde });
    const thread = new ThreadWriter(a);
    await step(thread, { answers: ["a"], request: { amount: 120 } });
    const saved = await step(thread, { answers: ["a", "b"] });
    await a.putWrites(saved, [["answers", "pending"]], "task-1");
    const loads = vi.spyOn(serde, "loads");
    for (let read = 0; read < 3; read++) {
      const tuple = await latest(a, thread.threadId);
      expect(tuple?.checkpoint.channel_values).toEqual({ answers: ["a", "b"], request: { amount: 120 } });
      expect(tuple?.pendingWrites).toEqual([["task-1", "answers", "pending"]]);
      expect(tuple?.metadata.step).toBe(0);
    }
    // One per read: the pending write. Parsing the record, the metadata and the values would be more.
    expect(loads).toHaveBeenCalledTimes(3);
    loads.mockRestore();
  });

  it("hands out fresh objects: changing what it put or returned changes no later read", async () => {
    const a = saverOn();
    const thread = new ThreadWriter(a);
    const values = { request: { amount: 120, items: [1, 2] }, list: ["a"] };
    // A Date in the metadata is not plain data: it is parsed at every read instead of copied.
    await step(thread, values);
    await thread.write({ list: ["a", "b"] }, { at: new Date(5) } as never, { expectedHead: thread.head ?? null });
    values.request.items.push(3); // the caller reusing what it put
    for (let read = 0; read < 3; read++) {
      const tuple = await latest(a, thread.threadId);
      expect(tuple?.checkpoint.channel_values).toEqual({ request: { amount: 120, items: [1, 2] }, list: ["a", "b"] });
      expect((tuple!.metadata as unknown as { at: Date }).at).toEqual(new Date(5));
      (tuple!.checkpoint.channel_values.request as { items: number[] }).items.push(4);
      (tuple!.checkpoint.channel_values.list as string[]).length = 0;
      tuple!.checkpoint.channel_versions.list = 99;
      tuple!.metadata.step = 99;
    }
  });

  it("keeps at most cachedThreads threads, and none with cachedThreads 0", async () => {
    const small = saverOn({ cachedThreads: 2 });
    const none = saverOn({ cachedThreads: 0 });
    for (const [saver, expected] of [
      [small, ["s", "s", "c"]],
      [none, ["c", "c", "c"]],
    ] as const) {
      const threads = [new ThreadWriter(saver), new ThreadWriter(saver), new ThreadWriter(saver)];
      for (const thread of threads) await step(thread, { answer: thread.threadId });
      const heads = watchLoads(saver);
      // The first thread was the least recently used when the third was written: newest first.
      for (const thread of threads.toReversed())
        expect((await latest(saver, thread.threadId))?.checkpoint.channel_values.answer).toBe(thread.threadId);
      expect(heads).toEqual(expected);
    }
  });

  it("refuses a cachedThreads or cachedBytes that is not a whole number of at least 0", () => {
    for (const bad of [Number.NaN, -1, 2.5, Number.POSITIVE_INFINITY]) {
      expect(() => new PostgresSaver(url, { cachedThreads: bad })).toThrow(InvalidSaverOptionError);
      expect(() => new PostgresSaver(url, { cachedBytes: bad })).toThrow(InvalidSaverOptionError);
    }
    expect(() => new PostgresSaver(url, { cachedThreads: Number.NaN })).toThrow(
      /cachedThreads is NaN; it must be a whole number/,
    );
  });

  it("forgets a thread it deleted or pruned, and one whose put was refused", async () => {
    const [a, b] = [saverOn(), saverOn()];
    const thread = new ThreadWriter(a);
    await step(thread, { answer: "a" });
    await a.deleteThread(thread.threadId);
    expect(await latest(a, thread.threadId)).toBeUndefined();

    const other = new ThreadWriter(a);
    await step(other, { answer: "a" });
    await step(other.through(b), { answer: "b" });
    // a's compare-and-swap on the head it wrote fails: b moved it.
    await expect(step(other, { answer: "a again" })).rejects.toThrow();
    const heads = watchLoads(a);
    expect((await latest(a, other.threadId))?.checkpoint.channel_values.answer).toBe("b");
    expect(heads).toEqual(["c"]);
    expect(await a.prune(other.threadId, { keepLast: 1 })).toBe(1);
    expect((await latest(a, other.threadId))?.checkpoint.channel_values.answer).toBe("b");
  });
});

describe("PostgresSaver's one-statement put", () => {
  it("refuses a step after a head that moved, writing nothing and keeping the run's claim", async () => {
    const [a, b] = [new PostgresSaver(url), new PostgresSaver(url)];
    const thread = new ThreadWriter(a);
    const first = await thread.write({ answer: "a" }, {}, { expectedHead: null });
    const moved = await thread.through(b).write({ answer: "b" }, {}, { expectedHead: thread.head! });
    expect(await a.claimThread(thread.threadId, { owner: "run-1", ttlMs: 60_000 })).toBe(true);
    const stale = makeCheckpoint({ answer: "stale" }, { answer: 5 });
    const refused = a.put(
      first,
      stale,
      { source: "loop", step: 1, parents: {} },
      { answer: 5 },
      {
        expectedHead: first.configurable!.checkpoint_id as string,
        releaseClaim: "run-1",
      },
    );
    await expect(refused).rejects.toMatchObject({ code: "CHECKPOINT_CONFLICT" });
    expect((await a.claimHolder(thread.threadId))?.owner).toBe("run-1");
    const newest = await a.getTuple({ configurable: { thread_id: thread.threadId } });
    expect(newest?.checkpoint.id).toBe(moved.configurable!.checkpoint_id);
    expect(newest?.checkpoint.channel_values.answer).toBe("b");
    const { rows } = await a.pool.query("SELECT count(*)::int AS n FROM interlude_checkpoints WHERE thread_id = $1", [
      thread.threadId,
    ]);
    expect(rows[0].n).toBe(2);
    await a.releaseThread(thread.threadId, "run-1");
    await Promise.all([a.close(), b.close()]);
  });
});

describe("PostgresSaver's one-statement put with deltas", () => {
  it("writes no delta whose base was deleted while the put waited for the head (as a prune does)", async () => {
    const name = `delta-race-${process.pid}-${Date.now()}`;
    const pool = new pg.Pool({ connectionString: url, application_name: name, max: 2 });
    const a = new PostgresSaver(pool);
    const thread = new ThreadWriter(a);
    let messages: string[] = [];
    for (let n = 0; n < 3; n++) {
      messages = [...messages, `m${n}`];
      await thread.write({ messages }, {}, { expectedHead: thread.head ?? null });
    }
    const deltas = a.stats.deltaBlobsWritten;
    const pruner = new pg.Client({ connectionString: url });
    await pruner.connect();
    try {
      // Holds the head, as a prune does, and deletes every stored value of the channel.
      await pruner.query("BEGIN");
      await pruner.query("SELECT 1 FROM interlude_heads WHERE thread_id = $1 FOR UPDATE", [thread.threadId]);
      await pruner.query("DELETE FROM interlude_blobs WHERE thread_id = $1", [thread.threadId]);
      messages = [...messages, "m3"];
      const writing = thread.write({ messages }, {}, { expectedHead: thread.head! });
      await untilWaitingForLocks(url, name);
      await pruner.query("COMMIT");
      await writing;
    } finally {
      await pruner.end();
    }
    // The append went out as a delta, found its base gone, and was stored whole.
    expect(a.stats.deltaBlobsWritten).toBe(deltas);
    const fresh = new PostgresSaver(url, { cachedThreads: 0 });
    expect((await latest(fresh, thread.threadId))?.checkpoint.channel_values.messages).toEqual(messages);
    await Promise.all([a.close(), fresh.close()]);
    await pool.end();
  });
});

describe("PostgresSaver's schema", () => {
  it("keeps earlier versions' functions defined (since schema 5 their calls fail on the renamed record: inline.test.ts)", async () => {
    const saver = new PostgresSaver(url);
    await saver.setup();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rows } = await client.query<{ proname: string }>(
      // In the saver's schema: other tests keep savers in schemas of their own on this database.
      `SELECT proname FROM pg_proc WHERE proname IN ('interlude_put', 'interlude_claim_load', 'interlude_read_latest')
        AND pronamespace = current_schema()::regnamespace ORDER BY proname`,
    );
    expect(rows.map((r) => r.proname)).toEqual(["interlude_claim_load", "interlude_put", "interlude_read_latest"]);
    await client.end();
    await saver.close();
  });
});
