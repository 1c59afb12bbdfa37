/**
 * How many interrupts are pending, without counting them: the inbox shows a total beside each
 * page, and `COUNT(*)` over every pending interrupt grows with their number (100,000 paused
 * threads). `interlude_server_pending_counts` is kept up to date in the same transaction as each
 * insert or delete of `interlude_server_pending`; the total is the sum of a few small rows.
 *
 * Triggers kept it at first (PENDING_COUNTS); the store now counts its own changes instead
 * (`countChanges`, migration PENDING_COUNTED_BY_STORE), once per graph and transaction: an answer
 * resolves a question and its run usually asks the next in the same graph, which the triggers
 * counted as two PL/pgSQL calls and two upserts of one row, and which is now no write at all.
 * Every insert and delete of pending rows goes through the store (store.ts: replacePending,
 * deleteThread); SQL written elsewhere must count its changes too.
 *
 * Rows are kept per graph (the inbox filters by graph; '' stands for none) and, on PostgreSQL,
 * per shard of the thread id: concurrent transactions pausing or resuming different threads
 * would otherwise all wait for one counter row's lock until they commit. A thread always lands
 * in the same shard, so one transaction (which touches one thread's interrupts) locks one row.
 * A shard's row may go below zero (a delete in another shard than the insert, as for the rows
 * counted when this migration ran): only the sum means anything. Pending rows are never updated,
 * only inserted and deleted, so counting inserts and deletes suffices.
 *
 * Upgrading servers one by one past PENDING_COUNTED_BY_STORE leaves the counts wrong: a server
 * of an earlier version still running beside the upgraded ones writes pending rows without
 * counting them (its triggers are gone). Once none is left, `recountPending` (the CLI's
 * `interlude recount`) counts the rows again. The migration PENDING_RECOUNTED does it once, for
 * databases upgraded that way before the recount existed.
 */
import type { Db, Statement } from "./db.js";
import type { PendingQuery } from "./store.js";

const SHARDS = 32;

const TABLE = `CREATE TABLE interlude_server_pending_counts (
     graph_id text NOT NULL, shard bigint NOT NULL, n bigint NOT NULL, PRIMARY KEY (graph_id, shard));
   INSERT INTO interlude_server_pending_counts (graph_id, shard, n)
     SELECT COALESCE(graph_id, ''), 0, COUNT(*) FROM interlude_server_pending GROUP BY COALESCE(graph_id, '');`;

/** The migration that creates the counters (from the rows already pending) and their triggers. */
export const PENDING_COUNTS: Record<Db["dialect"], string> = {
  // One writer at a time: one row per graph is enough.
  sqlite: `${TABLE}
   CREATE TRIGGER interlude_server_pending_inserted AFTER INSERT ON interlude_server_pending BEGIN
     INSERT INTO interlude_server_pending_counts (graph_id, shard, n) VALUES (COALESCE(NEW.graph_id, ''), 0, 1)
       ON CONFLICT (graph_id, shard) DO UPDATE SET n = n + 1;
   END;
   CREATE TRIGGER interlude_server_pending_deleted AFTER DELETE ON interlude_server_pending BEGIN
     INSERT INTO interlude_server_pending_counts (graph_id, shard, n) VALUES (COALESCE(OLD.graph_id, ''), 0, -1)
       ON CONFLICT (graph_id, shard) DO UPDATE SET n = n - 1;
   END;`,
  postgres: `${TABLE}
   CREATE FUNCTION interlude_server_pending_count() RETURNS trigger LANGUAGE plpgsql AS $$
   DECLARE
     counted interlude_server_pending%ROWTYPE := CASE WHEN TG_OP = 'INSERT' THEN NEW ELSE OLD END;
     delta bigint := CASE WHEN TG_OP = 'INSERT' THEN 1 ELSE -1 END;
   BEGIN
     INSERT INTO interlude_server_pending_counts AS c (graph_id, shard, n)
       VALUES (COALESCE(counted.graph_id, ''), hashtext(counted.thread_id) & ${SHARDS - 1}, delta)
       ON CONFLICT (graph_id, shard) DO UPDATE SET n = c.n + delta;
     RETURN NULL;
   END $$;
   CREATE TRIGGER interlude_server_pending_counted AFTER INSERT OR DELETE ON interlude_server_pending
     FOR EACH ROW EXECUTE FUNCTION interlude_server_pending_count();`,
};

/** The migration that leaves counting to the store (countChanges): the triggers go. */
export const PENDING_COUNTED_BY_STORE: Record<Db["dialect"], string> = {
  sqlite: `DROP TRIGGER interlude_server_pending_inserted;
   DROP TRIGGER interlude_server_pending_deleted;`,
  postgres: `DROP TRIGGER interlude_server_pending_counted ON interlude_server_pending;
   DROP FUNCTION interlude_server_pending_count();`,
};

/**
 * The statements counting one transaction's change to `threadId`'s pending rows: the graphs
 * (null: none) of the rows it deleted and inserted, netted per graph, so a question resolved
 * and the next asked in the same graph writes no counter at all.
 */
export function countChanges(
  dialect: Db["dialect"],
  threadId: string,
  removed: readonly (string | null)[],
  added: readonly (string | null)[],
): Statement[] {
  const deltas = new Map<string | null, number>();
  for (const graph of removed) deltas.set(graph, (deltas.get(graph) ?? 0) - 1);
  for (const graph of added) deltas.set(graph, (deltas.get(graph) ?? 0) + 1);
  const statements: Statement[] = [];
  for (const [graph, delta] of deltas) if (delta !== 0) statements.push(countChange(dialect, threadId, graph, delta));
  return statements;
}

/** Adds `delta` to the interrupts counted pending for `graphId` (null: none), in `threadId`'s shard. */
function countChange(dialect: Db["dialect"], threadId: string, graphId: string | null, delta: number): Statement {
  if (dialect === "sqlite")
    return [
      `INSERT INTO interlude_server_pending_counts (graph_id, shard, n) VALUES (COALESCE(?, ''), 0, ?)
       ON CONFLICT (graph_id, shard) DO UPDATE SET n = n + excluded.n`,
      [graphId, delta],
    ];
  return [
    `INSERT INTO interlude_server_pending_counts AS c (graph_id, shard, n) VALUES (COALESCE(?, ''), hashtext(?) & ${SHARDS - 1}, ?)
     ON CONFLICT (graph_id, shard) DO UPDATE SET n = c.n + EXCLUDED.n`,
    [graphId, threadId, delta],
  ];
}

/**
 * The query reading the total of pending interrupts from the counters, for a listing filtered
 * by graph and age (`cutoff`: created at or before, ISO); undefined when other filters apply (the
 * caller counts the matching rows: one thread's are few, and a text search's are found by its
 * index, pending-search.ts). An age filter subtracts the interrupts created after the cutoff, read from
 * the created_at index: as many as are younger than the age asked, not every pending one.
 */
export function countedTotal(
  query: PendingQuery,
  cutoff: string | undefined,
): { sql: string; params: unknown[] } | undefined {
  if (query.q || query.thread_id) return undefined;
  const graph = query.graph_id ? " WHERE graph_id = ?" : "";
  const graphParams = query.graph_id ? [query.graph_id] : [];
  const counted = `SELECT COALESCE(SUM(n), 0) FROM interlude_server_pending_counts${graph}`;
  if (cutoff === undefined) return { sql: `SELECT (${counted}) AS n`, params: graphParams };
  const younger = `SELECT COUNT(*) FROM interlude_server_pending WHERE created_at > ?${query.graph_id ? " AND graph_id = ?" : ""}`;
  return { sql: `SELECT (${counted}) - (${younger}) AS n`, params: [...graphParams, cutoff, ...graphParams] };
}

/**
 * PostgreSQL: taken before a recount. The lock waits for the transactions changing pending rows
 * (each counts its change in the same transaction) and holds off new ones and other recounts
 * until the commit, so no change is counted twice or lost; reads go on.
 */
const RECOUNT_LOCK = "LOCK TABLE interlude_server_pending IN SHARE ROW EXCLUSIVE MODE;";

/** Replaces the counters with a count of the pending rows: one scan of them, 50-75 ms at 100,000. */
const RECOUNT = `DELETE FROM interlude_server_pending_counts;
   INSERT INTO interlude_server_pending_counts (graph_id, shard, n)
     SELECT COALESCE(graph_id, ''), 0, COUNT(*) FROM interlude_server_pending GROUP BY COALESCE(graph_id, '');`;

/** The migration that counts the pending rows again (see the module's comment). */
export const PENDING_RECOUNTED: Record<Db["dialect"], string> = {
  sqlite: RECOUNT,
  postgres: `${RECOUNT_LOCK}\n   ${RECOUNT}`,
};

const TOTAL = "SELECT COALESCE(SUM(n), 0) AS n FROM interlude_server_pending_counts";

/** Counts the pending rows again; returns the total the counters held before and after. */
export async function recountPending(db: Db): Promise<{ counted: number; recounted: number }> {
  return db.tx(async (tx) => {
    if (tx.dialect === "postgres") await tx.exec(RECOUNT_LOCK);
    const [before] = await tx.all<{ n: number | string }>(TOTAL);
    await tx.exec(RECOUNT);
    const [after] = await tx.all<{ n: number | string }>(TOTAL);
    return { counted: Number(before?.n ?? 0), recounted: Number(after?.n ?? 0) };
  });
}
