/**
 * Storage settings that make the records rewritten at every answer cheaper to write on
 * PostgreSQL (SQLite has neither setting: its migration does nothing). Measured on one backend,
 * interleaved (packages/server/PERFORMANCE.md, "branch pg-cpu"):
 *
 * - Pages of threads and answers keep 10% free (`fillfactor`), so that an update finds room
 *   for the new row version on the old one's page: a HOT update, which writes no index entry.
 *   With full pages, 73% of the updates of 20,000 threads were HOT; with 10% free, 99%. Only
 *   pages written from now on keep the room (existing ones gain it as their rows move).
 *   Runs are left as they are: their status update changes the predicate of the active-runs
 *   index, so it can never be HOT.
 * - The large JSON columns (a thread's state, a run's input, a run's stream events) are
 *   compressed with lz4 instead of pglz: writing a 23 kB state took 600 us of PostgreSQL's CPU
 *   with pglz and 270 us with lz4, for the same size on disk. Values already stored stay as
 *   they are (both methods are read). A server without lz4 (built without it, or before
 *   PostgreSQL 14) keeps pglz and says so in a warning: the statements are sent at run time
 *   (EXECUTE), so that their failure is caught by the block instead of aborting the migration.
 *
 * Both are catalog changes: no table is rewritten. Setting the compression takes each table's
 * exclusive lock for the instant of the change, as adding an index would take a longer one.
 */
import type { Db } from "./db.js";

const COMPRESSED: ReadonlyArray<readonly [table: string, column: string]> = [
  ["interlude_server_threads", '"values"'],
  ["interlude_server_runs", "kwargs"],
  ["interlude_server_run_events", "data"],
];

export const CHEAPER_WRITES: Record<Db["dialect"], string> = {
  sqlite: "SELECT 1",
  postgres: `ALTER TABLE interlude_server_threads SET (fillfactor = 90);
   ALTER TABLE interlude_server_answers SET (fillfactor = 90);
   DO $$
   BEGIN
     ${COMPRESSED.map(([table, column]) => `EXECUTE 'ALTER TABLE ${table} ALTER COLUMN ${column} SET COMPRESSION lz4';`).join("\n     ")}
   EXCEPTION WHEN OTHERS THEN
     RAISE WARNING 'interlude: no lz4 compression (%), large states stay compressed with pglz', SQLERRM;
   END $$;`,
};
