/**
 * Seeding for the many-paused-threads benchmark (paused.mjs): copies of one thread paused
 * through the API, written straight into the database under new thread ids. Creating 100,000
 * paused threads through HTTP takes ~17 minutes on SQLite and over an hour on PostgreSQL on a
 * loaded 2-core machine; copying takes seconds, and what the server then holds per thread (rows
 * only) is the same as for a thread it paused itself.
 *
 * Every table, the server's and the checkpointer's, with a `thread_id` column gets a copy of the
 * template thread's rows (found by introspection, so a new table of a saver is copied too):
 * - `thread_id` is the copy's id; `run_id` a new id (runs are keyed by it);
 * - in the server's tables (`interlude_server_*`), `created_at`, `updated_at` and
 *   `state_updated_at` are the copy's own instant, one millisecond apart, so the inbox's
 *   oldest-first order has no ties to sort;
 * - checkpoint rows, blobs and writes are copied as they are: interrupt ids derive from the task
 *   and checkpoint, not the thread, so each copy's pending interrupt has the template's id and
 *   is answered like it;
 * - thread claims are skipped (a paused thread holds none; on PostgreSQL the template keeps its
 *   released claim's row, which a copy's first resume inserts instead), and so are the search
 *   indexes kept by triggers (filled by the copies' inserts) and PostgreSQL columns filled by a
 *   sequence (they take the next value).
 * Copies go in in transactions of `batch` threads. The pending-interrupt counters are kept by the
 * store, not by triggers (store/pending-counts.ts), so rows written here are counted afterwards
 * with the CLI's `interlude recount`, as an operator would after writing pending rows by hand.
 */
import { randomUUID } from "node:crypto";
import { recount } from "../dist/cli/commands/recount.js";

const SERVER_TABLE = /^interlude_server_/;
const STAMPED = new Set(["created_at", "updated_at", "state_updated_at"]);
// Claims: a paused thread holds none. Indexes kept by triggers: the copies' own inserts fill them.
const SKIPPED_TABLES = /(^|_)claims$|^interlude_server_(pending_text_keys|thread_metadata)$/;

/** The expression a copied column takes, `s` being the row of the seed table. */
function copied(table, column, quote) {
  if (column === "thread_id") return "s.thread_id";
  if (column === "run_id") return "s.run_id";
  if (SERVER_TABLE.test(table) && STAMPED.has(column)) return "s.at";
  return `t.${quote(column)}`;
}

function seeds(count) {
  const base = Date.now() - count;
  return Array.from({ length: count }, (_, i) => ({
    thread_id: randomUUID(),
    run_id: randomUUID(),
    at: new Date(base + i).toISOString(),
  }));
}

/** Copies `template` `count` times into the SQLite file `path`; returns the new thread ids. */
export async function seedSqlite(path, template, count, { batch = 5_000 } = {}) {
  const { default: Database } = await import("better-sqlite3");
  const db = new Database(path);
  db.pragma("busy_timeout = 30000");
  const quote = (name) => `"${name}"`;
  const ids = [];
  try {
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
      .pluck()
      .all()
      .filter((t) => !SKIPPED_TABLES.test(t))
      .map((table) => ({ table, columns: db.pragma(`table_info(${quote(table)})`).map((c) => c.name) }))
      .filter(({ columns }) => columns.includes("thread_id"));
    db.exec("CREATE TEMP TABLE seed (thread_id TEXT, run_id TEXT, at TEXT)");
    const addSeed = db.prepare("INSERT INTO seed (thread_id, run_id, at) VALUES (?, ?, ?)");
    const copies = tables.map(({ table, columns }) =>
      db.prepare(
        `INSERT INTO ${quote(table)} (${columns.map(quote).join(", ")})
         SELECT ${columns.map((c) => copied(table, c, quote)).join(", ")} FROM ${quote(table)} t, seed s WHERE t.thread_id = ?`,
      ),
    );
    for (let done = 0; done < count; done += batch) {
      const chunk = seeds(Math.min(batch, count - done));
      db.transaction(() => {
        db.exec("DELETE FROM seed");
        for (const s of chunk) addSeed.run(s.thread_id, s.run_id, s.at);
        for (const copy of copies) copy.run(template);
      })();
      ids.push(...chunk.map((s) => s.thread_id));
    }
  } finally {
    db.close();
  }
  await recount({ db: path });
  return ids;
}

/** Copies `template` `count` times into the PostgreSQL database at `url`; returns the new thread ids. */
export async function seedPostgres(url, template, count, { batch = 5_000 } = {}) {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const quote = (name) => `"${name.replace(/"/g, '""')}"`;
  const ids = [];
  try {
    const { rows } = await client.query(
      `SELECT table_name, column_name, column_default FROM information_schema.columns
       WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`,
    );
    const byTable = new Map();
    for (const r of rows) {
      if (SKIPPED_TABLES.test(r.table_name) || String(r.column_default ?? "").startsWith("nextval(")) continue;
      byTable.set(r.table_name, [...(byTable.get(r.table_name) ?? []), r.column_name]);
    }
    const copies = [...byTable]
      .filter(([, columns]) => columns.includes("thread_id"))
      .map(
        ([table, columns]) =>
          `INSERT INTO ${quote(table)} (${columns.map(quote).join(", ")})
           SELECT ${columns.map((c) => copied(table, c, quote)).join(", ")} FROM ${quote(table)} t, seed s WHERE t.thread_id = $1`,
      );
    await client.query("CREATE TEMP TABLE seed (thread_id text, run_id text, at text)");
    for (let done = 0; done < count; done += batch) {
      const chunk = seeds(Math.min(batch, count - done));
      await client.query("BEGIN");
      await client.query("TRUNCATE seed");
      await client.query("INSERT INTO seed SELECT * FROM unnest($1::text[], $2::text[], $3::text[])", [
        chunk.map((s) => s.thread_id),
        chunk.map((s) => s.run_id),
        chunk.map((s) => s.at),
      ]);
      for (const copy of copies) await client.query(copy, [template]);
      await client.query("COMMIT");
      ids.push(...chunk.map((s) => s.thread_id));
    }
    // Fresh statistics, as autovacuum would gather them some time after such a bulk insert.
    await client.query("ANALYZE");
  } finally {
    await client.end();
  }
  await recount({ postgres: url });
  return ids;
}
