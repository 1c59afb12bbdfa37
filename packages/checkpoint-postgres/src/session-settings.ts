/**
 * Settings every connection Interlude keeps for a while makes its own, whatever the database's
 * defaults say.
 *
 * - `idle_session_timeout` 0. A database whose timeout is set (PostgreSQL 14 and later; a
 *   hardening guide's advice) ends a session idle that long: a pooled connection given out as it
 *   ended failed its caller's statement (a 503), and the server's LISTEN connection, idle between
 *   events, missed whatever was sent while it reconnected. A pool closes its idle connections
 *   itself (after 10 s), so none is left behind for the timeout to reclaim. Guarded by the
 *   version: older servers do not know the setting.
 * - On connections Interlude owns (`ownSessions`), `default_transaction_isolation` read
 *   committed, which every statement of the saver, the store and the server is written for: a
 *   database defaulting to serializable failed answers at random under load ("could not
 *   serialize access"), and repeatable read fails a claim's takeover. A pool a user passes in is
 *   left as it is (its owner's own transactions keep their level): the saver's setup refuses one
 *   whose transactions are not read committed (database.ts). And the schema the tables live in,
 *   when one is given (LangGraph's `schema`).
 */
import pg from "pg";

const IDLE =
  "CASE WHEN current_setting('server_version_num')::int >= 140000 THEN set_config('idle_session_timeout', '0', false) END";

export const KEEP_IDLE_SESSION = `SELECT ${IDLE}`;

/** What a connection Interlude owns sets first (without a schema). */
export const OWN_SESSION = `SELECT ${IDLE}, set_config('default_transaction_isolation', 'read committed', false)`;

/** The statement each new connection of a pool Interlude owns runs first (`ownSessions`). */
const owned = new WeakMap<pg.Pool, string>();

/** Makes every connection of `pool` Interlude's own from its first use: OWN_SESSION, and `schema` as its search_path. */
export function ownSessions(pool: pg.Pool, schema?: string): void {
  ownSessionsWith(
    pool,
    schema === undefined ? OWN_SESSION : `${OWN_SESSION}; SET search_path TO ${pg.escapeIdentifier(schema)}`,
  );
}

/**
 * As ownSessions, with a setup of the owner's: statements that include OWN_SESSION. Whoever
 * takes a connection of `pool` (withPoolClient, onPooledClient, the server's store) runs it
 * before the connection's first statement, so no path that uses the pool leaves one with the
 * database's defaults: keepSession marks a connection set up by the first setup it runs.
 */
export function ownSessionsWith(pool: pg.Pool, setup: string): void {
  owned.set(pool, setup);
}

/** Whether Interlude sets up `pool`'s sessions (`ownSessions`): read committed, whatever the database's default. */
export function setsSessions(pool: pg.Pool): boolean {
  return owned.has(pool);
}

/** What a new connection of `pool` runs first: OWN_SESSION (and its schema) if Interlude owns the pool, else KEEP_IDLE_SESSION. */
export function sessionSetupOf(pool: pg.Pool): string {
  return owned.get(pool) ?? KEEP_IDLE_SESSION;
}

const kept = new WeakSet<pg.ClientBase>();
const nothing = () => undefined;

/**
 * `setup` (a pool's sessionSetupOf) on `client`, once per connection: the first time, a promise
 * to await before the connection's first statement (node-postgres 8 warns of a statement queued
 * behind another on a client, and 9 refuses it); undefined after. A failure fails the promise:
 * the caller drops the connection, whose statements would otherwise run with the database's
 * defaults (another schema's tables, another isolation level).
 */
export function keepSession(client: pg.ClientBase, setup: string): Promise<void> | undefined {
  if (kept.has(client)) return undefined;
  kept.add(client);
  return client.query(setup).then(nothing);
}
