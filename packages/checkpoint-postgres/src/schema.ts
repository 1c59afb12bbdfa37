import type { PoolClient } from "pg";

/**
 * Schema migrations, applied in order and recorded in `interlude_schema_version`. Never edit a
 * shipped migration: add the next one.
 */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE interlude_checkpoints (
     thread_id text NOT NULL, checkpoint_ns text NOT NULL, checkpoint_id text NOT NULL,
     parent_id text, created_at bigint NOT NULL, record bytea NOT NULL, metadata bytea NOT NULL,
     PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id));
   CREATE INDEX interlude_checkpoints_created_at ON interlude_checkpoints (created_at);
   CREATE TABLE interlude_blobs (
     thread_id text NOT NULL, checkpoint_ns text NOT NULL, channel text NOT NULL, version double precision NOT NULL,
     base double precision, data bytea,
     PRIMARY KEY (thread_id, checkpoint_ns, channel, version));
   CREATE TABLE interlude_writes (
     thread_id text NOT NULL, checkpoint_ns text NOT NULL, checkpoint_id text NOT NULL,
     task_id text NOT NULL, idx integer NOT NULL, channel text NOT NULL, data bytea NOT NULL, seq bigserial NOT NULL,
     PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx));
   CREATE TABLE interlude_heads (
     thread_id text NOT NULL, checkpoint_ns text NOT NULL, head_id text, updated_at timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (thread_id, checkpoint_ns));
   CREATE INDEX interlude_heads_updated_at ON interlude_heads (updated_at);
   CREATE TABLE interlude_claims (thread_id text PRIMARY KEY, owner text NOT NULL, expires_at timestamptz NOT NULL);`,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** Any fixed number: the advisory lock that serialises migrations across processes. */
const MIGRATION_LOCK = 7_214_530_981;

/**
 * Brings the database to the current schema. Two processes calling it at once is fine: the
 * second waits on the advisory lock, then finds nothing left to do.
 */
export async function migrate(client: PoolClient): Promise<void> {
  await client.query("BEGIN");
  try {
    await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    await client.query(
      "CREATE TABLE IF NOT EXISTS interlude_schema_version (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
    );
    const { rows } = await client.query<{ version: number | null }>(
      "SELECT MAX(version) AS version FROM interlude_schema_version",
    );
    const current = rows[0]?.version ?? 0;
    if (current > MIGRATIONS.length) {
      throw new Error(
        `the database has schema version ${current}, newer than this @interlude/checkpoint-postgres (${MIGRATIONS.length}); upgrade the package`,
      );
    }
    for (let version = current + 1; version <= MIGRATIONS.length; version++) {
      await client.query(MIGRATIONS[version - 1]!);
      await client.query("INSERT INTO interlude_schema_version (version) VALUES ($1)", [version]);
    }
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  }
}
