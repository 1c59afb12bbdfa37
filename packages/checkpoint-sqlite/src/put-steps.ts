/**
 * The kit's put steps as statements, run inside the saver's write transaction. What the head
 * cache knows of the thread (its head, when its activity was last recorded) saves a statement
 * each; the cache was checked against `PRAGMA data_version` at the start of the transaction.
 */
import type * as Kit from "@interlude/core/saver-kit";
import { blobKey, decodeInline, InlineRow, inlinable, inlinableBlob } from "@interlude/core/saver-kit";
import type { HeadCache } from "./head-cache.js";
import { packedToFit, roomBeside, writeBlob } from "./packing.js";
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
  /** The small values of the put under way (`writeBlob` adds them, `writeCheckpoint` writes them). */
  private inline: { put: Kit.PreparedPut; row: InlineRow } | undefined;

  constructor(
    private readonly sql: Statements,
    private readonly cache: HeadCache,
    private readonly now: () => number,
    /** The channel versions of a stored record. */
    private readonly versionsOf: (record: string | Uint8Array) => Kit.CheckpointRecord["channel_versions"],
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
    if (inlinableBlob(blob) && this.inlineRow(put).add(blob.channel, blob.data)) return;
    writeBlob(this.sql, put, blob);
  }

  writeCheckpoint(put: Kit.PreparedPut): void {
    const { threadId, ns, id, parentId } = put;
    const inline = this.carryInline(put).encode();
    this.inline = undefined;
    const parent = keptParent(id, parentId);
    const metadata = packedToFit(put.metadata, roomBeside(threadId, ns, id, parent, put.record, inline));
    this.sql.putCheckpoint.run(
      threadId,
      ns,
      id,
      parent,
      put.createdAt,
      put.record,
      metadata.data,
      inline,
      metadata.packing,
    );
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

  private inlineRow(put: Kit.PreparedPut): InlineRow {
    if (this.inline?.put !== put) this.inline = { put, row: new InlineRow() };
    return this.inline.row;
  }

  /**
   * Adds the small values the put shares with its parent (channels it did not write), so that
   * the row holds all of its checkpoint's: from the head cache when the parent is the cached
   * head, else from the parent's row. One that no longer fits goes to `blobs`.
   */
  private carryInline(put: Kit.PreparedPut): InlineRow {
    const row = this.inlineRow(put);
    const { threadId, ns, parentId } = put;
    if (parentId === undefined) return row;
    const head = this.cache.get(threadId, ns);
    const cached = head?.id === parentId ? head.blobs : undefined;
    let parent: { versions: Record<string, number>; values: Map<string, string> } | undefined;
    for (const channel in put.versions) {
      if (put.blobs.some((blob) => blob.channel === channel)) continue;
      const version = put.versions[channel]!;
      const blob = cached?.get(blobKey(channel, version));
      let data: string | undefined;
      if (blob !== undefined) {
        if (blob === null || !inlinable(blob.base, blob.data)) continue;
        data = blob.data;
      } else {
        parent ??= this.storedInline(threadId, ns, parentId);
        if (parent.versions[channel] !== version) continue;
        data = parent.values.get(channel);
        if (data === undefined) continue;
      }
      if (!row.add(channel, data)) this.sql.putBlob.run(threadId, ns, channel, version, null, data, null);
    }
    return row;
  }

  /** A stored checkpoint's small values and the versions they are at (none when it is not stored). */
  private storedInline(threadId: string, ns: string, id: string) {
    const row = this.sql.inlineOf.get(threadId, ns, id) as
      | { record: string | Uint8Array; inline: string | null }
      | undefined;
    if (!row?.inline) return { versions: {}, values: new Map<string, string>() };
    return { versions: this.versionsOf(row.record), values: decodeInline(row.inline) };
  }
}
