/**
 * The store's SQL on SQLite and on PostgreSQL: the answers a thread's sync reads, upgrading a
 * populated database to the cheaper writes (fillfactor, lz4), and recounting the pending
 * interrupts after servers of an earlier version wrote some without counting them (a rolling
 * upgrade).
 */
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, describe, expect, inject, it } from "vitest";
import { ASSISTANT_VERSIONS } from "../dist/store/assistant-versions.js";
import { CHEAPER_WRITES } from "../dist/store/cheaper-writes.js";
import { type Db, PgDb, SqliteDb } from "../dist/store/db.js";
import { PENDING_RECOUNTED } from "../dist/store/pending-counts.js";
import type { PendingInterrupt } from "../dist/store/records.js";
import { MIGRATIONS, migrate } from "../dist/store/schema.js";
import { Store } from "../dist/store/store.js";
import { syncView } from "../dist/store/views.js";
import { newThread } from "../dist/threads/new-thread.js";
import { freshDatabase } from "./processes.js";

const pools: pg.Pool[] = [];
afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.end()));
});

let databases = 0;
const opened: Record<Db["dialect"], () => Promise<Db>> = {
  sqlite: async () => new SqliteDb(new Database(":memory:")),
  postgres: async () => {
    const url = inject("postgresUrl");
    if (!url) throw new Error("PostgreSQL test server not available");
    const name = `interlude_upgrade_${process.pid}_${Date.now() % 1e6}_${databases++}`;
    const pool = new pg.Pool({ connectionString: await freshDatabase(url, name), max: 4 });
    pools.push(pool);
    return new PgDb(pool);
  },
};

function pending(threadId: string, graphId: string | null, interruptId = "question"): PendingInterrupt {
  return {
    thread_id: threadId,
    interrupt_id: interruptId,
    graph_id: graphId,
    assistant_id: null,
    value: { question: `approve ${threadId}?` },
    response_schema: null,
    ns: [],
    created_at: new Date().toISOString(),
    deadline_at: null,
  };
}

/** What a server of a version without counting (triggers dropped) writes: rows, no counter. */
async function writtenUncounted(db: Db, add: string[], remove: string[]): Promise<void> {
  for (const thread of add)
    await db.run(
      "INSERT INTO interlude_server_pending (thread_id, interrupt_id, graph_id, value, ns, created_at) VALUES (?, 'question', 'x', '{}', '[]', ?)",
      [thread, new Date().toISOString()],
    );
  for (const thread of remove) await db.run("DELETE FROM interlude_server_pending WHERE thread_id = ?", [thread]);
}

describe.each(["sqlite", "postgres"] as const)("%s", (dialect) => {
  it("a sync reads the answers to the pending interrupts and to those asked, and no others", async () => {
    const db = await opened[dialect]();
    const store = new Store(db);
    await store.setup();
    await store.insertThread(newThread("t"));
    await store.tx((tx) => tx.replacePending("t", [], [pending("t", null, "p1"), pending("t", null, "p2")]));
    const answer = (interruptId: string, state: "reserved" | "applied") =>
      store.insertAnswer({
        thread_id: "t",
        interrupt_id: interruptId,
        by: "ann",
        answer: interruptId,
        at: "2026-12-01T00:00:00.000Z",
        run_id: "r",
        state,
      });
    await answer("p1", "reserved");
    await answer("asked", "applied");
    await answer("older", "applied");
    const ids = async (asked: string[]) =>
      [...(await syncView(db, "t", { values: false, asked })).answers.keys()].sort();
    expect(await ids([])).toEqual(["p1"]);
    expect(await ids(["asked", "p1", "p2"])).toEqual(["asked", "p1"]);
    const view = await syncView(db, "t", { values: false, asked: ["asked"] });
    expect(view.answers.get("asked")).toMatchObject({ state: "applied", by: "ann", answer: "asked" });
  });

  it("a sync writes what it changes and leaves the thread's metadata and config as stored", async () => {
    const db = await opened[dialect]();
    const store = new Store(db);
    await store.setup();
    await store.insertThread({ ...newThread("t", { user: "u1" }), config: { tags: ["kept"] }, values: { n: 1 } });
    const view = await syncView(db, "t", { values: false, asked: [] });
    // Neither the old interrupts nor (not asked) the values are read: the sync replaces them.
    expect(view.thread).toMatchObject({ metadata: { user: "u1" }, config: { tags: ["kept"] }, interrupts: {} });
    expect(view.thread?.values).toBeNull();
    const interrupts = { task: [{ id: "i1", value: "approve?" }] };
    // A record whose metadata and config differ from the stored ones: only the sync's columns are written.
    const changed = { ...view.thread!, metadata: { user: "other" }, config: {}, status: "interrupted" as const };
    await store.tx((tx) => tx.saveThreadSync({ ...changed, interrupts, values: { n: 2 } }, { values: false }));
    expect(await store.getThread("t")).toMatchObject({
      metadata: { user: "u1" },
      config: { tags: ["kept"] },
      status: "interrupted",
      interrupts,
      values: { n: 1 },
    });
    await store.tx((tx) =>
      tx.saveThreadSync({ ...changed, status: "idle", interrupts: {}, values: { n: 3 } }, { values: true }),
    );
    expect(await store.getThread("t")).toMatchObject({
      metadata: { user: "u1" },
      status: "idle",
      interrupts: {},
      values: { n: 3 },
    });
    expect((await syncView(db, "t", { values: true, asked: [] })).thread?.values).toEqual({ n: 3 });
  });

  it("a database with threads and interrupts upgrades to the cheaper writes and keeps every value", async () => {
    const db = await opened[dialect]();
    await migrate(db, MIGRATIONS.indexOf(CHEAPER_WRITES));
    const store = new Store(db);
    // A state large enough to be compressed (~40 kB of JSON).
    const values = {
      messages: Array.from({ length: 400 }, (_, i) => ({ id: `m${i}`, content: `message ${i} `.repeat(8) })),
    };
    await store.insertThread({ ...newThread("before", { user: "u1" }), values });
    await store.tx((tx) => tx.replacePending("before", [], [pending("before", "x")]));
    await store.setup();

    expect((await store.getThread("before"))?.values).toEqual(values);
    const after = { ...values, messages: [...values.messages, { id: "new", content: "after the upgrade" }] };
    await store.saveThread({ ...(await store.getThread("before"))!, values: after });
    expect((await store.getThread("before"))?.values).toEqual(after);
    expect((await store.pending({ q: "approve before" })).total).toBe(1);
    expect((await store.pending({})).total).toBe(1);
    if (dialect === "postgres") {
      const options = await db.all<{ relname: string; reloptions: string[] }>(
        "SELECT relname, reloptions FROM pg_class WHERE relname IN ('interlude_server_threads', 'interlude_server_answers') ORDER BY relname",
      );
      expect(options).toEqual([
        { relname: "interlude_server_answers", reloptions: ["fillfactor=90"] },
        { relname: "interlude_server_threads", reloptions: ["fillfactor=90"] },
      ]);
      const [stored] = await db.all<{ method: string }>(
        `SELECT pg_column_compression("values") AS method FROM interlude_server_threads WHERE thread_id = ?`,
        ["before"],
      );
      expect(stored?.method).toBe("lz4");
    }
  });

  it("a recount corrects the total after an earlier version's server wrote pending rows without counting them", async () => {
    const db = await opened[dialect]();
    const store = new Store(db);
    await store.setup();
    await store.tx((tx) => tx.replacePending("a", [], [pending("a", "x")]));
    await store.tx((tx) => tx.replacePending("b", [], [pending("b", null)]));
    // The old server pauses c and d and resolves a's question: the counters still say 2.
    await writtenUncounted(db, ["c", "d"], ["a"]);
    expect((await store.pending({})).total).toBe(2);

    expect(await store.recountPending()).toEqual({ counted: 2, recounted: 3 });
    expect((await store.pending({})).total).toBe(3);
    expect((await store.pending({ graph_id: "x" })).total).toBe(2);
    // The store's own changes are counted on top of the recount.
    await store.tx((tx) => tx.replacePending("c", [pending("c", "x")], []));
    expect((await store.pending({ graph_id: "x" })).total).toBe(1);
    expect(await store.recountPending()).toEqual({ counted: 2, recounted: 2 });
  });

  it("the upgrade to this version recounts once, for databases that drifted before the recount existed", async () => {
    const db = await opened[dialect]();
    await migrate(db, MIGRATIONS.indexOf(PENDING_RECOUNTED));
    const store = new Store(db);
    await store.tx((tx) => tx.replacePending("a", [], [pending("a", "x")]));
    await writtenUncounted(db, ["b", "c"], []);
    expect((await store.pending({})).total).toBe(1);
    await store.setup();
    expect((await store.pending({})).total).toBe(3);
  });
});

describe.each(["sqlite", "postgres"] as const)("%s, the upgrade that records assistants' versions", (dialect) => {
  it("keeps each assistant's current version as its first recorded one, and the next update numbers after it", async () => {
    const db = await opened[dialect]();
    await migrate(db, MIGRATIONS.indexOf(ASSISTANT_VERSIONS));
    const store = new Store(db);
    const at = "2026-12-01T00:00:00.000Z";
    const edited = { assistant_id: "a", graph_id: "g", name: "a", description: null, config: { tags: ["x"] } };
    await db.run(
      `INSERT INTO interlude_server_assistants (assistant_id, created_at, graph_id, name, description, config, context, metadata, version, updated_at)
       VALUES ('a', ?, 'g', 'a', NULL, '{"tags":["x"]}', '{}', '{}', 3, ?)`,
      [at, at],
    );
    await store.setup();
    const [first] = await store.assistants.versions("a");
    expect(first).toMatchObject({ ...edited, version: 3, created_at: at });
    expect(await store.assistants.nextVersion(first!)).toBe(4);
  });
});

describe("postgres, a recount while interrupts are asked and answered", () => {
  it("counts each change once: the changes before it in the recount, those after it on top", async () => {
    const db = await opened.postgres();
    const store = new Store(db);
    await store.setup();
    const threads = Array.from({ length: 12 }, (_, i) => `t${i}`);
    await Promise.all(threads.map((t) => store.tx((tx) => tx.replacePending(t, [], [pending(t, "x")]), t)));
    // Each thread's question answered and the next asked in another graph, while recounts run.
    const changes = threads.map((t) =>
      store.tx((tx) => tx.replacePending(t, [pending(t, "x")], [pending(t, "y", "next")]), t),
    );
    const recounts = [store.recountPending(), store.recountPending()];
    await Promise.all([...changes, ...recounts]);
    expect((await store.pending({})).total).toBe(12);
    expect((await store.pending({ graph_id: "x" })).total).toBe(0);
    expect((await store.pending({ graph_id: "y" })).total).toBe(12);
  });
});
