import {
  assembleValue,
  BaseCheckpointSaver,
  blobKey,
  buildTuple,
  type ChannelVersions,
  type Checkpoint,
  CheckpointConflictError,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointRecord,
  type CheckpointTuple,
  type ClaimHolder,
  checkpointConfig,
  checkpointIdOf,
  checkpointNsOf,
  checkpointsToPrune,
  type DeltaOptions,
  DeltaPlanner,
  defaultSerializer,
  listQuery,
  listTuples,
  type PreparedPut,
  type PruneOptions,
  type PruneRequest,
  type PutOptions,
  preparePut,
  prepareWrites,
  pruneRequest,
  putTarget,
  type RetentionOptions,
  type RunnableConfig,
  reachableBlobs,
  type Serializer,
  type StoredBlob,
  sweepInterval,
  type ThreadClaim,
  threadIdOf,
  withoutDeltas,
  writesTarget,
} from "@interlude/core";
import pg from "pg";
import { storageError, withPoolClient } from "./pool.js";
import { migrate } from "./schema.js";
import { SQL } from "./sql.js";

export interface PostgresSaverOptions extends DeltaOptions, Omit<RetentionOptions, "now"> {
  serde?: Serializer;
  /** Run `setup()` on first use (default true). Set false when migrations are run separately. */
  autoSetup?: boolean;
}

interface CheckpointRow {
  checkpoint_id: string;
  parent_id: string | null;
  record: Buffer;
  metadata: Buffer;
}

/**
 * Durable checkpoints in PostgreSQL, shared by any number of processes. `put` is a
 * compare-and-swap under a row lock on the (thread, namespace) head; claims and idle-thread
 * expiry use the database clock, so process clocks need not agree.
 */
export class PostgresSaver extends BaseCheckpointSaver {
  readonly pool: pg.Pool;
  private readonly ownsPool: boolean;
  private readonly serde: Serializer;
  private readonly planner: DeltaPlanner;
  private readonly ttlMs: number | undefined;
  private readonly autoSetup: boolean;
  private ready: Promise<void> | undefined;
  /**
   * Threads this saver holds a claim on, with the newest root checkpoint read when claiming
   * (null: none yet; undefined: taken by getTuple, or stale since a put).
   */
  private readonly claimed = new Map<string, { owner: string; latest: Loaded | null | undefined }>();
  private readonly timer: ReturnType<typeof setInterval> | undefined;

  /** `PostgresSaver.fromConnString("postgres://user@host/db")`: the saver owns (and closes) the pool. */
  static fromConnString(connectionString: string, options?: PostgresSaverOptions): PostgresSaver {
    return new PostgresSaver(connectionString, options);
  }

  constructor(pool: pg.Pool | string, options: PostgresSaverOptions = {}) {
    super();
    this.ownsPool = typeof pool === "string";
    this.pool = typeof pool === "string" ? new pg.Pool({ connectionString: pool }) : pool;
    if (this.ownsPool) this.pool.on("error", () => {}); // idle clients dying is reported on their next use
    this.serde = options.serde ?? defaultSerializer;
    this.planner = new DeltaPlanner(options);
    this.ttlMs = options.ttlMs;
    this.autoSetup = options.autoSetup ?? true;
    const every = sweepInterval(options);
    if (every > 0) {
      this.timer = setInterval(() => void this.sweep().catch(() => {}), every);
      this.timer.unref();
    }
  }

  /** Creates or upgrades the tables. Idempotent, and safe to call from several processes at once. */
  setup(): Promise<void> {
    this.ready ??= this.withClient("setup", migrate).catch((error: unknown) => {
      this.ready = undefined;
      throw error;
    });
    return this.ready;
  }

  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const threadId = threadIdOf(config);
    if (threadId === undefined) return undefined;
    const ns = checkpointNsOf(config);
    const id = checkpointIdOf(config);
    const claimed = id === undefined && ns === "" ? this.takeClaimedLatest(threadId) : undefined;
    if (claimed !== undefined)
      return this.guard("getTuple", async () => (claimed ? this.load(threadId, ns, claimed.row, claimed) : undefined));
    return this.guard("getTuple", async () => {
      const { rows } =
        id === undefined
          ? await this.pool.query<CheckpointRow>(named("latest", [threadId, ns]))
          : await this.pool.query<CheckpointRow>(named("checkpoint", [threadId, ns, id]));
      return rows[0] && this.load(threadId, ns, rows[0]);
    });
  }

  override async getHeadId(threadId: string, checkpointNs = ""): Promise<string | undefined> {
    return this.guard("getHeadId", async () => {
      const { rows } = await this.pool.query<{ head_id: string | null }>(named("head", [threadId, checkpointNs]));
      return rows[0]?.head_id ?? undefined;
    });
  }

  async *list(config: RunnableConfig, options?: CheckpointListOptions): AsyncGenerator<CheckpointTuple> {
    const query = listQuery(options);
    const where: string[] = [];
    const params: unknown[] = [];
    const add = (clause: string, value: unknown) => (
      params.push(value), where.push(clause.replace("?", `$${params.length}`))
    );
    const threadId = threadIdOf(config);
    if (threadId !== undefined) add("thread_id = ?", threadId);
    if (config.configurable?.checkpoint_ns !== undefined) add("checkpoint_ns = ?", config.configurable.checkpoint_ns);
    const onlyId = checkpointIdOf(config);
    if (onlyId !== undefined) add("checkpoint_id = ?", onlyId);
    if (query.before !== undefined) add("checkpoint_id < ?", query.before);
    const limit = query.filter || !Number.isFinite(query.limit) ? "" : ` LIMIT ${Math.floor(query.limit)}`;
    const sql = `SELECT thread_id, checkpoint_ns, checkpoint_id, metadata FROM interlude_checkpoints${where.length ? ` WHERE ${where.join(" AND ")}` : ""} ORDER BY checkpoint_id DESC${limit}`;
    const rows = await this.guard(
      "list",
      async () =>
        (await this.pool.query(sql, params)).rows as Array<{
          thread_id: string;
          checkpoint_ns: string;
          checkpoint_id: string;
          metadata: Buffer;
        }>,
    );
    yield* listTuples(
      rows,
      query,
      (row) => this.serde.loads(row.metadata) as CheckpointMetadata,
      (row) => this.getTuple(checkpointConfig(row.thread_id, row.checkpoint_ns, row.checkpoint_id)),
    );
  }

  async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
    options?: PutOptions,
  ): Promise<RunnableConfig> {
    const target = putTarget(config, checkpoint);
    const { threadId, ns } = target;
    let prepared = preparePut(this.serde, this.planner, this.stats, target, checkpoint, metadata, newVersions);
    const expected = options?.expectedHead;
    // The head moves: a checkpoint read with the claim is no longer the newest.
    const held = this.claimed.get(threadId);
    if (held) held.latest = undefined;
    await this.guard("put", async () => {
      try {
        await this.pool.query(putQuery(threadId, ns, expected, prepared, checkpoint.channel_versions));
      } catch (error) {
        const code = (error as { code?: string }).code;
        if (code === HEAD_MOVED)
          throw new CheckpointConflictError(threadId, expected ?? null, (error as { detail?: string }).detail || null);
        if (code !== BASE_MISSING) throw error;
        // A delta's base was pruned (or written by a process that rolled back): store whole values.
        prepared = withoutDeltas(prepared, this.serde, this.planner, this.stats, threadId, checkpoint);
        await this.pool.query(putQuery(threadId, ns, expected, prepared, checkpoint.channel_versions));
      }
    });
    prepared.commit();
    return checkpointConfig(threadId, ns, prepared.id);
  }

  async putWrites(
    config: RunnableConfig,
    writes: Array<[channel: string, value: unknown]>,
    taskId: string,
  ): Promise<void> {
    const { threadId, ns, checkpointId } = writesTarget(config);
    const rows = prepareWrites(this.serde, this.stats, taskId, writes);
    await this.guard("putWrites", () =>
      this.pool.query(
        named("putWrites", [
          threadId,
          ns,
          checkpointId,
          taskId,
          rows.map((r) => r.idx),
          rows.map((r) => r.channel),
          rows.map((r) => toBytes(r.data)),
        ]),
      ),
    );
  }

  async deleteThread(threadId: string): Promise<void> {
    const held = this.claimed.get(threadId);
    if (held) held.latest = undefined;
    await this.guard("deleteThread", () => this.pool.query(SQL.deleteThread, [threadId]));
    this.planner.forget(threadId);
  }

  /**
   * A first claim also loads the thread's newest checkpoint, which the run that claims it reads
   * next (getTuple takes it from `claimed` instead of asking again). A renewal only renews.
   */
  async claimThread(threadId: string, claim: ThreadClaim): Promise<boolean> {
    // Renewing our own claim, or taking over a dead holder's: no checkpoint comes with it.
    if (this.claimed.get(threadId)?.owner === claim.owner || claim.replaces !== undefined) {
      const result = await this.guard("claimThread", () =>
        this.pool.query(named("claim", [threadId, claim.owner, claim.ttlMs, claim.replaces ?? null])),
      );
      if (result.rowCount !== 1) return false;
      if (claim.replaces !== undefined) this.claimed.set(threadId, { owner: claim.owner, latest: undefined });
      return true;
    }
    const { rows } = await this.guard("claimThread", () =>
      this.pool.query<ClaimLoadRow>(named("claimLoad", [threadId, claim.owner, claim.ttlMs])),
    );
    if (rows[0]?.kind === "n") return false;
    this.claimed.set(threadId, { owner: claim.owner, latest: claimedLatest(rows) });
    return true;
  }

  override async claimHolder(threadId: string): Promise<ClaimHolder | undefined> {
    const result = await this.guard("claimHolder", () => this.pool.query(SQL.claimHolder, [threadId]));
    const row = result.rows[0] as { owner: string; expires_at: number } | undefined;
    return row && { owner: row.owner, expiresAt: Number(row.expires_at) };
  }

  async releaseThread(threadId: string, owner: string): Promise<void> {
    if (this.claimed.get(threadId)?.owner === owner) this.claimed.delete(threadId);
    await this.guard("releaseThread", () => this.pool.query(named("release", [threadId, owner])));
  }

  /** The newest root checkpoint loaded with this process's claim, if nothing was written since. */
  private takeClaimedLatest(threadId: string): Loaded | null | undefined {
    const held = this.claimed.get(threadId);
    if (!held || held.latest === undefined) return undefined;
    const latest = held.latest;
    held.latest = undefined;
    return latest;
  }

  override async prune(target: string | PruneOptions, options?: PruneOptions): Promise<number> {
    const request = pruneRequest(target, options, Date.now());
    const threads =
      request.threadId !== undefined
        ? [request.threadId]
        : await this.guard("prune", async () =>
            (await this.pool.query<{ thread_id: string }>(SQL.threadsWithOld, [request.cutoff])).rows.map(
              (r) => r.thread_id,
            ),
          );
    let removed = 0;
    for (const threadId of threads)
      removed += await this.transaction("prune", (client) => this.pruneThread(client, threadId, request));
    return removed;
  }

  override async sweep(): Promise<number> {
    await this.guard("sweep", () => this.pool.query(SQL.expiredClaims));
    if (!this.ttlMs) return 0;
    const idle = await this.guard(
      "sweep",
      async () => (await this.pool.query<{ thread_id: string }>(SQL.idleThreads, [this.ttlMs])).rows,
    );
    for (const { thread_id } of idle) await this.deleteThread(thread_id);
    return idle.length;
  }

  override async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    if (this.ownsPool) await this.pool.end();
  }

  /** @param loaded the row's blobs and writes, when they were read along with it */
  private async load(threadId: string, ns: string, row: CheckpointRow, loaded?: Loaded): Promise<CheckpointTuple> {
    const record = this.serde.loads(row.record) as CheckpointRecord;
    const channels = Object.keys(record.channel_versions);
    const [chains, writes] = loaded?.blobs
      ? [{ rows: loaded.blobs }, { rows: loaded.writes }]
      : await Promise.all([
          this.pool.query<BlobRow>(
            named("blobChains", [threadId, ns, channels, channels.map((c) => record.channel_versions[c])]),
          ),
          this.pool.query<WriteRow>(named("writes", [threadId, ns, row.checkpoint_id])),
        ]);
    const blobs = new Map<string, StoredBlob>(
      chains.rows.map((b) => [blobKey(b.channel, b.version), { base: b.base, data: b.data }]),
    );
    const values: Record<string, unknown> = {};
    for (const channel of channels) {
      const version = record.channel_versions[channel]!;
      const loaded = assembleValue(channel, version, (c, v) => blobs.get(blobKey(c, v)), this.serde);
      if (!loaded?.present) continue;
      values[channel] = loaded.value;
      this.planner.learn(threadId, ns, channel, version, loaded.value);
    }
    const metadata = this.serde.loads(row.metadata) as CheckpointMetadata;
    const pendingWrites = writes.rows.map((w): [string, string, unknown] => [
      w.task_id,
      w.channel,
      this.serde.loads(w.data),
    ]);
    return buildTuple({ threadId, ns, record, values, metadata, parentId: row.parent_id, writes: pendingWrites });
  }

  private async pruneThread(client: pg.PoolClient, threadId: string, request: PruneRequest): Promise<number> {
    await client.query(SQL.lockThread, [threadId]);
    const { rows } = await client.query<{ checkpoint_ns: string; checkpoint_id: string; created_at: string }>(
      SQL.checkpointAges,
      [threadId],
    );
    const byNs = new Map<string, Array<{ id: string; createdAt: number }>>();
    for (const row of rows) {
      if (!byNs.has(row.checkpoint_ns)) byNs.set(row.checkpoint_ns, []);
      byNs.get(row.checkpoint_ns)!.push({ id: row.checkpoint_id, createdAt: Number(row.created_at) });
    }
    let removed = 0;
    for (const [ns, newestFirst] of byNs) {
      const doomed = checkpointsToPrune(newestFirst, request);
      if (doomed.length === 0) continue;
      await client.query(SQL.deleteCheckpoints, [threadId, ns, doomed]);
      removed += doomed.length;
      await this.collectBlobs(client, threadId, ns);
    }
    return removed;
  }

  /** Deletes the blobs no remaining checkpoint of the namespace reads, directly or as a delta base. */
  private async collectBlobs(client: pg.PoolClient, threadId: string, ns: string): Promise<void> {
    const records = await client.query<{ record: Buffer }>(SQL.records, [threadId, ns]);
    const refs: Array<[string, number]> = [];
    for (const { record } of records.rows) {
      const versions = (this.serde.loads(record) as CheckpointRecord).channel_versions;
      for (const channel of Object.keys(versions)) refs.push([channel, versions[channel]!]);
    }
    const blobs = (
      await client.query<{ channel: string; version: number; base: number | null }>(SQL.blobBases, [threadId, ns])
    ).rows;
    const bases = new Map(blobs.map((b) => [blobKey(b.channel, b.version), b.base]));
    const keep = reachableBlobs(refs, (channel, version) => bases.get(blobKey(channel, version)));
    const doomed = blobs.filter((b) => !keep.has(blobKey(b.channel, b.version)));
    if (doomed.length)
      await client.query(SQL.deleteBlobs, [threadId, ns, doomed.map((b) => b.channel), doomed.map((b) => b.version)]);
  }

  private async transaction<T>(operation: string, body: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return this.withClient(operation, async (client) => {
      await client.query("BEGIN");
      try {
        const result = await body(client);
        await client.query("COMMIT");
        return result;
      } catch (error) {
        await client.query("ROLLBACK").catch(() => {});
        throw error;
      }
    });
  }

  private async withClient<T>(operation: string, body: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    if (operation !== "setup") await this.ensureReady();
    return withPoolClient(this.pool, operation, body);
  }

  private async guard<T>(operation: string, body: () => Promise<T>): Promise<T> {
    try {
      await this.ensureReady();
      return await body();
    } catch (error) {
      throw storageError(operation, error);
    }
  }

  private ensureReady(): Promise<void> {
    return this.autoSetup ? this.setup() : Promise.resolve();
  }
}

interface BlobRow {
  channel: string;
  version: number;
  base: number | null;
  data: Buffer | null;
}

interface WriteRow {
  task_id: string;
  channel: string;
  data: Buffer;
}

/** A checkpoint row with, when read along with it, its blobs and pending writes. */
interface Loaded {
  row: CheckpointRow;
  blobs?: BlobRow[];
  writes: WriteRow[];
}

/** A row of interlude_claim_load (schema.ts). */
interface ClaimLoadRow {
  kind: "n" | "c" | "b" | "w";
  id: string | null;
  parent: string | null;
  channel: string | null;
  version: number | null;
  base: number | null;
  data: Buffer | null;
  extra: Buffer | null;
  complete: boolean;
}

/** The checkpoint interlude_claim_load returned (null: the thread has none). */
function claimedLatest(rows: ClaimLoadRow[]): Loaded | null {
  const head = rows.find((r) => r.kind === "c");
  if (!head) return null;
  const row: CheckpointRow = {
    checkpoint_id: head.id!,
    parent_id: head.parent,
    record: head.data!,
    metadata: head.extra!,
  };
  // Written before the checkpoint rows listed their versions: load() reads the blobs itself.
  if (!head.complete) return { row, writes: [] };
  const blobs: BlobRow[] = [];
  const writes: WriteRow[] = [];
  for (const r of rows) {
    if (r.kind === "b") blobs.push({ channel: r.channel!, version: r.version!, base: r.base, data: r.data });
    else if (r.kind === "w") writes.push({ task_id: r.id!, channel: r.channel!, data: r.data! });
  }
  return { row, blobs, writes };
}

/** SQLSTATEs raised by interlude_put (schema.ts). */
const HEAD_MOVED = "IL409";
const BASE_MISSING = "IL412";

/** A hot statement, prepared once per connection under its name. */
function named(statement: keyof typeof SQL, values: unknown[]): pg.QueryConfig {
  return { name: `interlude_${statement}`, text: SQL[statement], values };
}

/** One put in one round trip: interlude_put checks the head and the delta bases, then writes. */
function putQuery(
  threadId: string,
  ns: string,
  expected: string | null | undefined,
  prepared: PreparedPut,
  versions: ChannelVersions,
): pg.QueryConfig {
  const channels = Object.keys(versions);
  const deltas = prepared.blobs.filter((blob) => blob.base !== null);
  const blobs = prepared.blobs;
  return named("put", [
    threadId,
    ns,
    expected !== undefined,
    expected ?? null,
    deltas.map((b) => b.channel),
    deltas.map((b) => b.base),
    blobs.map((b) => b.channel),
    blobs.map((b) => b.version),
    blobs.map((b) => b.base),
    blobs.map((b) => toBytes(b.data)),
    prepared.id,
    prepared.parentId ?? null,
    prepared.createdAt,
    toBytes(prepared.record),
    toBytes(prepared.metadata),
    channels,
    channels.map((c) => versions[c]),
  ]);
}

function toBytes(data: string | Uint8Array | null): Buffer | null {
  if (data === null) return null;
  return typeof data === "string"
    ? Buffer.from(data, "utf8")
    : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}
