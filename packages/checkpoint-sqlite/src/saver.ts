import { type ClaimHolder, InvalidSaverOptionError, JsonSerializer, type ThreadClaim } from "@interlude/core";
import type * as Kit from "@interlude/core/saver-kit";
import {
  blobKey,
  decodeInline,
  everyName,
  headCacheLimits,
  KIT_OPTIONS,
  listSql,
  parsedOf,
  putInSteps,
  refuseUnknownOptions,
  SaverKit,
  STORED,
  seedOf,
  storageError,
} from "@interlude/core/saver-kit";
import Database from "better-sqlite3";
import { GroupCommit, type WriteOptions } from "./group-commit.js";
import { type CachedHead, type CachedWrite, HeadCache } from "./head-cache.js";
import { HeldClaims } from "./held-claims.js";
import { packedToFit, readBlob, roomBeside, unpacked } from "./packing.js";
import { parentOf } from "./parent-link.js";
import { copiedWrites, writeSeed } from "./private-copies.js";
import { ACTIVITY_GRAIN_MS, SqlitePutSteps } from "./put-steps.js";
import { fullRecord, slimKeeper } from "./record.js";
import { migrate } from "./schema.js";
import { type CheckpointRow, prepareStatements, type Statements } from "./statements.js";
import { type WalCheckpointerOptions, walCheckpointable } from "./wal-checkpointer.js";
import { WalCheckpointerOnDemand } from "./wal-checkpointer-on-demand.js";

export interface SqliteSaverOptions extends Kit.SaverKitOptions {
  /** How long a write waits for another process's transaction before failing (default 5000 ms). */
  busyTimeoutMs?: number;
  /**
   * Commit writes in batches, once per event-loop turn, shared with everything else that uses
   * `GroupCommit.of(db)` on the same connection (see group-commit.ts). For a process serving many
   * threads at once; each write still resolves only once it is committed. Default false: a
   * durable write commits at once (with a claim or release made before it, which waits for it),
   * and writes not waited for (durability "async" or "exit") commit at the end of the event-loop
   * turn or at `flush()`, whichever comes first.
   */
  groupCommit?: boolean;
  /**
   * Threads whose newest checkpoint the connection keeps in memory, as stored, so that reading
   * it again costs one statement (see head-cache.ts; default 1000, 0 turns it off). Shared by
   * every saver on the connection; the first one sets the limits.
   */
  cachedThreads?: number;
  /** Bytes of stored data that cache keeps at most (default 32 MiB). */
  cachedBytes?: number;
  /**
   * Copy the write-ahead log back into the file from a worker thread (wal-checkpointer.ts),
   * started once the saver has written a few dozen times, instead of inside whichever commit
   * crosses SQLite's automatic checkpoint. Default: on when the saver opened the file from a
   * path, off for a connection passed in (its owner may run one: `startWalCheckpointer`).
   * Stopped by `close()`. Only for a file in WAL mode opened for writing.
   */
  walCheckpointer?: boolean | WalCheckpointerOptions;
}

/** What `SqliteSaverOptions` names: any other option is refused. */
const SQLITE_OPTIONS = [
  ...KIT_OPTIONS,
  ...everyName<Exclude<keyof SqliteSaverOptions, keyof Kit.SaverKitOptions>>({
    busyTimeoutMs: 1,
    groupCommit: 1,
    cachedThreads: 1,
    cachedBytes: 1,
    walCheckpointer: 1,
  }),
];

/** A write of a saver without group commit: committed at once, or (a claim, a release) with the next one. */
const NOW: WriteOptions = { unbatched: true };
const LAZY: WriteOptions = { unbatched: true, durable: false };

/** Thrown inside a cached read when the cache lacks a blob: the read goes to the file instead. */
const NOT_CACHED = Symbol("not cached");

/**
 * Durable checkpoints in one SQLite file (WAL mode), shareable by several processes on one
 * machine: `put` is a compare-and-swap inside `BEGIN IMMEDIATE`, and thread claims live in the
 * file. better-sqlite3 is synchronous, so every call finishes before it returns its promise.
 */
export class SqliteSaver extends SaverKit {
  /**
   * The connection, to share the file with a store (`new SqliteStore(saver.db)`). Closed by
   * `close()` when the saver opened it from a path.
   */
  readonly db: Database.Database;
  private readonly ownsDb: boolean;
  private readonly sql: Statements;
  /** One transaction wrapper for every body: better-sqlite3 builds a wrapper per `db.transaction()` call (~14% of a getTuple). */
  private readonly atomic: Database.Transaction<(body: () => unknown) => unknown>;
  private readonly group: GroupCommit;
  /** Without `groupCommit`, a durable write commits as soon as it is done (with any claim made before it). */
  private readonly batched: boolean;
  private readonly steps: SqlitePutSteps;
  private readonly cache: HeadCache;
  /** The cache also keeps plain copies of what it holds (JSON serializer only, see private-copies.ts). */
  private readonly copies: boolean;
  /**
   * Thread -> owner whose claim went with the run's last put or writes (`PutOptions.releaseClaim`):
   * its releaseThread, next, commits nothing (two of a pause-and-resume round trip's ten commits)
   * and a heartbeat's late renewal takes nothing.
   */
  private readonly releasedWith = new Map<string, string>();
  private readonly held = new HeldClaims();
  /** `GroupCommit.mark()` before the oldest write not waited for since the last flush: where flush looks for failures. */
  private unflushedSince: number | undefined;
  /** The open batch in which the cache was last checked (see checkCache). */
  private checkedInBatch: number | undefined;
  private readonly walCheckpointer: WalCheckpointerOnDemand | undefined;

  /** `SqliteSaver.fromConnString("checkpoints.sqlite")`; ":memory:" gives a private in-memory database. */
  static fromConnString(path: string, options?: SqliteSaverOptions): SqliteSaver {
    return new SqliteSaver(path, options);
  }

  constructor(db: Database.Database | string, options: SqliteSaverOptions = {}) {
    super(options, slimKeeper);
    refuseUnknownOptions("SqliteSaver", options, SQLITE_OPTIONS);
    this.ownsDb = typeof db === "string";
    let opened: Database.Database | undefined;
    try {
      this.db = opened = typeof db === "string" ? new Database(db) : db;
      this.db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
      if (this.db.name !== ":memory:" && !this.db.readonly) this.db.pragma("journal_mode = WAL");
      this.db.pragma("synchronous = NORMAL");
      migrate(this.db);
      this.sql = prepareStatements(this.db);
      this.atomic = this.db.transaction((body: () => unknown) => body());
      this.group = GroupCommit.of(this.db);
      this.batched = options.groupCommit ?? false;
      this.cache = HeadCache.of(this.db, headCacheLimits(options));
      this.group.onFailure(this.cache.clearAll);
      // A failed batch took the releases with it: releaseThread must then release for real.
      this.group.onFailure(() => this.releasedWith.clear());
      this.copies = this.serde instanceof JsonSerializer && this.cache.enabled;
      this.walCheckpointer = this.checkpointerFor(options.walCheckpointer);
    } catch (error) {
      // A connection this saver opened is its own to close: nobody else holds it.
      if (this.ownsDb && opened?.open) opened.close();
      throw storageError("open", error);
    }
    const versionsOf = (record: string | Uint8Array) => (this.read(record) as Kit.CheckpointRecord).channel_versions;
    this.steps = new SqlitePutSteps(this.sql, this.cache, this.now, versionsOf);
    this.sweepPeriodically(options);
  }

  private checkpointerFor(option: SqliteSaverOptions["walCheckpointer"]): WalCheckpointerOnDemand | undefined {
    const wanted = option ?? this.ownsDb;
    if (!wanted) return undefined;
    if (walCheckpointable(this.db)) return new WalCheckpointerOnDemand(this.db, wanted === true ? {} : wanted);
    // Left to its default, it simply does not apply to an in-memory or read-only database.
    if (option === undefined) return undefined;
    throw new InvalidSaverOptionError(
      "walCheckpointer",
      JSON.stringify(option),
      "false or left out for an in-memory or read-only database, or one not in WAL mode",
    );
  }

  protected storePut(put: Kit.PreparedPut): Kit.PutOutcome | Promise<Kit.PutOutcome> {
    const seed = this.copies ? seedOf(put) : undefined;
    const outcome = this.write("put", put, () => {
      this.checkFence(put.threadId);
      this.checkCache();
      const outcome = putInSteps(put, this.steps);
      if (outcome === STORED) {
        this.cache.put(put, seed, this.steps.activityAt);
        if (put.releaseClaim !== undefined) this.sql.release.run(put.threadId, put.releaseClaim);
      }
      return outcome;
    });
    if (put.releaseClaim === undefined) return outcome;
    const released = (stored: Kit.PutOutcome) => {
      if (stored === STORED) this.releasedWith.set(put.threadId, put.releaseClaim!);
      return stored;
    };
    return outcome instanceof Promise ? outcome.then(released) : released(outcome);
  }

  protected async storeWrites({
    threadId,
    ns,
    checkpointId,
    taskId,
    rows,
    durable,
    releaseClaim,
  }: Kit.PreparedWrites): Promise<void> {
    await this.write("putWrites", { durable }, () => {
      this.checkFence(threadId);
      this.checkCache();
      let seq =
        this.cache.seqOf(threadId, ns, checkpointId) ?? (this.sql.maxSeq.get(threadId, ns, checkpointId) as number);
      // What the row's keys leave of a page, all but its channel's, the same for every row.
      const room = roomBeside(threadId, ns, checkpointId, taskId);
      for (const row of rows) {
        const statement = row.replace ? this.sql.replaceWrite : this.sql.addWrite;
        const { data, packing } = packedToFit(row.data, room - Buffer.byteLength(row.channel));
        statement.run(threadId, ns, checkpointId, taskId, row.idx, row.channel, data, ++seq, packing);
      }
      this.cache.writes(threadId, ns, checkpointId, rows, seq, this.copies ? writeSeed : undefined);
      if (releaseClaim !== undefined) this.sql.release.run(threadId, releaseClaim);
    });
    if (releaseClaim !== undefined) this.releasedWith.set(threadId, releaseClaim);
  }

  protected loadTuple(threadId: string, ns: string, id: string | undefined) {
    return this.run(
      "getTuple",
      () => this.cachedTuple(threadId, ns, id) ?? this.inReadTransaction(() => this.readTuple(threadId, ns, id)),
    );
  }

  /** The newest checkpoint from the cache, when no other connection has committed since it was filled. */
  private cachedTuple(threadId: string, ns: string, id: string | undefined) {
    // Nothing kept for the thread: no data_version check here (readTuple makes its own).
    const head = this.cache.get(threadId, ns);
    if (!head || this.checkCache() || (id !== undefined && id !== head.id)) return undefined;
    if (this.copies && head.parsed)
      return this.tupleFromCopies(threadId, ns, head.parsed, head, copiedWrites(head, this.serde));
    const lookup = (channel: string, version: number) => {
      const blob = head.blobs.get(blobKey(channel, version));
      if (blob === undefined) throw NOT_CACHED;
      return blob ?? undefined;
    };
    try {
      const tuple = this.tupleFrom(threadId, ns, head, lookup, head.writes);
      if (this.copies) head.parsed = parsedOf(tuple);
      return tuple;
    } catch (error) {
      if (error === NOT_CACHED) return undefined;
      throw error;
    }
  }

  /** Inside a read transaction; the newest checkpoint is kept in the cache with every blob it needed. */
  private readTuple(threadId: string, ns: string, id: string | undefined) {
    this.checkCache();
    const stored = (id === undefined ? this.sql.latest.get(threadId, ns) : this.sql.checkpoint.get(threadId, ns, id)) as
      | CheckpointRow
      | undefined;
    if (!stored) {
      if (id === undefined) this.cache.readNothing(threadId, ns);
      return undefined;
    }
    const { inline, packing, metadata, ...kept } = stored;
    const row = { ...kept, metadata: unpacked(metadata, packing), parentId: parentOf(stored.id, stored.parentId) };
    const record = this.recordOf(row);
    const blobs = new Map<string, Kit.StoredBlob | null>();
    let small: Map<string, string> | undefined;
    const lookup = (channel: string, version: number) => {
      small ??= decodeInline(inline);
      const data = record.channel_versions[channel] === version ? small.get(channel) : undefined;
      const blob = data !== undefined ? { base: null, data } : readBlob(this.sql, threadId, ns, channel, version);
      blobs.set(blobKey(channel, version), blob ?? null);
      return blob;
    };
    const writes = (this.sql.writes.all(threadId, ns, row.id) as StoredWrite[]).map(unpackedWrite);
    const tuple = this.tupleOf(threadId, ns, row, lookup, writes, record);
    if (id === undefined) {
      const parsed = this.copies ? parsedOf(tuple) : undefined;
      this.cache.read(threadId, ns, { ...row, blobs, writes, parsed });
    }
    return tuple;
  }

  private tupleFrom(
    threadId: string,
    ns: string,
    row: Omit<CachedHead, "blobs" | "writes" | "bytes">,
    lookup: Kit.BlobLookup,
    writes: readonly CachedWrite[],
  ) {
    return this.tupleOf(threadId, ns, row, lookup, writes, this.recordOf(row));
  }

  private recordOf(row: Pick<CachedHead, "id" | "createdAt" | "record">): Kit.CheckpointRecord {
    return fullRecord(this.read(row.record) as Record<string, unknown>, row.id, row.createdAt);
  }

  /**
   * Empties the cache when another connection has committed since the last check; true when it
   * did. Once per batch: while a batch is open it holds the write lock, so no other connection
   * commits (a run's claim, first read and first saves share one batch).
   */
  private checkCache(): boolean {
    if (!this.cache.enabled) return false;
    const batch = this.group.openBatch;
    if (batch !== undefined && batch === this.checkedInBatch) return false;
    this.checkedInBatch = batch;
    return this.cache.check(this.sql.dataVersion.get() as number);
  }

  override async getHeadId(threadId: string, checkpointNs = ""): Promise<string | undefined> {
    return this.run("getHeadId", () => (this.sql.head.get(threadId, checkpointNs) as string | undefined) ?? undefined);
  }

  protected listCandidates(scope: Kit.ListScope) {
    const { text, params } = listSql("checkpoints", scope, () => "?", ["packing"]);
    // Rows are read up front: better-sqlite3 cannot run other statements while an iterator is open.
    return this.run("list", () =>
      (
        this.db.prepare(text).all(...params) as Array<Kit.ListCandidate<string | Buffer> & { packing: number | null }>
      ).map(({ packing, ...candidate }) =>
        packing === null ? candidate : { ...candidate, metadata: unpacked(candidate.metadata!, packing) },
      ),
    );
  }

  protected async removeThread(threadId: string): Promise<void> {
    await this.write("deleteThread", undefined, () => {
      for (const statement of this.sql.deleteThread) statement.run(threadId);
      this.cache.forget(threadId);
    });
  }

  protected threadsCreatedBefore(cutoff: number): string[] {
    return this.run("prune", () => this.sql.threadsWithOld.all(cutoff) as string[]);
  }

  protected pruneThread(threadId: string, request: Kit.PruneRequest): number | Promise<number> {
    return this.write("prune", undefined, () => {
      const rows = this.sql.pruneRows.all(threadId) as Array<Kit.PruneCandidate<string | Buffer>>;
      const plan = this.planPrune(request, rows, this.sql.blobBases.all(threadId) as Kit.StoredBlobRef[]);
      for (const { ns, checkpoints, blobs } of plan.namespaces) {
        for (const id of checkpoints) {
          this.sql.deleteCheckpoint.run(threadId, ns, id);
          this.sql.deleteCheckpointWrites.run(threadId, ns, id);
        }
        for (const blob of blobs) {
          this.sql.deleteBlob.run(threadId, ns, blob.channel, blob.version);
          this.sql.deleteBlobParts.run(threadId, ns, blob.channel, blob.version);
        }
        if (request.after === undefined) continue; // a prune keeps every head
        this.sql.dropEmptyHead.run(threadId, ns, threadId, ns);
        this.sql.resetHead.run(threadId, ns, threadId, ns);
      }
      this.cache.forget(threadId);
      return plan.removed;
    });
  }

  async claimThread(threadId: string, claim: ThreadClaim): Promise<boolean> {
    if (this.releasedWith.get(threadId) === claim.owner) return false;
    // Not waited for: the batch's write lock keeps other processes out until it commits, and the
    // run's first save commits it (one commit for both), or the end of this event-loop turn does.
    return this.write("claimThread", { durable: false }, () => {
      const now = this.now();
      const expiresAt = now + claim.ttlMs;
      const taken = this.sql.takeClaim.run(threadId, claim.owner, expiresAt, claim.replaces ?? null, now).changes === 1;
      if (taken) this.held.taken(threadId, claim.owner, expiresAt);
      return taken;
    });
  }

  override async claimHolder(threadId: string): Promise<ClaimHolder | undefined> {
    const held = this.run("claimHolder", () => this.sql.claim.get(threadId)) as
      | { owner: string; expires_at: number }
      | undefined;
    return held && held.expires_at > this.now() ? { owner: held.owner, expiresAt: held.expires_at } : undefined;
  }

  async releaseThread(threadId: string, owner: string): Promise<void> {
    this.held.released(threadId, owner);
    if (this.releasedWith.get(threadId) === owner) {
      this.releasedWith.delete(threadId);
      return;
    }
    // Not waited for: a release lost to a crash lapses with the claim's TTL.
    await this.write("releaseThread", { durable: false }, () => this.sql.release.run(threadId, owner));
  }

  override async sweep(): Promise<number> {
    const now = this.now();
    await this.write("sweep", undefined, () => this.sql.expiredClaims.run(now));
    if (!this.ttlMs) return 0;
    // A thread's recorded activity lags its last put by less than ACTIVITY_GRAIN_MS.
    const idle = this.run("sweep", () => this.sql.idleThreads.all(now - this.ttlMs! - ACTIVITY_GRAIN_MS)) as string[];
    for (const threadId of idle) await this.deleteThread(threadId);
    return idle.length;
  }

  override async flush(): Promise<void> {
    const since = this.unflushedSince;
    this.unflushedSince = undefined;
    try {
      // Without group commit no other thread's writes wait to share the batch: it commits now.
      await (this.batched ? this.group.settled(since) : this.group.commitNow(since));
    } catch (error) {
      throw storageError("flush", error);
    }
  }

  override async close(): Promise<void> {
    await super.close();
    if (this.db.open) await this.group.flush();
    await this.walCheckpointer?.stop();
    if (this.ownsDb && this.db.open) this.db.close();
  }

  /**
   * Writes go through the GroupCommit (`write`); reads that span statements, through this. In an
   * open batch (a run's claim waits in one) the reads already see one state of the file, since
   * the batch holds the write lock: no savepoint, which is two statements of nothing to undo.
   */
  private inReadTransaction<T>(body: () => T): T {
    return this.db.inTransaction ? body() : (this.atomic.deferred(body) as T);
  }

  /**
   * One logical write transaction in the connection's current batch (group-commit.ts): without
   * `groupCommit` a durable one commits that batch at once, else the batch commits once per
   * event-loop turn. A non-durable one (a claim, a release) waits in the batch either way.
   */
  /** In a write's transaction: refuses a write of a run whose claim another process took (held-claims.ts). */
  private checkFence(threadId: string): void {
    this.held.check(threadId, this.now(), () => (this.sql.claim.get(threadId) as { owner: string } | undefined)?.owner);
  }

  private write<T>(operation: string, options: WriteOptions | undefined, body: () => T): T | Promise<T> {
    // A failed write may have updated the cache before its transaction was undone (a batch's
    // failure as a whole reaches it through GroupCommit.onFailure).
    const fail = (error: unknown) => {
      this.cache.clear();
      throw storageError(operation, error);
    };
    if (options?.durable === false) this.unflushedSince ??= this.group.mark();
    this.walCheckpointer?.wrote();
    try {
      const done = this.group.run(body, this.batched ? options : options?.durable === false ? LAZY : NOW);
      return done instanceof Promise ? done.catch(fail) : done;
    } catch (error) {
      return fail(error);
    }
  }

  private run<T>(operation: string, body: () => T): T {
    try {
      return body();
    } catch (error) {
      throw storageError(operation, error);
    }
  }
}

/** A `writes` row as the writes statement reads it. */
type StoredWrite = CachedWrite & { packing: number | null };

/** A `writes` row as the kit reads it: its data as it was written (packing.ts). */
function unpackedWrite({ packing, ...write }: StoredWrite): CachedWrite {
  return packing === null ? write : { ...write, data: unpacked(write.data, packing) };
}
