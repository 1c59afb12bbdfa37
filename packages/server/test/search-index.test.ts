/**
 * Searches run in the database by index (pending-search.ts, thread-search.ts) and find what
 * reading every row did: the inbox's text search agrees with a plain LIKE over the values
 * (sparse and dense texts, short ones, wildcards written literally, after resumes and on an
 * upgraded database), and the thread search agrees with filtering, sorting and paging every
 * thread in JS as it was done before, on SQLite and on PostgreSQL.
 */
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testPostgresUrl } from "../../../test/setup/urls.js";
import { type Db, PgDb, SqliteDb } from "../dist/store/db.js";
import { PENDING_TEXT } from "../dist/store/pending-search.js";
import type { PendingInterrupt, ThreadRecord } from "../dist/store/records.js";
import { MIGRATIONS, migrate } from "../dist/store/schema.js";
import { Store } from "../dist/store/store.js";
import { INDEXED_LENGTH, THREAD_METADATA } from "../dist/store/thread-metadata.js";
import type { ThreadQuery } from "../dist/store/thread-search.js";
import { newThread } from "../dist/threads/new-thread.js";
import { freshDatabase } from "./processes.js";

const pools: pg.Pool[] = [];
afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.end()));
});

async function postgresDb(): Promise<Db> {
  const url = testPostgresUrl();
  const name = `interlude_search_${process.pid}_${Date.now() % 1e6}_${pools.length}`;
  const pool = new pg.Pool({ connectionString: await freshDatabase(url, name), max: 4 });
  pools.push(pool);
  return new PgDb(pool);
}

const backends: Array<[string, () => Promise<Db>]> = [
  ["SQLite", async () => new SqliteDb(new Database(":memory:"))],
  ["PostgreSQL", postgresDb],
];

function interrupt(i: number, value: unknown, graph = "g"): PendingInterrupt {
  return {
    thread_id: `thread-${String(i).padStart(5, "0")}`,
    interrupt_id: `q${i % 3}`,
    graph_id: graph,
    assistant_id: null,
    value: value as PendingInterrupt["value"],
    response_schema: null,
    ns: [],
    created_at: new Date(1_700_000_000_000 + i * 1000).toISOString(),
    deadline_at: null,
  };
}

async function addPending(store: Store, items: PendingInterrupt[]): Promise<void> {
  await store.tx(async (tx) => {
    for (const item of items) await tx.replacePending(item.thread_id, [], [item]);
  });
}

/** What a search must list: every interrupt whose JSON holds `q` (ASCII case folded), oldest first. */
function expected(items: PendingInterrupt[], q: string): string[] {
  return items
    .filter((p) => JSON.stringify(p.value).toLowerCase().includes(q.toLowerCase()))
    .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.thread_id.localeCompare(b.thread_id))
    .map((p) => p.thread_id);
}

describe.each(backends)("the inbox's text search on %s", (_name, open) => {
  let store: Store;
  const items: PendingInterrupt[] = [];
  beforeAll(async () => {
    store = new Store(await open());
    await store.setup();
    // 1,200 interrupts share a text (dense: scanned), a few hold rare ones (sparse: the index).
    for (let i = 0; i < 1_200; i++)
      items.push(interrupt(i, { question: `Approve order ${i}?`, customer: `Customer-${i % 400}` }));
    const odd = [
      { note: "100% sure_thing" },
      { note: "1000 surely" },
      { note: 'say "hello" \\ there' },
      { note: "Café CRÈME" },
      { list: ["Needle-In-Hay", 7] },
    ];
    for (const [n, value] of odd.entries()) items.push(interrupt(2_000 + n, value, "h"));
    await addPending(store, items);
  }, 60_000);

  const searches = [
    "approve order 12", // sparse: 11 of them
    "customer-399", // 3
    "CUSTOMER-7", // 3, in another case
    "approve", // dense: every one of the 1,200
    "needle-in-hay",
    "100%", // % literal, not a wildcard
    "e_t", // _ literal: "sure_thing" only
    "sure_", // "sure_thing", not "surely"
    '"hello"', // quotes as stored in JSON
    "café", // non-ASCII, same case
    "zz", // short: no trigram
    "no such text",
  ];
  it.each(searches)("q=%j lists and counts what LIKE finds", async (q) => {
    const want = expected(items, q);
    const page = await store.pending({ q, limit: 500 });
    expect(page.total).toBe(want.length);
    expect(page.items.map((p) => p.thread_id)).toEqual(want.slice(0, 500));
    const second = await store.pending({ q, limit: 4, offset: 4 });
    expect(second.items.map((p) => p.thread_id)).toEqual(want.slice(4, 8));
  });

  it("combines with the graph filter", async () => {
    expect((await store.pending({ q: "sure", graph_id: "h" })).total).toBe(2);
    expect((await store.pending({ q: "sure", graph_id: "g" })).total).toBe(0);
  });

  it("follows interrupts resolved and asked again", async () => {
    const rare = items.find((p) => JSON.stringify(p.value).includes("Needle"))!;
    await store.tx((tx) => tx.replacePending(rare.thread_id, [rare], []));
    expect((await store.pending({ q: "needle" })).total).toBe(0);
    await addPending(store, [{ ...rare, value: { note: "a new needle" } }]);
    expect((await store.pending({ q: "needle" })).items.map((p) => p.value)).toEqual([{ note: "a new needle" }]);
    expect((await store.pending({ q: "in-hay" })).total).toBe(0);
    // Asked and resolved between two searches: never listed.
    await addPending(store, [interrupt(3_000, { note: "fleeting" })]);
    await store.tx((tx) => tx.replacePending(interrupt(3_000, null).thread_id, [interrupt(3_000, null)], []));
    expect((await store.pending({ q: "fleeting" })).total).toBe(0);
    expect((await store.pending({ q: "needle" })).total).toBe(1);
  });
});

/** A SQLite store at the schema before `migration`, to fill before upgrading it. */
async function storeBefore(migration: (typeof MIGRATIONS)[number]): Promise<Store> {
  const db = new SqliteDb(new Database(":memory:"));
  await migrate(db, MIGRATIONS.indexOf(migration));
  return new Store(db);
}

describe("the search indexes of an upgraded database", () => {
  it("the text index holds the interrupts pending before the upgrade", async () => {
    const store = await storeBefore(PENDING_TEXT);
    await addPending(store, [interrupt(1, { q: "older request" }), interrupt(2, { q: "other" })]);
    await store.setup();
    expect((await store.pending({ q: "older req" })).items.map((p) => p.thread_id)).toEqual(["thread-00001"]);
    await addPending(store, [interrupt(3, { q: "newer request" })]);
    expect((await store.pending({ q: "er request" })).total).toBe(2);
  });

  it("a backlog larger than one batch of indexing is indexed whole", async () => {
    const store = new Store(new SqliteDb(new Database(":memory:")));
    await store.setup();
    await addPending(
      store,
      Array.from({ length: 5_100 }, (_, i) => interrupt(i, { item: `item-${i}-end` })),
    );
    for (const q of ["item-7-end", "item-5099-end", "item-4999-end"])
      expect((await store.pending({ q })).total).toBe(1);
  });

  it("the metadata index holds the threads there before the upgrade", async () => {
    const store = await storeBefore(THREAD_METADATA);
    await store.insertThread(newThread("a", { 'k"\\.': "v", n: 1 }));
    await store.insertThread(newThread("b", { n: 2 }));
    await store.setup();
    expect((await store.threads({ metadata: { 'k"\\.': "v" } })).map((t) => t.thread_id)).toEqual(["a"]);
    expect(await store.countThreads({ metadata: { n: 2 } })).toBe(1);
  });
});

describe("PostgreSQL without the right to create pg_trgm", () => {
  it("migrates without the trigram index, and searches by scanning", async () => {
    const url = testPostgresUrl();
    const suffix = `${process.pid}_${Date.now() % 1e6}`;
    const admin = new pg.Client({ connectionString: await freshDatabase(url, `interlude_notrgm_${suffix}`) });
    await admin.connect();
    const role = `interlude_plain_${suffix}`;
    const database = `interlude_notrgm_${suffix}`;
    try {
      // A role that may create tables in the public schema, but no extension in the database.
      await admin.query(`CREATE ROLE ${role} LOGIN`);
      await admin.query(`REVOKE CREATE ON DATABASE ${database} FROM PUBLIC`);
      await admin.query(`GRANT CREATE, USAGE ON SCHEMA public TO ${role}`);
      const plain = new URL(url);
      plain.username = role;
      plain.pathname = `/${database}`;
      const pool = new pg.Pool({ connectionString: plain.toString(), max: 2 });
      pools.push(pool);
      const store = new Store(new PgDb(pool));
      await store.setup();
      const { rows } = await admin.query("SELECT 1 FROM pg_indexes WHERE indexname = 'interlude_server_pending_text'");
      expect(rows).toEqual([]);
      await addPending(store, [interrupt(1, { note: "scanned text" }), interrupt(2, { note: "other" })]);
      expect((await store.pending({ q: "scanned" })).items.map((p) => p.thread_id)).toEqual(["thread-00001"]);
    } finally {
      await admin.end();
    }
  });
});

/** Binary order, as the databases compare these ASCII columns. */
const compare = (a: unknown, b: unknown) => (String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0);

/** The thread search as it was: every row read, filtered, sorted and paged in JS. */
function searchedInJs(threads: ThreadRecord[], query: ThreadQuery): string[] {
  const matches = (target: any, filter: any) =>
    !filter || Object.entries(filter).every(([k, v]) => JSON.stringify(target?.[k]) === JSON.stringify(v));
  const column = query.sort_by ?? "created_at";
  const sign = query.sort_order === "asc" ? 1 : -1;
  const offset = query.offset ?? 0;
  return threads
    .filter(
      (t) =>
        (!query.status || t.status === query.status) &&
        (!query.ids || query.ids.includes(t.thread_id)) &&
        matches(t.metadata, query.metadata) &&
        matches(t.values, query.values),
    )
    .sort((a, b) => sign * (compare(a[column], b[column]) || compare(a.thread_id, b.thread_id)))
    .slice(offset, query.limit === undefined ? undefined : offset + query.limit)
    .map((t) => t.thread_id);
}

describe.each(backends)("the thread search on %s", (_name, open) => {
  let store: Store;
  const threads: ThreadRecord[] = [];
  const statuses = ["idle", "busy", "interrupted", "error"] as const;
  beforeAll(async () => {
    store = new Store(await open());
    await store.setup();
    for (let i = 0; i < 240; i++) {
      const at = (n: number) => new Date(1_700_000_000_000 + n * 1000).toISOString();
      threads.push({
        thread_id: `t-${String((i * 37) % 240).padStart(3, "0")}`,
        // Ties in every sort column, broken by the thread id.
        created_at: at(Math.floor(i / 2)),
        updated_at: at((i * 7) % 60),
        state_updated_at: at((i * 11) % 90),
        metadata: {
          user: `u${i % 7}`,
          "a.b": i % 2 === 0,
          'say "x"': i % 5 === 0 ? null : "y",
          nested: i % 3 === 0 ? { b: 1, a: [1, "x"] } : { a: [1, "x"], b: 1 },
          ...(i % 4 === 0 ? { rare: i } : {}),
        },
        status: statuses[i % 4]!,
        values: i % 10 === 9 ? null : { count: i % 6, note: `é\n${i % 2}` },
        interrupts: {},
        error: null,
        config: {},
        graph_id: "g",
        assistant_id: null,
      });
    }
    await store.tx(async (tx) => {
      for (const t of threads) await tx.insertThread(t);
    });
  }, 60_000);

  const queries: ThreadQuery[] = [
    { limit: 10 },
    { limit: 25, offset: 30 },
    { limit: 1000 },
    { limit: 7, offset: 3, sort_order: "asc" },
    ...(["thread_id", "status", "created_at", "updated_at", "state_updated_at"] as const).flatMap((sort_by) => [
      { sort_by, limit: 15, offset: 20 },
      { sort_by, sort_order: "asc" as const, limit: 15, offset: 100 },
    ]),
    { status: "interrupted", limit: 100 },
    { status: "error", sort_by: "updated_at", sort_order: "asc", limit: 12, offset: 5 },
    { ids: ["t-001", "t-100", "t-200", "t-999"], limit: 10 },
    { metadata: { user: "u3" }, limit: 100 },
    { metadata: { user: "u3", "a.b": true }, limit: 100 },
    { metadata: { 'say "x"': null }, limit: 100 },
    { metadata: { nested: { b: 1, a: [1, "x"] } }, limit: 100 },
    { metadata: { nested: { a: [1, "x"], b: 1 } }, status: "busy", limit: 100 },
    { metadata: { rare: 8 }, limit: 10 },
    { metadata: { rare: null }, limit: 10 },
    { metadata: { user: "nobody" }, limit: 10 },
    { metadata: {}, limit: 5 },
    { values: { count: 2 }, limit: 100, sort_by: "state_updated_at" },
    { values: { note: "é\n1", count: 3 }, limit: 100 },
    { values: { count: 2 }, metadata: { user: "u2" }, status: "interrupted", limit: 100 },
    { limit: 10, offset: 235 },
    { limit: 0 },
  ];
  it.each(queries)("%j finds, orders and pages as reading every thread did", async (query) => {
    const found = (await store.threads(query)).map((t) => t.thread_id);
    expect(found).toEqual(searchedInJs(threads, query));
    const { limit: _limit, offset: _offset, ...filters } = query;
    expect(await store.countThreads(filters)).toBe(searchedInJs(threads, filters).length);
  });

  it("follows metadata changed, saved unchanged and deleted, and finds values too long to index", async () => {
    const [thread] = await store.threads({ ids: ["t-005"], limit: 1 });
    const blob = "ü".repeat(INDEXED_LENGTH);
    await store.saveThreadMetadata({ ...thread!, metadata: { ...thread!.metadata, user: "moved", blob } });
    await store.saveThreadMetadata({ ...thread!, metadata: { ...thread!.metadata, user: "moved", blob } });
    const ids = async (metadata: Record<string, unknown>) =>
      (await store.threads({ metadata, limit: 100 })).map((t) => t.thread_id);
    expect(await ids({ user: "moved" })).toEqual(["t-005"]);
    expect(await ids({ blob })).toEqual(["t-005"]);
    expect(await ids({ blob, user: "moved" })).toEqual(["t-005"]);
    expect(await ids({ user: thread!.metadata.user })).not.toContain("t-005");
    await store.deleteThread("t-005");
    expect(await ids({ user: "moved" })).toEqual([]);
    await store.insertThread(thread!);
    expect(await ids({ user: thread!.metadata.user })).toContain("t-005");
  });

  it("returns whole records", async () => {
    const [first] = await store.threads({ ids: ["t-037"], limit: 1 });
    expect(first).toEqual(threads.find((t) => t.thread_id === "t-037"));
  });
});
