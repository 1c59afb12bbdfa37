/**
 * What a transaction reads before it decides, in one round trip on PostgreSQL (Db.reads): a
 * run being queued and a thread being brought up to date each read a few small things.
 */
import { answerOf, pendingOf, runOf, threadOf } from "./codec.js";
import {
  ANSWER_COLUMNS,
  ANSWER_COLUMNS_OF_A,
  PENDING_COLUMNS,
  RUN_COLUMNS,
  THREAD_SYNC_COLUMNS,
  THREAD_SYNC_COLUMNS_AND_VALUES,
} from "./columns.js";
import type { Db, Row, Statement } from "./db.js";
import type { AnswerRecord, PendingInterrupt, RunRecord, ThreadRecord } from "./records.js";

/** A thread's pending and running runs, oldest first. Statuses written out: the planner picks the partial index interlude_server_runs_active only for these literals. */
export const ACTIVE_RUNS = `SELECT ${RUN_COLUMNS} FROM interlude_server_runs WHERE thread_id = ? AND status IN ('pending', 'running') ORDER BY created_at, run_id`;
export const PENDING_OF = `SELECT ${PENDING_COLUMNS} FROM interlude_server_pending WHERE thread_id = ? ORDER BY created_at`;
const ANSWERS_TO_PENDING = `SELECT ${ANSWER_COLUMNS_OF_A} FROM interlude_server_answers a JOIN interlude_server_pending p ON p.thread_id = a.thread_id AND p.interrupt_id = a.interrupt_id WHERE p.thread_id = ?`;

/**
 * The answers to a thread's pending interrupts and to the interrupts `asked` (which may not be
 * pending yet), looked up by key. A filter `thread_id = ? AND (interrupt_id IN (pending) OR
 * interrupt_id IN (asked))` read every answer the thread was ever given, a cost growing with its
 * history. On PostgreSQL a join is no sure cure: a prepared statement keeps the generic plan made
 * at its sixth call, and one made on the near-empty tables of a new database joined by thread
 * alone (17-60 pages per sync in the benchmark). There the ids are gathered first (an InitPlan)
 * and the answers found by primary key whatever the statistics say; SQLite's planner takes the
 * primary key for each side of a union.
 */
function answersTo(dialect: Db["dialect"], threadId: string, asked: readonly string[]): Statement {
  if (dialect === "postgres")
    return [
      `SELECT ${ANSWER_COLUMNS} FROM interlude_server_answers WHERE thread_id = ? AND interrupt_id = ANY (ARRAY(SELECT interrupt_id FROM interlude_server_pending WHERE thread_id = ?) || ?::text[])`,
      [threadId, threadId, asked],
    ];
  if (!asked.length) return [ANSWERS_TO_PENDING, [threadId]];
  return [
    `${ANSWERS_TO_PENDING} UNION SELECT ${ANSWER_COLUMNS} FROM interlude_server_answers WHERE thread_id = ? AND interrupt_id IN (${asked.map(() => "?").join(", ")})`,
    [threadId, threadId, ...asked],
  ];
}

function answersById(rows: readonly Record<string, unknown>[]): Map<string, AnswerRecord> {
  return new Map(rows.map((row) => [String(row.interrupt_id), answerOf(row)]));
}

export interface SyncView {
  /** The rows of the statement made `first`, if any. */
  first: Row[];
  thread: ThreadRecord | undefined;
  active: RunRecord[];
  pending: PendingInterrupt[];
  /** Answers given to the pending interrupts and to those asked, by interrupt id. */
  answers: Map<string, AnswerRecord>;
}

/**
 * What bringing a thread's record up to date reads: the thread (without its interrupts, which
 * read back as `{}`, and without its values when `values` is false), its active runs, its pending interrupts and the answers given to them and
 * to the interrupts the thread's checkpoint asks (`asked`: the sync clears an answer already
 * applied to an interrupt asked anew only when there is one).
 * `first`: a statement to make before them, in the same round trip (a finishing run's record).
 */
export async function syncView(
  db: Db,
  threadId: string,
  options: { values: boolean; asked: readonly string[]; first?: Statement },
): Promise<SyncView> {
  const columns = options.values ? THREAD_SYNC_COLUMNS_AND_VALUES : THREAD_SYNC_COLUMNS;
  const statements: Statement[] = [
    [`SELECT ${columns} FROM interlude_server_threads WHERE thread_id = ?`, [threadId]],
    [ACTIVE_RUNS, [threadId]],
    [PENDING_OF, [threadId]],
    answersTo(db.dialect, threadId, options.asked),
  ];
  const rows = await db.reads(options.first ? [options.first, ...statements] : statements);
  const first = options.first ? rows.shift()! : [];
  const [threads, active, pending, answers] = rows;
  return {
    first,
    thread: threads![0] && threadOf(threads![0]),
    active: active!.map(runOf),
    pending: pending!.map(pendingOf),
    answers: answersById(answers!),
  };
}

export interface QueueView {
  /** Which graph and assistant the thread runs (undefined: no such thread). */
  graph: { graph_id: string | null; assistant_id: string | null } | undefined;
  active: RunRecord[];
  /** The pending interrupts, when asked for. */
  pending: PendingInterrupt[];
  /** Answers already given (or reserved) to `answerIds`, or to the pending interrupts. */
  answers: Map<string, AnswerRecord>;
  /** The thread's checkpoint head, when its statement was given (null: no checkpoint). */
  head?: string | null;
}

/**
 * What queueing a run reads: the thread's graph, its active runs, and for a run carrying
 * answers the interrupts they answer (`answerIds`, or the pending ones) and earlier answers to them.
 */
export async function queueView(
  db: Db,
  threadId: string,
  answering: { answerIds: readonly string[] } | { pending: true } | undefined,
  head?: Statement,
): Promise<QueueView> {
  const statements: Statement[] = [
    ["SELECT graph_id, assistant_id FROM interlude_server_threads WHERE thread_id = ?", [threadId]],
    [ACTIVE_RUNS, [threadId]],
  ];
  if (answering && "pending" in answering)
    statements.push([PENDING_OF, [threadId]], answersTo(db.dialect, threadId, []));
  else if (answering?.answerIds.length)
    statements.push([
      `SELECT ${ANSWER_COLUMNS} FROM interlude_server_answers WHERE thread_id = ? AND interrupt_id IN (${answering.answerIds.map(() => "?").join(", ")})`,
      [threadId, ...answering.answerIds],
    ]);
  const [graphs, active, ...rest] = await db.reads(head ? [...statements, head] : statements);
  const heads = head && rest.pop();
  const pending = rest.length === 2 ? rest[0]!.map(pendingOf) : [];
  const view: QueueView = {
    graph: graphs![0] as QueueView["graph"],
    active: active!.map(runOf),
    pending,
    answers: answersById(rest.at(-1) ?? []),
  };
  if (heads) view.head = (heads[0]?.head_id as string | null | undefined) ?? null;
  return view;
}
