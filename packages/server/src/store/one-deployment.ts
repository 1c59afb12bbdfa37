/**
 * One deployment per PostgreSQL database. The server's tables live in the connection's
 * search_path, but what its processes share beyond them is per database: the LISTEN channels of
 * the bus, pg-boss's schema (`interlude_pgboss`) and the advisory locks. Two deployments in two
 * schemas of one database would take each other's queued runs (a job whose run a process does
 * not find is done with, and the run waits for the stranded-run look) and hear each other's
 * events (an inbox stream would carry the other deployment's questions). So a process whose
 * database already holds a deployment's tables in another schema refuses to start.
 */
import { ConfigError } from "../config/errors.js";
import type { Db } from "./db.js";

const OTHER_DEPLOYMENT = `SELECT n.nspname AS other, current_schema() AS own FROM pg_class c
  JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE c.relname = 'interlude_server_runs' AND c.relkind IN ('r', 'p') AND n.nspname <> current_schema()
  ORDER BY n.nspname LIMIT 1`;

export async function refuseSharedDatabase(db: Db): Promise<void> {
  const [found] = await db.all<{ other: string; own: string }>(OTHER_DEPLOYMENT);
  if (!found) return;
  throw new ConfigError(
    `This database holds another Interlude deployment's tables, in schema "${found.other}", where this one keeps its own in schema "${found.own}" (its search_path). ` +
      "Deployments in one database share its LISTEN channels and pg-boss's schema: each would take the other's queued runs and hear its events. " +
      `Give each deployment a database of its own, or drop schema "${found.other}"'s tables if nothing uses them.`,
  );
}
