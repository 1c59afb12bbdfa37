import type { QueryConfig } from "pg";
import type { Commit } from "./group-commit.js";

/**
 * A put's stamp: the xmin of the head row it wrote, which every put of the (thread, namespace)
 * writes, so that it changes whenever the newest checkpoint's content can (interlude_read_head,
 * schema.ts).
 */
const STAMP = "xmin::text::bigint AS stamp";

/**
 * interlude_put_inline (schema.ts), and its stamp: the head row it wrote has this
 * transaction's id as its xmin, which txid_current() gives with its epoch on top.
 */
const PUT_CALL =
  "interlude_put_inline($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18), txid_current() % 4294967296 AS stamp";

/**
 * Whether the claim on thread $1 still names the owner in parameter `owner`, when one is given
 * (a null owner: a write made outside any claim, not fenced). A run's writes are fenced by its
 * claim: once the thread's claim was taken or revoked (SQL.revoke), nothing more of the run is
 * stored. interlude_fenced (schema.ts) reads the claim under the thread's fence lock, held
 * shared to the end of the transaction, in a snapshot of its own: a revocation, which takes that
 * lock exclusively, waits for the writes under way, and a write whose statement began before
 * the revocation committed reads the claim after it. An uncorrelated subquery: called once
 * where it stands, before any row it gates is written.
 */
function fence(owner: string): string {
  return `(${owner}::text IS NULL OR (SELECT interlude_fenced($1, ${owner})))`;
}

/** The thread's fence lock (interlude_fenced, schema.ts), taken exclusively by a revocation. */
const FENCE_LOCK = "pg_advisory_xact_lock(1231844708, hashtext($1))";

/**
 * A task's writes, unless fenced off ($8, `fence`): reserved channels (negative idx) replace the
 * task's earlier write; others keep the first. Its one row says whether the fence held (`held`).
 */
const INSERT_WRITES = `w AS (INSERT INTO interlude_writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, data)
    SELECT $1, $2, $3, $4, w.idx, w.channel, w.data FROM unnest($5::int[], $6::text[], $7::bytea[]) WITH ORDINALITY AS w(idx, channel, data, n)
    WHERE ${fence("$8")} ORDER BY w.n
    ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id, task_id, idx) DO UPDATE
    SET channel = EXCLUDED.channel, data = EXCLUDED.data WHERE EXCLUDED.idx < 0)`;

/** The head of (thread, namespace), with `?` placeholders for a caller's own query (`PostgresSaver.headStatement`). */
export const HEAD = "SELECT head_id FROM interlude_heads WHERE thread_id = ? AND checkpoint_ns = ?";

/** `?` placeholders as `$1, $2, ...`. */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/** How a put's one statement finds its head: a thread's first put, a put of whole values, a put with deltas. */
export type PutShape = "first" | "whole" | "deltas";

/**
 * A put in one plain statement, with no PL/pgSQL call: the head compared and moved, the blobs
 * and the checkpoint row written. Each shape takes the head row's lock first and checks it on
 * the newest row version once the lock is held (an UPDATE's or a FOR UPDATE's WHERE is checked
 * again then; a thread's first put inserts the row unless one is there, waiting for a
 * concurrent insert to end); `deltas` then locks the delta bases FOR SHARE, which skips a row
 * deleted since the statement's snapshot, so that the count is that of the bases there now
 * (a prune deletes them under the head's lock). Everything else is written only when that
 * passed; its one row is the stamp (STAMP); no row back: nothing was written, and the put
 * goes through interlude_put_inline, which says why. The rows are plain inserts: a put writes new
 * checkpoint ids and channel versions, except when it writes a stored checkpoint again (a
 * retried put, an older id put again), which fails the statement on the primary key
 * (UNIQUE_VIOLATION) and then goes through interlude_put_inline, whose upserts replace the rows. An
 * upsert checks the key before each insert besides the insert's own check: 13% of the
 * statement's CPU (PERFORMANCE.md, branch pg-db). Parameters: $1 thread, $2 namespace, $3 head
 * expected, $4-$6 the blobs' channels, versions and data, $7-$14 the checkpoint row (its inline
 * values last); `deltas`: $15 the blobs' bases, $16-$17 the delta bases to find; then the owner
 * of the claim the put is fenced by (null: none, `fence`), whose claim goes with it with
 * `release`; then, with `pair`, the row of a checkpoint put before this one and held back until
 * now (deferred-puts.ts), whose blobs are among $4-$6: both rows are written, and the head
 * moves to the newer.
 */
function putStatement(shape: PutShape, release: boolean, pair: boolean): string {
  const owner = shape === "deltas" ? 18 : 15;
  const p = owner + 1;
  const fenced = fence(`$${owner}`);
  const newHead = pair ? `GREATEST($7::text, $${p}::text)` : "$7";
  const head = {
    first: `h AS (INSERT INTO interlude_heads (thread_id, checkpoint_ns, head_id) SELECT $1, $2, ${newHead} WHERE $3::text IS NULL AND ${fenced}
      ON CONFLICT (thread_id, checkpoint_ns) DO NOTHING RETURNING ${STAMP})`,
    whole: `h AS (UPDATE interlude_heads SET head_id = GREATEST(head_id, ${newHead}), updated_at = now()
      WHERE thread_id = $1 AND checkpoint_ns = $2 AND head_id = $3 AND ${fenced} RETURNING ${STAMP})`,
    deltas: `cas AS (SELECT FROM interlude_heads WHERE thread_id = $1 AND checkpoint_ns = $2 AND head_id = $3 AND ${fenced} FOR UPDATE),
    based AS (SELECT count(*) AS n FROM (SELECT FROM interlude_blobs b
      JOIN unnest($16::text[], $17::float8[]) AS q(channel, version) ON b.channel = q.channel AND b.version = q.version
      WHERE b.thread_id = $1 AND b.checkpoint_ns = $2 AND EXISTS (SELECT FROM cas) FOR SHARE OF b) locked),
    ok AS (SELECT FROM cas, based WHERE based.n = cardinality($16::text[])),
    h AS (UPDATE interlude_heads SET head_id = GREATEST(head_id, ${newHead}), updated_at = now()
      WHERE thread_id = $1 AND checkpoint_ns = $2 AND EXISTS (SELECT FROM ok) RETURNING ${STAMP})`,
  }[shape];
  const gate = shape === "deltas" ? "EXISTS (SELECT FROM ok)" : "EXISTS (SELECT FROM h)";
  const blobs =
    shape === "deltas"
      ? "q.base, q.data FROM unnest($4::text[], $5::float8[], $15::float8[], $6::bytea[]) AS q(channel, version, base, data)"
      : "NULL, q.data FROM unnest($4::text[], $5::float8[], $6::bytea[]) AS q(channel, version, data)";
  const released = release
    ? `
    r AS (${releaseBy(`$${owner}`)} AND ${gate}),`
    : "";
  const paired = pair
    ? `
      UNION ALL SELECT $1, $2, $${p}::text, $${p + 1}::text, $${p + 2}::bigint, $${p + 3}::bytea, $${p + 4}::bytea,
        $${p + 5}::text[], $${p + 6}::float8[], $${p + 7}::text WHERE ${gate}`
    : "";
  return `WITH ${head},
    b AS (INSERT INTO interlude_blobs (thread_id, checkpoint_ns, channel, version, base, data)
      SELECT $1, $2, q.channel, q.version, ${blobs} WHERE ${gate}),${released}
    c AS (INSERT INTO interlude_checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_id, created_at, checkpoint_record, metadata,
        channels, versions, inline)
      SELECT $1, $2, $7, $8::text, $9::bigint, $10::bytea, $11::bytea, $12::text[], $13::float8[], $14::text WHERE ${gate}${paired})
    SELECT stamp FROM h`;
}

/**
 * A released claim keeps its row, marked by this expiry (taken like an expired one; as absent
 * for everything else), instead of being deleted. Rows deleted as fast as they were inserted left
 * a table of a few live rows and thousands of dead ones: each autovacuum then recorded it as a
 * few pages, the claim statements' cached plans turned to sequential scans, and every claim and
 * release read the whole heap regrown since (11 buffers per pause-and-resume round trip became
 * 30 to 680 in the benchmark). One row per thread that ran keeps the lookups on the primary key,
 * and a claim of a thread claimed before updates its row in place (HOT) rather than adding an
 * index entry. The row goes with its thread (deleteThread). Processes of earlier versions delete
 * on release, which reads the same.
 */
const RELEASED = "'-infinity'::timestamptz";

/** The release of $1's claim by the owner in parameter `owner` (a statement, or a CTE's body). */
function releaseBy(owner: string): string {
  return `UPDATE interlude_claims SET expires_at = ${RELEASED} WHERE thread_id = $1 AND owner = ${owner}`;
}

/**
 * A claim's statement commits without waiting for its WAL to reach the disk (a CTE evaluated
 * before the commit; `true`: for this statement's transaction only). Nobody acts on a claim
 * outside the run that took it, and the run's next durable commit flushes the claim's WAL with
 * its own (the log is flushed in order); if PostgreSQL itself crashes first, every connection
 * of the run goes with it. On a disk that syncs, a flush is ~0.3 ms a claim would wait for.
 */
const RELAXED = "relaxed AS (SELECT set_config('synchronous_commit', 'off', true))";

/**
 * The columns of interlude_read_since's rows (schema.ts), named rather than `*`: a prepared
 * statement's result type must not change, and a later release may add a column to the function.
 */
const READ_COLUMNS = "kind, id, parent, channel, version, base, data, extra, complete, stamp, inline";

/**
 * A first claim ($1 thread, $2 owner, $3 ttl ms) and, when it is taken, the newest root
 * checkpoint as readLatest reads it ($4, $5: the head held; `since`: as readLatestSince, $6-$8
 * its blob rows), in one plain statement. One 'n'
 * row: not claimed. The read shares the statement's snapshot, taken before the claim: it
 * misses what a previous owner committed with its release after that, but the snapshot then
 * still shows that owner's claim (\`prior\`), and the one 'r' row says to read again.
 * Taking another owner's lapsed claim takes the thread's fence lock first, as a revocation
 * does (\`fenced\`): the old owner's writes under way, which read their claim before it was
 * taken, commit before the claim does, and so before that second read.
 * `relaxed`: a statement of its own, which commits relaxed (RELAXED; `outcome` is always read);
 * else sent in a caller's transaction, whose durability is the caller's to choose.
 */
function claimLatest(relaxed: boolean, since: boolean): string {
  const read = since
    ? "interlude_read_since($1, '', $4::text, $5::bigint, $6::text[], $7::float8[], $8::bigint[])"
    : "interlude_read_since($1, '', $4::text, $5::bigint, NULL, NULL, NULL)";
  return `WITH ${relaxed ? `${RELAXED}, ` : ""}prior AS (SELECT owner, expires_at <= now() AS lapsed FROM interlude_claims
      WHERE thread_id = $1 AND expires_at > ${RELEASED}),
    fenced AS (SELECT ${FENCE_LOCK} FROM prior WHERE prior.owner <> $2 AND prior.lapsed),
    taken AS (INSERT INTO interlude_claims AS c (thread_id, owner, expires_at)
      SELECT $1, $2, now() + $3::float8 * interval '1 millisecond' FROM (SELECT count(*) FROM fenced) AS f
      ON CONFLICT (thread_id) DO UPDATE SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at
      WHERE c.owner = EXCLUDED.owner OR c.expires_at <= now() RETURNING 1),
    outcome AS (SELECT CASE WHEN NOT EXISTS (SELECT FROM taken) THEN 'n'
      WHEN EXISTS (SELECT FROM prior WHERE prior.owner <> $2) THEN 'r' END AS kind${relaxed ? " FROM relaxed" : ""})
  SELECT outcome.kind, NULL::text AS id, NULL::text AS parent, NULL::text AS channel, NULL::float8 AS version,
    NULL::float8 AS base, NULL::bytea AS data, NULL::bytea AS extra, false AS complete, NULL::bigint AS stamp,
    NULL::text AS inline
  FROM outcome WHERE outcome.kind IS NOT NULL
  UNION ALL
  SELECT ${READ_COLUMNS} FROM ${read} WHERE (SELECT kind FROM outcome) IS NULL`;
}

/** The statements the saver runs. `$1, $2` are always thread id and namespace where both appear. */
export const SQL = {
  head: numbered(HEAD),
  /**
   * Blobs, the checkpoint row and the new head, after the head and delta-base checks; returns
   * the head's stamp (schema.ts). Fenced by $19 (`fence`): no row, nothing written, once the
   * claim names someone else.
   */
  put: `SELECT ${PUT_CALL} WHERE ${fence("$19")}`,
  put_first: putStatement("first", false, false),
  put_whole: putStatement("whole", false, false),
  put_deltas: putStatement("deltas", false, false),
  put_first_release: putStatement("first", true, false),
  put_whole_release: putStatement("whole", true, false),
  put_deltas_release: putStatement("deltas", true, false),
  put_first_pair: putStatement("first", false, true),
  put_whole_pair: putStatement("whole", false, true),
  put_deltas_pair: putStatement("deltas", false, true),
  put_first_release_pair: putStatement("first", true, true),
  put_whole_release_pair: putStatement("whole", true, true),
  put_deltas_release_pair: putStatement("deltas", true, true),
  /** A run's last put and the release of its claim ($19: the owner), in one statement: both or neither. */
  putRelease: `WITH r AS (${releaseBy("$19")}) SELECT ${PUT_CALL} WHERE ${fence("$19")}`,
  checkpoint: `SELECT checkpoint_id AS id, parent_id AS "parentId", checkpoint_record AS record, metadata, inline
    FROM interlude_checkpoints
    WHERE thread_id = $1 AND checkpoint_ns = $2 AND checkpoint_id = $3`,
  /**
   * The newest checkpoint with its blobs and writes, or only "unchanged" and its writes when it
   * is the one held ($3, $4; schema.ts). No blob rows named, as constants: the same plan at every call.
   */
  readLatest: `SELECT ${READ_COLUMNS} FROM interlude_read_since($1, $2, $3, $4, NULL, NULL, NULL)`,
  /**
   * The same, but the blob rows held ($5-$7) are not sent again (schema.ts). A statement of its
   * own, always with rows: with empty or null arrays as parameters, PostgreSQL went on planning
   * the prepared statement anew at every call (~0.5 ms), because those calls' plans, folded
   * down, cost less than its generic plan.
   */
  readLatestSince: `SELECT ${READ_COLUMNS} FROM interlude_read_since($1, $2, $3, $4, $5, $6, $7)`,
  /** A checkpoint's small values, for a put that carries them and does not hold its parent (inline-values.ts). */
  inlineOf: `SELECT channels, versions, inline FROM interlude_checkpoints
    WHERE thread_id = $1 AND checkpoint_ns = $2 AND checkpoint_id = $3`,
  /**
   * Each requested blob and, for deltas, its bases down to the full copy, each looked up by its
   * key (LIMIT 1 keeps it a lookup: as a join, the planner scanned every blob of the thread).
   */
  blobChains: `WITH RECURSIVE chain AS (
      SELECT b.channel, b.version, b.base, b.data, b.stamp FROM unnest($3::text[], $4::float8[]) AS q(channel, version)
      CROSS JOIN LATERAL (
        SELECT b.channel, b.version, b.base, b.data, b.xmin::text AS stamp FROM interlude_blobs b
        WHERE b.thread_id = $1 AND b.checkpoint_ns = $2 AND b.channel = q.channel AND b.version = q.version
        LIMIT 1) b
      UNION
      SELECT b.channel, b.version, b.base, b.data, b.stamp FROM chain c CROSS JOIN LATERAL (
        SELECT b.channel, b.version, b.base, b.data, b.xmin::text AS stamp FROM interlude_blobs b
        WHERE b.thread_id = $1 AND b.checkpoint_ns = $2 AND b.channel = c.channel AND b.version = c.base
        LIMIT 1) b)
    SELECT channel, version, base, data, stamp FROM chain`,
  writes: `SELECT task_id AS "taskId", channel, data FROM interlude_writes
    WHERE thread_id = $1 AND checkpoint_ns = $2 AND checkpoint_id = $3 ORDER BY seq`,
  putWrites: `WITH ${INSERT_WRITES} SELECT ${fence("$8")} AS held`,
  /** A run's last writes and the release of its claim ($8: the owner), in one statement: both or neither. */
  putWritesRelease: `WITH ${INSERT_WRITES},
    r AS (${releaseBy("$8")})
    SELECT ${fence("$8")} AS held`,
  /** The same, parked for a caller's transaction (joined.ts): fenced off, it fails (IL410) rather than answer `held` false, which nobody reads there. */
  putWritesReleaseParked: `WITH ${INSERT_WRITES},
    r AS (${releaseBy("$8")})
    SELECT interlude_claim_held(${fence("$8")}) AS held`,
  /** Every row of the thread, once the puts holding its head rows have committed (schema.ts). */
  deleteThread: `WITH c AS (DELETE FROM interlude_claims WHERE thread_id = $1 AND expires_at = ${RELEASED})
    SELECT interlude_delete_thread($1)`,
  /**
   * A renewal, or a takeover of a dead holder's claim ($4), relaxed as a first claim is
   * (RELAXED). A renewal takes the row only while it still names the renewing owner, lapsed or
   * not: a claim that lapsed and was taken (or revoked, `revoke`) since is not taken back by its
   * old owner's late heartbeat, which the run then hears as its claim lost (HeldClaim, core).
   * A takeover waits for the dead holder's fenced writes under way (a statement its process
   * sent before dying may still run), as a revocation does.
   */
  claim: `WITH ${RELAXED}, fenced AS (SELECT ${FENCE_LOCK} WHERE $4::text IS NOT NULL)
    INSERT INTO interlude_claims (thread_id, owner, expires_at)
    SELECT $1, $2, now() + $3 * interval '1 millisecond' FROM relaxed, (SELECT count(*) FROM fenced) AS f
    ON CONFLICT (thread_id) DO UPDATE SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at
    WHERE interlude_claims.owner = EXCLUDED.owner OR interlude_claims.owner = $4
    RETURNING owner`,
  /**
   * Takes the thread from whoever claims it, leaving it free for the next first claim (as
   * released, RELEASED) under an owner no run has: sent where a run is taken from a process held
   * for dead (the server's lease sweep), so that the process, if alive after all, cannot renew
   * its claim and writes nothing more (joined.ts, `revokeIn`). Under the thread's fence lock,
   * held to the end of the caller's transaction (`fence`).
   */
  revoke: `INSERT INTO interlude_claims (thread_id, owner, expires_at) SELECT $1, '', ${RELEASED} FROM (SELECT ${FENCE_LOCK}) fence
    ON CONFLICT (thread_id) DO UPDATE SET owner = '', expires_at = ${RELEASED}`,
  claimLatest: claimLatest(true, false),
  claimLatestSince: claimLatest(true, true),
  /** The same in a caller's transaction (joined.ts). */
  claimLatestIn: claimLatest(false, false),
  claimLatestInSince: claimLatest(false, true),
  claimHolder:
    "SELECT owner, (extract(epoch FROM expires_at) * 1000)::float8 AS expires_at FROM interlude_claims WHERE thread_id = $1 AND expires_at > now()",
  release: releaseBy("$2"),
  /**
   * Up to $1 claims whose holder died (their TTL passed unrenewed); a released claim's row stays
   * (RELEASED). Each under its thread's fence lock, as a takeover: a claim whose holder still has
   * a fenced write under way stays, for the next sweep. Only tried, so that the sweep never waits,
   * and in batches, the locks being held to the end of the statement's transaction.
   */
  expiredClaims: `DELETE FROM interlude_claims WHERE thread_id IN (SELECT thread_id FROM interlude_claims
      WHERE expires_at <= now() AND expires_at > ${RELEASED} LIMIT $1)
    AND expires_at <= now() AND expires_at > ${RELEASED} AND pg_try_advisory_xact_lock(1231844708, hashtext(thread_id))`,
  idleThreads: `SELECT thread_id FROM interlude_heads GROUP BY thread_id
    HAVING MAX(updated_at) < now() - $1 * interval '1 millisecond'`,
  threadsWithOld: "SELECT DISTINCT thread_id FROM interlude_checkpoints WHERE created_at < $1",
  lockThread: "SELECT 1 FROM interlude_heads WHERE thread_id = $1 FOR UPDATE",
  pruneRows: `SELECT checkpoint_ns AS ns, checkpoint_id AS id, created_at::float8 AS "createdAt", checkpoint_record AS record
    FROM interlude_checkpoints WHERE thread_id = $1`,
  deleteCheckpoints: `WITH w AS (DELETE FROM interlude_writes WHERE thread_id = $1 AND checkpoint_ns = $2 AND checkpoint_id = ANY($3::text[]))
    DELETE FROM interlude_checkpoints WHERE thread_id = $1 AND checkpoint_ns = $2 AND checkpoint_id = ANY($3::text[])`,
  blobBases: "SELECT checkpoint_ns AS ns, channel, version, base FROM interlude_blobs WHERE thread_id = $1",
  /** After a rewind: a namespace left without checkpoints has no head; the others' head is their newest left. */
  dropEmptyHead: `DELETE FROM interlude_heads WHERE thread_id = $1 AND checkpoint_ns = $2
    AND NOT EXISTS (SELECT FROM interlude_checkpoints WHERE thread_id = $1 AND checkpoint_ns = $2)`,
  resetHead: `UPDATE interlude_heads SET updated_at = now(),
    head_id = (SELECT max(checkpoint_id) FROM interlude_checkpoints WHERE thread_id = $1 AND checkpoint_ns = $2)
    WHERE thread_id = $1 AND checkpoint_ns = $2`,
  deleteBlobs: `DELETE FROM interlude_blobs b USING unnest($3::text[], $4::float8[]) AS q(channel, version)
    WHERE b.thread_id = $1 AND b.checkpoint_ns = $2 AND b.channel = q.channel AND b.version = q.version`,
} as const;

/**
 * The statements a group commit may send along with other threads' (group-commit.ts), by their
 * prepared names, and how each commits: a run's one-statement puts and its writes, durable; a
 * first claim with its load, relaxed. Not the long way's put (interlude_put_inline): it refuses
 * by raising an error, which would send its whole group again, statement by statement.
 */
export const GROUPED: ReadonlyMap<string, Commit> = new Map(
  (Object.keys(SQL) as Array<keyof typeof SQL>).flatMap((statement): Array<[string, Commit]> => {
    if (statement === "putWritesReleaseParked") return []; // refuses by raising, as the long way's put
    if (statement.startsWith("put_") || statement.startsWith("putWrites"))
      return [[preparedName(statement), "durable"]];
    if (statement === "claimLatest" || statement === "claimLatestSince") return [[preparedName(statement), "relaxed"]];
    return [];
  }),
);

/** A hot statement, prepared once per connection under its name. */
export function named(statement: keyof typeof SQL, values: unknown[]): QueryConfig {
  return { name: preparedName(statement), text: SQL[statement], values };
}

/** The name a statement of `SQL` is prepared under: what `GROUPED` looks statements up by. */
function preparedName(statement: keyof typeof SQL): string {
  return `interlude_${statement}`;
}
