/** One pooled connection for one unit of work, shared by the saver and the store. */
import { InterludeError, StorageError } from "@interlude/core";
import type pg from "pg";

/** Interlude's own errors pass through; a driver's becomes a StorageError naming the operation. */
export function storageError(operation: string, error: unknown): Error {
  return error instanceof InterludeError ? error : new StorageError(operation, error);
}

/** Runs `body` on a connection of `pool`, and gives the connection back whatever happens. */
export async function withPoolClient<T>(
  pool: pg.Pool,
  operation: string,
  body: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  let client: pg.PoolClient | undefined;
  let broken = false;
  try {
    client = await pool.connect();
    // A checked-out client has no listener of the pool's: the server cutting the connection
    // mid-body would be an uncaught 'error' event that ends the process. The body's query
    // fails with it instead.
    client.on("error", ignore);
    return await body(client);
  } catch (error) {
    broken = !(error instanceof InterludeError);
    throw storageError(operation, error);
  } finally {
    client?.off("error", ignore);
    // A client whose transaction died mid-way may be unusable: do not give it back to the pool.
    client?.release(broken ? true : undefined);
  }
}

const ignore = () => undefined;
