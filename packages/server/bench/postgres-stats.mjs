/**
 * The benchmarks' PostgreSQL: a throwaway server (or BENCH_POSTGRES_URL's) with a fresh database
 * per deployment, and what its statistics count per round trip: transactions, WAL records and
 * flushes, statements (pg_stat_statements).
 */

/**
 * Transactions committed in `database` so far, and WAL records written and WAL flushes to disk
 * by the whole server (pg_stat_database, pg_stat_wal; the statistics lag by up to 0.5 s). WAL
 * records are counted work, not time: they show a change in what an answer writes through the
 * machine's noise. Flushes are what durable commits wait for (none with fsync off); concurrent
 * commits share one.
 */
export async function commits(pool) {
  await pool.query("SELECT pg_stat_clear_snapshot()");
  const { rows } = await pool.query(
    `SELECT d.xact_commit::bigint AS n, w.wal_records::bigint AS wal, w.wal_sync::bigint AS flushes
     FROM pg_stat_database d, pg_stat_wal w WHERE d.datname = current_database()`,
  );
  return { commits: Number(rows[0].n), walRecords: Number(rows[0].wal), walFlushes: Number(rows[0].flushes) };
}

/**
 * Statements executed in the pool's database so far (pg_stat_statements, counted as each ends),
 * or undefined when the extension is not loaded. BEGIN, COMMIT and ROLLBACK are left out:
 * pg_stat_statements counts them when sent as simple queries and not when prepared, so counts
 * would differ between builds that send them differently.
 */
export async function statementCount(pool) {
  const { rows } = await pool
    .query(
      `SELECT coalesce(sum(calls), 0)::bigint AS n FROM pg_stat_statements
       WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND query NOT IN ('BEGIN', 'COMMIT', 'ROLLBACK')`,
    )
    .catch(() => ({ rows: [] }));
  return rows[0] ? Number(rows[0].n) : undefined;
}

/**
 * The statements executed since the last reset, most frequent first, as calls per round trip,
 * their execution time per round trip (pg_stat_statements: planning and parsing not included)
 * and the WAL records they wrote per round trip.
 */
export async function statementProfile(pool, roundTrips) {
  const { rows } = await pool.query(
    `SELECT calls::bigint AS calls, total_exec_time AS ms, wal_records::bigint AS wal, query FROM pg_stat_statements
     WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) ORDER BY calls DESC`,
  );
  return rows
    .map((r) => ({
      perRoundTrip: Number(r.calls) / roundTrips,
      usPerRoundTrip: (Number(r.ms) * 1000) / roundTrips,
      walPerRoundTrip: Number(r.wal) / roundTrips,
      query: r.query.replace(/\s+/g, " "),
    }))
    .filter((r) => r.perRoundTrip >= 0.05);
}

/** `--no-fsync`: the throwaway PostgreSQL runs as the tests' does (see throwawayDatabase). */
const NO_FSYNC = process.argv.includes("--no-fsync");

/**
 * A fresh database on a throwaway PostgreSQL (or on BENCH_POSTGRES_URL's server): `{ url, stop() }`,
 * where `stop()` stops the throwaway server. `statements`: with pg_stat_statements loaded and
 * created in the database (the throwaway server only). The throwaway server keeps PostgreSQL's
 * default durability (fsync on), as issue 15's figures are set, unless `--no-fsync` is given
 * (the test suite's setting: figures comparable with those measured before 2 Dec 2026).
 * `on`: an earlier throwaway database, whose server gets this one too (`server`: the server's
 * URL); the earlier one's `stop()` stops it.
 */
export async function throwawayDatabase(prefix, { statements = false, on } = {}) {
  const { default: pg } = await import("pg");
  const external = on?.server ?? process.env.BENCH_POSTGRES_URL;
  const cluster = external
    ? { url: external, stop() {} }
    : await (await import("../../../test/setup/postgres.mjs")).startPostgres({ statements, durable: !NO_FSYNC });
  const name = `${prefix}_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(cluster.url);
  url.pathname = `/${name}`;
  if (statements && !external) {
    const client = new pg.Client({ connectionString: url.toString() });
    await client.connect();
    await client.query("CREATE EXTENSION pg_stat_statements");
    await client.end();
  }
  return { url: url.toString(), server: cluster.url, stop: () => cluster.stop() };
}

/** How the benchmark's PostgreSQL keeps commits, for the figures' heading (see throwawayDatabase). */
export function postgresDurability() {
  if (process.env.BENCH_POSTGRES_URL) return "BENCH_POSTGRES_URL's settings";
  return NO_FSYNC ? "fsync off" : "fsync on, PostgreSQL's defaults";
}
