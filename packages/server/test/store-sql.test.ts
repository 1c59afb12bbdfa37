/**
 * The store's SQL on SQLite and on PostgreSQL: the answers a thread's sync reads, upgrading a
 * populated database to the cheaper writes (fillfactor, lz4), and recounting the pending
 * interrupts after servers of an earlier version wrote some without counting them (a rolling
 * upgrade), and reads that keep working when a later version adds columns.
 */
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { testPostgresUrl } from "../../../test/setup/urls.js";
import { ASSISTANT_VERSIONS } from "../dist/store/assistant-versions.js";
import { CHEAPER_WRITES } from "../dist/store/cheaper-writes.js";
import { type Db, PgDb, SqliteDb } from "../dist/store/db.js";
import { PENDING_RECOUNTED } from "../dist/store/pending-counts.js";
import type { PendingInterrupt, RunRecord } from "../dist/store/records.js";
import { MIGRATIONS, migrate } from "../dist/store/schema.js";
import { Store } from "../dist/store/store.js";
import { queueView, syncView } from "../dist/store/views.js";
import { newThread } from "../dist/threads/new-thread.js";
import { assistantRecord } from "./helpers.js";
import { freshDatabase } from "./processes.js";

const pools: pg.Pool[] = [];
afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.end()));
});

let databases = 0;
const opened: Record<Db["dialect"], (connections?: number) => Promise<Db>> = {
  sqlite: async () => new SqliteDb(new Database(":memory:")),
  /** `connections`: 1 to have every statement run, and stay prepared, on one connection. */
  postgres: async (connections = 4) => {
    const url = testPostgresUrl();
    const name = `interlude_upgrade_${process.pid}_${Date.now() % 1e6}_${databases++}`;
    const pool = new pg.Pool({ connectionString: await freshDatabase(url, name), max: connections });
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

/** Run "r" of thread "t", assistant "a", running (its first claim), queued by "u1". */
function runningRun(at: string, fields: Partial<RunRecord> = {}): RunRecord {
  return {
    run_id: "r",
    thread_id: "t",
    assistant_id: "a",
    created_at: at,
    updated_at: at,
    status: "running",
    metadata: {},
    multitask_strategy: "reject",
    kwargs: {},
    identity: "u1",
    owner: null,
    attempt: 1,
    error: null,
    ...fields,
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
    await store.saveThreadSync({ ...(await store.getThread("before"))!, values: after }, { values: true });
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

describe.each(["sqlite", "postgres"] as const)("%s, a run's moves", (dialect) => {
  it("a move that names its claim leaves a run claimed again since alone", async () => {
    const store = new Store(await opened[dialect]());
    await store.setup();
    const at = new Date().toISOString();
    await store.assistants.insert(assistantRecord("a", "a", "g"));
    await store.insertThread(newThread("t", {}));
    await store.insertRun(runningRun(at, { attempt: 2 }));
    // The first claim's process ends it after its lease lapsed and another process claimed it (attempt 2).
    expect(await store.moveRun("r", ["running"], "success", { claimed: 1 })).toBe(false);
    expect((await store.getRun("r"))?.status).toBe("running");
    expect(await store.moveRun("r", ["running"], "success", { claimed: 2 })).toBe(true);
    expect((await store.getRun("r"))?.status).toBe("success");
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
    expect(await store.assistants.edit("a", (a) => a)).toMatchObject({ ...edited, version: 4 });
  });
});

describe.each(["sqlite", "postgres"] as const)("%s, a column added by a later version", (dialect) => {
  /** Every read of whole records the store makes, as plain values to compare. */
  async function readEverything(store: Store, db: Db) {
    const sync = await syncView(db, "t", { values: true, asked: ["asked"] });
    const queue = await queueView(db, "t", { pending: true });
    const answering = await queueView(db, "t", { answerIds: ["q1"] });
    return {
      thread: await store.getThread("t"),
      threadButValues: await store.getThread("t", { values: false }),
      threads: await store.threads({}),
      run: await store.getRun("r"),
      runs: await store.runs("t"),
      active: await store.activeRuns("t"),
      stale: await store.staleRuns("9999"),
      runsIn: await store.runsIn("all"),
      pending: await store.pendingOf("t"),
      inbox: await store.pending({}),
      answer: await store.answer("t", "q1"),
      latest: await store.latestAnswer("t"),
      sync: { ...sync, answers: [...sync.answers] },
      queue: { ...queue, answers: [...queue.answers] },
      answering: [...answering.answers],
      assistant: await store.assistants.get("a"),
      assistants: await store.assistants.search({}),
      versions: await store.assistants.versions("a"),
    };
  }

  // A rolling upgrade: servers of the previous version keep running on connections whose
  // statements were prepared before the next version's migration added columns.
  it("leaves every read of a running server working, on the connection that prepared it", async () => {
    const db = await opened[dialect](1);
    const store = new Store(db);
    await store.setup();
    const at = "2026-12-01T00:00:00.000Z";
    await store.assistants.insert(assistantRecord("a", "a", "g"));
    await store.insertThread({ ...newThread("t", { user: "u1" }), values: { n: 1 } });
    await store.insertRun(runningRun(at, { kwargs: { input: { n: 1 } } }));
    await store.tx((tx) => tx.replacePending("t", [], [pending("t", "g", "q1"), pending("t", "g", "q2")]));
    await store.reserveAnswer({
      thread_id: "t",
      interrupt_id: "q1",
      by: "u1",
      answer: "yes",
      at,
      run_id: "r",
      state: "reserved",
    });
    // Six times: PostgreSQL plans a prepared statement generically from its sixth run on.
    for (let i = 0; i < 6; i++) await readEverything(store, db);
    const before = await readEverything(store, db);
    expect(before.inbox.total).toBe(2);
    expect(before.answer?.answer).toBe("yes");
    expect(before.versions).toHaveLength(1);

    const tables = [
      "interlude_server_threads",
      "interlude_server_runs",
      "interlude_server_pending",
      "interlude_server_answers",
      "interlude_server_assistants",
      "interlude_server_assistant_versions",
    ];
    for (const table of tables) {
      const alter = `ALTER TABLE ${table} ADD COLUMN added_later text`;
      if (db instanceof PgDb) await db.pool.query(alter);
      else await db.run(alter);
    }
    expect(await readEverything(store, db)).toEqual(before);
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
