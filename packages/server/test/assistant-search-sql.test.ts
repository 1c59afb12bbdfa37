/**
 * An assistant search sorts the same on SQLite and on PostgreSQL: by the field asked, ties by id
 * in the same direction, text by code point whatever the database's locale. The PostgreSQL
 * database here sorts text in English (ICU), which puts "B" after "a" unless told otherwise.
 */
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { testPostgresUrl } from "../../../test/setup/urls.js";
import { type Db, PgDb, SqliteDb } from "../dist/store/db.js";
import { Store } from "../dist/store/store.js";
import { assistantRecord as assistant } from "./helpers.js";

const pools: pg.Pool[] = [];
afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.end()));
});

const opened: Record<Db["dialect"], () => Promise<Db>> = {
  sqlite: async () => new SqliteDb(new Database(":memory:")),
  postgres: async () => {
    const url = testPostgresUrl();
    const name = `interlude_assistant_sort_${process.pid}_${Date.now() % 1e6}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query(
        `CREATE DATABASE ${name} TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en' LOCALE 'C.UTF-8'`,
      );
    } finally {
      await admin.end();
    }
    const database = new URL(url);
    database.pathname = `/${name}`;
    const pool = new pg.Pool({ connectionString: database.toString(), max: 2 });
    pools.push(pool);
    return new PgDb(pool);
  },
};

describe.each(["sqlite", "postgres"] as const)("%s", (dialect) => {
  it("assistants sort by the field asked, ties by id in the same direction, text by code point", async () => {
    const store = new Store(await opened[dialect]());
    await store.setup();
    for (const a of [
      assistant("id-1", "beta", "g2", 3),
      assistant("id-2", "Beta", "g1", 1),
      assistant("id-3", "alpha", "g1", 2),
      assistant("id-4", "_under", "g2", 2),
    ])
      await store.assistants.insert(a);
    const ids = async (sort_by: "name" | "graph_id" | "created_at", sort_order: "asc" | "desc") =>
      (await store.assistants.search({}, { sort_by, sort_order })).map((a) => a.assistant_id);
    // Code points: "B" (66) < "_" (95) < "a" (97) < "b" (98).
    expect(await ids("name", "asc")).toEqual(["id-2", "id-4", "id-3", "id-1"]);
    expect(await ids("name", "desc")).toEqual(["id-1", "id-3", "id-4", "id-2"]);
    expect(await ids("graph_id", "asc")).toEqual(["id-2", "id-3", "id-1", "id-4"]);
    expect(await ids("created_at", "desc")).toEqual(["id-1", "id-4", "id-3", "id-2"]);
    // Oldest first when no order is asked (counting, and callers that do not sort).
    expect((await store.assistants.search()).map((a) => a.assistant_id)).toEqual(["id-2", "id-3", "id-4", "id-1"]);
  });
});
