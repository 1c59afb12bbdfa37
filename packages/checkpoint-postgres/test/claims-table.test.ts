import { PostgresSaver } from "@interlude/checkpoint-postgres";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { heapBuffersRead } from "../../../test/setup/postgres-counters.mjs";
import { testPostgresUrl } from "../../../test/setup/urls.js";

const url = testPostgresUrl();

// A database of its own: the buffer counts and the VACUUM must not see other files' claims.
const database = `interlude_claims_table_${process.pid}_${Date.now() % 1e6}`;
const dbUrl = url.replace(/\/[^/]*$/, `/${database}`);
const admin = new pg.Client({ connectionString: url });
let pool: pg.Pool;
let db: pg.Client;
let saver: PostgresSaver;

beforeAll(async () => {
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  pool = new pg.Pool({ connectionString: dbUrl, max: 2 });
  saver = new PostgresSaver(pool);
  await saver.setup();
  db = new pg.Client({ connectionString: dbUrl });
  await db.connect();
});

afterAll(async () => {
  await saver.close();
  await pool.end();
  await db.end();
  await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await admin.end();
});

/** Runs `count` claim-and-release cycles, each on a thread never claimed before (a run's first claim). */
async function cycles(prefix: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const threadId = `${prefix}-${i}`;
    expect(await saver.claimThread(threadId, { owner: `run-${i}`, ttlMs: 60_000 })).toBe(true);
    await saver.releaseThread(threadId, `run-${i}`);
  }
}

/** Buffers read from the claims table's heap so far, as every connection of the pool has reported them. */
const claimsHeapBuffers = () => heapBuffersRead(pool, db, "interlude_claims");

const rowOf = async (threadId: string) =>
  (await db.query("SELECT owner, expires_at FROM interlude_claims WHERE thread_id = $1", [threadId])).rows[0];

describe("PostgresSaver's claims table", () => {
  it("keeps finding claims by key after a vacuum of a table that saw thousands of claims come and go", async () => {
    // Deleted on release, the rows left a few live and thousands dead: the vacuum recorded a few
    // pages, the claim statements' cached plans turned to sequential scans, and each claim and
    // release read the whole heap regrown since (26 buffers a cycle here where 6 do, and growing).
    await cycles("before", 1500);
    await db.query("VACUUM ANALYZE interlude_claims");
    // A transaction open meanwhile (a report, a backup, another application's) keeps the dead
    // rows from being pruned, as busy servers see: the heap grows with every cycle.
    const reader = new pg.Client({ connectionString: dbUrl });
    await reader.connect();
    await reader.query("BEGIN ISOLATION LEVEL REPEATABLE READ");
    await reader.query("SELECT count(*) FROM interlude_claims");
    try {
      const before = await claimsHeapBuffers();
      await cycles("after", 3000);
      const perCycle = ((await claimsHeapBuffers()) - before) / 3000;
      // By key: a claim's lookup and insert and a release's update, a few buffers each.
      expect(perCycle).toBeLessThan(10);
    } finally {
      await reader.query("COMMIT");
      await reader.end();
    }
  });

  it("keeps a released claim's row, free to any owner, until its thread is deleted; the sweep takes dead holders' rows", async () => {
    expect(await saver.claimThread("kept", { owner: "run-a", ttlMs: 60_000 })).toBe(true);
    await saver.releaseThread("kept", "run-a");
    expect(await saver.claimHolder("kept")).toBeUndefined();
    expect(await rowOf("kept")).toBeDefined();
    expect(await saver.claimThread("kept", { owner: "run-b", ttlMs: 60_000 })).toBe(true);
    expect((await saver.claimHolder("kept"))?.owner).toBe("run-b");
    await saver.releaseThread("kept", "run-b");

    // A holder that died: its claim expired without a release.
    await db.query("INSERT INTO interlude_claims VALUES ('dead', 'run-gone', now() - interval '1 second')");
    await saver.sweep();
    expect(await rowOf("dead")).toBeUndefined();
    expect(await rowOf("kept")).toBeDefined();

    await saver.deleteThread("kept");
    expect(await rowOf("kept")).toBeUndefined();
  });

  it("leaves a held claim to its holder when its thread is deleted", async () => {
    expect(await saver.claimThread("held", { owner: "run-h", ttlMs: 60_000 })).toBe(true);
    await saver.deleteThread("held");
    expect((await saver.claimHolder("held"))?.owner).toBe("run-h");
    expect(await saver.claimThread("held", { owner: "run-other", ttlMs: 60_000 })).toBe(false);
    await saver.releaseThread("held", "run-h");
  });
});
