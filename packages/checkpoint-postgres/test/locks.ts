import pg from "pg";

/**
 * Returns once `count` connections named `name` wait for a lock (a row another session holds):
 * how a test orders sessions without sleeping. Polls PostgreSQL's view of its sessions from a
 * connection of its own: a session inside a transaction sees that view as it was at its first
 * look, and would wait forever.
 */
export async function untilWaitingForLocks(url: string, name: string, count = 1): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (;;) {
      const { rows } = await client.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND application_name = $1",
        [name],
      );
      if (rows[0]!.n >= count) return;
    }
  } finally {
    await client.end();
  }
}
