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
  InterludeError,
  listQuery,
  listTuples,
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
  StorageError,
  type StoredBlob,
  sweepInterval,
  type ThreadClaim,
  threadIdOf,
  withoutDeltas,
  writesTarget,
} from "@interlude/core";
import pg from "pg";
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
    return this.guard("getTuple", async () => {
      const { rows } =
        id === undefined
          ? await this.pool.query<CheckpointRow>(SQL.latest, [threadId, ns])
          : await this.pool.query<CheckpointRow>(SQL.checkpoint, [threadId, ns, id]);
      return rows[0] && this.load(threadId, ns, rows[0]);
    });
  }

  override async getHeadId(threadId: string, checkpointNs = ""): Promise<string | undefined> {
    return this.guard("getHeadId", async () => {
      const { rows } = await this.pool.query<{ head_id: string | null }>(SQL.head, [threadId, checkpointNs]);
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
    await this.transaction("put", async (client) => {
      const deltas = prepared.blobs.filter((blob) => blob.base !== null);
      const { rows } = await client.query<{ head_id: string | null; bases: number }>(SQL.lockHead, [
        threadId,
        ns,
        deltas.map((b) => b.channel),
        deltas.map((b) => b.base),
      ]);
      const head = rows[0]?.head_id ?? null;
      if (options?.expectedHead !== undefined && options.expectedHead !== head) {
        throw new CheckpointConflictError(threadId, options.expectedHead, head);
      }
      if (rows[0]!.bases < deltas.length)
        prepared = withoutDeltas(prepared, this.serde, this.planner, this.stats, threadId, checkpoint);
      const blobs = prepared.blobs;
      await client.query(SQL.writeCheckpoint, [
        threadId,
        ns,
        blobs.map((b) => b.channel),
        blobs.map((b) => b.version),
        blobs.map((b) => b.base),
        blobs.map((b) => toBytes(b.data)),
        prepared.id,
        prepared.parentId ?? null,
        prepared.createdAt,
        toBytes(prepared.record),
        toBytes(prepared.metadata),
      ]);
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
      this.pool.query(SQL.putWrites, [
        threadId,
        ns,
        checkpointId,
        taskId,
        rows.map((r) => r.idx),
        rows.map((r) => r.channel),
        rows.map((r) => toBytes(r.data)),
      ]),
    );
  }

  async deleteThread(threadId: string): Promise<void> {
    await this.guard("deleteThread", () => this.pool.query(SQL.deleteThread, [threadId]));
    this.planner.forget(threadId);
  }

  async claimThread(threadId: string, claim: ThreadClaim): Promise<boolean> {
    const result = await this.guard("claimThread", () =>
      this.pool.query(SQL.claim, [threadId, claim.owner, claim.ttlMs, claim.replaces ?? null]),
    );
    return result.rowCount === 1;
  }

  override async claimHolder(threadId: string): Promise<ClaimHolder | undefined> {
    const result = await this.guard("claimHolder", () => this.pool.query(SQL.claimHolder, [threadId]));
    const row = result.rows[0] as { owner: string; expires_at: number } | undefined;
    return row && { owner: row.owner, expiresAt: Number(row.expires_at) };
  }

  async releaseThread(threadId: string, owner: string): Promise<void> {
    await this.guard("releaseThread", () => this.pool.query(SQL.release, [threadId, owner]));
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

  private async load(threadId: string, ns: string, row: CheckpointRow): Promise<CheckpointTuple> {
    const record = this.serde.loads(row.record) as CheckpointRecord;
    const channels = Object.keys(record.channel_versions);
    const [chains, writes] = await Promise.all([
      this.pool.query<{ channel: string; version: number; base: number | null; data: Buffer | null }>(SQL.blobChains, [
        threadId,
        ns,
        channels,
        channels.map((c) => record.channel_versions[c]),
      ]),
      this.pool.query<{ task_id: string; channel: string; data: Buffer }>(SQL.writes, [
        threadId,
        ns,
        row.checkpoint_id,
      ]),
    ]);
    const blobs = new Map<string, StoredBlob>(
      chains.rows.map((b) => [blobKey(b.channel, b.version), { base: b.base, data: b.data }]),
    );
    const values: Record<string, unknown> = {};
    for (const channel of channels) {
      const loaded = assembleValue(
        channel,
        record.channel_versions[channel]!,
        (c, v) => blobs.get(blobKey(c, v)),
        this.serde,
      );
      if (loaded?.present) values[channel] = loaded.value;
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
    let client: pg.PoolClient | undefined;
    let broken = false;
    try {
      client = await this.pool.connect();
      return await body(client);
    } catch (error) {
      broken = !(error instanceof InterludeError);
      throw wrap(operation, error);
    } finally {
      // A client whose transaction died mid-way may be unusable: do not give it back to the pool.
      client?.release(broken ? true : undefined);
    }
  }

  private async guard<T>(operation: string, body: () => Promise<T>): Promise<T> {
    try {
      await this.ensureReady();
      return await body();
    } catch (error) {
      throw wrap(operation, error);
    }
  }

  private ensureReady(): Promise<void> {
    return this.autoSetup ? this.setup() : Promise.resolve();
  }
}

function toBytes(data: string | Uint8Array | null): Buffer | null {
  if (data === null) return null;
  return typeof data === "string"
    ? Buffer.from(data, "utf8")
    : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

function wrap(operation: string, error: unknown): Error {
  return error instanceof InterludeError ? error : new StorageError(operation, error);
}
