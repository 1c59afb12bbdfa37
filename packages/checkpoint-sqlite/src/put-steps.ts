/**
 * The kit's put steps as statements, run inside the saver's write transaction. What the head
 * cache knows of the thread (its head, when its activity was last recorded) saves a statement
 * each; the cache was checked against `PRAGMA data_version` at the start of the transaction.
 */
import type * as Kit from "@interlude/core/saver-kit";
import type { HeadCache } from "./head-cache.js";
import { writeBlob } from "./packing.js";
import { keptParent } from "./parent-link.js";
import type { Statements } from "./statements.js";

/**
 * How stale a thread's recorded activity (`heads.updated_at`, read by the idle sweep) may be:
 * a thread that puts a checkpoint every step rewrites that row, a page of the WAL, once per
 * this many milliseconds instead of at every put.
 */
export const ACTIVITY_GRAIN_MS = 1000;

export class SqlitePutSteps implements Kit.PutSteps<string | Uint8Array> {
  /** `heads.updated_at` after the last `writeCheckpoint`, for the cache entry of the new head. */
  activityAt: number | undefined;

  constructor(
    private readonly sql: Statements,
    private readonly cache: HeadCache,
    private readonly now: () => number,
  ) {}

  head(put: Kit.PreparedPut): string | null {
    const { threadId, ns } = put;
    const cached = this.cache.get(threadId, ns)?.id;
    if (cached !== undefined || this.cache.isEmpty(threadId, ns)) return cached ?? null;
    return (this.sql.head.get(threadId, ns) as string | undefined) ?? null;
  }

  hasBlob(put: Kit.PreparedPut, channel: string, version: number): boolean {
    return this.sql.hasBlob.get(put.threadId, put.ns, channel, version) !== undefined;
  }

  writeBlob(put: Kit.PreparedPut, blob: Kit.PreparedBlob): void {
    writeBlob(this.sql, put, blob);
  }

  writeCheckpoint(put: Kit.PreparedPut): void {
    const { threadId, ns, id, parentId } = put;
    this.sql.putCheckpoint.run(threadId, ns, id, keptParent(id, parentId), put.createdAt, put.record, put.metadata);
    const at = this.now();
    // A thread without checkpoints gets its activity row now (an upsert: one left behind is updated).
    const written = this.cache.isEmpty(threadId, ns)
      ? undefined
      : (this.cache.get(threadId, ns)?.activityAt ?? (this.sql.writtenAt.get(threadId, ns) as number | undefined));
    if (written === undefined || at - written >= ACTIVITY_GRAIN_MS || at < written) {
      this.sql.setHead.run(threadId, ns, id, at);
      this.activityAt = at;
    } else this.activityAt = written;
  }
}
