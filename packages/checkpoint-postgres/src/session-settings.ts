/**
 * Settings every connection Interlude keeps for a while makes its own. A database whose
 * `idle_session_timeout` is set (PostgreSQL 14 and later; a hardening guide's advice) ends a
 * session idle that long: a pooled connection given out as it ended failed its caller's
 * statement (a 503), and the server's LISTEN connection, idle between events, missed whatever
 * was sent while it reconnected. A pool closes its idle connections itself (after 10 s), so none
 * is left behind for the timeout to reclaim. Guarded by the version: older servers do not know
 * the setting.
 */
export const KEEP_IDLE_SESSION =
  "SELECT set_config('idle_session_timeout', '0', false) WHERE current_setting('server_version_num')::int >= 140000";
