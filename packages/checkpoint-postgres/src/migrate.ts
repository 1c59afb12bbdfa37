import type { PoolClient } from "pg";

/** One table's (or one feature's) schema history: applied in order, recorded in `versionTable`. */
export interface SchemaHistory {
  /** Never edit a shipped migration: add the next one. */
  migrations: readonly string[];
  versionTable: string;
  /** A fixed number per history: the advisory lock that serialises its migrations across processes. */
  lock: number;
}

/**
 * Brings the database to the history's newest version. Two processes calling it at once is
 * fine: the second waits on the advisory lock, then finds nothing left to do.
 */
export async function applyMigrations(client: PoolClient, history: SchemaHistory): Promise<void> {
  const { migrations, versionTable, lock } = history;
  await client.query("BEGIN");
  try {
    await client.query("SELECT pg_advisory_xact_lock($1)", [lock]);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${versionTable} (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const { rows } = await client.query<{ version: number | null }>(
      `SELECT MAX(version) AS version FROM ${versionTable}`,
    );
    const current = rows[0]?.version ?? 0;
    if (current > migrations.length) {
      throw new Error(
        `${versionTable} says schema version ${current}, newer than this @interlude/checkpoint-postgres knows (${migrations.length}); upgrade the package`,
      );
    }
    for (let version = current + 1; version <= migrations.length; version++) {
      await client.query(migrations[version - 1]!);
      await client.query(`INSERT INTO ${versionTable} (version) VALUES ($1)`, [version]);
    }
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  }
}
