/**
 * The saver's statements sent in a caller's own transactions (`PostgresSaver.joined`): a claim
 * taken with a caller's commit and handed to the run that claims the thread next, and a run's
 * last writes held for the caller's next transaction. Both commit with the caller's records or
 * not at all, and a second saver (another process) sees the claim as any other.
 */
import { ThreadWriter } from "@interlude/checkpoint-conformance";
import { type JoinedStatement, PostgresSaver } from "@interlude/checkpoint-postgres";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testPostgresUrl } from "../../../test/setup/urls.js";

const url = testPostgresUrl();

let pool: pg.Pool;
let saver: PostgresSaver;
let other: PostgresSaver;
const TTL = { ttlMs: 30_000 };

beforeAll(async () => {
  pool = new pg.Pool({ connectionString: url, max: 4 });
  saver = new PostgresSaver(url);
  other = new PostgresSaver(url);
  await saver.setup();
});
afterAll(async () => {
  await saver?.close();
  await other?.close();
  await pool?.end();
});

/** The caller's transaction: `statements` sent in it, then COMMIT (or ROLLBACK when `fail`); the rows of each. */
async function inTransaction(statements: JoinedStatement[], fail = false) {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const rows = [];
    for (const [text, values] of statements) rows.push((await client.query(text, values)).rows);
    await client.query(fail ? "ROLLBACK" : "COMMIT");
    return rows;
  } finally {
    client.release();
  }
}

/** A thread with one checkpoint written by `saver`. */
async function thread(): Promise<ThreadWriter> {
  const writer = new ThreadWriter(saver);
  await writer.write({ question: "ok?" });
  return writer;
}

/** A claim of `threadId` taken in a caller's transaction, committed. */
async function claimed(threadId: string) {
  const claim = saver.joined.claimIn(threadId);
  const [rows] = await inTransaction([claim.statement]);
  expect(claim.committed(rows!)).toBe(true);
  return claim;
}

const holder = async (threadId: string) => (await other.claimHolder(threadId))?.owner;

describe("a claim taken in a caller's transaction", () => {
  it("is held once committed, taken over by the next run here, and released with its last writes", async () => {
    const writer = await thread();
    const claim = await claimed(writer.threadId);
    expect(await holder(writer.threadId)).toBe(claim.owner);
    // Another process cannot claim the thread.
    expect(await other.claimThread(writer.threadId, { owner: "elsewhere", ...TTL })).toBe(false);
    // The run here takes it over under its own name, and reads the checkpoint loaded with it.
    expect(await saver.claimThread(writer.threadId, { owner: "run", ...TTL })).toBe(true);
    expect(await saver.claimThread(writer.threadId, { owner: "run", ...TTL })).toBe(true); // a renewal
    const tuple = await saver.getTuple(writer.config);
    expect(tuple?.checkpoint.channel_values).toEqual({ question: "ok?" });
    // The run's last writes release it, though the database knows it by the other name.
    await saver.putWrites(writer.config, [["answer", "yes"]], "task", { releaseClaim: "run" });
    await saver.releaseThread(writer.threadId, "run");
    await inTransaction([saver.joined.takeParked(writer.threadId)!]);
    expect(await holder(writer.threadId)).toBeUndefined();
    expect((await other.getTuple(writer.config))?.pendingWrites).toEqual([["task", "answer", "yes"]]);
  });

  it("is not taken when the caller's transaction rolls back", async () => {
    const writer = await thread();
    const claim = saver.joined.claimIn(writer.threadId);
    await inTransaction([claim.statement], true);
    expect(await holder(writer.threadId)).toBeUndefined();
    expect(await other.claimThread(writer.threadId, { owner: "elsewhere", ...TTL })).toBe(true);
    await other.releaseThread(writer.threadId, "elsewhere");
  });

  it("is refused while another process holds the thread, and the run here then claims as usual", async () => {
    const writer = await thread();
    expect(await other.claimThread(writer.threadId, { owner: "elsewhere", ...TTL })).toBe(true);
    const claim = saver.joined.claimIn(writer.threadId);
    const [rows] = await inTransaction([claim.statement]);
    expect(claim.committed(rows!)).toBe(false);
    expect(await saver.claimThread(writer.threadId, { owner: "run", ...TTL })).toBe(false);
    await other.releaseThread(writer.threadId, "elsewhere");
    expect(await saver.claimThread(writer.threadId, { owner: "run", ...TTL })).toBe(true);
    await saver.releaseThread(writer.threadId, "run");
    expect(await holder(writer.threadId)).toBeUndefined();
  });

  it("that no run took over is released by dropHandoff", async () => {
    const writer = await thread();
    const claim = saver.joined.claimIn(writer.threadId);
    const [rows] = await inTransaction([claim.statement]);
    expect(claim.committed(rows!)).toBe(true);
    await saver.joined.dropHandoff(writer.threadId, claim.owner);
    expect(await holder(writer.threadId)).toBeUndefined();
  });

  it("taken over and released by a release that failed once: the retry still names the claim as the database holds it", async () => {
    // Statements of this saver give up after 200 ms waiting for a lock.
    const timid = new PostgresSaver(new pg.Pool({ connectionString: url, options: "-c lock_timeout=200" }));
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await timid.setup();
      const writer = await thread();
      const claim = timid.joined.claimIn(writer.threadId);
      expect(claim.committed((await inTransaction([claim.statement]))[0]!)).toBe(true);
      expect(await timid.claimThread(writer.threadId, { owner: "run", ...TTL })).toBe(true);
      await admin.query("BEGIN");
      await admin.query("LOCK TABLE interlude_claims IN ACCESS EXCLUSIVE MODE");
      await expect(timid.releaseThread(writer.threadId, "run")).rejects.toThrow();
      await admin.query("ROLLBACK");
      expect(await holder(writer.threadId)).toBe(claim.owner);
      await timid.releaseThread(writer.threadId, "run");
      expect(await holder(writer.threadId)).toBeUndefined();
    } finally {
      await admin.end();
      await timid.close();
      await timid.pool.end();
    }
  });
});

describe("a run's last writes held for the caller's transaction", () => {
  /** A thread whose claim, taken in a caller's transaction, `run` took over; its last writes are held. */
  async function parked() {
    const writer = await thread();
    const claim = await claimed(writer.threadId);
    expect(await saver.claimThread(writer.threadId, { owner: "run", ...TTL })).toBe(true);
    await saver.putWrites(writer.config, [["__interrupt__", "asked"]], "task", { releaseClaim: "run" });
    await saver.releaseThread(writer.threadId, "run");
    // Not sent yet: no writes, and the thread still claimed.
    expect((await other.getTuple(writer.config))?.pendingWrites).toEqual([]);
    expect(await holder(writer.threadId)).toBe(claim.owner);
    return { writer, claim };
  }

  it("commit with the caller's transaction: the writes and the claim's release together", async () => {
    const { writer } = await parked();
    const statement = saver.joined.takeParked(writer.threadId)!;
    await inTransaction([statement, ["SELECT 1", []]]);
    expect((await other.getTuple(writer.config))?.pendingWrites).toEqual([["task", "__interrupt__", "asked"]]);
    expect(await holder(writer.threadId)).toBeUndefined();
    expect(saver.joined.takeParked(writer.threadId)).toBeUndefined();
  });

  it("are lost with a caller's transaction that fails, and the thread is as before them; sent again on their own", async () => {
    const { writer, claim } = await parked();
    const statement = saver.joined.takeParked(writer.threadId)!;
    await inTransaction([statement], true);
    expect((await other.getTuple(writer.config))?.pendingWrites).toEqual([]);
    expect(await holder(writer.threadId)).toBe(claim.owner);
    await saver.joined.sendAlone(statement);
    expect((await other.getTuple(writer.config))?.pendingWrites).toEqual([["task", "__interrupt__", "asked"]]);
    expect(await holder(writer.threadId)).toBeUndefined();
  });

  it("not taken by the caller are sent on their own by unpark", async () => {
    const { writer } = await parked();
    await saver.joined.unpark(writer.threadId);
    expect((await other.getTuple(writer.config))?.pendingWrites).toEqual([["task", "__interrupt__", "asked"]]);
    expect(await holder(writer.threadId)).toBeUndefined();
  });

  it("only the writes that release a claim taken over from the caller are held", async () => {
    const writer = await thread();
    await claimed(writer.threadId);
    expect(await saver.claimThread(writer.threadId, { owner: "run", ...TTL })).toBe(true);
    await saver.putWrites(writer.config, [["step", 1]], "task");
    expect((await other.getTuple(writer.config))?.pendingWrites).toEqual([["task", "step", 1]]);
    expect(saver.joined.takeParked(writer.threadId)).toBeUndefined();
    await saver.releaseThread(writer.threadId, "run");
    // A writer that claimed the thread itself (a state update) stores its last writes at once.
    expect(await saver.claimThread(writer.threadId, { owner: "update", ...TTL })).toBe(true);
    await saver.putWrites(writer.config, [["step", 2]], "other", { releaseClaim: "update" });
    expect((await other.getTuple(writer.config))?.pendingWrites).toHaveLength(2);
    expect(saver.joined.takeParked(writer.threadId)).toBeUndefined();
    expect(await holder(writer.threadId)).toBeUndefined();
  });
});

describe("a run's held checkpoint and its parked last writes", () => {
  /** A put as a run saves a checkpoint it does not wait for (its input, or any with durability "async"). */
  const heldPut = (writer: ThreadWriter, updates: Record<string, unknown>) =>
    writer.write(updates, {}, { expectedHead: writer.head ?? null, durable: false });
  const writesOf = async (threadId: string) =>
    (await pool.query("SELECT checkpoint_id FROM interlude_writes WHERE thread_id = $1", [threadId])).rows.map(
      (row) => row.checkpoint_id,
    );

  it("the held checkpoint is stored before the writes are parked, and another process reads both once committed", async () => {
    const writer = await thread();
    await claimed(writer.threadId);
    expect(await saver.claimThread(writer.threadId, { owner: "run", ...TTL })).toBe(true);
    await saver.getTuple(writer.config);
    const held = await heldPut(writer, { answer: "yes" });
    await saver.putWrites(held, [["__interrupt__", "asked"]], "task", { releaseClaim: "run" });
    await saver.releaseThread(writer.threadId, "run");
    // Stored already: another process sees the checkpoint the parked writes name (not yet the writes).
    expect(await other.getHeadId(writer.threadId)).toBe(held.configurable!.checkpoint_id);
    await inTransaction([saver.joined.takeParked(writer.threadId)!]);
    const fresh = new PostgresSaver(url, { cachedThreads: 0 });
    const tuple = await fresh.getTuple({ configurable: { thread_id: writer.threadId } });
    await fresh.close();
    expect(tuple?.checkpoint.channel_values).toEqual({ question: "ok?", answer: "yes" });
    expect(tuple?.pendingWrites).toEqual([["task", "__interrupt__", "asked"]]);
    expect(await holder(writer.threadId)).toBeUndefined();
  });

  it("a held checkpoint refused when stored: its last writes are refused too, not parked, and no writes name it", async () => {
    const writer = await thread();
    await claimed(writer.threadId);
    expect(await saver.claimThread(writer.threadId, { owner: "run", ...TTL })).toBe(true);
    await saver.getTuple(writer.config);
    const before = writer.head!;
    const held = await heldPut(writer, { answer: "yes" });
    // Another writer moves the head meanwhile: the held put will be refused.
    await new ThreadWriter(other, writer.threadId).write({ question: "changed" }, {}, { expectedHead: before });
    await expect(
      saver.putWrites(held, [["__interrupt__", "asked"]], "task", { releaseClaim: "run" }),
    ).rejects.toMatchObject({ code: "CHECKPOINT_CONFLICT" });
    expect(saver.joined.takeParked(writer.threadId)).toBeUndefined();
    expect(await writesOf(writer.threadId)).toEqual([]);
    // The run lets go of its claim (under the name the database knows it by).
    await saver.releaseThread(writer.threadId, "run");
    expect(await holder(writer.threadId)).toBeUndefined();
  });
});

describe("the steps of a run whose end the caller records", () => {
  it("commit without waiting for the WAL flush; the thread's other saves wait for it", async () => {
    // A schema of its own, whose checkpoints table records the durability each insert commits with.
    const schema = `joined_relaxed_${process.pid}`;
    const inSchema = `${url}${url.includes("?") ? "&" : "?"}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
    const mine = new PostgresSaver(url, { schema });
    const callers = new pg.Pool({ connectionString: inSchema, max: 2 });
    try {
      await mine.setup();
      await callers.query(`CREATE TABLE commits_seen (n serial, mode text);
        CREATE FUNCTION record_mode() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
          INSERT INTO ${pg.escapeIdentifier(schema)}.commits_seen (mode) VALUES (current_setting('synchronous_commit'));
          RETURN NEW; END $$;
        CREATE TRIGGER record_mode AFTER INSERT ON interlude_checkpoints FOR EACH ROW EXECUTE FUNCTION record_mode()`);
      const writer = new ThreadWriter(mine);
      // Saved as a run saves (one statement, against the head it read).
      const save = (values: Record<string, unknown>) => writer.write(values, {}, { expectedHead: writer.head ?? null });
      await save({ question: "ok?" });
      // Claimed in the caller's transaction, taken over by the run here: the run's step, then its last writes for the caller.
      const claim = mine.joined.claimIn(writer.threadId);
      const caller = async (statement: JoinedStatement) => {
        const client = await callers.connect();
        try {
          await client.query("BEGIN");
          const { rows } = await client.query(statement[0], statement[1]);
          await client.query("COMMIT");
          return rows;
        } finally {
          client.release();
        }
      };
      expect(claim.committed(await caller(claim.statement))).toBe(true);
      expect(await mine.claimThread(writer.threadId, { owner: "run", ...TTL })).toBe(true);
      await save({ answer: "yes" });
      await mine.putWrites(writer.config, [["done", true]], "task", { releaseClaim: "run" });
      await caller(mine.joined.takeParked(writer.threadId)!);
      // The thread written again with no run of the caller's: durable.
      await save({ question: "again?" });
      const { rows } = await callers.query("SELECT mode FROM commits_seen ORDER BY n");
      expect(rows.map((r) => r.mode)).toEqual(["on", "off", "on"]);
    } finally {
      await mine.close();
      await callers.query(`DROP SCHEMA ${pg.escapeIdentifier(schema)} CASCADE`).catch(() => undefined);
      await callers.end();
    }
  });
});
