/**
 * Storage of its own for each saver the compat scenarios make, so that scenarios with fixed
 * thread ids do not meet: fresh names for PostgreSQL schemas and Redis key prefixes, a pool
 * working in a schema, and closing any runtime's saver with what it was given.
 */
import pg from "pg";
import { testPostgresUrl } from "../../test/setup/urls.js";

/** Names this test file's schemas and key prefixes apart from every other file's. */
const file = `${process.pid}_${Date.now().toString(36)}`;
let made = 0;

/** A schema or key-prefix name no other of the test run has. */
export const freshName = (): string => `compat_${file}_${++made}`;

/** A fresh schema on the test server. */
export async function freshSchema(): Promise<string> {
  const schema = freshName();
  const admin = new pg.Client({ connectionString: testPostgresUrl() });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`).finally(() => admin.end());
  return schema;
}

/** How long a saver's idle connection stays open (ms): a file's hundreds of savers stay open until it ends. */
export const IDLE_MS = 200;

/** A pool working in `schema`, which its first connection creates if missing (a constructor cannot wait). */
export function poolOn(schema: string, idleTimeoutMillis = IDLE_MS): pg.Pool {
  return new pg.Pool({
    connectionString: testPostgresUrl(),
    options: `-c search_path=${schema}`,
    max: 3,
    idleTimeoutMillis,
    onConnect: (client) =>
      client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`).catch((error: { code?: string }) => {
        // Two first connections at once: one of them finds the schema made under it.
        if (error.code !== "23505" && error.code !== "42P06") throw error;
      }),
  });
}

/** Closes any runtime's saver, and the pool an Interlude PostgresSaver was given (the saver leaves it to its owner). */
export async function closeSaver(saver: any): Promise<void> {
  if (typeof saver.end === "function") await saver.end();
  else if (typeof saver.close === "function") await saver.close();
  else saver.db?.close?.();
  if (saver.pool && !saver.pool.ending) await saver.pool.end();
}
