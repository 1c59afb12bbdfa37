import { describeSaverConformance, makeCheckpoint, ThreadWriter } from "@interlude/checkpoint-conformance";
import { PostgresSaver, SCHEMA_VERSION } from "@interlude/checkpoint-postgres";
import { CheckpointConflictError, StorageError } from "@interlude/core";
import { decodeInline } from "@interlude/core/saver-kit";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testPostgresUrl } from "../../../test/setup/urls.js";
import { watchStatements, wrapStatements } from "./fixtures/statements.js";
import { untilWaitingForLocks } from "./locks.js";

const url = testPostgresUrl();

// Lock waits are bounded so that a table locked by breakStorage fails fast instead of hanging.
const poolFor = (connectionString: string) => {
  const pool = new pg.Pool({ connectionString, options: "-c lock_timeout=2000", max: 5 });
  pool.on("error", () => {});
  return pool;
};

describeSaverConformance(
  "PostgresSaver",
  async (options) => {
    const pools = [poolFor(url)];
    const saver = new PostgresSaver(pools[0]!, { ttlMs: options?.ttlMs });
    await saver.setup();
    return {
      saver,
      makeSecondSaver: async () => {
        const pool = poolFor(url);
        pools.push(pool);
        return new PostgresSaver(pool);
      },
      breakStorage: async () => {
        // Another session holding the tables locked: our writes cannot get through.
        const admin = new pg.Client({ connectionString: url });
        await admin.connect();
        await admin.query("BEGIN");
        await admin.query("LOCK TABLE interlude_heads IN ACCESS EXCLUSIVE MODE");
        return {
          async restore() {
            await admin.query("ROLLBACK");
            await admin.end();
          },
        };
      },
      close: async () => {
        await saver.close();
        await Promise.all(pools.map((pool) => pool.end()));
      },
    };
  },
  { sharedStorage: true, breakable: true, fencesWrites: true },
);

describe("PostgresSaver setup", () => {
  const database = `interlude_setup_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: url });
  const dbUrl = url.replace(/\/[^/]*$/, `/${database}`);
  beforeAll(async () => {
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
  });
  afterAll(async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
  });

  it("migrates a fresh database once even when several processes set up at once", async () => {
    const savers = Array.from({ length: 4 }, () => PostgresSaver.fromConnString(dbUrl, { autoSetup: false }));
    await Promise.all(savers.map((saver) => saver.setup()));
    await savers[0]!.setup();
    const check = new pg.Client({ connectionString: dbUrl });
    await check.connect();
    const { rows } = await check.query("SELECT version FROM interlude_schema_version ORDER BY version");
    expect(rows.map((r) => r.version)).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
    await check.end();
    const thread = new ThreadWriter(savers[1]!);
    await thread.write({ a: 1 });
    expect((await savers[2]!.getTuple(thread.config))?.checkpoint.channel_values).toEqual({ a: 1 });
    await Promise.all(savers.map((saver) => saver.close()));
  });

  it("end() closes as LangGraph's does: what was saved stays, and the pool is ended, even one passed in", async () => {
    const owned = PostgresSaver.fromConnString(dbUrl);
    const thread = new ThreadWriter(owned);
    await thread.write({ a: 1 });
    await owned.end();
    expect(owned.pool.ended).toBe(true);
    const pool = new pg.Pool({ connectionString: dbUrl, max: 2 });
    const passedIn = new PostgresSaver(pool);
    expect((await passedIn.getTuple(thread.config))?.checkpoint.channel_values).toEqual({ a: 1 });
    await passedIn.end();
    expect(pool.ended).toBe(true);
  });

  it("closes once however often it is told to: close() twice, or end() after close(), does not throw", async () => {
    const saver = PostgresSaver.fromConnString(dbUrl);
    await new ThreadWriter(saver).write({ a: 1 });
    await saver.close();
    await expect(saver.close()).resolves.toBeUndefined();
    await expect(saver.end()).resolves.toBeUndefined();
    expect(saver.pool.ended).toBe(true);
  });

  it("refuses an option it does not take, before making a pool", () => {
    expect(() => new PostgresSaver(dbUrl, { now: () => 0 } as never)).toThrow(/now .*PostgresSaver takes/);
  });

  it("reports an unreachable server as StorageError, advising to check the connection string", async () => {
    const saver = PostgresSaver.fromConnString("postgres://postgres@127.0.0.1:1/nowhere");
    const failure = await saver.getTuple({ configurable: { thread_id: "x" } }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StorageError);
    expect((failure as StorageError).code).toBe("STORAGE_FAILED");
    // Its setup failed: no thread was at stake, the connection may be wrong.
    expect((failure as StorageError).message).toMatch(
      /ECONNREFUSED.*Nothing was written\. Check the connection string/,
    );
    await saver.close();
  });

  it("writes O(message) bytes per step for a thread appending 200-byte messages", async () => {
    const saver = PostgresSaver.fromConnString(dbUrl);
    const thread = new ThreadWriter(saver);
    const sizes: number[] = [];
    const bytes = async () =>
      Number(
        (
          await saver.pool.query(
            `SELECT (SELECT COALESCE(SUM(octet_length(data)), 0) FROM interlude_blobs WHERE thread_id = $1) +
        (SELECT SUM(octet_length(checkpoint_record) + octet_length(metadata) + COALESCE(octet_length(inline), 0))
          FROM interlude_checkpoints WHERE thread_id = $1) AS n`,
            [thread.threadId],
          )
        ).rows[0].n,
      );
    let messages: unknown[] = [];
    for (let i = 0; i < 500; i++) {
      messages = [...messages, { id: `m${i}`, content: "x".repeat(180) }];
      await thread.write({ messages });
      if (i === 99 || i === 199 || i === 499) sizes.push(await bytes());
    }
    const late = (sizes[2]! - sizes[1]!) / 300;
    console.log(
      `postgres: ${late.toFixed(0)} stored bytes per step over steps 200-500 (first 100: ${(sizes[0]! / 100).toFixed(0)})`,
    );
    expect(late).toBeLessThan(1_500);
    expect((await saver.getTuple(thread.config))?.checkpoint.channel_values.messages).toEqual(messages);
    await saver.close();
  }, 60_000);
});

/**
 * Runs the saver's claim statements each in a transaction of the test's, reading the
 * `synchronous_commit` a statement leaves for its commit (a plain statement's commit sees the
 * same) and the session's after the commit, into `seen`. Returns the undo.
 */
function runClaimsInTransactions(saver: PostgresSaver, seen: Array<[string, string]>): () => void {
  const setting = async (client: pg.PoolClient) =>
    (await client.query("SHOW synchronous_commit")).rows[0].synchronous_commit as string;
  return wrapStatements(saver, async (statement, send) => {
    const { name } = statement;
    if (!name?.includes("claim")) return send(statement);
    const client = await saver.pool.connect();
    try {
      await client.query("BEGIN");
      const result = await client.query({ name, text: statement.text, values: [...statement.values] });
      seen.push([name, await setting(client)]);
      await client.query("COMMIT");
      seen.push(["after", await setting(client)]);
      return { rows: result.rows, rowCount: result.rowCount ?? 0 };
    } finally {
      client.release();
    }
  });
}

describe("PostgresSaver's one-call put and claim-load", () => {
  const pools: pg.Pool[] = [];
  const saverOn = () => {
    const pool = poolFor(url);
    pools.push(pool);
    return new PostgresSaver(pool);
  };
  afterAll(async () => {
    await Promise.all(pools.map((pool) => pool.end()));
  });

  it("stores a value whole when the base its delta names was deleted behind its back", async () => {
    const saver = saverOn();
    const thread = new ThreadWriter(saver);
    let messages: unknown[] = [];
    for (let i = 0; i < 3; i++) {
      messages = [...messages, { id: `m${i}`, content: "x".repeat(50) }];
      await thread.write({ messages });
    }
    // Another process pruned every stored value of the channel: the next append has no base.
    await saver.pool.query("DELETE FROM interlude_blobs WHERE thread_id = $1", [thread.threadId]);
    const deltasBefore = saver.stats.deltaBlobsWritten;
    expect(deltasBefore).toBeGreaterThan(0);
    messages = [...messages, { id: "m3", content: "y" }];
    await thread.write({ messages });
    expect(saver.stats.deltaBlobsWritten).toBe(deltasBefore);
    expect((await saver.getTuple(thread.config))?.checkpoint.channel_values.messages).toEqual(messages);
  });

  it("writes no blob row for a channel a step emptied, and every load reads it as empty", async () => {
    const [saver, other] = [saverOn(), saverOn()];
    const threadId = `emptied-${Date.now()}`;
    const config = { configurable: { thread_id: threadId, checkpoint_ns: "" } };
    const meta = (step: number) => ({ source: "loop" as const, step, parents: {} });
    const first = await saver.put(
      config,
      makeCheckpoint({ trigger: "go", answer: "a" }, { trigger: 1, answer: 1 }),
      meta(0),
      { trigger: 1, answer: 1 },
      { expectedHead: null },
    );
    // The trigger consumed: a new version and no value, as the run loop writes it.
    const second = await saver.put(
      first,
      makeCheckpoint({}, { trigger: 2, answer: 1 }),
      meta(1),
      { trigger: 2 },
      {
        expectedHead: first.configurable!.checkpoint_id,
      },
    );
    // Small values are kept in the checkpoint rows (inline-values.ts): the second keeps `answer`
    // (carried) and nothing for the emptied `trigger`; no blob rows at all.
    const { rows: blobs } = await saver.pool.query("SELECT channel FROM interlude_blobs WHERE thread_id = $1", [
      threadId,
    ]);
    expect(blobs).toEqual([]);
    const { rows } = await saver.pool.query<{ inline: string }>(
      "SELECT inline FROM interlude_checkpoints WHERE thread_id = $1 ORDER BY checkpoint_id",
      [threadId],
    );
    expect(rows.map((row) => Object.fromEntries(decodeInline(row.inline)))).toEqual([
      { trigger: '"go"', answer: '"a"' },
      { answer: '"a"' },
    ]);
    // From the head cache, from another process's full read, and at the older checkpoint.
    for (const loaded of [await saver.getTuple(second), await other.getTuple(config)])
      expect(loaded?.checkpoint.channel_values).toEqual({ answer: "a" });
    expect((await other.getTuple(first))?.checkpoint.channel_values).toEqual({ trigger: "go", answer: "a" });
  });

  it("stores a checkpoint written again under the head it expects: the plain inserts fail, the upserts replace", async () => {
    const saver = saverOn();
    const thread = new ThreadWriter(saver);
    // A list: a blob row of its own, which the head's checkpoint names (small strings are kept in the row).
    const first = await thread.write({ answer: ["a"] });
    await thread.write({ other: "x" });
    const failed: string[] = [];
    const unwrap = wrapStatements(saver, (statement, send) =>
      send(statement).catch((error: { code?: string }) => {
        failed.push(error.code ?? "");
        throw error;
      }),
    );
    // The first checkpoint again, with another value at the same version, naming the head as a run would.
    const id = first.configurable!.checkpoint_id as string;
    await saver.put(
      first,
      { ...makeCheckpoint({ answer: ["rewritten"] }, { answer: 1 }), id },
      { source: "update", step: 0, parents: {} },
      { answer: 1 },
      { expectedHead: thread.head! },
    );
    unwrap();
    expect(failed).toEqual(["23505"]);
    const fresh = new PostgresSaver(saver.pool, { cachedThreads: 0 });
    expect((await fresh.getTuple(thread.config))?.checkpoint.channel_values).toEqual({
      answer: ["rewritten"],
      other: "x",
    });
    expect((await fresh.getTuple(first))?.checkpoint.channel_values).toEqual({ answer: ["rewritten"] });
  });

  it("a thread claimed again after another process wrote it loads that process's checkpoint", async () => {
    const [a, b] = [saverOn(), saverOn()];
    const thread = new ThreadWriter(a);
    await thread.write({ answer: "from a" });
    const base = { configurable: { thread_id: thread.threadId } };
    expect(await a.claimThread(thread.threadId, { owner: "run-1", ttlMs: 10_000 })).toBe(true);
    expect((await a.getTuple(base))?.checkpoint.channel_values.answer).toBe("from a");
    await a.releaseThread(thread.threadId, "run-1");

    expect(await b.claimThread(thread.threadId, { owner: "run-2", ttlMs: 10_000 })).toBe(true);
    expect(await a.claimThread(thread.threadId, { owner: "run-3", ttlMs: 10_000 })).toBe(false);
    // The same writer's next step, through the other process's saver.
    const fromB = thread.through(b);
    await fromB.write({ answer: "from b" });
    await b.releaseThread(thread.threadId, "run-2");

    expect(await a.claimThread(thread.threadId, { owner: "run-4", ttlMs: 10_000 })).toBe(true);
    const loaded = await a.getTuple(base);
    expect(loaded?.checkpoint.channel_values.answer).toBe("from b");
    expect(loaded?.checkpoint.id).toBe(fromB.head);
    await a.releaseThread(thread.threadId, "run-4");
  });

  it("releases a run's claim in the statement that stores its last writes, and keeps it when they fail", async () => {
    const saver = saverOn();
    const thread = new ThreadWriter(saver);
    const saved = await thread.write({ answer: "a" });
    const { threadId } = thread;
    expect(await saver.claimThread(threadId, { owner: "run-1", ttlMs: 60_000 })).toBe(true);
    // A write that PostgreSQL refuses (text cannot hold NUL): neither it nor the release happens.
    const refused = saver.putWrites(saved, [["answer", "x"]], "task\u0000", { releaseClaim: "run-1" });
    await expect(refused).rejects.toBeInstanceOf(StorageError);
    expect((await saver.claimHolder(threadId))?.owner).toBe("run-1");

    await saver.putWrites(saved, [["answer", "last"]], "task-1", { releaseClaim: "run-1" });
    expect(await saver.claimHolder(threadId)).toBeUndefined();
    // A late heartbeat does not take the claim back; the run's releaseThread sends nothing.
    expect(await saver.claimThread(threadId, { owner: "run-1", ttlMs: 60_000 })).toBe(false);
    const sent = watchStatements(saver);
    await saver.releaseThread(threadId, "run-1");
    expect(sent).toEqual([]);
    expect((await saver.getTuple(thread.config))?.pendingWrites).toEqual([["task-1", "answer", "last"]]);
    expect(await saver.claimThread(threadId, { owner: "run-2", ttlMs: 60_000 })).toBe(true);
    await saver.releaseThread(threadId, "run-2");
  });

  it("releases a run's claim in the statement of its last put, and keeps it when the put is refused", async () => {
    const saver = saverOn();
    const thread = new ThreadWriter(saver);
    const first = await thread.write({ answer: "a" });
    const { threadId } = thread;
    expect(await saver.claimThread(threadId, { owner: "run-1", ttlMs: 60_000 })).toBe(true);
    const last = (expectedHead: string | null) =>
      saver.put(
        first,
        { ...makeCheckpoint({ answer: "b" }, { answer: 2 }) },
        { source: "loop", step: 1, parents: {} },
        { answer: 2 },
        { expectedHead, releaseClaim: "run-1" },
      );
    await expect(last(null)).rejects.toBeInstanceOf(CheckpointConflictError);
    expect((await saver.claimHolder(threadId))?.owner).toBe("run-1");
    await last(thread.head!);
    expect(await saver.claimHolder(threadId)).toBeUndefined();
    expect((await saver.getTuple({ configurable: { thread_id: threadId } }))?.checkpoint.channel_values.answer).toBe(
      "b",
    );
    await saver.releaseThread(threadId, "run-1");
    expect(await saver.claimThread(threadId, { owner: "run-2", ttlMs: 60_000 })).toBe(true);
    await saver.releaseThread(threadId, "run-2");
  });

  it("commits a claim without waiting for its WAL flush, and leaves the session's durability alone", async () => {
    const [a, b] = [saverOn(), saverOn()];
    const thread = new ThreadWriter(a);
    await thread.write({ answer: "a" });
    const seen: Array<[string, string]> = [];
    const restore = [a, b].map((saver) => runClaimsInTransactions(saver, seen));
    expect(await a.claimThread(thread.threadId, { owner: "run-1", ttlMs: 60_000 })).toBe(true);
    expect(await a.claimThread(thread.threadId, { owner: "run-1", ttlMs: 60_000 })).toBe(true);
    expect(await b.claimThread(thread.threadId, { owner: "run-2", ttlMs: 60_000 })).toBe(false);
    for (const undo of restore) undo();
    // A first claim, a renewal and a refused claim: each relaxed for its own commit only.
    expect(seen).toEqual([
      ["interlude_claimLatest", "off"],
      ["after", "on"],
      ["interlude_claim", "off"],
      ["after", "on"],
      ["interlude_claimLatest", "off"],
      ["after", "on"],
    ]);
    expect((await a.claimHolder(thread.threadId))?.owner).toBe("run-1");
    await a.releaseThread(thread.threadId, "run-1");
  });

  it("survives the server cutting a connection it has checked out: that call fails, the next works", async () => {
    // Its connections are named, so that only they are looked for (other test files share the server).
    const name = `cut-${process.pid}-${Date.now()}`;
    const pool = new pg.Pool({ connectionString: url, application_name: name, max: 2 });
    pool.on("error", () => {});
    pools.push(pool);
    const saver = new PostgresSaver(pool);
    const thread = new ThreadWriter(saver);
    await thread.write({ answer: "a" });
    // The prune's transaction waits for the thread's head row, held by another session.
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query("BEGIN");
      await admin.query("SELECT 1 FROM interlude_heads WHERE thread_id = $1 FOR UPDATE", [thread.threadId]);
      // Its failure is taken at once: it may arrive before the admin's own reply.
      const pruning = saver.prune(thread.threadId, { keepLast: 1 }).then(
        () => undefined,
        (error: unknown) => error,
      );
      await untilWaitingForLocks(url, name);
      const { rows } = await admin.query<{ pid: number }>(
        "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND application_name = $1",
        [name],
      );
      await admin.query("SELECT pg_terminate_backend($1)", [rows[0]!.pid]);
      expect(await pruning).toBeInstanceOf(StorageError);
    } finally {
      await admin.query("ROLLBACK").catch(() => undefined);
      await admin.end();
    }
    expect(await saver.prune(thread.threadId, { keepLast: 1 })).toBeGreaterThanOrEqual(0);
    expect(await saver.getHeadId(thread.threadId)).toBeDefined();
  });

  it("gives its head read as a statement another query on the database can carry", async () => {
    const saver = saverOn();
    const thread = new ThreadWriter(saver);
    const [sql, params] = saver.headStatement(thread.threadId);
    let n = 0;
    const read = async () =>
      (
        await saver.pool.query(
          sql.replace(/\?/g, () => `$${++n}`),
          params,
        )
      ).rows[0]?.head_id;
    expect(await read()).toBeUndefined();
    await thread.write({ answer: "a" });
    n = 0;
    expect(await read()).toBe(await saver.getHeadId(thread.threadId));
  });
});
