/**
 * What to do about a connection refused for how it was asked for, which "check the connection
 * string" does not say: by TLS, or by a pooler refusing the `options` parameter. node-postgres (8.x) checks the server's certificate for `sslmode=prefer`,
 * `require` and `verify-ca` as for `verify-full`, where libpq (psql, most other drivers) only
 * encrypts: a connection string that works in psql against a managed database, whose certificate
 * its provider's own CA signed, fails here with Node's "unable to verify the first certificate".
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

/** The advice for `error` when the connection was refused for how it was asked for; undefined otherwise. */
export function connectionAdvice(error: unknown): string | undefined {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === "string" && CERTIFICATE_REFUSED.has(code)) return CERTIFICATE_ADVICE;
  if (message === "The server does not support SSL connections") return NO_SSL_ADVICE;
  if (message === "unsupported startup parameter: options") return POOLER_OPTIONS_ADVICE;
  return undefined;
}
