/**
 * Group commit (src/group-commit.ts): statements of different threads ready in one turn share a
 * transaction; a thread's second statement, and statements that commit the other way, do not;
 * a refused statement fails alone; a backend that ends fails its whole group; two processes'
 * groups on the same rows do not deadlock. Then the saver's own saves, with and without
 * `groupCommit`.
 */
import { PostgresSaver } from "@interlude/checkpoint-postgres";
import { type Commit, GroupCommit } from "@interlude/checkpoint-postgres/group-commit";
import { Command, InvalidSaverOptionError } from "@interlude/core";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testPostgresUrl } from "../../../test/setup/urls.js";
import { approvalGraph } from "./fixtures/approval.js";

const url = testPostgresUrl();

const pool = new pg.Pool({ connectionString: url, max: 4 });
const table = `group_commit_${process.pid}`;
const savers: PostgresSaver[] = [];

beforeAll(async () => {
  await pool.query(`CREATE TABLE ${table} (thread text, value int CHECK (value >= 0))`);
});
afterAll(async () => {
  await Promise.all(savers.map((saver) => saver.close()));
  await pool.query(`DROP TABLE ${table}`);
  await pool.end();
});

const STATEMENTS = {
  insert: `INSERT INTO ${table} (thread, value) VALUES ($1, $2) RETURNING txid_current()::text AS tx`,
  relax: "SELECT $1::text AS thread, set_config('synchronous_commit', 'off', true) AS mode, txid_current()::text AS tx",
  mode: "SELECT $1::text AS thread, current_setting('synchronous_commit') AS mode, txid_current()::text AS tx",
  end: "SELECT $1::text AS thread, pg_terminate_backend(pg_backend_pid())",
  bump: `UPDATE ${table} SET value = value + 1 WHERE thread = $1 RETURNING txid_current()::text AS tx, pg_sleep(0.2)`,
};
type Name = keyof typeof STATEMENTS;
const KINDS = new Map<string, Commit>([
  ["insert", "durable"],
  ["relax", "relaxed"],
  ["mode", "durable"],
  ["end", "durable"],
  ["bump", "durable"],
]);
const group = new GroupCommit(pool, KINDS);
const send = (name: Name, ...values: unknown[]) => group.send({ name, text: STATEMENTS[name], values });
const tx = (result: { rows: Record<string, unknown>[] }) => result.rows[0]!.tx;
const stored = async (thread: string) =>
  (await pool.query(`SELECT value FROM ${table} WHERE thread = $1 ORDER BY value`, [thread])).rows.map((r) => r.value);

describe("GroupCommit", () => {
  it("commits the statements of different threads ready in one turn in one transaction", async () => {
    const results = await Promise.all(["a1", "a2", "a3", "a4"].map((thread, i) => send("insert", thread, i)));
    expect(new Set(results.map(tx)).size).toBe(1);
    for (const [i, thread] of ["a1", "a2", "a3", "a4"].entries()) expect(await stored(thread)).toEqual([i]);
  });

  it("sends a thread's second statement of the turn in another transaction", async () => {
    const [first, second, other] = await Promise.all([
      send("insert", "b1", 1),
      send("insert", "b1", 2),
      send("insert", "b2", 3),
    ]);
    expect(tx(first)).not.toBe(tx(second));
    expect(tx(first)).toBe(tx(other));
    expect(await stored("b1")).toEqual([1, 2]);
  });

  it("groups statements that commit without waiting for the flush apart from durable ones", async () => {
    const [relaxed, durable, alsoDurable] = await Promise.all([
      send("relax", "c1"),
      send("mode", "c2"),
      send("mode", "c3"),
    ]);
    expect(relaxed.rows[0]!.mode).toBe("off");
    expect(durable.rows[0]!.mode).toBe("on");
    expect(tx(durable)).toBe(tx(alsoDurable));
    expect(tx(relaxed)).not.toBe(tx(durable));
  });

  it("commits a thread's durable statements relaxed when its caller commits durably after them, grouped or alone", async () => {
    const relaxing = new GroupCommit(pool, KINDS, (thread) => thread.startsWith("r"));
    const mode = (thread: string) => relaxing.send({ name: "mode", text: STATEMENTS.mode, values: [thread] });
    const [relaxed, alsoRelaxed, durable] = await Promise.all([mode("r1"), mode("r2"), mode("c4")]);
    expect([relaxed, alsoRelaxed, durable].map((r) => r.rows[0]!.mode)).toEqual(["off", "off", "on"]);
    expect(tx(relaxed)).toBe(tx(alsoRelaxed));
    expect(tx(relaxed)).not.toBe(tx(durable));
    expect((await mode("r3")).rows[0]!.mode).toBe("off");
    expect((await mode("c5")).rows[0]!.mode).toBe("on");
  });

  it("fails a refused statement alone: the others of its group are sent again and committed", async () => {
    const outcomes = await Promise.allSettled([
      send("insert", "d1", 1),
      send("insert", "d2", -1),
      send("insert", "d3", 3),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({ code: "23514" }); // check_violation
    expect(await stored("d1")).toEqual([1]);
    expect(await stored("d2")).toEqual([]);
    expect(await stored("d3")).toEqual([3]);
    // Each went alone after the group's rollback: transactions of their own.
    const [first, , third] = outcomes as PromiseFulfilledResult<{ rows: Record<string, unknown>[] }>[];
    expect(tx(first!.value)).not.toBe(tx(third!.value));
  });

  it("fails every statement of a group whose backend ends, and commits none of them", async () => {
    const outcomes = await Promise.allSettled([send("insert", "e1", 1), send("end", "e2"), send("insert", "e3", 3)]);
    expect(outcomes.map((o) => o.status)).toEqual(["rejected", "rejected", "rejected"]);
    expect(await stored("e1")).toEqual([]);
    expect(await stored("e3")).toEqual([]);
    // The pool goes on with a new connection.
    expect(tx(await send("insert", "e4", 4))).toMatch(/^\d+$/);
  });
});

describe("two processes' groups that lock the same threads", () => {
  it("take them in one order: neither group waits for the other in a cycle, so neither is rolled back", async () => {
    await Promise.all([send("insert", "f1", 0), send("insert", "f2", 0)]);
    const otherPool = new pg.Pool({ connectionString: url, max: 2 });
    try {
      const other = new GroupCommit(otherPool, KINDS);
      const bump = (by: GroupCommit, thread: string) =>
        by.send({ name: "bump", text: STATEMENTS.bump, values: [thread] });
      // Sent in opposite orders; each statement holds its row for 0.2 s before the next.
      const [mine, theirs] = await Promise.all([
        Promise.all([bump(group, "f2"), bump(group, "f1")]),
        Promise.all([bump(other, "f1"), bump(other, "f2")]),
      ]);
      // A deadlock would roll one group back and send its statements alone: two transactions.
      expect(tx(mine[0]!)).toBe(tx(mine[1]!));
      expect(tx(theirs[0]!)).toBe(tx(theirs[1]!));
      expect(await stored("f1")).toEqual([2]);
      expect(await stored("f2")).toEqual([2]);
    } finally {
      await otherPool.end();
    }
  });
});

describe("the saver's saves with group commit", () => {
  /** Runs `count` approval round trips at once; returns how many transactions wrote checkpoints of more than one thread. */
  async function concurrentRoundTrips(groupCommit: boolean, count: number) {
    const saver = new PostgresSaver(url, { groupCommit });
    savers.push(saver);
    await saver.setup();
    const graph = approvalGraph(saver);
    const threads = Array.from({ length: count }, (_, i) => `gc-${groupCommit}-${Date.now()}-${i}`);
    await Promise.all(
      threads.map(async (thread_id) => {
        const config = { configurable: { thread_id } };
        await graph.invoke({ draft: "" }, config);
        const done = await graph.invoke(new Command({ resume: `yes ${thread_id}` }), config);
        expect(done).toEqual({ draft: "refund", decision: `yes ${thread_id}` });
      }),
    );
    for (const thread_id of threads) {
      const history = [];
      for await (const state of graph.getStateHistory({ configurable: { thread_id } }))
        history.push(state.metadata?.step);
      expect(history).toEqual([2, 1, 0, -1]);
    }
    const { rows } = await saver.pool.query(
      `SELECT xmin::text AS tx, count(DISTINCT thread_id)::int AS threads FROM interlude_checkpoints
       WHERE thread_id = ANY($1) GROUP BY xmin::text HAVING count(DISTINCT thread_id) > 1`,
      [threads],
    );
    return rows.length;
  }

  it("stores concurrent runs' checkpoints in shared transactions, every thread whole", async () => {
    expect(await concurrentRoundTrips(true, 12)).toBeGreaterThan(0);
  });

  it("with groupCommit false, stores each save in a transaction of its own", async () => {
    expect(await concurrentRoundTrips(false, 12)).toBe(0);
  });

  it("refuses a groupCommit that is not true or false", () => {
    expect(() => new PostgresSaver(url, { groupCommit: "yes" as unknown as boolean })).toThrow(InvalidSaverOptionError);
  });
});
