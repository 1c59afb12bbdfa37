import type { ClaimHolder, ThreadClaim } from "@interlude/core";
import type * as Kit from "@interlude/core/saver-kit";
import { listSql, putInSteps, SaverKit, storageError } from "@interlude/core/saver-kit";
import Database from "better-sqlite3";
import { GroupCommit, type WriteOptions } from "./group-commit.js";
import { readBlob, writeBlob } from "./packing.js";
import { keptParent, parentOf } from "./parent-link.js";
import { fullRecord, slimKeeper } from "./record.js";
import { migrate } from "./schema.js";
import { type CheckpointRow, prepareStatements, type Statements } from "./statements.js";

export interface SqliteSaverOptions extends Kit.SaverKitOptions {
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
  private readonly group: GroupCommit | undefined;
  private readonly steps: Kit.PutSteps<string | Uint8Array>;

  /** `SqliteSaver.fromConnString("checkpoints.sqlite")`; ":memory:" gives a private in-memory database. */
  static fromConnString(path: string, options?: SqliteSaverOptions): SqliteSaver {
    return new SqliteSaver(path, options);
  }

  constructor(db: Database.Database | string, options: SqliteSaverOptions = {}) {
    super(options, slimKeeper);
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
      throw storageError("open", error);
    }
    this.steps = putSteps(this.sql, this.now);
    this.sweepPeriodically(options);
  }

  protected storePut(put: Kit.PreparedPut): Kit.PutOutcome | Promise<Kit.PutOutcome> {
    return this.write("put", put, () => putInSteps(put, this.steps));
  }

  protected async storeWrites({
    threadId,
    ns,
    checkpointId,
    taskId,
    rows,
    durable,
  }: Kit.PreparedWrites): Promise<void> {
    await this.write("putWrites", { durable }, () => {
      let seq = this.sql.maxSeq.get(threadId, ns, checkpointId) as number;
      for (const row of rows) {
        const statement = row.replace ? this.sql.replaceWrite : this.sql.addWrite;
        statement.run(threadId, ns, checkpointId, taskId, row.idx, row.channel, row.data, ++seq);
      }
    });
  }

  protected loadTuple(threadId: string, ns: string, id: string | undefined) {
    return this.run("getTuple", () =>
      this.inTransaction("deferred", () => {
        const row = (
          id === undefined ? this.sql.latest.get(threadId, ns) : this.sql.checkpoint.get(threadId, ns, id)
        ) as CheckpointRow | undefined;
        if (!row) return undefined;
        const lookup = (channel: string, version: number) => readBlob(this.sql, threadId, ns, channel, version);
        const writes = this.sql.writes.all(threadId, ns, row.id) as Kit.StoredWrite[];
        const record = fullRecord(this.read(row.record) as Record<string, unknown>, row.id, row.createdAt);
        const stored = { parentId: parentOf(row.id, row.parentId), record: row.record, metadata: row.metadata };
        return this.tupleOf(threadId, ns, stored, lookup, writes, record);
      }),
    );
  }

  override async getHeadId(threadId: string, checkpointNs = ""): Promise<string | undefined> {
    return this.run("getHeadId", () => (this.sql.head.get(threadId, checkpointNs) as string | undefined) ?? undefined);
  }

  protected listCandidates(scope: Kit.ListScope) {
    const { text, params } = listSql("checkpoints", scope, () => "?");
    // Rows are read up front: better-sqlite3 cannot run other statements while an iterator is open.
    return this.run("list", () => this.db.prepare(text).all(...params) as Array<Kit.ListCandidate<string | Buffer>>);
  }

  protected async removeThread(threadId: string): Promise<void> {
    await this.write("deleteThread", undefined, () => {
      for (const statement of this.sql.deleteThread) statement.run(threadId);
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
      }
      return plan.removed;
    });
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
      throw storageError("flush", error);
    }
  }

  override async close(): Promise<void> {
    await super.close();
    if (this.group && this.db.open) await this.group.flush();
    if (this.ownsDb && this.db.open) this.db.close();
  }

  private inTransaction<T>(mode: "deferred" | "immediate", body: () => T): T {
    return this.atomic[mode](body) as T;
  }

  /** One write transaction: committed by itself, or as part of the connection's next group commit. */
  private write<T>(operation: string, options: WriteOptions | undefined, body: () => T): T | Promise<T> {
    if (!this.group) return this.run(operation, () => this.inTransaction("immediate", body));
    return this.group.write(body, options).catch((error: unknown) => {
      throw storageError(operation, error);
    });
  }

  private run<T>(operation: string, body: () => T): T {
    try {
      return body();
    } catch (error) {
      throw storageError(operation, error);
    }
  }
}

/** The put's primitive steps as statements, run inside the saver's write transaction. */
function putSteps(sql: Statements, now: () => number): Kit.PutSteps<string | Uint8Array> {
  return {
    head: (put) => (sql.head.get(put.threadId, put.ns) as string | undefined) ?? null,
    hasBlob: (put, channel, version) => sql.hasBlob.get(put.threadId, put.ns, channel, version) !== undefined,
    writeBlob: (put, blob) => writeBlob(sql, put, blob),
    writeCheckpoint: (put) => {
      const { threadId, ns, id, parentId } = put;
      sql.putCheckpoint.run(threadId, ns, id, keptParent(id, parentId), put.createdAt, put.record, put.metadata);
      sql.setHead.run(threadId, ns, id, now());
    },
  };
}
