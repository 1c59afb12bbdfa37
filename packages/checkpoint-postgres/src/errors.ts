import { InterludeError } from "@interlude/core";

/**
 * The connection string leads to a pooler that lends a server connection per transaction or per
 * statement (PgBouncer's `pool_mode = transaction` or `statement`, and poolers like it). The
 * saver's prepared statements, the server's LISTEN and its session settings belong to a
 * connection's session, which such a pooler does not keep: under load they fail at random
 * ("prepared statement ... already exists") or notifications never arrive.
 */
export class TransactionPoolerError extends InterludeError {
  constructor(seen: string) {
    super(
      "TRANSACTION_POOLER",
      `The PostgreSQL connection string leads to a pooler that does not keep a connection's session (${seen}): ` +
        "Interlude needs its sessions (prepared statements, LISTEN, session settings). " +
        "Connect to PostgreSQL directly, or through a pool in session mode (PgBouncer: pool_mode = session).",
      { details: { seen } },
    );
  }
}
