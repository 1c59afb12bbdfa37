import {
  assembleValue,
  BaseCheckpointSaver,
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
  type PendingWrite,
  type PruneOptions,
  type PruneRequest,
  type PutOptions,
  type PutWritesOptions,
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
import Database from "better-sqlite3";
import { GroupCommit, type WriteOptions } from "./group-commit.js";
import { migrate } from "./schema.js";
import { type CheckpointRow, prepareStatements, type Statements } from "./statements.js";

export interface SqliteSaverOptions extends DeltaOptions, RetentionOptions {
  serde?: Serializer;
  /** How long a write waits for another process's transaction before failing (default 5000 ms). */
  busyTimeoutMs?: number;
  /**
   * Commit writes in batches, once per event-loop turn, shared with everything else that uses
   * `GroupCommit.of(db)` on the same connection (see group-commit.ts). For a process serving many
   * threads at once; each write still resolves only once it is committed. Default false.
   */
  groupCommit?: boolean;
}

/**
 * Durable checkpoints in one SQLite file (WAL mode), shareable by several processes on one
 * machine: `put` is a compare-and-swap inside `BEGIN IMMEDIATE`, and thread claims live in the
 * file. better-sqlite3 is synchronous, so every call finishes before it returns its promise.
 */
export class SqliteSaver extends BaseCheckpointSaver {
  /**
   * The connection, to share the file with a store (`new SqliteStore(saver.db)`). Closed by
   * `close()` when the saver opened it from a path.
   */
  readonly db: Database.Database;
  private readonly ownsDb: boolean;
  private readonly sql: Statements;
  /** One transaction wrapper for every body: better-sqlite3 builds a wrapper per `db.transaction()` call (~14% of a getTuple). */
  private readonly atomic: Database.Transaction<(body: () => unknown) => unknown>;
  private readonly serde: Serializer;
  private readonly planner: DeltaPlanner;
  private readonly now: () => number;
  private readonly ttlMs: number | undefined;
  private readonly timer: ReturnType<typeof setInterval> | undefined;
  private readonly group: GroupCommit | undefined;

  /** `SqliteSaver.fromConnString("checkpoints.sqlite")`; ":memory:" gives a private in-memory database. */
  static fromConnString(path: string, options?: SqliteSaverOptions): SqliteSaver {
    return new SqliteSaver(path, options);
  }

  constructor(db: Database.Database | string, options: SqliteSaverOptions = {}) {
    super();
    this.serde = options.serde ?? defaultSerializer;
    this.planner = new DeltaPlanner(options);
    this.now = options.now ?? Date.now;
    this.ttlMs = options.ttlMs;
    this.ownsDb = typeof db === "string";
    try {
      this.db = typeof db === "string" ? new Database(db) : db;
      this.db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
      if (this.db.name !== ":memory:" && !this.db.readonly) this.db.pragma("journal_mode = WAL");
      this.db.pragma("synchronous = NORMAL");
      migrate(this.db);
      this.sql = prepareStatements(this.db);
      this.atomic = this.db.transaction((body: () => unknown) => body());
      this.group = options.groupCommit ? GroupCommit.of(this.db) : undefined;
    } catch (error) {
      throw wrap("open", error);
    }
    const every = sweepInterval(options);
    if (every > 0) {
      this.timer = setInterval(() => void this.sweep().catch(() => {}), every);
      this.timer.unref();
    }
  }

  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const threadId = threadIdOf(config);
    if (threadId === undefined) return undefined;
    const ns = checkpointNsOf(config);
    const id = checkpointIdOf(config);
    return this.run("getTuple", () =>
      this.inTransaction("deferred", () => {
        const row = (
          id === undefined ? this.sql.latest.get(threadId, ns) : this.sql.checkpoint.get(threadId, ns, id)
        ) as CheckpointRow | undefined;
        return row && this.load(threadId, ns, row);
      }),
    );
  }

  override async getHeadId(threadId: string, checkpointNs = ""): Promise<string | undefined> {
    return this.run("getHeadId", () => (this.sql.head.get(threadId, checkpointNs) as string | undefined) ?? undefined);
  }

  async *list(config: RunnableConfig, options?: CheckpointListOptions): AsyncGenerator<CheckpointTuple> {
    const query = listQuery(options);
    const where: string[] = [];
    const params: unknown[] = [];
    const add = (clause: string, value: unknown) => (where.push(clause), params.push(value));
    const threadId = threadIdOf(config);
    if (threadId !== undefined) add("thread_id = ?", threadId);
    if (config.configurable?.checkpoint_ns !== undefined) add("checkpoint_ns = ?", config.configurable.checkpoint_ns);
    const onlyId = checkpointIdOf(config);
    if (onlyId !== undefined) add("checkpoint_id = ?", onlyId);
    if (query.before !== undefined) add("checkpoint_id < ?", query.before);
    const limit = query.filter || !Number.isFinite(query.limit) ? "" : ` LIMIT ${Math.floor(query.limit)}`;
    const sql = `SELECT thread_id, checkpoint_ns, checkpoint_id, metadata FROM checkpoints${where.length ? ` WHERE ${where.join(" AND ")}` : ""} ORDER BY checkpoint_id DESC${limit}`;
    // Rows are read up front: better-sqlite3 cannot run other statements while an iterator is open.
    const rows = this.run("list", () => this.db.prepare(sql).all(...params)) as Array<{
      thread_id: string;
      checkpoint_ns: string;
      checkpoint_id: string;
      metadata: string | Buffer;
    }>;
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
    await this.write("put", options, () => {
      const head = (this.sql.head.get(threadId, ns) as string | undefined) ?? null;
      if (options?.expectedHead !== undefined && options.expectedHead !== head) {
        throw new CheckpointConflictError(threadId, options.expectedHead, head);
      }
      if (
        prepared.blobs.some(
          (blob) => blob.base !== null && !this.sql.hasBlob.get(threadId, ns, blob.channel, blob.base),
        )
      ) {
        prepared = withoutDeltas(prepared, this.serde, this.planner, this.stats, threadId, checkpoint);
      }
      for (const blob of prepared.blobs)
        this.sql.putBlob.run(threadId, ns, blob.channel, blob.version, blob.base, blob.data);
      this.sql.putCheckpoint.run(
        threadId,
        ns,
        prepared.id,
        prepared.parentId ?? null,
        prepared.createdAt,
        prepared.record,
        prepared.metadata,
      );
      this.sql.setHead.run(threadId, ns, prepared.id, this.now());
    });
    prepared.commit();
    return checkpointConfig(threadId, ns, prepared.id);
  }

  async putWrites(
    config: RunnableConfig,
    writes: Array<[channel: string, value: unknown]>,
    taskId: string,
    options?: PutWritesOptions,
  ): Promise<void> {
    const { threadId, ns, checkpointId } = writesTarget(config);
    const rows = prepareWrites(this.serde, this.stats, taskId, writes);
    await this.write("putWrites", options, () => {
      let seq = this.sql.maxSeq.get(threadId, ns, checkpointId) as number;
      for (const row of rows) {
        const statement = row.replace ? this.sql.replaceWrite : this.sql.addWrite;
        statement.run(threadId, ns, checkpointId, taskId, row.idx, row.channel, row.data, ++seq);
      }
    });
  }

  async deleteThread(threadId: string): Promise<void> {
    await this.write("deleteThread", undefined, () => {
      for (const statement of this.sql.deleteThread) statement.run(threadId);
    });
    this.planner.forget(threadId);
  }

  async claimThread(threadId: string, claim: ThreadClaim): Promise<boolean> {
    // Not waited for: the batch's write lock keeps other processes out until it commits, and the run's first save commits it.
    return this.write("claimThread", { durable: false }, () => {
      const now = this.now();
      const held = this.sql.claim.get(threadId) as { owner: string; expires_at: number } | undefined;
      if (held && held.owner !== claim.owner && held.owner !== claim.replaces && held.expires_at > now) return false;
      this.sql.setClaim.run(threadId, claim.owner, now + claim.ttlMs);
      return true;
    });
  }

  override async claimHolder(threadId: string): Promise<ClaimHolder | undefined> {
    const held = this.run("claimHolder", () => this.sql.claim.get(threadId)) as
      | { owner: string; expires_at: number }
      | undefined;
    return held && held.expires_at > this.now() ? { owner: held.owner, expiresAt: held.expires_at } : undefined;
  }

  async releaseThread(threadId: string, owner: string): Promise<void> {
    // Not waited for: a release lost to a crash lapses with the claim's TTL.
    await this.write("releaseThread", { durable: false }, () => this.sql.release.run(threadId, owner));
  }

  override async prune(target: string | PruneOptions, options?: PruneOptions): Promise<number> {
    const request = pruneRequest(target, options, this.now());
    const threads =
      request.threadId !== undefined
        ? [request.threadId]
        : (this.run("prune", () => this.sql.threadsWithOld.all(request.cutoff)) as string[]);
    let removed = 0;
    for (const threadId of threads)
      removed += await this.write("prune", undefined, () => this.pruneThread(threadId, request));
    return removed;
  }

  override async sweep(): Promise<number> {
    const now = this.now();
    await this.write("sweep", undefined, () => this.sql.expiredClaims.run(now));
    if (!this.ttlMs) return 0;
    const idle = this.run("sweep", () => this.sql.idleThreads.all(now - this.ttlMs!)) as string[];
    for (const threadId of idle) await this.deleteThread(threadId);
    return idle.length;
  }

  override async flush(): Promise<void> {
    if (!this.group) return;
    try {
      await this.group.settled();
    } catch (error) {
      throw wrap("flush", error);
    }
  }

  override async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    if (this.group && this.db.open) await this.group.flush();
    if (this.ownsDb && this.db.open) this.db.close();
  }

  private load(threadId: string, ns: string, row: CheckpointRow): CheckpointTuple {
    const record = this.serde.loads(row.record) as CheckpointRecord;
    const values: Record<string, unknown> = {};
    const lookup = (channel: string, version: number) =>
      this.sql.blob.get(threadId, ns, channel, version) as StoredBlob | undefined;
    for (const channel of Object.keys(record.channel_versions)) {
      const version = record.channel_versions[channel]!;
      const loaded = assembleValue(channel, version, lookup, this.serde);
      if (!loaded?.present) continue;
      values[channel] = loaded.value;
      this.planner.learn(threadId, ns, channel, version, loaded.value);
    }
    const writes = (
      this.sql.writes.all(threadId, ns, row.checkpoint_id) as Array<{
        task_id: string;
        channel: string;
        data: string | Buffer;
      }>
    ).map((w): PendingWrite => [w.task_id, w.channel, this.serde.loads(w.data)]);
    const metadata = this.serde.loads(row.metadata) as CheckpointMetadata;
    return buildTuple({ threadId, ns, record, values, metadata, parentId: row.parent_id, writes });
  }

  private pruneThread(threadId: string, request: PruneRequest): number {
    const rows = this.sql.checkpointAges.all(threadId) as Array<{
      checkpoint_ns: string;
      checkpoint_id: string;
      created_at: number;
    }>;
    const byNs = new Map<string, Array<{ id: string; createdAt: number }>>();
    for (const row of rows) {
      if (!byNs.has(row.checkpoint_ns)) byNs.set(row.checkpoint_ns, []);
      byNs.get(row.checkpoint_ns)!.push({ id: row.checkpoint_id, createdAt: row.created_at });
    }
    let removed = 0;
    for (const [ns, newestFirst] of byNs) {
      const doomed = checkpointsToPrune(newestFirst, request);
      if (doomed.length === 0) continue;
      for (const id of doomed) {
        this.sql.deleteCheckpoint.run(threadId, ns, id);
        this.sql.deleteCheckpointWrites.run(threadId, ns, id);
      }
      removed += doomed.length;
      this.collectBlobs(threadId, ns);
    }
    return removed;
  }

  /** Deletes the blobs no remaining checkpoint of the namespace reads, directly or as a delta base. */
  private collectBlobs(threadId: string, ns: string): void {
    const refs: Array<[string, number]> = [];
    for (const data of this.sql.records.all(threadId, ns) as Array<string | Buffer>) {
      const versions = (this.serde.loads(data) as CheckpointRecord).channel_versions;
      for (const channel of Object.keys(versions)) refs.push([channel, versions[channel]!]);
    }
    const blobs = this.sql.blobBases.all(threadId, ns) as Array<{
      channel: string;
      version: number;
      base: number | null;
    }>;
    const bases = new Map(blobs.map((blob) => [`${blob.channel}\u0000${blob.version}`, blob.base]));
    const keep = reachableBlobs(refs, (channel, version) => bases.get(`${channel}\u0000${version}`));
    for (const blob of blobs) {
      if (!keep.has(`${blob.channel}\u0000${blob.version}`))
        this.sql.deleteBlob.run(threadId, ns, blob.channel, blob.version);
    }
  }

  private inTransaction<T>(mode: "deferred" | "immediate", body: () => T): T {
    return this.atomic[mode](body) as T;
  }

  /** One write transaction: committed by itself, or as part of the connection's next group commit. */
  private async write<T>(operation: string, options: WriteOptions | undefined, body: () => T): Promise<T> {
    if (!this.group) return this.run(operation, () => this.inTransaction("immediate", body));
    try {
      return await this.group.write(body, options);
    } catch (error) {
      throw wrap(operation, error);
    }
  }

  private run<T>(operation: string, body: () => T): T {
    try {
      return body();
    } catch (error) {
      throw wrap(operation, error);
    }
  }
}

function wrap(operation: string, error: unknown): Error {
  return error instanceof InterludeError ? error : new StorageError(operation, error);
}
