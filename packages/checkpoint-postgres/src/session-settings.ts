/**
 * Settings every connection Interlude keeps for a while makes its own. A database whose
 * `idle_session_timeout` is set (PostgreSQL 14 and later; a hardening guide's advice) ends a
 * session idle that long: a pooled connection given out as it ended failed its caller's
 * statement (a 503), and the server's LISTEN connection, idle between events, missed whatever
 * was sent while it reconnected. A pool closes its idle connections itself (after 10 s), so none
 * is left behind for the timeout to reclaim. Guarded by the version: older servers do not know
 * the setting.
 */
import type pg from "pg";

export const KEEP_IDLE_SESSION =
  "SELECT set_config('idle_session_timeout', '0', false) WHERE current_setting('server_version_num')::int >= 140000";

const kept = new WeakSet<pg.ClientBase>();
const nothing = () => undefined;

/**
 * KEEP_IDLE_SESSION on `client`, once per connection: the first time, a promise to await before
 * the connection's first statement (node-postgres 8 warns of a statement queued behind another
 * on a client, and 9 refuses it); undefined after. A failure is left to the statement after it.
 */
export function keepSession(client: pg.ClientBase): Promise<void> | undefined {
  if (kept.has(client)) return undefined;
  kept.add(client);
  return client.query(KEEP_IDLE_SESSION).then(nothing, nothing);
}
