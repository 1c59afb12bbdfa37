/**
 * A run's stream events, stored while it executes so that a client of another process (the
 * run went to a worker, or the client reconnected through another server) can follow and rejoin
 * it. Only used with PostgreSQL: on SQLite every run executes in the one process that serves it.
 */
import type { RunEvent } from "../runs/broker.js";
import { wireJson } from "../wire/messages.js";
import type { Db } from "./db.js";

export interface StoredRunEvent extends RunEvent {
  seq: number;
}

/**
 * The events of several runs in one statement, which also sends `notifications` (NOTIFY
 * `channel`, one per payload) once they are stored: one round trip instead of two. With no
 * events, the notifications alone.
 */
export async function appendRunEvents(
  db: Db,
  batch: ReadonlyMap<string, readonly RunEvent[]>,
  notifications: { channel: string; payloads: string[] },
): Promise<void> {
  const params: unknown[] = [];
  // In the wire's shape already (a live message without its toJSON): a follower writes it as read.
  for (const [runId, events] of batch)
    for (const e of events) params.push(runId, Number(e.id), e.event, wireJson(e.data ?? null));
  if (!params.length) {
    if (notifications.payloads.length)
      await db.all("SELECT pg_notify(?, p) FROM unnest(?::text[]) AS p", [
        notifications.channel,
        notifications.payloads,
      ]);
    return;
  }
  const rows = Array.from({ length: params.length / 4 }, () => "(?, ?, ?, ?)").join(", ");
  // A retried run logs from 0 again: its newer events replace the failed attempt's. A
  // data-modifying WITH runs whether or not it is read, and before the notifications are sent
  // (they go out at commit, so a follower woken by one finds the events).
  await db.all(
    `WITH stored AS (INSERT INTO interlude_server_run_events (run_id, seq, event, data) VALUES ${rows}
       ON CONFLICT (run_id, seq) DO UPDATE SET event = excluded.event, data = excluded.data)
     SELECT pg_notify(?, p) FROM unnest(?::text[]) AS p`,
    [...params, notifications.channel, notifications.payloads],
  );
}

export async function runEventsAfter(db: Db, runId: string, seq: number): Promise<StoredRunEvent[]> {
  const rows = await db.all<{ seq: number | string; event: string; data: string }>(
    "SELECT seq, event, data FROM interlude_server_run_events WHERE run_id = ? AND seq > ? ORDER BY seq",
    [runId, seq],
  );
  return rows.map((r) => ({ seq: Number(r.seq), id: String(r.seq), event: r.event, data: JSON.parse(r.data) }));
}

export async function deleteRunEvents(db: Db, runIds: readonly string[]): Promise<void> {
  if (!runIds.length) return;
  await db.run(`DELETE FROM interlude_server_run_events WHERE run_id IN (${runIds.map(() => "?").join(", ")})`, [
    ...runIds,
  ]);
}

export async function deleteThreadRunEvents(db: Db, threadId: string): Promise<void> {
  await db.run(
    "DELETE FROM interlude_server_run_events WHERE run_id IN (SELECT run_id FROM interlude_server_runs WHERE thread_id = ?)",
    [threadId],
  );
}

/** Events of runs that ended before `before` (their late joiners have had their chance). */
export async function deleteOldRunEvents(db: Db, before: string): Promise<void> {
  await db.run(
    `DELETE FROM interlude_server_run_events WHERE run_id IN (SELECT e.run_id FROM interlude_server_run_events e LEFT JOIN interlude_server_runs r ON r.run_id = e.run_id
       WHERE r.run_id IS NULL OR (r.status NOT IN ('pending', 'running') AND r.updated_at < ?))`,
    [before],
  );
}
