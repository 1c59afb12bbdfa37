/**
 * The PostgreSQL connection string a process is given (`--postgres` or DATABASE_URL): checked
 * before use, and named, without its credentials, when the database cannot be used at start.
 */
import { setupAdvice } from "@interlude/checkpoint-postgres";
import { InterludeError, StorageError } from "@interlude/core";
import pg from "pg";
import { ConfigError } from "./errors.js";

/**
 * The forms node-postgres reads. It reads anything else as a URL relative to a made-up host, so
 * a mistyped value would fail later as a host not found, far from its cause.
 */
const CONNECTION_STRING = /^(postgres|postgresql|socket):|^\//;

const ADVICE =
  "Check the connection string (--postgres or DATABASE_URL), and that PostgreSQL is up and accepts its user and database.";

/** Refuses a value that is not a connection string; the value is not repeated, as it may hold a password. */
export function checkConnectionString(url: string): void {
  if (!CONNECTION_STRING.test(url.trim()))
    throw new ConfigError(
      "The PostgreSQL connection string (--postgres or DATABASE_URL) is not one: give it as postgres://user:password@host:5432/database.",
    );
}

/**
 * Where a connection string leads, without its user or password: `host:port/database`, or for
 * PostgreSQL's Unix socket (`?host=/dir`, `socket:`, a Cloud SQL `/cloudsql/...` directory)
 * `socket /dir/.s.PGSQL.port/database`. Read by node-postgres's own parser, with its defaults
 * and PG* environment variables, so it names where the process connects.
 */
export function placeOf(url: string): string {
  try {
    const { host, port, database, user } = new pg.Client({ connectionString: url });
    const where = host.startsWith("/") ? `socket ${host}/.s.PGSQL.${port}` : `${host}:${port}`;
    // PostgreSQL takes the user's name for a database that is not named.
    return `${where}/${database ?? user ?? ""}`;
  } catch {
    return "the database the connection string names";
  }
}

/**
 * What a process says when its database cannot be used at start: the driver's reason, where it
 * tried, and what to check (not "retry the thread's call", as a failed call is told; for a start
 * refused for how it was asked for, by TLS, a pooler or a missing privilege, what to change:
 * setupAdvice). Interlude's own refusals (a pooler
 * that does not keep sessions) pass as they are. `doing`: what failed, for a command other than a
 * process's start.
 */
export function startupFailure(url: string, error: unknown, doing = "startup"): Error {
  if (error instanceof InterludeError && !(error instanceof StorageError)) return error;
  const cause = error instanceof StorageError ? error.cause : error;
  return new StorageError(`${doing} on PostgreSQL at ${placeOf(url)}`, cause, setupAdvice(cause) ?? ADVICE);
}
