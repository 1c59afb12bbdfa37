/**
 * How many connections one process opens to PostgreSQL, and how they are shared. Every server
 * and worker holds its own, so a deployment of several processes needs
 * processes × connections below the server's `max_connections` (100 by default): sized
 * with `--postgres-connections` or INTERLUDE_POSTGRES_CONNECTIONS.
 */
import { ConfigError } from "./errors.js";

/** LISTEN for the bus, outside every pool. */
const LISTEN = 1;
/** pg-boss's pool: sending and fetching jobs, its maintenance. */
const QUEUE = 4;
/** The store's pool and the checkpoint saver's need one connection each at least. */
const MIN_POSTGRES_CONNECTIONS = LISTEN + QUEUE + 2;
const DEFAULT_POSTGRES_CONNECTIONS = 25;

export interface PostgresConnections {
  /** The server's tables (runs, threads, interrupts). */
  store: number;
  /** The checkpoint saver: a pool of its own, so that a store transaction waiting for a saver connection always gets one. */
  saver: number;
  /** pg-boss. */
  queue: number;
}

/** Shares `total` connections: LISTEN and pg-boss their fixed few, the store and the saver half of the rest each. */
export function shareConnections(total = DEFAULT_POSTGRES_CONNECTIONS): PostgresConnections {
  const rest = total - LISTEN - QUEUE;
  return { store: Math.ceil(rest / 2), saver: Math.floor(rest / 2), queue: QUEUE };
}

/**
 * A connection count as given by a command-line flag (`name` "--...") or an environment
 * variable (`name` without dashes); undefined when not given.
 */
export function parseConnections(text: string | undefined, name: string): number | undefined {
  if (text === undefined || text === "") return undefined;
  const count = Number(text);
  if (!Number.isInteger(count) || count < MIN_POSTGRES_CONNECTIONS)
    throw new ConfigError(
      `${name}${name.startsWith("--") ? " " : "="}${text} is not a whole number of at least ${MIN_POSTGRES_CONNECTIONS} (LISTEN 1, pg-boss ${QUEUE}, and one each for the store and the checkpoint saver); the default is ${DEFAULT_POSTGRES_CONNECTIONS}.`,
    );
  return count;
}
