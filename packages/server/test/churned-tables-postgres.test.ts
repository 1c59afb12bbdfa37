/**
 * The PostgreSQL store's tables of what comes and goes (pending interrupts, above all) hold a
 * few live rows among many dead ones. Once a vacuum recorded such a table as a few pages, the
 * prepared statements' generic plans turned to sequential scans, and every answer read the whole
 * heap regrown since: ~50 buffers of pending interrupts per answer in the first test, growing
 * with the heap, where reading by key takes ~7. The store's connections now plan no scan where
 * an index serves; a search, planned at each call, may still scan.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { heapBuffersRead } from "../../../test/setup/postgres-counters.mjs";
// @ts-expect-error: a plain ESM script without types, shared with `npm run bench:server`.
import { runLoad } from "../bench/http-load.mjs";
import type { PgDb } from "../dist/store/db.js";
import { type TestServer, testServer } from "./helpers.js";
import { databaseForFile } from "./processes.js";

let server: TestServer;
const database = databaseForFile("interlude_churned");
const stats = () => database.sql;

beforeAll(async () => {
  server = await testServer({ postgresUrl: database.url });
});
afterAll(async () => {
  await server?.dispose();
});

const store = () => server.backend.ctx.store.db as PgDb;

/** Threads that come and go: 20 clients, each on a new thread asked and answered `rounds` times, `batches` times over. */
async function churn(batches: number, rounds = 3): Promise<number> {
  let answers = 0;
  for (let i = 0; i < batches; i++) answers += (await runLoad({ url: server.url, clients: 20, rounds })).roundTrips;
  return answers;
}

/** Buffers read from the pending interrupts' heap so far, as every connection of the store's pool has reported them. */
const pendingHeapBuffers = () => heapBuffersRead(store().pool, stats(), "interlude_server_pending");

describe("PostgreSQL store's churned tables", () => {
  it("an answer reads pending interrupts by key after a vacuum of a table that saw thousands come and go", async () => {
    await churn(10);
    await stats().query("VACUUM ANALYZE interlude_server_pending");
    // A transaction open meanwhile (a report, a backup) keeps dead rows from being pruned: the heap regrows.
    const reader = new pg.Client({ connectionString: database.url });
    await reader.connect();
    await reader.query("BEGIN ISOLATION LEVEL REPEATABLE READ");
    await reader.query("SELECT count(*) FROM interlude_server_pending");
    try {
      const before = await pendingHeapBuffers();
      const answers = await churn(10);
      const perAnswer = ((await pendingHeapBuffers()) - before) / answers;
      expect(perAnswer).toBeGreaterThan(1); // counted at all
      expect(perAnswer).toBeLessThan(15);
    } finally {
      await reader.query("COMMIT");
      await reader.end();
    }
  }, 120_000);

  it("plans a prepared statement without scans and a search with them, alone and in a transaction", async () => {
    const db = store();
    const setting = "SELECT current_setting('enable_seqscan') AS on";
    expect(await db.all(setting)).toEqual([{ on: "off" }]);
    expect(await db.search(setting, [])).toEqual([{ on: "on" }]);
    expect(await db.all(setting)).toEqual([{ on: "off" }]);
    const seen = await db.tx(async (tx) => {
      await tx.write("SELECT 1 WHERE ? = 'held'", ["held"]); // goes out before the search
      const during = await tx.search(setting, []);
      return { during, after: await tx.all(setting) };
    });
    expect(seen).toEqual({ during: [{ on: "on" }], after: [{ on: "off" }] });
    // A search that fails in a transaction: its connection goes back to the pool (the next to
    // be handed out) refusing scans again.
    const where = "SELECT pg_backend_pid() AS pid, current_setting('enable_seqscan') AS on";
    let inside: unknown;
    await expect(
      db.tx(async (tx) => {
        [inside] = await tx.all(where);
        await tx.search("SELECT 1 / (? - 1)", [1]);
      }),
    ).rejects.toMatchObject({ code: "22012" });
    expect(await db.all(where)).toEqual([inside]);
  });
});
