/**
 * Crons (crons/): a run made on a schedule, on one thread or each time on a new one. A row's
 * `next_run_at` is when the sweep makes its next run; taking a due row leases it on, as threads'
 * TTLs are taken (store/thread-ttl.ts), so that two processes do not both make a run.
 */
import { randomUUID } from "node:crypto";
import { matches } from "./codec.js";
import type { Db } from "./db.js";
import type { Json } from "./records.js";

export const CRONS = `CREATE TABLE interlude_server_crons (
     cron_id text PRIMARY KEY, assistant_id text NOT NULL, thread_id text, user_id text,
     schedule text NOT NULL, timezone text, end_time text, enabled integer NOT NULL,
     on_run_completed text, payload text NOT NULL, metadata text NOT NULL,
     created_at text NOT NULL, updated_at text NOT NULL, next_run_at text);
   CREATE INDEX interlude_server_crons_due ON interlude_server_crons (next_run_at);`;

/** As the LangGraph SDK shows a cron. */
export interface CronRecord {
  cron_id: string;
  assistant_id: string;
  thread_id: string | null;
  user_id: string | null;
  schedule: string;
  timezone: string | null;
  end_time: string | null;
  enabled: boolean;
  on_run_completed: "delete" | "keep" | null;
  /** The run request each firing makes (input, config, context, metadata, ...). */
  payload: Record<string, unknown>;
  metadata: Record<string, unknown>;
  created_at: string;
  updated_at: string;
  next_run_date: string | null;
}

/** A row as stored: flags and JSON as text, the next run under its column's name. */
type CronRow = Omit<CronRecord, "enabled" | "payload" | "metadata" | "next_run_date"> & {
  enabled: number | boolean;
  payload: string;
  metadata: string;
  next_run_at: string | null;
};

const COLUMNS =
  "cron_id, assistant_id, thread_id, user_id, schedule, timezone, end_time, enabled, on_run_completed, payload, metadata, created_at, updated_at, next_run_at";

function fromRow(row: CronRow): CronRecord {
  return {
    cron_id: row.cron_id,
    assistant_id: row.assistant_id,
    thread_id: row.thread_id,
    user_id: row.user_id,
    schedule: row.schedule,
    timezone: row.timezone,
    end_time: row.end_time,
    enabled: Boolean(Number(row.enabled)),
    on_run_completed: row.on_run_completed,
    payload: JSON.parse(row.payload),
    metadata: JSON.parse(row.metadata),
    created_at: row.created_at,
    updated_at: row.updated_at,
    next_run_date: row.next_run_at,
  };
}

function values(cron: CronRecord): unknown[] {
  return [
    cron.cron_id,
    cron.assistant_id,
    cron.thread_id,
    cron.user_id,
    cron.schedule,
    cron.timezone,
    cron.end_time,
    cron.enabled ? 1 : 0,
    cron.on_run_completed,
    JSON.stringify(cron.payload),
    JSON.stringify(cron.metadata),
    cron.created_at,
    cron.updated_at,
    cron.next_run_date,
  ];
}

export function newCronId(): string {
  return randomUUID();
}

export async function insertCron(db: Db, cron: CronRecord): Promise<void> {
  await db.run(
    `INSERT INTO interlude_server_crons (${COLUMNS}) VALUES (${COLUMNS.split(",").map(() => "?")})`,
    values(cron),
  );
}

/** Replaces the cron's row (an update reads, changes and saves it whole). */
async function saveCron(db: Db, cron: CronRecord): Promise<void> {
  const [, ...rest] = COLUMNS.split(", ");
  await db.run(`UPDATE interlude_server_crons SET ${rest.map((c) => `${c} = ?`).join(", ")} WHERE cron_id = ?`, [
    ...values(cron).slice(1),
    cron.cron_id,
  ]);
}

/** An assistant's crons, which could make no run without it. */
export async function deleteAssistantCrons(db: Db, assistantId: string): Promise<void> {
  await db.run("DELETE FROM interlude_server_crons WHERE assistant_id = ?", [assistantId]);
}

/**
 * The cron as `change` makes it from what is stored, read and written with its row locked, so
 * that edits made at once each build on the one before; undefined when there is no such cron.
 */
export function editCron(
  db: Db,
  cronId: string,
  change: (cron: CronRecord) => CronRecord,
): Promise<CronRecord | undefined> {
  return db.tx(async (tx) => {
    const lock = tx.dialect === "postgres" ? " FOR UPDATE" : "";
    const [row] = await tx.all<CronRow>(`SELECT ${COLUMNS} FROM interlude_server_crons WHERE cron_id = ?${lock}`, [
      cronId,
    ]);
    if (!row) return undefined;
    const edited = change(fromRow(row));
    await saveCron(tx, edited);
    return edited;
  });
}

/** True when there was such a cron. */
export async function deleteCron(db: Db, cronId: string): Promise<boolean> {
  return (await db.run("DELETE FROM interlude_server_crons WHERE cron_id = ?", [cronId])) > 0;
}

export interface CronQuery {
  assistant_id?: string;
  thread_id?: string;
  enabled?: boolean;
  metadata?: Json;
}

/** The crons matching `query`, in no set order (the caller sorts and pages: crons are few). */
export async function findCrons(db: Db, query: CronQuery): Promise<CronRecord[]> {
  const where: string[] = [];
  const params: unknown[] = [];
  for (const key of ["assistant_id", "thread_id"] as const) {
    if (query[key] === undefined) continue;
    where.push(`${key} = ?`);
    params.push(query[key]);
  }
  if (query.enabled !== undefined) {
    where.push("enabled = ?");
    params.push(query.enabled ? 1 : 0);
  }
  const rows = await db.all<CronRow>(
    `SELECT ${COLUMNS} FROM interlude_server_crons${where.length ? ` WHERE ${where.join(" AND ")}` : ""}`,
    params,
  );
  return rows.map(fromRow).filter((cron) => matches(cron.metadata as Json, query.metadata));
}

/**
 * Takes up to `limit` enabled crons due at `now` (ISO), the longest due first: their next run
 * moves to `leaseUntil`, so that another process's sweep passes them by (PostgreSQL: rows
 * another sweep is taking are skipped, not waited for) and a sweep that dies leaves them due
 * again then. Whoever took one sets its next run.
 */
export async function takeDueCrons(db: Db, now: string, limit: number, leaseUntil: string): Promise<CronRecord[]> {
  const due =
    db.dialect === "postgres"
      ? "SELECT cron_id FROM interlude_server_crons WHERE next_run_at <= ? AND enabled = 1 ORDER BY next_run_at LIMIT ? FOR UPDATE SKIP LOCKED"
      : "SELECT cron_id FROM interlude_server_crons WHERE next_run_at <= ? AND enabled = 1 ORDER BY next_run_at LIMIT ?";
  const rows = await db.all<CronRow>(
    `UPDATE interlude_server_crons SET next_run_at = ? WHERE cron_id IN (${due}) RETURNING ${COLUMNS}`,
    [leaseUntil, now, limit],
  );
  // RETURNING shows the lease; the run was due at the time taken.
  return rows.map(fromRow);
}

/**
 * The cron's next run (null: none, its end has come), set by the sweep that took it, leased
 * until `takenUntil`; false when its lease was not that any more (another sweep took it once the
 * lease had passed, an edit set its next run again, or it was deleted): it is not this sweep's.
 */
export async function setNextRun(db: Db, cronId: string, at: string | null, takenUntil: string): Promise<boolean> {
  const set = "UPDATE interlude_server_crons SET next_run_at = ? WHERE cron_id = ? AND next_run_at = ?";
  return (await db.run(set, [at, cronId, takenUntil])) > 0;
}
