/**
 * Threads' TTLs (threads/ttl.ts), in a table of their own: the threads table is updated by every
 * run, and an indexed expiry there would make each of those updates write the index too. A
 * row's expiry is when to look at the thread again, not a deadline: the sweeper re-arms it from
 * the thread's last activity.
 */
import type { ThreadTtl, TtlStrategy } from "../threads/ttl.js";
import type { Db } from "./db.js";

export const THREAD_TTL = `CREATE TABLE interlude_server_thread_ttl (
     thread_id text PRIMARY KEY, strategy text NOT NULL, ttl_ms bigint NOT NULL, expires_at text NOT NULL);
   CREATE INDEX interlude_server_thread_ttl_due ON interlude_server_thread_ttl (expires_at);`;

/** A thread whose expiry has come, as stored. */
export interface DueTtl {
  threadId: string;
  ttl: ThreadTtl;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The thread's TTL, from `from` (ms since the epoch), replacing any it had. */
export function setThreadTtl(db: Db, threadId: string, ttl: ThreadTtl, from: number): Promise<void> {
  return db.write(
    `INSERT INTO interlude_server_thread_ttl (thread_id, strategy, ttl_ms, expires_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (thread_id) DO UPDATE SET strategy = excluded.strategy, ttl_ms = excluded.ttl_ms, expires_at = excluded.expires_at`,
    [threadId, ttl.strategy, Math.round(ttl.ms), iso(from + ttl.ms)],
  );
}

/**
 * Takes up to `limit` threads whose expiry is at or before `now`, the longest due first: their
 * expiry moves to `leaseUntil`, so that another process's sweep passes them by (PostgreSQL:
 * rows another sweep is taking are skipped, not waited for) and a sweep that dies leaves them
 * due again then. Whoever took one re-arms it or deletes it.
 */
export async function takeDueThreadTtls(db: Db, now: number, limit: number, leaseUntil: number): Promise<DueTtl[]> {
  const due =
    db.dialect === "postgres"
      ? "SELECT thread_id FROM interlude_server_thread_ttl WHERE expires_at <= ? ORDER BY expires_at LIMIT ? FOR UPDATE SKIP LOCKED"
      : "SELECT thread_id FROM interlude_server_thread_ttl WHERE expires_at <= ? ORDER BY expires_at LIMIT ?";
  const rows = await db.all<{ thread_id: string; strategy: TtlStrategy; ttl_ms: number | string }>(
    `UPDATE interlude_server_thread_ttl SET expires_at = ? WHERE thread_id IN (${due}) RETURNING thread_id, strategy, ttl_ms`,
    [iso(leaseUntil), iso(now), limit],
  );
  return rows.map((row) => ({ threadId: row.thread_id, ttl: { strategy: row.strategy, ms: Number(row.ttl_ms) } }));
}

/** Looks at the thread again at `at` (ms since the epoch). */
export function rearmThreadTtl(db: Db, threadId: string, at: number): Promise<void> {
  return db.write("UPDATE interlude_server_thread_ttl SET expires_at = ? WHERE thread_id = ?", [iso(at), threadId]);
}

export function deleteThreadTtl(db: Db, threadId: string): Promise<void> {
  return db.write("DELETE FROM interlude_server_thread_ttl WHERE thread_id = ?", [threadId]);
}
