/**
 * The inbox's text search (`q`) over pending interrupts, by an index rather than a scan: a
 * substring LIKE on JSON text can use no b-tree, so at 100,000 pending interrupts every search
 * read every row (80 ms on SQLite).
 *
 * The matching stays what it was: an interrupt matches when `LOWER(value) LIKE '%q%'` (q
 * lowered, `%` and `_` literal), checked on the row itself. The index only narrows the rows that
 * check runs on, to a superset of the matches:
 * - SQLite: an FTS5 table with the `trigram` tokenizer (case-folding), holding no copy of the
 *   text (contentless), searched for q as a phrase of trigrams, which every row containing q
 *   holds. Its rows are keyed by `interlude_server_pending_text_keys`, whose INTEGER PRIMARY
 *   KEY is stable (the pending table's implicit rowid is not: VACUUM may renumber it) and never
 *   reused (AUTOINCREMENT). A text held by more than DENSE interrupts is searched by scanning
 *   in the listing's order, as before (found in the first rows; only its count reads them all).
 *   FTS5 writes a segment at every commit that touches it (about 0.5 ms more per pause and per
 *   resume): so the triggers only note which rows came (a key above `indexed_through`) and went
 *   (`_gone`), and a search first brings the index up to date (catchUp).
 * - PostgreSQL: a GIN trigram index (pg_trgm) on `LOWER(value)`, which the planner uses for the
 *   LIKE itself. Where pg_trgm cannot be installed (no contrib package, no right to create an
 *   extension), the migration leaves the index out and a search scans, as before.
 * Fewer than 3 characters make no trigram: such a search scans every pending row.
 *
 * Triggers keep the index (on SQLite, its list of changes) in step with `interlude_server_pending`
 * in the same transaction as each insert or delete, whatever code made it. Pending rows are
 * never updated (see pending-counts.ts).
 */
import type { Db } from "./db.js";

const KEYS = "interlude_server_pending_text_keys";
const TEXT = "interlude_server_pending_text";

const GONE = "interlude_server_pending_text_gone";
const STATE = "interlude_server_pending_text_state";

/** The migration that creates the index; the interrupts already pending are indexed by the first search. */
export const PENDING_TEXT: Record<Db["dialect"], string> = {
  sqlite: `CREATE TABLE ${KEYS} (
     text_id INTEGER PRIMARY KEY AUTOINCREMENT, thread_id text NOT NULL, interrupt_id text NOT NULL,
     UNIQUE (thread_id, interrupt_id));
   CREATE TABLE ${GONE} (text_id INTEGER PRIMARY KEY);
   CREATE TABLE ${STATE} (indexed_through INTEGER NOT NULL);
   INSERT INTO ${STATE} (indexed_through) VALUES (0);
   CREATE VIRTUAL TABLE ${TEXT} USING fts5 (value, tokenize = 'trigram', content = '', contentless_delete = 1);
   INSERT INTO ${KEYS} (thread_id, interrupt_id) SELECT thread_id, interrupt_id FROM interlude_server_pending;
   CREATE TRIGGER interlude_server_pending_text_added AFTER INSERT ON interlude_server_pending BEGIN
     INSERT INTO ${KEYS} (thread_id, interrupt_id) VALUES (NEW.thread_id, NEW.interrupt_id);
   END;
   CREATE TRIGGER interlude_server_pending_text_removed AFTER DELETE ON interlude_server_pending BEGIN
     INSERT INTO ${GONE} (text_id) SELECT k.text_id FROM ${KEYS} k WHERE k.thread_id = OLD.thread_id AND k.interrupt_id = OLD.interrupt_id
       AND k.text_id <= (SELECT indexed_through FROM ${STATE});
     DELETE FROM ${KEYS} WHERE thread_id = OLD.thread_id AND interrupt_id = OLD.interrupt_id;
   END;`,
  // One block that cannot fail (pg_trgm not installed, no right to create it, installed in a schema
  // off the search path): a failed statement would abort the migration's transaction.
  postgres: `DO $$
   BEGIN
     CREATE EXTENSION IF NOT EXISTS pg_trgm;
     CREATE INDEX ${TEXT} ON interlude_server_pending USING gin (LOWER(value) gin_trgm_ops);
   EXCEPTION WHEN OTHERS THEN
     RAISE WARNING 'interlude: no trigram index (%), the inbox text search will scan every pending interrupt', SQLERRM;
   END $$;`,
};

/**
 * Above this many candidates, a search scans in the listing's order instead of going through
 * the index: matches are then dense enough that a page is found in a few rows, where looking up
 * every candidate (about 5 us each on SQLite) costs more than the scan (about 1.5 us a row).
 */
const DENSE = 1_000;

/** Interrupts indexed per transaction: the write lock is held ~50 ms, not seconds for a backlog. */
const BATCH = 5_000;

/**
 * SQLite: drops the interrupts resolved since the last search from the index and indexes those
 * pended, BATCH at a time (one FTS5 segment per batch). Costs as much as the changes since the
 * last search; an interrupt pended while the search runs is found by the next one.
 */
async function catchUp(db: Db): Promise<void> {
  const [due] = await db.all<{ due: number }>(
    `SELECT (SELECT COALESCE(MAX(text_id), 0) FROM ${KEYS}) > s.indexed_through OR EXISTS (SELECT 1 FROM ${GONE}) AS due FROM ${STATE} s`,
  );
  if (!due?.due) return;
  let indexed = BATCH;
  while (indexed === BATCH) {
    indexed = await db.tx(async (tx) => {
      await tx.run(`DELETE FROM ${TEXT} WHERE rowid IN (SELECT text_id FROM ${GONE})`);
      await tx.run(`DELETE FROM ${GONE}`);
      const [next] = await tx.all<{ through: number | null; n: number }>(
        `SELECT MAX(text_id) AS through, COUNT(*) AS n FROM (SELECT text_id FROM ${KEYS}
         WHERE text_id > (SELECT indexed_through FROM ${STATE}) ORDER BY text_id LIMIT ${BATCH})`,
      );
      if (!next?.n) return 0;
      await tx.run(
        `INSERT INTO ${TEXT} (rowid, value) SELECT k.text_id, p.value FROM ${KEYS} k
         JOIN interlude_server_pending p ON p.thread_id = k.thread_id AND p.interrupt_id = k.interrupt_id
         WHERE k.text_id > (SELECT indexed_through FROM ${STATE}) AND k.text_id <= ?`,
        [next.through],
      );
      await tx.run(`UPDATE ${STATE} SET indexed_through = ?`, [next.through]);
      return next.n;
    });
  }
}

/** The filter of pending interrupts (columns unqualified) whose value holds `q`, ignoring case. */
export async function textFilter(db: Db, q: string): Promise<{ sql: string; params: unknown[] }> {
  const lowered = q.toLowerCase();
  // `%` and `_` in the search text are literal characters, not wildcards.
  const like = {
    sql: "LOWER(value) LIKE ? ESCAPE '\\'",
    params: [`%${lowered.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`],
  };
  // PostgreSQL's planner makes the same choice from its statistics (the statement is planned
  // for this text: Store.pending sends it by Db.search, not prepared).
  if (db.dialect === "postgres" || [...lowered].length < 3) return like;
  await catchUp(db);
  const phrase = `"${lowered.replace(/"/g, '""')}"`;
  const [probe] = await db.all<{ n: number }>(
    `SELECT COUNT(*) AS n FROM (SELECT 1 FROM ${TEXT} WHERE ${TEXT} MATCH ? LIMIT ${DENSE + 1})`,
    [phrase],
  );
  if (Number(probe?.n) > DENSE) return like;
  const candidates = `(thread_id, interrupt_id) IN (SELECT k.thread_id, k.interrupt_id FROM ${TEXT} t JOIN ${KEYS} k ON k.text_id = t.rowid WHERE t.${TEXT} MATCH ?)`;
  return { sql: `${candidates} AND ${like.sql}`, params: [phrase, ...like.params] };
}
