/**
 * What to do when setting storage up failed for how it was asked for, which "check the
 * connection string" does not say: a connection refused by TLS or by a pooler, a database user
 * without the right to create what setup creates.
 *
 * node-postgres (8.x) checks the server's certificate for `sslmode=prefer`, `require` and
 * `verify-ca` as for `verify-full`, where libpq (psql, most other drivers) only encrypts: a
 * connection string that works in psql against a managed database, whose certificate its
 * provider's own CA signed, fails here with Node's "unable to verify the first certificate".
 */

/** Node's codes for a server certificate it could not verify, or that names another host. */
const CERTIFICATE_REFUSED = new Set([
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "CERT_HAS_EXPIRED",
  "CERT_NOT_YET_VALID",
  "ERR_TLS_CERT_ALTNAME_INVALID",
]);

const CERTIFICATE_ADVICE =
  "node-postgres verifies the server's certificate for sslmode=prefer, require and verify-ca as for verify-full, where libpq (psql) only encrypts. " +
  "Give the CA that signed it with sslrootcert=<file> in the connection string (a managed database's provider publishes its bundle), " +
  "or add uselibpqcompat=true for libpq's meaning of your sslmode (encrypted, the certificate not checked).";

const NO_SSL_ADVICE =
  "The connection string asks for SSL (sslmode) and this server does not offer it: turn ssl on in its configuration, or leave sslmode out.";

/**
 * PgBouncer refuses a connection whose `options` startup parameter it does not know how to keep
 * (`?options=-c search_path=...`, the usual way to pick a schema), unless told to ignore it, when
 * the schema would silently not take. A setting of the database user does the same through any
 * pooler.
 */
const POOLER_OPTIONS_ADVICE =
  "A pooler in front of PostgreSQL (PgBouncer) refuses the connection string's options parameter. " +
  "Set it for the database user instead (ALTER ROLE <user> IN DATABASE <database> SET search_path = <schema>), and leave options out; or connect to PostgreSQL directly.";

const NO_SCHEMA_ADVICE =
  "The connection's search_path names no schema that exists (a hardened database may set it empty), so there is nowhere to create the tables. " +
  'Give the saver or store a schema ({ schema: "langgraph" }, created at setup), or create the schema the search_path names.';

const READ_ONLY_ADVICE =
  "The PostgreSQL this connects to takes no writes: a standby (a read replica), or a database or user with default_transaction_read_only on. Connect to the primary.";

/**
 * PostgreSQL 15 and later let only the database's owner create tables in schema `public`, and
 * creating a schema (the saver's `schema`, pg-boss's for the server's queue, even `IF NOT EXISTS`
 * over one that exists) takes the right to create in the database.
 */
function privilegeAdvice(message: string): string | undefined {
  const schema = /^permission denied for schema (.+)$/.exec(message)?.[1];
  if (schema !== undefined)
    return (
      `The database user may not create tables in schema ${schema} (since PostgreSQL 15 only the database's owner may in public). ` +
      `Have the owner run GRANT CREATE ON SCHEMA ${schema} TO <user>, or give the user a schema of its own (CREATE SCHEMA <name> AUTHORIZATION <user>) first in its search_path.`
    );
  const database = /^permission denied for database (.+)$/.exec(message)?.[1];
  if (database !== undefined)
    return (
      "The database user may not create schemas in this database, and setup makes one (the saver's schema option; the server's queue, pg-boss's). " +
      `Have the owner run GRANT CREATE ON DATABASE ${database} TO <user>, or make the user the database's owner.`
    );
  return undefined;
}

/** The advice for `error` when setup failed for how it was asked for; undefined otherwise. */
export function setupAdvice(error: unknown): string | undefined {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === "string" && CERTIFICATE_REFUSED.has(code)) return CERTIFICATE_ADVICE;
  if (message === "The server does not support SSL connections") return NO_SSL_ADVICE;
  if (message === "unsupported startup parameter: options") return POOLER_OPTIONS_ADVICE;
  // insufficient_privilege
  if (code === "42501" && typeof message === "string") return privilegeAdvice(message);
  // read_only_sql_transaction
  if (code === "25006") return READ_ONLY_ADVICE;
  // invalid_schema_name: "no schema has been selected to create in"
  if (code === "3F000") return NO_SCHEMA_ADVICE;
  return undefined;
}
