/**
 * What the run queue (pg-boss, on PostgreSQL) may have lost, found by joining the runs table to
 * pg-boss's jobs. A run queued for any process is first in its thread's line with a job that
 * some process will take; its job is completed once a process claims the run (the lease covers
 * it from there). Two things can break that:
 * - A job taken (`active`) by a process that never saw it (the fetch's reply lost with its
 *   connection, the process killed right after fetching) waits for pg-boss to expire it, one
 *   lease after it was taken, and is then retried: those jobs are `retrying`.
 * - A run left without a job: whatever made it first in its line (its predecessor's end, a
 *   takeover from a dead process, a drain) commits first and sends the job after, and a process
 *   killed or a database refusing in between leaves the run `stranded`, which nothing else
 *   would ever start.
 * - A question whose deadline job failed every try (its run refused while storage was failing)
 *   and that no one answered: its deadline would never fire.
 */

import { DEADLINE_IDENTITY } from "../inbox/deadline-spec.js";
import { ACTIVE } from "../store/backlog.js";
import { runOf } from "../store/codec.js";
import { RUN_COLUMNS } from "../store/columns.js";
import type { Db } from "../store/db.js";
import type { RunRecord } from "../store/records.js";

/**
 * Queued runs, unchanged for a lease, that no process runs or will take: first in their
 * thread's line (no running run, no older pending one) and no job of theirs waiting or taken.
 */
function strandedStatement(schema: string, queue: string, before: string): [string, unknown[]] {
  return [
    `SELECT ${RUN_COLUMNS} FROM interlude_server_runs r
      WHERE r.${ACTIVE} AND r.status = 'pending' AND r.owner IS NULL AND r.updated_at < ?
        AND NOT EXISTS (SELECT 1 FROM interlude_server_runs o WHERE o.thread_id = r.thread_id AND o.${ACTIVE}
          AND (o.status = 'running' OR o.created_at < r.created_at OR (o.created_at = r.created_at AND o.run_id < r.run_id)))
        AND NOT EXISTS (SELECT 1 FROM ${schema}.job j
          WHERE j.name = ? AND j.state < 'completed' AND j.data->>'run_id' = r.run_id)
      ORDER BY r.created_at`,
    [before, queue],
  ];
}

/** The queues holding jobs that failed or expired and wait to be taken again. */
function retryingStatement(schema: string): [string, unknown[]] {
  return [`SELECT DISTINCT name FROM ${schema}.job WHERE state = 'retry'`, []];
}

/**
 * Questions past their deadline for a lease, with no job of theirs waiting or taken (a deadline
 * job's singleton key is its question's, pgboss-dispatcher.ts), unanswered or answered only by
 * a deadline that recorded its answer and not yet the thread's error (inbox/deadlines.ts: its
 * next try records the error).
 */
function unfiredStatement(schema: string, queue: string, before: string): [string, unknown[]] {
  return [
    `SELECT p.thread_id, p.interrupt_id FROM interlude_server_pending p
      WHERE p.deadline_at IS NOT NULL AND p.deadline_at < ?
        AND NOT EXISTS (SELECT 1 FROM interlude_server_answers a
          WHERE a.thread_id = p.thread_id AND a.interrupt_id = p.interrupt_id
            AND NOT (a.by = ? AND a.run_id IS NULL))
        AND NOT EXISTS (SELECT 1 FROM ${schema}.job j
          WHERE j.name = ? AND j.state < 'completed' AND j.singleton_key = p.thread_id || ':' || p.interrupt_id)
      ORDER BY p.deadline_at`,
    [before, DEADLINE_IDENTITY, queue],
  ];
}

export interface Question {
  thread_id: string;
  interrupt_id: string;
}

export interface QueueLosses {
  stranded: RunRecord[];
  retrying: string[];
  /** Questions whose deadline will not fire without a new job. */
  unfired: Question[];
}

/** One round trip: the runs stranded and the deadlines unfired for `leaseMs`, and the queues with jobs to retry. */
export async function queueLosses(
  db: Db,
  schema: string,
  queues: { runs: string; deadlines: string },
  leaseMs: number,
): Promise<QueueLosses> {
  const before = new Date(Date.now() - leaseMs).toISOString();
  const [stranded, retrying, unfired] = await db.reads([
    strandedStatement(schema, queues.runs, before),
    retryingStatement(schema),
    unfiredStatement(schema, queues.deadlines, before),
  ]);
  return {
    stranded: stranded.map(runOf),
    retrying: retrying.map((row) => String(row.name)),
    unfired: unfired.map((row) => ({ thread_id: String(row.thread_id), interrupt_id: String(row.interrupt_id) })),
  };
}
