/**
 * `interlude recount`: counts the pending interrupts again, for an operator who upgraded
 * servers one by one while some still ran a version that did not count them (see
 * store/pending-counts.ts). Talks to the storage directly, not to a server: run it once the
 * last server of the earlier version has stopped.
 */
import Database from "better-sqlite3";
import pg from "pg";
import { checkConnectionString, startupFailure } from "../../config/postgres-url.js";
import { PgDb, SqliteDb } from "../../store/db.js";
import { Store } from "../../store/store.js";
import { CliError } from "../target.js";

export interface RecountFlags {
  postgres?: string;
  db?: string;
}

export async function recount(flags: RecountFlags): Promise<string> {
  const postgresUrl = flags.postgres ?? process.env.DATABASE_URL;
  if (!postgresUrl && !flags.db)
    throw new CliError(
      "interlude recount needs the storage: pass --postgres <url> (or set DATABASE_URL) or --db <file>.",
    );
  if (postgresUrl) checkConnectionString(postgresUrl);
  const pool = postgresUrl ? new pg.Pool({ connectionString: postgresUrl, max: 1 }) : undefined;
  const file = pool ? undefined : new Database(flags.db!, { fileMustExist: true, timeout: 5000 });
  const db = pool ? new PgDb(pool) : new SqliteDb(file!);
  try {
    const store = new Store(db);
    await store.setup();
    const { counted, recounted } = await store.recountPending();
    return `${recounted} interrupt(s) pending; the counters said ${counted}${counted === recounted ? "" : ", now corrected"}.`;
  } catch (error) {
    // Said as a server's start says it: where, why, and what to check (no stack, no password).
    throw postgresUrl ? startupFailure(postgresUrl, error, "recount") : error;
  } finally {
    if (db instanceof SqliteDb) await db.flush();
    await pool?.end();
    file?.close();
  }
}
