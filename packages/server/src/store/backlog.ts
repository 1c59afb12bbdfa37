/**
 * What waits, deployment-wide: runs queued or executing, and interrupts waiting for a human.
 * Read for `GET /metrics` from the rows every process shares, so that any server reports the
 * same backlog (what autoscalers and alerts read), in one round trip on PostgreSQL.
 */
import type { Db, Statement } from "./db.js";

/** The run queue, in the keys and units of LangGraph's `GET /metrics?format=json` `queue`. */
interface RunQueueStats {
  n_pending: number;
  n_running: number;
  /** Seconds the oldest pending run has waited; null: none pending. */
  pending_runs_wait_time_max_secs: number | null;
  pending_runs_wait_time_med_secs: number | null;
  /** As the max, among runs first in their thread's line (not waiting behind another run of their thread). */
  pending_unblocked_runs_wait_time_max_secs: number | null;
}

interface InterruptBacklog {
  n_pending: number;
  /** Pending interrupts per graph id ('' for threads without one); graphs with none are left out. */
  by_graph: Record<string, number>;
  /** Seconds the oldest pending interrupt has waited for its answer; null: none pending. */
  wait_time_max_secs: number | null;
}

export interface Backlog {
  queue: RunQueueStats;
  interrupts: InterruptBacklog;
}

/**
 * Every condition names the active-runs partial index's predicate (schema.ts) in full, also
 * where it is implied by another: SQLite's planner uses a partial index only for a query whose
 * WHERE clause contains its terms.
 */
export const ACTIVE = "status IN ('pending', 'running')";

const BY_STATUS = `SELECT status, COUNT(*) AS n, MIN(created_at) AS oldest FROM interlude_server_runs
  WHERE ${ACTIVE} GROUP BY status`;

/** The middle one or two pending runs' creation times. */
const MEDIAN_PENDING = `SELECT created_at FROM (
    SELECT created_at, ROW_NUMBER() OVER (ORDER BY created_at) AS k, COUNT(*) OVER () AS n
    FROM interlude_server_runs WHERE ${ACTIVE} AND status = 'pending') AS ranked
  WHERE k IN ((n + 1) / 2, (n + 2) / 2)`;

/**
 * A run waits behind a running run of its thread or an older pending one (views.ts ACTIVE_RUNS).
 * A thread's oldest pending run has waited the longest of its line and only a running run
 * blocks it, so the oldest unblocked run is the oldest pending run of a thread running none.
 */
const OLDEST_UNBLOCKED = `SELECT MIN(r.created_at) AS oldest FROM interlude_server_runs r
  WHERE r.${ACTIVE} AND r.status = 'pending' AND NOT EXISTS (
    SELECT 1 FROM interlude_server_runs o WHERE o.thread_id = r.thread_id AND o.${ACTIVE} AND o.status = 'running')`;

/** The counters the store keeps at each pause and answer (pending-counts.ts), not a count of the rows. */
const INTERRUPTS_BY_GRAPH = "SELECT graph_id, SUM(n) AS n FROM interlude_server_pending_counts GROUP BY graph_id";

/** Read from the created_at index: one row. */
const OLDEST_INTERRUPT = "SELECT MIN(created_at) AS oldest FROM interlude_server_pending";

const STATEMENTS: Statement[] = [
  BY_STATUS,
  MEDIAN_PENDING,
  OLDEST_UNBLOCKED,
  INTERRUPTS_BY_GRAPH,
  OLDEST_INTERRUPT,
].map((sql) => [sql, []] as const);

/** The deployment's backlog as of `now` (ms since the epoch). */
export async function readBacklog(db: Db, now: number): Promise<Backlog> {
  const [byStatus, median, unblocked, byGraph, oldestInterrupt] = await db.reads(STATEMENTS);
  const pending = byStatus!.find((row) => row.status === "pending");
  const running = byStatus!.find((row) => row.status === "running");
  const waited = (createdAt: unknown) =>
    typeof createdAt === "string" ? Math.max(0, (now - Date.parse(createdAt)) / 1000) : null;
  const middle = median!.map((row) => waited(row.created_at)!);
  // Graph ids are the config's names, "__proto__" included.
  const interrupts: Record<string, number> = Object.create(null);
  let pendingInterrupts = 0;
  for (const row of byGraph!) {
    const n = Number(row.n);
    if (n <= 0) continue;
    interrupts[String(row.graph_id)] = n;
    pendingInterrupts += n;
  }
  return {
    queue: {
      n_pending: Number(pending?.n ?? 0),
      n_running: Number(running?.n ?? 0),
      pending_runs_wait_time_max_secs: waited(pending?.oldest),
      pending_runs_wait_time_med_secs: middle.length ? middle.reduce((a, b) => a + b, 0) / middle.length : null,
      pending_unblocked_runs_wait_time_max_secs: waited(unblocked![0]?.oldest),
    },
    interrupts: {
      n_pending: pendingInterrupts,
      by_graph: interrupts,
      wait_time_max_secs: waited(oldestInterrupt![0]?.oldest),
    },
  };
}
