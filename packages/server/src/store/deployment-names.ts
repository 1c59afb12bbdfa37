/**
 * The server's tables live in the schema its connections' search_path selects, but what its
 * processes share beyond them is per database: the bus's LISTEN channels, the advisory lock that
 * says whether any process watches (events/notifications.ts), and pg-boss's schema. Each is
 * named after the deployment's schema, so that several deployments share one database, a schema
 * each, without hearing each other's events or taking each other's queued runs. Schema `public`
 * keeps the names every deployment had before (a deployment upgraded process by process keeps
 * hearing its older processes).
 */
import { createHash } from "node:crypto";
import { ConfigError } from "../config/errors.js";
import type { Db } from "./db.js";

export interface DeploymentNames {
  /** The schema holding the deployment's tables: the first of its search_path that exists. */
  readonly schema: string;
  /** The channel every process listens to (run dispatch, cancel, queued, assistant changes). */
  readonly busChannel: string;
  /** The channel of per-answer events, listened to while a client waits (Bus.watch). */
  readonly watchChannel: string;
  /** The advisory lock (one bigint key) a watching process holds shared. */
  readonly watchLock: number;
  /** pg-boss's schema: the deployment's run and deadline jobs. */
  readonly queueSchema: string;
}

/** A schema name used as it is in the others' names: pg-boss allows 50 characters of `\w` for its schema. */
const PLAIN = /^[a-z_][a-z0-9_]{0,32}$/;
/** Above every 32-bit key (the store's thread locks are `hashtext`), below 2^53. */
const LOCK_BASE = 2 ** 40;

export function deploymentNames(schema: string): DeploymentNames {
  if (schema === "public")
    return {
      schema,
      busChannel: "interlude_server_events",
      watchChannel: "interlude_server_watched",
      watchLock: 7_163_524_011,
      queueSchema: "interlude_pgboss",
    };
  const digest = createHash("sha256").update(schema).digest("hex");
  // Any other name (quotes, capitals, a long one) by its digest: identifiers need no quoting.
  const suffix = PLAIN.test(schema) ? schema : `x${digest.slice(0, 16)}`;
  return {
    schema,
    busChannel: `interlude_server_events_${suffix}`,
    watchChannel: `interlude_server_watched_${suffix}`,
    watchLock: LOCK_BASE + Number.parseInt(digest.slice(0, 10), 16),
    queueSchema: `interlude_pgboss_${suffix}`,
  };
}

/** Reads the deployment's schema through the store's database (its connections' search_path). */
export async function readDeploymentNames(db: Db): Promise<DeploymentNames> {
  const [row] = await db.all<{ schema: string | null }>("SELECT current_schema() AS schema");
  const schema = row?.schema;
  if (!schema)
    throw new ConfigError(
      "No schema of the connection's search_path exists, so there is nowhere to keep the server's tables. " +
        "Create the schema the search_path names (CREATE SCHEMA ...), or set search_path to one that exists.",
    );
  return deploymentNames(schema);
}
