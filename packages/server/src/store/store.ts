/**
 * The server's records in SQL, one implementation for SQLite and PostgreSQL (see db.ts):
 * threads, runs, pending interrupts and answers here, assistants in assistants.ts. Thread
 * searches run in SQL.
 */
import { type AssistantOptions, Assistants } from "./assistants.js";
import { answerOf, json, pendingOf, runOf, threadOf } from "./codec.js";
import { ANSWER_COLUMNS, PENDING_COLUMNS, RUN_COLUMNS, THREAD_COLUMNS, THREAD_COLUMNS_BUT_VALUES } from "./columns.js";
import type { Db, Statement, TxOptions } from "./db.js";
import { countChanges, countedTotal, recountPending } from "./pending-counts.js";
import { textFilter } from "./pending-search.js";
import type { AnswerRecord, PendingInterrupt, RunRecord, RunStatus, ThreadRecord } from "./records.js";
import { deleteThreadRunEvents } from "./run-events.js";
import { migrate } from "./schema.js";
import { ThreadFinder } from "./thread-finder.js";
import type { ThreadQuery } from "./thread-search.js";
import { ThreadValues } from "./thread-values.js";
import { ACTIVE_RUNS, PENDING_OF } from "./views.js";

export interface Page {
  limit?: number;
  offset?: number;
}

export interface PendingQuery extends Page {
  graph_id?: string;
  q?: string;
  min_age_seconds?: number;
  thread_id?: string;
}

export type StoreOptions = AssistantOptions;

/**
 * The records of threads, runs, pending interrupts and answers, bound to one database handle:
 * the store's own (each call a transaction of its own) or a transaction's (`store.tx(tx => ...)`),
 * so a call inside a transaction cannot forget to go through it.
 */
export class StoreTx {
  /** @param threadValues where large states are read from (thread-values.ts), shared by the store and its transactions */
  constructor(
    readonly db: Db,
    readonly threadValues: ThreadValues = new ThreadValues(),
  ) {}

  /** Made for each search: most transactions never search. */
  private get finder(): ThreadFinder {
    return new ThreadFinder(this.db, this.threadValues);
  }

  // ---- threads ----

  async insertThread(t: ThreadRecord): Promise<boolean> {
    const changes = await this.db.run(
      `INSERT INTO interlude_server_threads (thread_id, created_at, updated_at, state_updated_at, metadata, status, interrupts, error, config, graph_id, assistant_id, "values")
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (thread_id) DO NOTHING`,
      [t.thread_id, t.created_at, ...editedColumns(t), json(t.values)],
    );
    return changes > 0;
  }

  /**
   * An edit of the thread's metadata, status, config, graph or assistant. Its state is the
   * sync's to write (`saveThreadSync`): left as stored, so that an edit never copies a state
   * kept in the checkpoint back into the row.
   */
  /**
   * What a thread's owner edits: its metadata, with the graph and assistant it names, its config
   * and `updated_at`. What a sync writes (status, values, questions, error) is left as stored: a
   * run that ends meanwhile keeps what it recorded.
   */
  async saveThreadMetadata(t: ThreadRecord): Promise<void> {
    await this.db.write(
      "UPDATE interlude_server_threads SET updated_at = ?, metadata = ?, config = ?, graph_id = ?, assistant_id = ? WHERE thread_id = ?",
      [t.updated_at, json(t.metadata), json(t.config), t.graph_id, t.assistant_id, t.thread_id],
    );
  }

  /**
   * What a sync changes (threads/sync.ts): status, error, pending interrupts, times and, when
   * `values` is true, the state. Metadata, config, graph and assistant are left as stored: a
   * sync never changes them, and writing them back cost their serialisation (and on
   * PostgreSQL the bytes sent and the metadata trigger's check).
   */
  async saveThreadSync(t: ThreadRecord, options: { values: boolean }): Promise<void> {
    const values = options.values ? ', "values" = ?, values_checkpoint_id = ?' : "";
    const stored = options.values ? this.threadValues.stored(t.values, t.values_checkpoint_id) : undefined;
    await this.db.write(
      `UPDATE interlude_server_threads SET updated_at = ?, state_updated_at = ?, status = ?, interrupts = ?, error = ?${values} WHERE thread_id = ?`,
      [
        t.updated_at,
        t.state_updated_at,
        t.status,
        json(t.interrupts),
        json(t.error),
        ...(stored ? [stored.text, stored.checkpointId] : []),
        t.thread_id,
      ],
    );
  }

  async markThreadBusy(id: string): Promise<void> {
    await this.db.write("UPDATE interlude_server_threads SET status = 'busy', updated_at = ? WHERE thread_id = ?", [
      new Date().toISOString(),
      id,
    ]);
  }

  /** `values: false` leaves the state out (null), for callers about to replace it: it is the largest column to parse. */
  async getThread(id: string, options: { values?: boolean } = {}): Promise<ThreadRecord | undefined> {
    const columns = options.values === false ? THREAD_COLUMNS_BUT_VALUES : THREAD_COLUMNS;
    const rows = await this.db.all(`SELECT ${columns} FROM interlude_server_threads WHERE thread_id = ?`, [id]);
    if (!rows[0]) return undefined;
    const [thread] = await this.threadValues.fill([threadOf(rows[0])]);
    return thread;
  }

  /** Which graph and assistant a thread runs (undefined: no such thread). */
  async threadGraph(id: string): Promise<{ graph_id: string | null; assistant_id: string | null } | undefined> {
    const rows = await this.db.all<{ graph_id: string | null; assistant_id: string | null }>(
      "SELECT graph_id, assistant_id FROM interlude_server_threads WHERE thread_id = ?",
      [id],
    );
    return rows[0];
  }

  /**
   * A page of the threads a search matches (thread-search.ts); `values: false` leaves their
   * values out (null), for a listing that does not show them: none is loaded from a checkpoint.
   */
  async threads(query: ThreadQuery, options: { values?: boolean } = {}): Promise<ThreadRecord[]> {
    const found = await this.finder.page(query, options);
    return options.values === false ? found : this.threadValues.fill(found);
  }

  /**
   * The same for a page of `query.limit` threads, and whether more follow it: read with one
   * thread more, whose values are not loaded.
   */
  async threadPage(
    query: ThreadQuery & { limit: number },
    options: { values?: boolean } = {},
  ): Promise<{ threads: ThreadRecord[]; more: boolean }> {
    const found = await this.finder.page({ ...query, limit: query.limit + 1 }, options);
    const threads = found.slice(0, query.limit);
    if (options.values !== false) await this.threadValues.fill(threads);
    return { threads, more: found.length > query.limit };
  }

  countThreads(query: ThreadQuery): Promise<number> {
    return this.finder.count(query);
  }

  async deleteThread(id: string): Promise<boolean> {
    // Nested in the caller's transaction when this handle is bound to one.
    return this.db.tx(async (db) => {
      await deleteThreadRunEvents(db, id);
      const gone = await db.all<{ graph_id: string | null }>(
        "DELETE FROM interlude_server_pending WHERE thread_id = ? RETURNING graph_id",
        [id],
      );
      const removed = gone.map((row) => row.graph_id);
      for (const statement of countChanges(db.dialect, id, removed, [])) await db.run(...statement);
      // A thread's crons go with it, as in LangGraph Server.
      for (const table of ["runs", "answers", "thread_ttl", "crons"])
        await db.run(`DELETE FROM interlude_server_${table} WHERE thread_id = ?`, [id]);
      return (await db.run("DELETE FROM interlude_server_threads WHERE thread_id = ?", [id])) > 0;
    }, id);
  }

  // ---- runs ----

  async insertRun(r: RunRecord): Promise<void> {
    await this.db.write(
      `INSERT INTO interlude_server_runs (run_id, thread_id, assistant_id, created_at, updated_at, status, metadata, multitask_strategy, kwargs, identity, owner, attempt, error)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        r.run_id,
        r.thread_id,
        r.assistant_id,
        r.created_at,
        r.updated_at,
        r.status,
        json(r.metadata),
        r.multitask_strategy,
        json(r.kwargs),
        r.identity,
        r.owner,
        r.attempt,
        json(r.error),
      ],
    );
  }

  async getRun(runId: string): Promise<RunRecord | undefined> {
    const rows = await this.db.all(`SELECT ${RUN_COLUMNS} FROM interlude_server_runs WHERE run_id = ?`, [runId]);
    return rows[0] && runOf(rows[0]);
  }

  async runs(threadId: string, filter: Page & { status?: RunStatus } = {}): Promise<RunRecord[]> {
    const params: unknown[] = [threadId];
    let sql = `SELECT ${RUN_COLUMNS} FROM interlude_server_runs WHERE thread_id = ?`;
    if (filter.status) (sql += " AND status = ?"), params.push(filter.status);
    sql += ` ORDER BY created_at DESC, run_id DESC LIMIT ${Math.floor(filter.limit ?? 10)} OFFSET ${Math.floor(filter.offset ?? 0)}`;
    return (await this.db.all(sql, params)).map(runOf);
  }

  /** Pending and running runs of a thread, oldest first. */
  async activeRuns(threadId: string): Promise<RunRecord[]> {
    return (await this.db.all(ACTIVE_RUNS, [threadId])).map(runOf);
  }

  /** Compare-and-set of a run's status; false when it was not in one of `from`. */
  async moveRun(runId: string, from: RunStatus[], to: RunStatus, extra: MoveExtra = {}): Promise<boolean> {
    return (await this.db.run(...moveRunStatement(runId, from, to, extra))) > 0;
  }

  /** Records that a running run was told to stop (kept in its kwargs); false if it is not running. */
  async requestStop(runId: string, action: "interrupt" | "rollback"): Promise<boolean> {
    const run = await this.getRun(runId);
    if (run?.status !== "running") return false;
    const kwargs = { ...run.kwargs, stop_requested: action };
    return (
      (await this.db.run("UPDATE interlude_server_runs SET kwargs = ? WHERE run_id = ? AND status = 'running'", [
        json(kwargs),
        runId,
      ])) > 0
    );
  }

  /** Deletes the run, only while its status is `from` when given; false when nothing was deleted. */
  async deleteRun(runId: string, from?: RunStatus): Promise<boolean> {
    return (await this.db.run(...deleteRunStatement(runId, from))) > 0;
  }

  /** Running runs of executors that stopped renewing them (a crashed process). */
  async staleRuns(before: string): Promise<RunRecord[]> {
    // The IN term lets the planner scan the partial index of active runs.
    return (
      await this.db.all(
        `SELECT ${RUN_COLUMNS} FROM interlude_server_runs WHERE status IN ('pending', 'running') AND status = 'running' AND updated_at < ?`,
        [before],
      )
    ).map(runOf);
  }

  /** Stream and wait runs queued for a given process (their owner), oldest first. */
  async queuedForOwners(): Promise<RunRecord[]> {
    return (
      await this.db.all(
        `SELECT ${RUN_COLUMNS} FROM interlude_server_runs WHERE status IN ('pending', 'running') AND status = 'pending' AND owner IS NOT NULL ORDER BY created_at`,
      )
    ).map(runOf);
  }

  /** Gives a pending run of the gone process `owner` to the queue; false when it is no longer pending there. */
  async adoptRun(runId: string, owner: string): Promise<boolean> {
    const sql =
      "UPDATE interlude_server_runs SET owner = NULL, updated_at = ? WHERE run_id = ? AND status = 'pending' AND owner = ?";
    return (await this.db.run(sql, [new Date().toISOString(), runId, owner])) > 0;
  }

  /** Every thread's runs in `status` (pending, running, or both), oldest first. */
  async runsIn(status: "pending" | "running" | "all"): Promise<RunRecord[]> {
    // The first IN term lets the planner scan the partial index of active runs.
    const only = status === "all" ? "" : ` AND status = '${status}'`;
    return (
      await this.db.all(
        `SELECT ${RUN_COLUMNS} FROM interlude_server_runs WHERE status IN ('pending', 'running')${only} ORDER BY created_at, run_id`,
      )
    ).map(runOf);
  }

  async touchRuns(runIds: string[]): Promise<void> {
    if (!runIds.length) return;
    await this.db.run(
      `UPDATE interlude_server_runs SET updated_at = ? WHERE status = 'running' AND run_id IN (${runIds.map(() => "?").join(", ")})`,
      [new Date().toISOString(), ...runIds],
    );
  }

  /**
   * Whether the run is still queued, found by a write (one that changes nothing): it fails while
   * storage takes no writes (a read-only SQLite file still reads).
   */
  async stillQueued(runId: string): Promise<boolean> {
    return (
      (await this.db.run(
        "UPDATE interlude_server_runs SET updated_at = updated_at WHERE run_id = ? AND status = 'pending'",
        [runId],
      )) > 0
    );
  }

  /** Which of these running runs were told to stop (`requestStop`), and how. */
  async stopsRequested(runIds: string[]): Promise<Array<{ run_id: string; action: "interrupt" | "rollback" }>> {
    if (!runIds.length) return [];
    const stop =
      this.db.dialect === "postgres"
        ? "(kwargs::json ->> 'stop_requested')"
        : "json_extract(kwargs, '$.stop_requested')";
    return this.db.all(
      `SELECT run_id, ${stop} AS action FROM interlude_server_runs
        WHERE run_id IN (${runIds.map(() => "?").join(", ")}) AND status = 'running' AND ${stop} IS NOT NULL`,
      runIds,
    );
  }

  // ---- pending interrupts (the inbox) ----

  async pendingOf(threadId: string): Promise<PendingInterrupt[]> {
    return (await this.db.all(PENDING_OF, [threadId])).map(pendingOf);
  }

  /**
   * Under the thread's lock, after reading its pending interrupts (see syncView), so that
   * `removed` are pending and `added` are not (nothing else adds or removes them meanwhile): the
   * rows deleted and inserted, and their count changed once per graph (pending-counts.ts).
   */
  async replacePending(
    threadId: string,
    removed: readonly Pick<PendingInterrupt, "interrupt_id" | "graph_id">[],
    added: readonly PendingInterrupt[],
  ): Promise<void> {
    for (const p of removed)
      await this.db.write("DELETE FROM interlude_server_pending WHERE thread_id = ? AND interrupt_id = ?", [
        threadId,
        p.interrupt_id,
      ]);
    for (const p of added)
      await this.db.write(
        `INSERT INTO interlude_server_pending (thread_id, interrupt_id, graph_id, assistant_id, value, response_schema, ns, created_at, deadline_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          threadId,
          p.interrupt_id,
          p.graph_id,
          p.assistant_id,
          json(p.value),
          json(p.response_schema),
          json(p.ns),
          p.created_at,
          p.deadline_at,
        ],
      );
    const graphs = (rows: readonly Pick<PendingInterrupt, "graph_id">[]) => rows.map((p) => p.graph_id);
    for (const statement of countChanges(this.db.dialect, threadId, graphs(removed), graphs(added)))
      await this.db.write(...statement);
  }

  /** `now`: the clock `min_age_seconds` counts back from. */
  async pending(query: PendingQuery, now = Date.now()): Promise<{ items: PendingInterrupt[]; total: number }> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (query.graph_id) where.push("graph_id = ?"), params.push(query.graph_id);
    if (query.thread_id) where.push("thread_id = ?"), params.push(query.thread_id);
    if (query.q) {
      const text = await textFilter(this.db, query.q);
      where.push(text.sql), params.push(...text.params);
    }
    const cutoff = query.min_age_seconds ? new Date(now - query.min_age_seconds * 1000).toISOString() : undefined;
    if (cutoff) where.push("created_at <= ?"), params.push(cutoff);
    const filter = where.length ? ` WHERE ${where.join(" AND ")}` : "";
    const page = ` LIMIT ${Math.floor(query.limit ?? 50)} OFFSET ${Math.floor(query.offset ?? 0)}`;
    const total = countedTotal(query, cutoff) ?? {
      sql: `SELECT COUNT(*) AS n FROM interlude_server_pending${filter}`,
      params,
    };
    const statements: Statement[] = [
      [
        `SELECT ${PENDING_COLUMNS} FROM interlude_server_pending${filter} ORDER BY created_at, thread_id, interrupt_id${page}`,
        params,
      ],
      [total.sql, total.params],
    ];
    // A text search is planned for the text given (Db.search, as the thread search): a prepared
    // statement's generic plan, made for any text, may walk every pending interrupt for a rare
    // one instead of using the trigram index. Other listings: one round trip on PostgreSQL.
    const [rows, [count]] = query.q
      ? await Promise.all(statements.map(([sql, params]) => this.db.search(sql, params)))
      : await this.db.reads(statements);
    return { items: rows!.map(pendingOf), total: Number(count?.n ?? 0) };
  }

  /** Pending interrupts whose deadline is at or before `now` (ISO), earliest first. */
  async dueDeadlines(now: string): Promise<Array<{ thread_id: string; interrupt_id: string }>> {
    return this.db.all(
      "SELECT thread_id, interrupt_id FROM interlude_server_pending WHERE deadline_at IS NOT NULL AND deadline_at <= ? ORDER BY deadline_at",
      [now],
    );
  }

  /** The earliest deadline of a pending interrupt after `after` (ISO), if any. */
  async nextDeadline(after: string): Promise<string | undefined> {
    const [row] = await this.db.all<{ at: string | null }>(
      "SELECT MIN(deadline_at) AS at FROM interlude_server_pending WHERE deadline_at IS NOT NULL AND deadline_at > ?",
      [after],
    );
    return row?.at ?? undefined;
  }

  // ---- answers ----

  /** Reserves the answer to an interrupt; returns the earlier answer when there is one. */
  async reserveAnswer(a: AnswerRecord): Promise<AnswerRecord | undefined> {
    const inserted = await this.db.run(
      `${INSERT_ANSWER} ON CONFLICT (thread_id, interrupt_id) DO NOTHING`,
      answerRow(a),
    );
    return inserted ? undefined : this.answer(a.thread_id, a.interrupt_id);
  }

  /**
   * Reserves the answer to an interrupt under the thread's lock, after finding no answer to it
   * (queueView): a write held for the commit. An answer there after all (a writer without the
   * lock) is a unique violation that fails the transaction (isUniqueViolation), never a second answer.
   */
  async insertAnswer(a: AnswerRecord): Promise<void> {
    await this.db.write(INSERT_ANSWER, answerRow(a));
  }

  async answer(threadId: string, interruptId: string): Promise<AnswerRecord | undefined> {
    const rows = await this.db.all(
      `SELECT ${ANSWER_COLUMNS} FROM interlude_server_answers WHERE thread_id = ? AND interrupt_id = ?`,
      [threadId, interruptId],
    );
    return rows[0] && answerOf(rows[0]);
  }

  /** The thread's most recent answer (applied or reserved). */
  async latestAnswer(threadId: string): Promise<AnswerRecord | undefined> {
    const rows = await this.db.all(
      `SELECT ${ANSWER_COLUMNS} FROM interlude_server_answers WHERE thread_id = ? ORDER BY at DESC, interrupt_id DESC LIMIT 1`,
      [threadId],
    );
    return rows[0] && answerOf(rows[0]);
  }

  /** Forgets an applied answer: the interrupt is pending again (a replay or fork asked it anew). */
  async clearAnswer(threadId: string, interruptId: string): Promise<void> {
    await this.db.write(
      "DELETE FROM interlude_server_answers WHERE thread_id = ? AND interrupt_id = ? AND state = 'applied'",
      [threadId, interruptId],
    );
  }

  /** The states (`reserved`, `applied`) of the answers a run carries. */
  async answerStates(runId: string): Promise<string[]> {
    const rows = await this.db.all<{ state: string }>("SELECT state FROM interlude_server_answers WHERE run_id = ?", [
      runId,
    ]);
    return rows.map((r) => r.state);
  }

  /** Deletes every answer a run gave (a rolled-back run). */
  async forgetAnswers(runId: string): Promise<void> {
    await this.db.write("DELETE FROM interlude_server_answers WHERE run_id = ?", [runId]);
  }

  async settleAnswers(runId: string, applied: boolean): Promise<void> {
    if (applied)
      await this.db.write(
        "UPDATE interlude_server_answers SET state = 'applied' WHERE run_id = ? AND state = 'reserved'",
        [runId],
      );
    else await this.db.write("DELETE FROM interlude_server_answers WHERE run_id = ? AND state = 'reserved'", [runId]);
  }
}

/** The store's own handle: each call a transaction of its own, `tx` for several in one. */
export class Store extends StoreTx {
  /** The assistants' records (assistants.ts), outside any thread's transaction. */
  readonly assistants: Assistants;

  constructor(db: Db, options: StoreOptions = {}) {
    super(db);
    this.assistants = new Assistants(db, options);
  }

  setup(): Promise<void> {
    return migrate(this.db);
  }

  /**
   * Counts the pending interrupts again, after servers of a version that did not count them
   * wrote some (pending-counts.ts); the totals the counters held before and after.
   */
  recountPending(): Promise<{ counted: number; recounted: number }> {
    return recountPending(this.db);
  }

  /**
   * Runs `body` in one transaction holding the write lock of `threadId` (see Db.tx), with a
   * handle whose every call goes through that transaction.
   */
  tx<T>(body: (tx: StoreTx) => Promise<T>, threadId?: string, options?: TxOptions): Promise<T> {
    return this.db.tx((db) => body(new StoreTx(db, this.threadValues)), threadId, options);
  }
}

export interface MoveExtra {
  error?: unknown;
  kwargs?: RunRecord["kwargs"];
  attempt?: number;
  /** The process it is queued for (a stream or wait run's), or null: whichever takes it from the queue. */
  owner?: string | null;
  /**
   * Moves it only while it is still the claim of this attempt: a run whose lease lapsed may have
   * been claimed again elsewhere since, and that execution's record is not this one's to change.
   */
  claimed?: number;
}

/** The compare-and-set of a run's status (StoreTx.moveRun), as a statement: one row back when it moved. */
export function moveRunStatement(
  runId: string,
  from: readonly RunStatus[],
  to: RunStatus,
  extra: MoveExtra = {},
): Statement {
  const sets = ["status = ?", "updated_at = ?"];
  const params: unknown[] = [to, new Date().toISOString()];
  if ("error" in extra) sets.push("error = ?"), params.push(json(extra.error));
  if (extra.kwargs) sets.push("kwargs = ?"), params.push(json(extra.kwargs));
  if (extra.attempt !== undefined) sets.push("attempt = ?"), params.push(extra.attempt);
  if (extra.owner !== undefined) sets.push("owner = ?"), params.push(extra.owner);
  params.push(runId, ...from);
  const sameClaim = extra.claimed === undefined ? "" : " AND attempt = ?";
  if (extra.claimed !== undefined) params.push(extra.claimed);
  return [
    `UPDATE interlude_server_runs SET ${sets.join(", ")} WHERE run_id = ? AND status IN (${from.map(() => "?").join(", ")})${sameClaim} RETURNING run_id`,
    params,
  ];
}

/** Deleting a run, as a statement: one row back when it was there. */
export function deleteRunStatement(runId: string, from?: RunStatus): Statement {
  if (from === undefined) return ["DELETE FROM interlude_server_runs WHERE run_id = ? RETURNING run_id", [runId]];
  return ["DELETE FROM interlude_server_runs WHERE run_id = ? AND status = ? RETURNING run_id", [runId, from]];
}

const INSERT_ANSWER =
  "INSERT INTO interlude_server_answers (thread_id, interrupt_id, by, answer, at, run_id, state) VALUES (?, ?, ?, ?, ?, ?, ?)";

function answerRow(a: AnswerRecord): unknown[] {
  return [a.thread_id, a.interrupt_id, a.by, json(a.answer), a.at, a.run_id, a.state];
}

/**
 * A thread's columns from updated_at to assistant_id, in the order the statements list them:
 * what an edit writes (its state is the sync's to write, saveThreadSync).
 */
function editedColumns(t: ThreadRecord): unknown[] {
  return [
    t.updated_at,
    t.state_updated_at,
    json(t.metadata),
    t.status,
    json(t.interrupts),
    json(t.error),
    json(t.config),
    t.graph_id,
    t.assistant_id,
  ];
}
