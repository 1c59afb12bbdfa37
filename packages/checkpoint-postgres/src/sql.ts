/** The statements the saver runs. `$1, $2` are always thread id and namespace where both appear. */
export const SQL = {
  head: "SELECT head_id FROM interlude_heads WHERE thread_id = $1 AND checkpoint_ns = $2",
  /** Creates the head row if needed, locks it for this transaction, and says which delta bases exist. */
  lockHead: `WITH head AS (
      INSERT INTO interlude_heads (thread_id, checkpoint_ns, head_id) VALUES ($1, $2, NULL)
      ON CONFLICT (thread_id, checkpoint_ns) DO UPDATE SET thread_id = EXCLUDED.thread_id
      RETURNING head_id)
    SELECT (SELECT head_id FROM head) AS head_id,
      (SELECT COUNT(*)::int FROM interlude_blobs b JOIN unnest($3::text[], $4::float8[]) AS q(channel, version)
        ON b.channel = q.channel AND b.version = q.version
        WHERE b.thread_id = $1 AND b.checkpoint_ns = $2) AS bases`,
  /** Blobs, the checkpoint row and the new head in one round trip. */
  writeCheckpoint: `WITH blobs AS (
      INSERT INTO interlude_blobs (thread_id, checkpoint_ns, channel, version, base, data)
      SELECT $1, $2, * FROM unnest($3::text[], $4::float8[], $5::float8[], $6::bytea[])
      ON CONFLICT (thread_id, checkpoint_ns, channel, version) DO UPDATE SET base = EXCLUDED.base, data = EXCLUDED.data),
    checkpoint AS (
      INSERT INTO interlude_checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_id, created_at, record, metadata)
      VALUES ($1, $2, $7, $8, $9, $10, $11)
      ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id) DO UPDATE
      SET parent_id = EXCLUDED.parent_id, created_at = EXCLUDED.created_at, record = EXCLUDED.record, metadata = EXCLUDED.metadata)
    UPDATE interlude_heads SET head_id = GREATEST(head_id, $7), updated_at = now() WHERE thread_id = $1 AND checkpoint_ns = $2`,
  checkpoint: `SELECT checkpoint_id, parent_id, record, metadata FROM interlude_checkpoints
    WHERE thread_id = $1 AND checkpoint_ns = $2 AND checkpoint_id = $3`,
  latest: `SELECT checkpoint_id, parent_id, record, metadata FROM interlude_checkpoints
    WHERE thread_id = $1 AND checkpoint_ns = $2 ORDER BY checkpoint_id DESC LIMIT 1`,
  /** Each requested blob and, for deltas, its bases down to the full copy. */
  blobChains: `WITH RECURSIVE chain AS (
      SELECT b.channel, b.version, b.base, b.data FROM interlude_blobs b
      JOIN unnest($3::text[], $4::float8[]) AS q(channel, version) ON b.channel = q.channel AND b.version = q.version
      WHERE b.thread_id = $1 AND b.checkpoint_ns = $2
      UNION
      SELECT b.channel, b.version, b.base, b.data FROM interlude_blobs b JOIN chain c
      ON b.thread_id = $1 AND b.checkpoint_ns = $2 AND b.channel = c.channel AND b.version = c.base)
    SELECT channel, version, base, data FROM chain`,
  writes: `SELECT task_id, channel, data FROM interlude_writes
    WHERE thread_id = $1 AND checkpoint_ns = $2 AND checkpoint_id = $3 ORDER BY seq`,
  /** Reserved channels (negative idx) replace the task's earlier write; others keep the first. */
  putWrites: `INSERT INTO interlude_writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, data)
    SELECT $1, $2, $3, $4, w.idx, w.channel, w.data FROM unnest($5::int[], $6::text[], $7::bytea[]) WITH ORDINALITY AS w(idx, channel, data, n) ORDER BY w.n
    ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id, task_id, idx) DO UPDATE
    SET channel = EXCLUDED.channel, data = EXCLUDED.data WHERE EXCLUDED.idx < 0`,
  deleteThread: `WITH c AS (DELETE FROM interlude_checkpoints WHERE thread_id = $1),
    b AS (DELETE FROM interlude_blobs WHERE thread_id = $1),
    w AS (DELETE FROM interlude_writes WHERE thread_id = $1)
    DELETE FROM interlude_heads WHERE thread_id = $1`,
  claim: `INSERT INTO interlude_claims (thread_id, owner, expires_at) VALUES ($1, $2, now() + $3 * interval '1 millisecond')
    ON CONFLICT (thread_id) DO UPDATE SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at
    WHERE interlude_claims.owner = EXCLUDED.owner OR interlude_claims.expires_at <= now() OR interlude_claims.owner = $4
    RETURNING owner`,
  claimHolder:
    "SELECT owner, (extract(epoch FROM expires_at) * 1000)::float8 AS expires_at FROM interlude_claims WHERE thread_id = $1 AND expires_at > now()",
  release: "DELETE FROM interlude_claims WHERE thread_id = $1 AND owner = $2",
  expiredClaims: "DELETE FROM interlude_claims WHERE expires_at <= now()",
  idleThreads: `SELECT thread_id FROM interlude_heads GROUP BY thread_id
    HAVING MAX(updated_at) < now() - $1 * interval '1 millisecond'`,
  threadsWithOld: "SELECT DISTINCT thread_id FROM interlude_checkpoints WHERE created_at < $1",
  lockThread: "SELECT 1 FROM interlude_heads WHERE thread_id = $1 FOR UPDATE",
  checkpointAges: `SELECT checkpoint_ns, checkpoint_id, created_at FROM interlude_checkpoints
    WHERE thread_id = $1 ORDER BY checkpoint_ns, checkpoint_id DESC`,
  deleteCheckpoints: `WITH w AS (DELETE FROM interlude_writes WHERE thread_id = $1 AND checkpoint_ns = $2 AND checkpoint_id = ANY($3::text[]))
    DELETE FROM interlude_checkpoints WHERE thread_id = $1 AND checkpoint_ns = $2 AND checkpoint_id = ANY($3::text[])`,
  records: "SELECT record FROM interlude_checkpoints WHERE thread_id = $1 AND checkpoint_ns = $2",
  blobBases: "SELECT channel, version, base FROM interlude_blobs WHERE thread_id = $1 AND checkpoint_ns = $2",
  deleteBlobs: `DELETE FROM interlude_blobs b USING unnest($3::text[], $4::float8[]) AS q(channel, version)
    WHERE b.thread_id = $1 AND b.checkpoint_ns = $2 AND b.channel = q.channel AND b.version = q.version`,
} as const;
