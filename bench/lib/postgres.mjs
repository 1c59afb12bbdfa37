/**
 * A throwaway PostgreSQL cluster for workload 7, the one the test suite starts
 * (test/setup/postgres.mjs) but with PostgreSQL's default durability (fsync on). Returns `{ skip: reason }` when it cannot start (no PostgreSQL
 * binaries installed), so that the benchmark prints a skip line instead of failing.
 */
import { startPostgres as start } from "../../test/setup/postgres.mjs";

/** `{ url, stop() }`, or `{ skip: reason }`. */
export async function startPostgres() {
  try {
    return await start({ durable: true });
  } catch (error) {
    return {
      skip: `PostgreSQL did not start (${error.message}); apt-get install postgresql, or set BENCH_POSTGRES_URL`,
    };
  }
}
