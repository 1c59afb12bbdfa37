import { ASSISTANT_VERSIONS } from "./assistant-versions.js";
import { CHEAPER_WRITES } from "./cheaper-writes.js";
import { CRONS } from "./crons.js";
import type { Db } from "./db.js";
import { PENDING_COUNTED_BY_STORE, PENDING_COUNTS, PENDING_RECOUNTED } from "./pending-counts.js";
import { PENDING_TEXT } from "./pending-search.js";
import { THREAD_METADATA } from "./thread-metadata.js";
import { THREAD_TTL } from "./thread-ttl.js";
import { VALUES_CHECKPOINT } from "./thread-values.js";

/**
 * The server's own tables, beside the checkpoint tables in the same database. Migrations run
 * in order and are recorded in `interlude_server_schema`; never edit a shipped one, add the next.
 * Types are the common subset of SQLite and PostgreSQL (text, bigint); a migration that cannot be
 * written in that subset (triggers) gives one script per dialect.
 */
export const MIGRATIONS: readonly (string | Record<Db["dialect"], string>)[] = [
  `CREATE TABLE interlude_server_assistants (
     assistant_id text PRIMARY KEY, graph_id text NOT NULL, name text NOT NULL, description text,
     config text NOT NULL, context text, metadata text NOT NULL, version bigint NOT NULL,
     created_at text NOT NULL, updated_at text NOT NULL);
   CREATE TABLE interlude_server_threads (
     thread_id text PRIMARY KEY, created_at text NOT NULL, updated_at text NOT NULL, state_updated_at text NOT NULL,
     metadata text NOT NULL, status text NOT NULL, "values" text, interrupts text NOT NULL, error text,
     config text NOT NULL, graph_id text, assistant_id text);
   CREATE INDEX interlude_server_threads_created ON interlude_server_threads (created_at);
   CREATE TABLE interlude_server_runs (
     run_id text PRIMARY KEY, thread_id text NOT NULL, assistant_id text NOT NULL,
     created_at text NOT NULL, updated_at text NOT NULL, status text NOT NULL, metadata text NOT NULL,
     multitask_strategy text NOT NULL, kwargs text NOT NULL, identity text NOT NULL, owner text,
     attempt bigint NOT NULL, error text);
   CREATE INDEX interlude_server_runs_thread ON interlude_server_runs (thread_id, created_at);
   CREATE INDEX interlude_server_runs_status ON interlude_server_runs (status);
   CREATE TABLE interlude_server_pending (
     thread_id text NOT NULL, interrupt_id text NOT NULL, graph_id text, assistant_id text,
     value text NOT NULL, response_schema text, ns text NOT NULL, created_at text NOT NULL, deadline_at text,
     PRIMARY KEY (thread_id, interrupt_id));
   CREATE INDEX interlude_server_pending_created ON interlude_server_pending (created_at);
   CREATE TABLE interlude_server_answers (
     thread_id text NOT NULL, interrupt_id text NOT NULL, by text NOT NULL, answer text,
     at text NOT NULL, run_id text, state text NOT NULL,
     PRIMARY KEY (thread_id, interrupt_id));`,
  `CREATE INDEX interlude_server_answers_run ON interlude_server_answers (run_id);
   CREATE INDEX interlude_server_pending_deadline ON interlude_server_pending (deadline_at);`,
  // A thread's queue is read at every phase of every run; its old runs are not in this index.
  `CREATE INDEX interlude_server_runs_active ON interlude_server_runs (thread_id, created_at, run_id) WHERE status IN ('pending', 'running');`,
  // Fewer index pages written per run: the stale-run sweep scans the (small) active-runs index
  // instead of an index of every run's status, and only interrupts with a deadline are indexed by it.
  `DROP INDEX interlude_server_runs_status;
   DROP INDEX interlude_server_pending_deadline;
   CREATE INDEX interlude_server_pending_deadline_set ON interlude_server_pending (deadline_at) WHERE deadline_at IS NOT NULL;`,
  // Stream events of runs, for clients following a run executed by another process (PostgreSQL).
  `CREATE TABLE interlude_server_run_events (
     run_id text NOT NULL, seq bigint NOT NULL, event text NOT NULL, data text NOT NULL,
     PRIMARY KEY (run_id, seq));`,
  PENDING_COUNTS,
  // The inbox lists the oldest first, ties broken by thread and interrupt: with created_at alone
  // indexed, SQLite sorted every pending row for each page (~50 ms at 100,000).
  `CREATE INDEX interlude_server_pending_oldest ON interlude_server_pending (created_at, thread_id, interrupt_id);
   DROP INDEX interlude_server_pending_created;`,
  // Thread search's default order, newest first with ties broken by thread id (thread-search.ts).
  `CREATE INDEX interlude_server_threads_newest ON interlude_server_threads (created_at, thread_id);
   DROP INDEX interlude_server_threads_created;`,
  PENDING_TEXT,
  THREAD_METADATA,
  PENDING_COUNTED_BY_STORE,
  CHEAPER_WRITES,
  PENDING_RECOUNTED,
  THREAD_TTL,
  ASSISTANT_VERSIONS,
  CRONS,
  VALUES_CHECKPOINT,
];

/** Applies the migrations before index `target` (default: all); tests stop earlier to upgrade a populated database. */
export async function migrate(db: Db, target = MIGRATIONS.length): Promise<void> {
  await db.tx(async (tx) => {
    // Postgres: several processes may start at once; the advisory lock in tx() serialises them.
    await tx.exec("CREATE TABLE IF NOT EXISTS interlude_server_schema (version bigint NOT NULL)");
    const rows = await tx.all<{ version: number | string }>("SELECT version FROM interlude_server_schema");
    let version = rows.length ? Number(rows[0]!.version) : 0;
    if (!rows.length) await tx.run("INSERT INTO interlude_server_schema (version) VALUES (0)");
    for (; version < target; version++) {
      const migration = MIGRATIONS[version]!;
      await tx.exec(typeof migration === "string" ? migration : migration[tx.dialect]);
      await tx.run("UPDATE interlude_server_schema SET version = ?", [version + 1]);
    }
  }, "__schema__");
}
