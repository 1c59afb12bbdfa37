import { ThreadWriter } from "@interlude/checkpoint-conformance";
import { PostgresSaver, type PostgresSaverOptions } from "@interlude/checkpoint-postgres";
import { decodeInline, INLINE_ROW_CHARS, INLINE_VALUE_CHARS } from "@interlude/core/saver-kit";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { testPostgresUrl } from "../../../test/setup/urls.js";
import { watchStatements } from "./fixtures/statements.js";

const url = testPostgresUrl();

const pools: pg.Pool[] = [];
afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.end()));
});

/** A saver on a pool of its own (another process's, as far as the head cache knows), and the statements it sends. */
function saverOn(options?: PostgresSaverOptions) {
  const pool = new pg.Pool({ connectionString: url, max: 3 });
  pool.on("error", () => {});
  pools.push(pool);
  const saver = new PostgresSaver(pool, options);
  return { saver, sent: watchStatements(saver) };
}

/** Each checkpoint row's inline values (channel -> serialised value), oldest first, and the channels with blob rows. */
async function stored(saver: PostgresSaver, threadId: string, ns = "") {
  const { rows } = await saver.pool.query<{ inline: string | null }>(
    "SELECT inline FROM interlude_checkpoints WHERE thread_id = $1 AND checkpoint_ns = $2 ORDER BY checkpoint_id",
    [threadId, ns],
  );
  const blobs = await saver.pool.query<{ channel: string }>(
    "SELECT channel FROM interlude_blobs WHERE thread_id = $1 AND checkpoint_ns = $2 ORDER BY channel, version",
    [threadId, ns],
  );
  return {
    rows: rows.map((row) => [...decodeInline(row.inline).keys()].sort()),
    blobs: blobs.rows.map((row) => row.channel),
  };
}

const headOf = (thread: ThreadWriter) => ({ expectedHead: thread.head ?? null });

describe("PostgresSaver's inline values", () => {
  it("keeps small values in the checkpoint row, carried to every later row, and lists and deltas in blob rows", async () => {
    const { saver } = saverOn();
    const thread = new ThreadWriter(saver);
    await thread.write({ request: { amount: 1 } }, {}, headOf(thread));
    await thread.write({ draft: "refund", log: ["a"] }, {}, headOf(thread));
    await thread.write({ decision: "yes", big: "x".repeat(INLINE_VALUE_CHARS + 1) }, {}, headOf(thread));
    expect(await stored(saver, thread.threadId)).toEqual({
      rows: [["request"], ["draft", "request"], ["decision", "draft", "request"]],
      blobs: ["big", "log"],
    });
    const fresh = saverOn({ cachedThreads: 0 }).saver;
    expect((await fresh.getTuple(thread.config))?.checkpoint.channel_values).toEqual(thread.values);
  });

  it("reads the parent's row for its values when it does not hold the parent: a saver without a head cache", async () => {
    const { saver, sent } = saverOn({ cachedThreads: 0 });
    const thread = new ThreadWriter(saver);
    await thread.write({ request: "r" }, {}, headOf(thread));
    sent.length = 0;
    await thread.write({ draft: "d" }, {}, headOf(thread));
    expect(sent).toEqual(["interlude_inlineOf", "interlude_put_whole"]);
    expect((await stored(saver, thread.threadId)).rows).toEqual([["request"], ["draft", "request"]]);
    // Written by another process: the parent is not the head this saver holds either.
    const other = saverOn();
    const continued = thread.through(other.saver);
    other.sent.length = 0;
    await continued.write({ decision: "no" }, {}, headOf(continued));
    expect(other.sent).toEqual(["interlude_inlineOf", "interlude_put_whole"]);
    expect((await saver.getTuple(continued.config))?.checkpoint.channel_values).toEqual({
      request: "r",
      draft: "d",
      decision: "no",
    });
  });

  it("carries from the head it holds without asking, with and without naming the head expected", async () => {
    const { saver, sent } = saverOn();
    const thread = new ThreadWriter(saver);
    await thread.write({ request: "r" }, {}, headOf(thread));
    await thread.write({ draft: "d" }, {}, headOf(thread));
    await thread.write({ decision: "yes" });
    expect(sent.filter((name) => name === "interlude_inlineOf")).toEqual([]);
    expect((await stored(saver, thread.threadId)).rows.at(-1)).toEqual(["decision", "draft", "request"]);
  });

  it("keeps a row's inline values within INLINE_ROW_CHARS: the rest get blob rows, and every value reads back", async () => {
    const { saver } = saverOn();
    const thread = new ThreadWriter(saver);
    const value = "v".repeat(INLINE_VALUE_CHARS - 10);
    const many = Math.ceil(INLINE_ROW_CHARS / INLINE_VALUE_CHARS) + 2;
    const updates = Object.fromEntries(Array.from({ length: many }, (_, i) => [`c${i}`, `${i}${value}`]));
    await thread.write(updates, {}, headOf(thread));
    await thread.write({ c0: "changed" }, {}, headOf(thread));
    const { rows, blobs } = await stored(saver, thread.threadId);
    expect(rows[0]!.length).toBeLessThan(many);
    expect(blobs.length).toBe(many - rows[0]!.length);
    // The second row carries the first's inline values and keeps c0's new one; none is lost.
    expect(rows[1]).toEqual([...new Set(["c0", ...rows[0]!])].sort());
    const fresh = saverOn({ cachedThreads: 0 }).saver;
    expect((await fresh.getTuple(thread.config))?.checkpoint.channel_values).toEqual(thread.values);
  });

  it("writes a subgraph's values as blob rows: only the root namespace's parents are held", async () => {
    const { saver, sent } = saverOn();
    const thread = new ThreadWriter(saver, `inline-sub-${Date.now()}`, "child:1");
    await thread.write({ request: "r" }, {}, headOf(thread));
    await thread.write({ draft: "d" }, {}, headOf(thread));
    expect(await stored(saver, thread.threadId, "child:1")).toEqual({ rows: [[], []], blobs: ["draft", "request"] });
    expect(sent).not.toContain("interlude_inlineOf");
    expect((await saver.getTuple(thread.config))?.checkpoint.channel_values).toEqual({ request: "r", draft: "d" });
  });

  it("reads a thread whose older rows kept every value in blob rows (written by the previous version)", async () => {
    const { saver } = saverOn();
    const thread = new ThreadWriter(saver);
    await thread.write({ request: "r" }, {}, headOf(thread));
    // As the previous version stored it: the value in a blob row, nothing inline.
    await saver.pool.query(
      `INSERT INTO interlude_blobs (thread_id, checkpoint_ns, channel, version, base, data)
       SELECT thread_id, checkpoint_ns, 'request', 1, NULL, convert_to('"r"', 'UTF8') FROM interlude_checkpoints WHERE thread_id = $1;
       UPDATE interlude_checkpoints SET inline = NULL WHERE thread_id = $1`.replace(/\$1/g, `'${thread.threadId}'`),
    );
    const next = thread.through(saverOn({ cachedThreads: 0 }).saver);
    await next.write({ draft: "d" }, {}, headOf(next));
    expect((await saverOn().saver.getTuple(next.config))?.checkpoint.channel_values).toEqual({
      request: "r",
      draft: "d",
    });
  });

  it("refuses the previous version's loads and puts, which would not carry inline values: they fail, nothing is written", async () => {
    const { saver } = saverOn();
    const thread = new ThreadWriter(saver);
    await thread.write({ request: "r" }, {}, headOf(thread));
    const previous = [
      // Its newest-checkpoint read, its read of a checkpoint by id (getState's history, list), and its put's row.
      ["SELECT * FROM interlude_read_head($1, '', NULL, NULL)", [thread.threadId]],
      [
        'SELECT checkpoint_id AS id, parent_id AS "parentId", record, metadata FROM interlude_checkpoints WHERE thread_id = $1',
        [thread.threadId],
      ],
      [
        `INSERT INTO interlude_checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_id, created_at, record, metadata, channels, versions)
         VALUES ($1, '', 'z', NULL, 0, '', '', '{}', '{}')`,
        [thread.threadId],
      ],
    ] as const;
    for (const [text, values] of previous)
      await expect(saver.pool.query(text, [...values])).rejects.toMatchObject({ code: "42703" });
    expect((await stored(saver, thread.threadId)).rows).toEqual([["request"]]);
  });

  it("keeps arrays in blob rows whatever their text looks like, so that a delta on one held back with it is stored and read", async () => {
    const { saver } = saverOn();
    const thread = new ThreadWriter(saver);
    await thread.write({ other: "x" }, {}, headOf(thread));
    // Dates: the serialised array is tagged ("~[...]"), not "[...]"; held back (durable: false), then appended to.
    await thread.write({ items: [new Date(0)] }, {}, { ...headOf(thread), durable: false });
    await thread.write({ items: [new Date(0), new Date(1)] }, {}, headOf(thread));
    expect(await stored(saver, thread.threadId)).toEqual({
      rows: [["other"], ["other"], ["other"]],
      blobs: ["items", "items"],
    });
    const fresh = saverOn({ cachedThreads: 0 }).saver;
    expect((await fresh.getTuple(thread.config))?.checkpoint.channel_values).toEqual(thread.values);
  });

  it("keeps text holding a NUL character in a blob row: the inline column is text", async () => {
    const serde = {
      dumps: (value: unknown) => `\u0000${JSON.stringify(value ?? null)}`,
      loads: (data: string | Uint8Array) =>
        JSON.parse((typeof data === "string" ? data : Buffer.from(data).toString()).slice(1)),
    };
    const { saver } = saverOn({ serde });
    const thread = new ThreadWriter(saver);
    await thread.write({ answer: "a" }, {}, headOf(thread));
    expect(await stored(saver, thread.threadId)).toEqual({ rows: [[]], blobs: ["answer"] });
    const fresh = saverOn({ serde, cachedThreads: 0 }).saver;
    expect((await fresh.getTuple(thread.config))?.checkpoint.channel_values).toEqual({ answer: "a" });
  });
});
