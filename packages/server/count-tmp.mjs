import Database from "better-sqlite3";
import pg from "pg";
import { throwawayDatabase } from "./bench/load.mjs";
import { PgDb, SqliteDb } from "./dist/store/db.js";
import { Store } from "./dist/store/store.js";

const N = 100_000;
const median = (v) => [...v].sort((a, b) => a - b)[v.length >> 1];
async function time(fn) {
  const t = [];
  for (let i = 0; i < 21; i++) {
    const s = performance.now();
    await fn();
    t.push(performance.now() - s);
  }
  return median(t).toFixed(2);
}
async function fill(db) {
  const base = Date.now() - N;
  for (let i = 0; i < N; i += 5000) {
    await db.tx(async (tx) => {
      const rows = Array.from({ length: 5000 }, (_, j) => [
        `t${i + j}`,
        "i",
        "loop",
        "loop",
        '{"question":"next?","n":0}',
        null,
        "[]",
        new Date(base + i + j).toISOString(),
        null,
      ]);
      for (const r of rows)
        await tx.run(
          "INSERT INTO interlude_server_pending (thread_id, interrupt_id, graph_id, assistant_id, value, response_schema, ns, created_at, deadline_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
          r,
        );
    });
  }
}
async function report(label, store, db) {
  await fill(db);
  if (db.dialect === "postgres") await db.exec("VACUUM ANALYZE interlude_server_pending");
  console.log(
    label,
    "COUNT(*)",
    await time(() => db.all("SELECT COUNT(*) AS n FROM interlude_server_pending")),
    "ms;",
    "counters",
    await time(() => db.all("SELECT SUM(n) AS n FROM interlude_server_pending_counts")),
    "ms;",
    "listing 50 oldest with total",
    await time(() => store.pending({ limit: 50 })),
    "ms; total",
    (await store.pending({ limit: 1 })).total,
  );
}
const raw = new Database("/tmp/paused-heap/count.sqlite");
raw.pragma("journal_mode = WAL");
const sdb = new SqliteDb(raw);
const s = new Store(sdb);
await s.setup();
await report("SQLite", s, sdb);
raw.close();
const database = await throwawayDatabase("interlude_count");
const pool = new pg.Pool({ connectionString: database.url, max: 2 });
const pdb = new PgDb(pool);
const p = new Store(pdb);
await p.setup();
await pdb.exec("SET synchronous_commit = off");
await report("PostgreSQL", p, pdb);
await pool.end();
database.stop();
