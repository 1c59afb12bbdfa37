/** One pooled connection for one unit of work, shared by the saver and the store. */
import { InterludeError, StorageError } from "@interlude/core";
import type pg from "pg";
import { type PipelinedStatement, type PipelineResult, pipelined } from "./pipeline.js";
import { keepSession, sessionSetupOf } from "./session-settings.js";

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
    await firstUse(pool, client);
    return await body(client);
  } catch (error) {
    broken = !(error instanceof InterludeError);
    throw storageError(operation, error);
  } finally {
    // A client whose transaction died mid-way may be unusable: do not give it back to the pool.
    client?.release(broken ? true : undefined);
  }
}

const ignore = () => undefined;

/**
 * A connection's first checkout. A checked-out client has no listener of the pool's: the server
 * cutting the connection while it is out would be an uncaught 'error' event that ends the
 * process. The statement under way fails with it instead. The listener is added once and stays
 * on the connection in the pool, whose own listener still drops it there. Its session settings
 * (session-settings.ts: its schema among them) go before the caller's statement: the promise
 * returned the first time. Settings not made fail the checkout, whose connection is then dropped.
 */
function firstUse(pool: pg.Pool, client: pg.PoolClient): Promise<void> | undefined {
  // keepSession's promise: only the connection's first checkout has one.
  const ready = keepSession(client, sessionSetupOf(pool));
  if (ready) client.on("error", ignore);
  return ready;
}

/**
 * One statement on a pooled connection of its own, as `pool.query` runs it but for less of
 * the client's CPU: node-postgres's query path copies the config's property descriptors and
 * builds a Query emitter per call; the saver runs a statement or two per step.
 */
export function statementOn(pool: pg.Pool, statement: PipelinedStatement): Promise<PipelineResult> {
  return onPooledClient(pool, (client) => sendOne(client, statement));
}

/**
 * `use` of a pooled connection, given back when it settles. Through pg-pool's callback form (its
 * promise form adds two promises per checkout). A connection whose use failed is dropped, as
 * `pool.query` does.
 */
export function onPooledClient<T>(pool: pg.Pool, use: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return new Promise((resolve, reject) =>
    pool.connect((error, client) => {
      if (error || !client) return reject(error);
      const ready = firstUse(pool, client);
      (ready ? ready.then(() => use(client)) : use(client)).then(
        (result) => {
          client.release();
          resolve(result);
        },
        (failure: unknown) => {
          client.release(failure as Error);
          reject(failure);
        },
      );
    }),
  );
}

/**
 * The statement on `client`: in one exchange on node-postgres's own client, as a plain query on
 * another (pg-native's client runs no custom exchanges).
 */
function sendOne(client: pg.PoolClient, statement: PipelinedStatement): Promise<PipelineResult> {
  if (runsPipelines(client)) return pipelined(client, [statement]).then((results) => results[0]!);
  return client
    .query({ ...statement, values: [...statement.values] })
    .then((result) => ({ rows: result.rows, rowCount: result.rowCount ?? 0 }));
}

/** Whether `client` is node-postgres's own, which runs the pipeline's exchanges (pg-native's does not). */
export function runsPipelines(client: pg.PoolClient): boolean {
  return (client as { connection?: { parsedStatements?: object } }).connection?.parsedStatements !== undefined;
}

/** Ends `pool` unless that is done or under way: pg throws when a pool is ended twice, and closing twice should not. */
export async function endPool(pool: pg.Pool): Promise<void> {
  if (!pool.ended && !pool.ending) await pool.end();
}
