/**
 * Whether a pool's connections keep their sessions, checked once at setup: behind a pooler in
 * transaction or statement mode the failures would come later, at random, under load
 * (errors.ts, TransactionPoolerError).
 */
import pg from "pg";
import { TransactionPoolerError } from "./errors.js";

const BACKEND = "SELECT pg_backend_pid() AS pid";

/** Pools whose connections were found to keep their sessions. */
const checked = new WeakSet<pg.Pool>();

async function backendOf(client: pg.ClientBase): Promise<number> {
  const { rows } = await client.query<{ pid: number }>(BACKEND);
  return rows[0]!.pid;
}

/**
 * Two connections of a direct (or session-mode) connection string never share a server backend,
 * and one keeps its backend from statement to statement. A pooler lending backends per
 * transaction or statement gives a second connection the backend the first just gave back when
 * it lends the most recently used first (PgBouncer's default), and may give the first's next
 * statement another one when it lends them in turn. No transaction is opened: a pooler in
 * statement mode refuses them. `client` is a connection of `pool`; the second is opened apart,
 * so that a pool of one connection can be checked too.
 */
export async function checkSessions(pool: pg.Pool, client: pg.ClientBase): Promise<void> {
  // A saver and a store sharing a pool (as the server's do) check it once.
  if (checked.has(pool)) return;
  const before = await backendOf(client);
  const Client = (pool.options as { Client?: typeof pg.Client }).Client ?? pg.Client;
  const other = new Client(pool.options);
  other.on("error", () => undefined);
  await other.connect();
  try {
    const lent = await backendOf(other);
    const after = await backendOf(client);
    if (lent === before) throw new TransactionPoolerError("two connections were served by one backend");
    if (after !== before) throw new TransactionPoolerError("one connection's statements were served by two backends");
  } finally {
    await other.end().catch(() => undefined);
  }
  checked.add(pool);
}
