import type { PoolClient } from "pg";
import { applyMigrations } from "./migrate.js";

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
  // A checkpoint row also lists its channels' versions, so that a load can find its blobs
  // without the client decoding the record first (NULL in rows written before).
  `ALTER TABLE interlude_checkpoints ADD COLUMN channels text[], ADD COLUMN versions float8[];
   CREATE OR REPLACE FUNCTION interlude_put(
     p_thread text, p_ns text, p_check boolean, p_expected text,
     p_delta_channels text[], p_delta_bases float8[],
     p_channels text[], p_versions float8[], p_bases float8[], p_data bytea[],
     p_id text, p_parent text, p_created_at bigint, p_record bytea, p_metadata bytea,
     p_all_channels text[], p_all_versions float8[]) RETURNS void
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
     INSERT INTO interlude_checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_id, created_at, record, metadata, channels, versions)
       VALUES (p_thread, p_ns, p_id, p_parent, p_created_at, p_record, p_metadata, p_all_channels, p_all_versions)
       ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id) DO UPDATE
       SET parent_id = EXCLUDED.parent_id, created_at = EXCLUDED.created_at, record = EXCLUDED.record,
         metadata = EXCLUDED.metadata, channels = EXCLUDED.channels, versions = EXCLUDED.versions;
     UPDATE interlude_heads SET head_id = GREATEST(head_id, p_id), updated_at = now()
       WHERE thread_id = p_thread AND checkpoint_ns = p_ns;
   END $$;
   -- A claim and, once it is held, the newest checkpoint of the root namespace with its blobs
   -- (delta chains included) and pending writes, in one round trip: a run claims its thread and
   -- then loads it. The reads are statements of their own, so they see every checkpoint the
   -- previous owner committed before letting go. Rows: kind 'c' (the checkpoint: id, parent,
   -- data = record, extra = metadata, complete = its blobs follow), 'b' (blobs), 'w' (writes,
   -- in order: id = task); none when the thread has no checkpoint; one 'n' when not claimed.
   CREATE OR REPLACE FUNCTION interlude_claim_load(p_thread text, p_owner text, p_ttl_ms float8)
     RETURNS TABLE (kind text, id text, parent text, channel text, version float8, base float8,
       data bytea, extra bytea, complete boolean)
   LANGUAGE plpgsql AS $$
   DECLARE
     r record;
   BEGIN
     INSERT INTO interlude_claims AS c (thread_id, owner, expires_at)
       VALUES (p_thread, p_owner, now() + p_ttl_ms * interval '1 millisecond')
       ON CONFLICT (thread_id) DO UPDATE SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at
       WHERE c.owner = EXCLUDED.owner OR c.expires_at <= now();
     IF NOT FOUND THEN
       RETURN QUERY SELECT 'n'::text, NULL::text, NULL::text, NULL::text, NULL::float8, NULL::float8,
         NULL::bytea, NULL::bytea, false;
       RETURN;
     END IF;
     SELECT x.checkpoint_id, x.parent_id, x.record, x.metadata, x.channels, x.versions INTO r
       FROM interlude_checkpoints x WHERE x.thread_id = p_thread AND x.checkpoint_ns = ''
       ORDER BY x.checkpoint_id DESC LIMIT 1;
     IF NOT FOUND THEN RETURN; END IF;
     RETURN QUERY SELECT 'c'::text, r.checkpoint_id, r.parent_id, NULL::text, NULL::float8, NULL::float8,
       r.record, r.metadata, r.channels IS NOT NULL;
     IF r.channels IS NOT NULL THEN
       RETURN QUERY WITH RECURSIVE chain AS (
           SELECT b.channel, b.version, b.base, b.data FROM interlude_blobs b
           JOIN unnest(r.channels, r.versions) AS q(channel, version) ON b.channel = q.channel AND b.version = q.version
           WHERE b.thread_id = p_thread AND b.checkpoint_ns = ''
           UNION
           SELECT b.channel, b.version, b.base, b.data FROM interlude_blobs b JOIN chain ch
           ON b.thread_id = p_thread AND b.checkpoint_ns = '' AND b.channel = ch.channel AND b.version = ch.base)
         SELECT 'b'::text, NULL::text, NULL::text, chain.channel, chain.version, chain.base, chain.data, NULL::bytea, true
         FROM chain;
       RETURN QUERY SELECT 'w'::text, w.task_id, NULL::text, w.channel, NULL::float8, NULL::float8, w.data, NULL::bytea, true
         FROM interlude_writes w
         WHERE w.thread_id = p_thread AND w.checkpoint_ns = '' AND w.checkpoint_id = r.checkpoint_id ORDER BY w.seq;
     END IF;
   END $$;`,
  // Loads that skip what the saver already holds (head-cache.ts); claims and most puts are
  // plain statements now (sql.ts), interlude_put and interlude_claim_load stay for processes
  // still running the previous version during a rolling upgrade (and interlude_put for the
  // puts a plain statement does not store).
  //
  // interlude_read_latest: the newest checkpoint of (thread, namespace) with its blobs (delta
  // chains included) and pending writes, in one statement. When it is the one the caller holds
  // (p_known, and p_stamp: the row version's xmin, which any rewrite of the row changes) only
  // its 's' row and the writes come back: no record, metadata or blobs. Rows: kind 'c' (the
  // checkpoint: id, parent, data = record, extra = metadata, complete = its blobs follow,
  // stamp), 's' (the same, held already: id, parent, stamp), 'b' (blobs), 'w' (writes: id =
  // task, stamp = order). A SQL function, so that the planner inlines it into its caller.
  // Every put updates its head row. Without the index on updated_at (the idle-thread sweep
  // groups the whole table by thread and never used it) and with room left on each page, that
  // update is HOT: a new row version on the same page and no index entries.
  `DROP INDEX IF EXISTS interlude_heads_updated_at;
   ALTER TABLE interlude_heads SET (fillfactor = 80);
   CREATE OR REPLACE FUNCTION interlude_read_latest(p_thread text, p_ns text, p_known text, p_stamp bigint)
     RETURNS TABLE (kind text, id text, parent text, channel text, version float8, base float8,
       data bytea, extra bytea, complete boolean, stamp bigint)
   LANGUAGE sql STABLE AS $$
     WITH RECURSIVE head AS (
         SELECT x.checkpoint_id, x.parent_id, x.record, x.metadata, x.channels, x.versions,
           x.xmin::text::bigint AS stamp,
           coalesce(x.checkpoint_id = p_known AND x.xmin::text::bigint = p_stamp, false) AS held
         FROM interlude_checkpoints x WHERE x.thread_id = p_thread AND x.checkpoint_ns = p_ns
         ORDER BY x.checkpoint_id DESC LIMIT 1),
       chain AS (
         SELECT b.channel, b.version, b.base, b.data
         FROM head CROSS JOIN LATERAL unnest(head.channels, head.versions) AS q(channel, version)
         JOIN interlude_blobs b ON b.thread_id = p_thread AND b.checkpoint_ns = p_ns
           AND b.channel = q.channel AND b.version = q.version
         WHERE NOT head.held
         UNION
         SELECT b.channel, b.version, b.base, b.data FROM chain c JOIN interlude_blobs b
           ON b.thread_id = p_thread AND b.checkpoint_ns = p_ns AND b.channel = c.channel AND b.version = c.base)
     SELECT CASE WHEN head.held THEN 's' ELSE 'c' END, head.checkpoint_id, head.parent_id, NULL::text,
       NULL::float8, NULL::float8, CASE WHEN head.held THEN NULL ELSE head.record END,
       CASE WHEN head.held THEN NULL ELSE head.metadata END, head.channels IS NOT NULL, head.stamp
     FROM head
     UNION ALL
     SELECT 'b', NULL, NULL, chain.channel, chain.version, chain.base, chain.data, NULL, true, NULL FROM chain
     UNION ALL
     SELECT 'w', w.task_id, NULL, w.channel, NULL, NULL, w.data, NULL, true, w.seq
     FROM interlude_writes w WHERE w.thread_id = p_thread AND w.checkpoint_ns = p_ns
       AND w.checkpoint_id = (SELECT head.checkpoint_id FROM head)
   $$;`,
  // interlude_read_head: interlude_read_latest with the stamp of the head row (interlude_heads)
  // instead of the checkpoint row's. Every put of the (thread, namespace) writes its head row,
  // whichever checkpoint id it writes, so the head row's xmin changes with anything that can
  // change what the newest checkpoint reads: the checkpoint row written again, and its blobs
  // rewritten in place by a put of the same id (its own or an older checkpoint's) that another
  // process made. The checkpoint row's xmin missed the second. interlude_read_latest stays for
  // processes still running the previous version.
  `CREATE OR REPLACE FUNCTION interlude_read_head(p_thread text, p_ns text, p_known text, p_stamp bigint)
     RETURNS TABLE (kind text, id text, parent text, channel text, version float8, base float8,
       data bytea, extra bytea, complete boolean, stamp bigint)
   LANGUAGE sql STABLE AS $$
     WITH RECURSIVE head AS (
         SELECT x.checkpoint_id, x.parent_id, x.record, x.metadata, x.channels, x.versions, h.stamp,
           coalesce(x.checkpoint_id = p_known AND h.stamp = p_stamp, false) AS held
         FROM interlude_checkpoints x
         LEFT JOIN (SELECT hr.xmin::text::bigint AS stamp FROM interlude_heads hr
           WHERE hr.thread_id = p_thread AND hr.checkpoint_ns = p_ns) h ON true
         WHERE x.thread_id = p_thread AND x.checkpoint_ns = p_ns
         ORDER BY x.checkpoint_id DESC LIMIT 1),
       chain AS (
         SELECT b.channel, b.version, b.base, b.data
         FROM head CROSS JOIN LATERAL unnest(head.channels, head.versions) AS q(channel, version)
         JOIN interlude_blobs b ON b.thread_id = p_thread AND b.checkpoint_ns = p_ns
           AND b.channel = q.channel AND b.version = q.version
         WHERE NOT head.held
         UNION
         -- Each base looked up by its key: as a join, the planner scanned every blob of the
         -- thread once more, even when nothing was left to look up.
         SELECT b.channel, b.version, b.base, b.data FROM chain c CROSS JOIN LATERAL (
           SELECT b.channel, b.version, b.base, b.data FROM interlude_blobs b
           WHERE b.thread_id = p_thread AND b.checkpoint_ns = p_ns AND b.channel = c.channel AND b.version = c.base
           LIMIT 1) b)
     SELECT CASE WHEN head.held THEN 's' ELSE 'c' END, head.checkpoint_id, head.parent_id, NULL::text,
       NULL::float8, NULL::float8, CASE WHEN head.held THEN NULL ELSE head.record END,
       CASE WHEN head.held THEN NULL ELSE head.metadata END, head.channels IS NOT NULL, head.stamp
     FROM head
     UNION ALL
     SELECT 'b', NULL, NULL, chain.channel, chain.version, chain.base, chain.data, NULL, true, NULL FROM chain
     UNION ALL
     SELECT 'w', w.task_id, NULL, w.channel, NULL, NULL, w.data, NULL, true, w.seq
     FROM interlude_writes w WHERE w.thread_id = p_thread AND w.checkpoint_ns = p_ns
       AND w.checkpoint_id = (SELECT head.checkpoint_id FROM head)
   $$;
   -- interlude_delete_thread: a thread's rows, deleted under its head rows' locks. The one
   -- statement it replaces took its snapshot before waiting for a head row that a put held,
   -- then deleted that row once the put committed, and left the put's checkpoint and blobs
   -- (not in its snapshot) with no head. Here the deletes are statements of their own, after
   -- the lock: each sees what every put that held a head row before it committed. A put
   -- waiting for the lock finds its head gone, and is refused (the head moved).
   CREATE OR REPLACE FUNCTION interlude_delete_thread(p_thread text) RETURNS void
   LANGUAGE plpgsql AS $$
   BEGIN
     PERFORM FROM interlude_heads WHERE thread_id = p_thread FOR UPDATE;
     DELETE FROM interlude_checkpoints WHERE thread_id = p_thread;
     DELETE FROM interlude_blobs WHERE thread_id = p_thread;
     DELETE FROM interlude_writes WHERE thread_id = p_thread;
     DELETE FROM interlude_heads WHERE thread_id = p_thread;
   END $$;`,
  // Small values in the checkpoint row (`inline`, inline.ts of the saver kit) instead of a blob
  // row each: a heap tuple and an index entry fewer per value, on every put. Read by
  // interlude_read_newest (interlude_read_head with the row's inline values on its 'c' row)
  // and written by interlude_put_inline (interlude_put with them). A process of the previous
  // version would load inline values as empty and, worse, write rows that do not carry them:
  // `record`, which each of its puts and checkpoint reads names, is renamed so that they fail
  // (a StorageError, nothing written) instead. Upgrade every process together (README,
  // "Upgrading").
  `ALTER TABLE interlude_checkpoints RENAME COLUMN record TO checkpoint_record;
   ALTER TABLE interlude_checkpoints ADD COLUMN inline text;
   CREATE OR REPLACE FUNCTION interlude_read_newest(p_thread text, p_ns text, p_known text, p_stamp bigint)
     RETURNS TABLE (kind text, id text, parent text, channel text, version float8, base float8,
       data bytea, extra bytea, complete boolean, stamp bigint, inline text)
   LANGUAGE sql STABLE AS $$
     WITH RECURSIVE head AS (
         SELECT x.checkpoint_id, x.parent_id, x.checkpoint_record, x.metadata, x.channels, x.versions, x.inline, h.stamp,
           coalesce(x.checkpoint_id = p_known AND h.stamp = p_stamp, false) AS held
         FROM interlude_checkpoints x
         LEFT JOIN (SELECT hr.xmin::text::bigint AS stamp FROM interlude_heads hr
           WHERE hr.thread_id = p_thread AND hr.checkpoint_ns = p_ns) h ON true
         WHERE x.thread_id = p_thread AND x.checkpoint_ns = p_ns
         ORDER BY x.checkpoint_id DESC LIMIT 1),
       chain AS (
         SELECT b.channel, b.version, b.base, b.data
         FROM head CROSS JOIN LATERAL unnest(head.channels, head.versions) AS q(channel, version)
         JOIN interlude_blobs b ON b.thread_id = p_thread AND b.checkpoint_ns = p_ns
           AND b.channel = q.channel AND b.version = q.version
         WHERE NOT head.held
         UNION
         SELECT b.channel, b.version, b.base, b.data FROM chain c CROSS JOIN LATERAL (
           SELECT b.channel, b.version, b.base, b.data FROM interlude_blobs b
           WHERE b.thread_id = p_thread AND b.checkpoint_ns = p_ns AND b.channel = c.channel AND b.version = c.base
           LIMIT 1) b)
     SELECT CASE WHEN head.held THEN 's' ELSE 'c' END, head.checkpoint_id, head.parent_id, NULL::text,
       NULL::float8, NULL::float8, CASE WHEN head.held THEN NULL ELSE head.checkpoint_record END,
       CASE WHEN head.held THEN NULL ELSE head.metadata END, head.channels IS NOT NULL, head.stamp,
       CASE WHEN head.held THEN NULL ELSE head.inline END
     FROM head
     UNION ALL
     SELECT 'b', NULL, NULL, chain.channel, chain.version, chain.base, chain.data, NULL, true, NULL, NULL FROM chain
     UNION ALL
     SELECT 'w', w.task_id, NULL, w.channel, NULL, NULL, w.data, NULL, true, w.seq, NULL
     FROM interlude_writes w WHERE w.thread_id = p_thread AND w.checkpoint_ns = p_ns
       AND w.checkpoint_id = (SELECT head.checkpoint_id FROM head)
   $$;
   CREATE OR REPLACE FUNCTION interlude_put_inline(
     p_thread text, p_ns text, p_check boolean, p_expected text,
     p_delta_channels text[], p_delta_bases float8[],
     p_channels text[], p_versions float8[], p_bases float8[], p_data bytea[],
     p_id text, p_parent text, p_created_at bigint, p_record bytea, p_metadata bytea,
     p_all_channels text[], p_all_versions float8[], p_inline text) RETURNS void
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
     INSERT INTO interlude_checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_id, created_at, checkpoint_record,
         metadata, channels, versions, inline)
       VALUES (p_thread, p_ns, p_id, p_parent, p_created_at, p_record, p_metadata, p_all_channels, p_all_versions, p_inline)
       ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id) DO UPDATE
       SET parent_id = EXCLUDED.parent_id, created_at = EXCLUDED.created_at, checkpoint_record = EXCLUDED.checkpoint_record,
         metadata = EXCLUDED.metadata, channels = EXCLUDED.channels, versions = EXCLUDED.versions, inline = EXCLUDED.inline;
     UPDATE interlude_heads SET head_id = GREATEST(head_id, p_id), updated_at = now()
       WHERE thread_id = p_thread AND checkpoint_ns = p_ns;
   END $$;`,
  // interlude_read_since: interlude_read_newest for a caller whose held head is no longer the
  // newest (another process wrote the thread since). It also names the blob rows it holds
  // (channel, version, and the row version's xmin), and the delta chains stop at those: a list
  // another process appended to comes back as its new links, not as every link down to the full
  // copy. A held row rewritten in place has another xmin: then nothing is taken as held (a
  // delta's value is its bases' too) and every row is sent. 'b' rows carry their xmin as their
  // stamp, for the caller to name them next time. The checkpoint's own blobs are looked up by
  // key too (LIMIT 1), as their bases were: as a join, the planner scanned every blob of the
  // thread (all 600 rows of a 600-answer thread) at every load.
  `CREATE OR REPLACE FUNCTION interlude_read_since(p_thread text, p_ns text, p_known text, p_stamp bigint,
       p_held_channels text[], p_held_versions float8[], p_held_stamps bigint[])
     RETURNS TABLE (kind text, id text, parent text, channel text, version float8, base float8,
       data bytea, extra bytea, complete boolean, stamp bigint, inline text)
   LANGUAGE sql STABLE AS $$
     WITH RECURSIVE head AS (
         SELECT x.checkpoint_id, x.parent_id, x.checkpoint_record, x.metadata, x.channels, x.versions, x.inline, h.stamp,
           coalesce(x.checkpoint_id = p_known AND h.stamp = p_stamp, false) AS held
         FROM interlude_checkpoints x
         LEFT JOIN (SELECT hr.xmin::text::bigint AS stamp FROM interlude_heads hr
           WHERE hr.thread_id = p_thread AND hr.checkpoint_ns = p_ns) h ON true
         WHERE x.thread_id = p_thread AND x.checkpoint_ns = p_ns
         ORDER BY x.checkpoint_id DESC LIMIT 1),
       named AS (SELECT * FROM unnest(p_held_channels, p_held_versions, p_held_stamps) AS k(channel, version, stamp)),
       kept AS (SELECT * FROM named WHERE NOT (SELECT held FROM head) AND NOT EXISTS (
         SELECT FROM named n CROSS JOIN LATERAL (
           SELECT b.xmin FROM interlude_blobs b
           WHERE b.thread_id = p_thread AND b.checkpoint_ns = p_ns AND b.channel = n.channel AND b.version = n.version
           LIMIT 1) b
         WHERE b.xmin::text::bigint <> n.stamp)),
       chain AS (
         SELECT b.channel, b.version, b.base, b.stamp, b.kept, CASE WHEN b.kept THEN NULL ELSE b.data END AS data
         FROM head CROSS JOIN LATERAL unnest(head.channels, head.versions) AS q(channel, version)
         CROSS JOIN LATERAL (
           SELECT b.channel, b.version, b.base, b.data, b.xmin::text::bigint AS stamp,
             EXISTS (SELECT FROM kept k WHERE k.channel = b.channel AND k.version = b.version
               AND k.stamp = b.xmin::text::bigint) AS kept
           FROM interlude_blobs b
           WHERE b.thread_id = p_thread AND b.checkpoint_ns = p_ns AND b.channel = q.channel AND b.version = q.version
           LIMIT 1) b
         WHERE NOT head.held
         UNION
         SELECT b.channel, b.version, b.base, b.stamp, b.kept, CASE WHEN b.kept THEN NULL ELSE b.data END
         FROM chain c CROSS JOIN LATERAL (
           SELECT b.channel, b.version, b.base, b.data, b.xmin::text::bigint AS stamp,
             EXISTS (SELECT FROM kept k WHERE k.channel = b.channel AND k.version = b.version
               AND k.stamp = b.xmin::text::bigint) AS kept
           FROM interlude_blobs b
           WHERE b.thread_id = p_thread AND b.checkpoint_ns = p_ns AND b.channel = c.channel AND b.version = c.base
           LIMIT 1) b
         WHERE NOT c.kept)
     SELECT CASE WHEN head.held THEN 's' ELSE 'c' END, head.checkpoint_id, head.parent_id, NULL::text,
       NULL::float8, NULL::float8, CASE WHEN head.held THEN NULL ELSE head.checkpoint_record END,
       CASE WHEN head.held THEN NULL ELSE head.metadata END, head.channels IS NOT NULL, head.stamp,
       CASE WHEN head.held THEN NULL ELSE head.inline END
     FROM head
     UNION ALL
     SELECT 'b', NULL, NULL, chain.channel, chain.version, chain.base, chain.data, NULL, true, chain.stamp, NULL
     FROM chain WHERE NOT chain.kept
     UNION ALL
     SELECT 'w', w.task_id, NULL, w.channel, NULL, NULL, w.data, NULL, true, w.seq, NULL
     FROM interlude_writes w WHERE w.thread_id = p_thread AND w.checkpoint_ns = p_ns
       AND w.checkpoint_id = (SELECT head.checkpoint_id FROM head)
   $$;`,
  // A run's fence (sql.ts, `fence`): whether the claim on p_thread still names p_owner, read
  // once this transaction holds the thread's fence lock shared. A revocation takes that lock
  // exclusively (SQL.revoke), so it waits for the fenced writes under way, and those that come
  // after it wait for its commit. VOLATILE: the claim is read in a snapshot taken after the
  // lock is held, not in the calling statement's, which may predate the revocation's commit.
  // The lock is the two-key advisory lock (1231844708, hashtext(thread)): "Ilud", apart from the
  // one-key locks of the server's store and of the migrations.
  `CREATE OR REPLACE FUNCTION interlude_fenced(p_thread text, p_owner text) RETURNS boolean
   LANGUAGE plpgsql VOLATILE AS $$
   BEGIN
     IF p_owner IS NULL THEN RETURN true; END IF;
     PERFORM pg_advisory_xact_lock_shared(1231844708, hashtext(p_thread));
     RETURN EXISTS (SELECT FROM interlude_claims WHERE thread_id = p_thread AND owner = p_owner);
   END $$;`,
  // A run's last writes sent in the caller's transaction that records its end (joined.ts):
  // fenced off (its claim lapsed and was swept, or was revoked), they fail that transaction
  // instead of leaving it to record the end without them.
  `CREATE OR REPLACE FUNCTION interlude_claim_held(p_held boolean) RETURNS boolean
   LANGUAGE plpgsql AS $$
   BEGIN
     IF NOT p_held THEN
       RAISE EXCEPTION 'the run''s claim on the thread was lost: its last writes were not stored' USING ERRCODE = 'IL410';
     END IF;
     RETURN true;
   END $$;`,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** Creates or upgrades the saver's tables (see applyMigrations). */
export function migrate(client: PoolClient): Promise<void> {
  // Any fixed number, not the store's: the advisory lock that serialises migrations across processes.
  return applyMigrations(client, {
    migrations: MIGRATIONS,
    versionTable: "interlude_schema_version",
    lock: 7_214_530_981,
  });
}
