/**
 * PostgreSQL's statistics counters as they are now, for the tests and benchmarks that count
 * work (buffers, rows, WAL). A backend reports its counters when idle, but at most once a second,
 * else up to ten seconds later: whoever reads them makes every connection that did the work
 * report first.
 */

/** Makes every connection of `pool` (a node-postgres Pool) report its counters now. */
export async function reportCounters(pool) {
  const clients = await Promise.all(Array.from({ length: pool.totalCount }, () => pool.connect()));
  for (const client of clients) {
    await client.query("SELECT pg_stat_force_next_flush()");
    client.release();
  }
}

/**
 * Buffers read from `table`'s heap so far, as every connection of `pool` has reported them;
 * read through `reader`, a connection outside the pool whose cached snapshot of the counters is
 * dropped first.
 */
export async function heapBuffersRead(pool, reader, table) {
  await reportCounters(pool);
  await reader.query("SELECT pg_stat_clear_snapshot()");
  const { rows } = await reader.query(
    "SELECT heap_blks_hit + heap_blks_read AS n FROM pg_statio_user_tables WHERE relname = $1",
    [table],
  );
  return Number(rows[0].n);
}
