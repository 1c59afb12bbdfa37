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
  // A put in one round trip (see SQL.put): the head locked and compared, the delta bases
  // checked, the blobs, checkpoint and new head written. Each statement of a PL/pgSQL function
  // sees what the previous ones committed to it, so the bases are counted under the head's lock
  // (as two statements in one transaction did before). Refusals roll the call back with their
  // own SQLSTATE: IL409 (the head moved; DETAIL holds it), IL412 (a delta's base is gone).
  `CREATE OR REPLACE FUNCTION interlude_put(
     p_thread text, p_ns text, p_check boolean, p_expected text,
     p_delta_channels text[], p_delta_bases float8[],
     p_channels text[], p_versions float8[], p_bases float8[], p_data bytea[],
     p_id text, p_parent text, p_created_at bigint, p_record bytea, p_metadata bytea) RETURNS void
   LANGUAGE plpgsql AS $$
   DECLARE
     v_head text;
     v_found int;
   BEGIN
     INSERT INTO interlude_heads (thread_id, checkpoint_ns, head_id) VALUES (p_thread, p_ns, NULL)
       ON CONFLICT (thread_id, checkpoint_ns) DO UPDATE SET thread_id = EXCLUDED.thread_id
       RETURNING head_id INTO v_head;
     IF p_check AND p_expected IS DISTINCT FROM v_head THEN
       RAISE EXCEPTION 'checkpoint head moved' USING ERRCODE = 'IL409', DETAIL = coalesce(v_head, '');
     END IF;
     IF cardinality(p_delta_channels) > 0 THEN
       SELECT count(*) INTO v_found FROM interlude_blobs b
         JOIN unnest(p_delta_channels, p_delta_bases) AS q(channel, version) ON b.channel = q.channel AND b.version = q.version
         WHERE b.thread_id = p_thread AND b.checkpoint_ns = p_ns;
       IF v_found < cardinality(p_delta_channels) THEN
         RAISE EXCEPTION 'delta base missing' USING ERRCODE = 'IL412';
       END IF;
     END IF;
     INSERT INTO interlude_blobs (thread_id, checkpoint_ns, channel, version, base, data)
       SELECT p_thread, p_ns, * FROM unnest(p_channels, p_versions, p_bases, p_data)
       ON CONFLICT (thread_id, checkpoint_ns, channel, version) DO UPDATE SET base = EXCLUDED.base, data = EXCLUDED.data;
     INSERT INTO interlude_checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_id, created_at, record, metadata)
       VALUES (p_thread, p_ns, p_id, p_parent, p_created_at, p_record, p_metadata)
       ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id) DO UPDATE
       SET parent_id = EXCLUDED.parent_id, created_at = EXCLUDED.created_at, record = EXCLUDED.record, metadata = EXCLUDED.metadata;
     UPDATE interlude_heads SET head_id = GREATEST(head_id, p_id), updated_at = now()
       WHERE thread_id = p_thread AND checkpoint_ns = p_ns;
   END $$;
   -- A claim and, once it is held, the newest checkpoint of the root namespace, in one round
   -- trip: a run claims its thread and then loads it. The SELECT is a statement of its own, so
   -- it sees every checkpoint the previous owner committed before letting go.
   CREATE OR REPLACE FUNCTION interlude_claim_latest(p_thread text, p_owner text, p_ttl_ms float8)
     RETURNS TABLE (claimed boolean, checkpoint_id text, parent_id text, record bytea, metadata bytea)
   LANGUAGE plpgsql AS $$
   BEGIN
     INSERT INTO interlude_claims AS c (thread_id, owner, expires_at)
       VALUES (p_thread, p_owner, now() + p_ttl_ms * interval '1 millisecond')
       ON CONFLICT (thread_id) DO UPDATE SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at
       WHERE c.owner = EXCLUDED.owner OR c.expires_at <= now();
     IF NOT FOUND THEN
       RETURN QUERY SELECT false, NULL::text, NULL::text, NULL::bytea, NULL::bytea;
       RETURN;
     END IF;
     RETURN QUERY SELECT true, k.checkpoint_id, k.parent_id, k.record, k.metadata
       FROM (SELECT 1) AS one LEFT JOIN LATERAL (
         SELECT x.checkpoint_id, x.parent_id, x.record, x.metadata FROM interlude_checkpoints x
         WHERE x.thread_id = p_thread AND x.checkpoint_ns = '' ORDER BY x.checkpoint_id DESC LIMIT 1) AS k ON true;
   END $$;`,
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
