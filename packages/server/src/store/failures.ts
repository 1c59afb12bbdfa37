/**
 * Which errors mean the database itself failed (full, read-only, unreachable, out of
 * resources), as opposed to a bug or bad input: those are answered `503 STORAGE_FAILED`, and a
 * run that meets one ends its waiters instead of leaving them hanging.
 */
import { InterludeError } from "@interlude/core";

/** SQLite result codes (better-sqlite3's `code`, extended codes start with these). */
const SQLITE = ["SQLITE_FULL", "SQLITE_READONLY", "SQLITE_IOERR", "SQLITE_BUSY", "SQLITE_LOCKED", "SQLITE_CANTOPEN"];
/** PostgreSQL SQLSTATE classes: connection, resources, shutdown, system. */
const PG_CLASSES = ["08", "53", "57P", "58"];
/** 25006: read-only transaction; IL410: a run's last writes fenced off as its claim was lost while storage was away (the PostgreSQL saver's interlude_claim_held). */
const PG_CODES = ["25006", "IL410"];
/** Node's socket errors when the database server is gone. */
const NET = ["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "ENOTFOUND"];

/** Errors met opening a connection (`failedToConnect`). */
const connecting = new WeakSet<Error>();

/**
 * `error`, met opening a connection: the database failed whatever its code says (one that
 * takes no connections, `ALLOW_CONNECTIONS false`, answers 55000, which a statement may also
 * answer for a bug of ours).
 */
export function failedToConnect(error: Error): Error {
  connecting.add(error);
  return error;
}

export function isStorageFailure(error: unknown): boolean {
  if (error instanceof InterludeError) return error.code === "STORAGE_FAILED";
  if (!(error instanceof Error)) return false;
  if (connecting.has(error)) return true;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") {
    if (code.startsWith("SQLITE_")) return SQLITE.some((c) => code.startsWith(c));
    if (NET.includes(code) || PG_CODES.includes(code)) return true;
    if (/^[0-9A-Z]{5}$/.test(code)) return PG_CLASSES.some((c) => code.startsWith(c));
  }
  // pg's own message when the server closes the connection under it.
  return /Connection terminated|connection is closed|Client has encountered a connection error/i.test(error.message);
}

/**
 * A run's last writes refused as its claim on the thread was lost meanwhile (the PostgreSQL
 * saver's IL410): taken over by a process that held it for dead, or lapsed and swept while its
 * process was cut off. Nothing of the run's end was stored.
 */
export function isClaimLost(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "IL410";
}

/** A row that was already there (SQLite's constraint codes, PostgreSQL's unique_violation). */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "23505" || code === "SQLITE_CONSTRAINT_PRIMARYKEY" || code === "SQLITE_CONSTRAINT_UNIQUE";
}
