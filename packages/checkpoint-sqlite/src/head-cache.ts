/**
 * The newest checkpoint of recently used threads, as stored (record, metadata, blobs and
 * pending writes still serialised), so that a `getTuple` of a thread this connection just wrote
 * or read runs one statement (`PRAGMA data_version`) instead of a read transaction of seven.
 * Every read hands out new objects (parsed from the stored form, or copied from the private
 * plain copies of `ParsedHead`), so callers never share objects with the cache.
 *
 * Why it cannot serve a stale read: every write to the file goes through a connection. Writes
 * by this connection (every SqliteSaver on it shares one cache, see `HeadCache.of`) update or
 * drop the entries they touch; commits by any other connection, in this process or another,
 * change `PRAGMA data_version`, and the saver empties the cache whenever that number moves.
 * Writing the checkpoint tables with raw SQL on the saver's own connection is not supported.
 * A put's new checkpoint starts with no pending writes: checkpoint ids are new at every put, so
 * no write can name one before it is stored.
 *
 * Pure bookkeeping: the saver reads data_version and runs the statements.
 */
import type { ChannelVersion } from "@interlude/core";
import type * as Kit from "@interlude/core/saver-kit";
import { blobKey, type HeadCacheLimits, parsedAfter } from "@interlude/core/saver-kit";
import type Database from "better-sqlite3";

type Kept = string | Uint8Array;

/** A pending write as stored, with the index that decides whether a later write replaces it. */
export interface CachedWrite extends Kit.StoredWrite {
  idx: number;
  /** Its value once read, as a private plain copy (`NOT_PLAIN`: it is not plain data and is parsed every time). */
  parsed?: unknown;
}

/** The newest checkpoint of one (thread, namespace), as its rows hold it. */
export interface CachedHead {
  readonly id: string;
  readonly parentId: string | null;
  readonly createdAt: number;
  readonly record: Kept;
  readonly metadata: Kept;
  /** channel + version -> blob, `null` where the checkpoint names a version with no blob. */
  readonly blobs: Map<string, Kit.StoredBlob | null>;
  readonly writes: CachedWrite[];
  parsed?: Kit.ParsedHead;
  bytes: number;
  /** `heads.updated_at` of the (thread, namespace) as this connection last wrote it (undefined: not known). */
  activityAt?: number;
  /** The largest `seq` among the head's pending writes in the file (undefined: not known). */
  seq?: number;
}

/** Per entry and per item, on top of the stored bytes: keys, objects, map slots. */
const OVERHEAD = 64;

const caches = new WeakMap<Database.Database, HeadCache>();

export class HeadCache {
  /** The one cache of a connection: savers sharing a connection see each other's writes there. */
  static of(db: Database.Database, limits: HeadCacheLimits): HeadCache {
    let cache = caches.get(db);
    if (!cache) caches.set(db, (cache = new HeadCache(limits)));
    return cache;
  }

  /** thread -> namespace -> head; least recently used thread first. */
  private readonly threads = new Map<string, Map<string, CachedHead>>();
  private bytes = 0;
  /** The most recently used thread (last in `threads`): using it again moves nothing. */
  private newest: string | undefined;
  private dataVersion: number | undefined;
  /**
   * The (thread, namespace) a read last found without any checkpoint, until something is
   * written there: a new thread's run reads it, then puts its first checkpoint, which need not
   * look for a head or an activity row again. One slot: that is the only pattern it serves.
   */
  private empty: { threadId: string; ns: string } | undefined;

  constructor(private readonly limits: HeadCacheLimits) {}

  /** Clears the cache; the same function every time, for `GroupCommit.onFailure`. */
  readonly clearAll = (): void => this.clear();

  /** Drops everything when another connection has committed since the last check; true when it did. */
  check(dataVersion: number): boolean {
    if (dataVersion === this.dataVersion) return false;
    this.clear();
    this.dataVersion = dataVersion;
    return true;
  }

  get(threadId: string, ns: string): CachedHead | undefined {
    const heads = this.threads.get(threadId);
    const head = heads?.get(ns);
    if (head) this.touch(threadId, heads!);
    return head;
  }

  /** A read of the newest checkpoint found none. */
  readNothing(threadId: string, ns: string): void {
    if (this.enabled) this.empty = { threadId, ns };
  }

  /** True when the (thread, namespace) is known to have no checkpoint (see `readNothing`). */
  isEmpty(threadId: string, ns: string): boolean {
    return this.empty?.threadId === threadId && this.empty.ns === ns;
  }

  /** What a read of the newest checkpoint found (`blobs` as looked up, writes in order). */
  read(threadId: string, ns: string, head: Omit<CachedHead, "bytes">): void {
    this.set(threadId, ns, { ...head, bytes: 0 });
  }

  /**
   * After a put committed on this connection: the new newest checkpoint, with the blobs it
   * wrote and those of the previous head it still names. Without a previous head the cache
   * knows the put is the newest only from its compare-and-swap (`expectedHead`, older than it).
   */
  put(put: Kit.PreparedPut, seed?: Kit.PutSeed, activityAt?: number): void {
    if (this.isEmpty(put.threadId, put.ns)) this.empty = undefined;
    const previous = this.threads.get(put.threadId)?.get(put.ns);
    if (previous && previous.id > put.id) return; // an older checkpoint (a fork): the newest is unchanged
    const chained =
      previous !== undefined ||
      put.expectedHead === null ||
      (put.expectedHead !== undefined && put.expectedHead < put.id);
    if (!chained) {
      this.forget(put.threadId, put.ns);
      return;
    }
    const written = new Map<string, Kit.StoredBlob | null>();
    for (const { channel, version, base, data } of put.blobs) written.set(blobKey(channel, version), { base, data });
    const blobs = new Map<string, Kit.StoredBlob | null>();
    for (const channel in put.versions) {
      // Each value's delta chain, down to its full copy, from what was written or known before.
      let version: ChannelVersion | null = put.versions[channel]!;
      while (version !== null) {
        const key = blobKey(channel, version);
        const blob = written.has(key) ? written.get(key) : previous?.blobs.get(key);
        if (blob === undefined) break; // not known here: a read looks it up in the file
        blobs.set(key, blob);
        version = blob?.base ?? null;
      }
    }
    // The same id again replaces the row but keeps its writes.
    const same = previous?.id === put.id;
    const writes = same ? previous.writes : [];
    const seq = same ? previous.seq : 0;
    const { id, createdAt, record, metadata } = put;
    const parsed = seed && parsedAfter(put, seed, previous?.parsed);
    const parentId = put.parentId ?? null;
    const head = { id, parentId, createdAt, record, metadata, blobs, writes, parsed, bytes: 0, activityAt, seq };
    this.set(put.threadId, put.ns, head);
  }

  /** The largest `seq` of the pending writes of `checkpointId`, when it is the cached head and that is known. */
  seqOf(threadId: string, ns: string, checkpointId: string): number | undefined {
    const head = this.threads.get(threadId)?.get(ns);
    return head?.id === checkpointId ? head.seq : undefined;
  }

  /**
   * After pending writes committed on this connection, with the same insert-or-replace rule as
   * the table, the largest `seq` now being `seq`. `seed` gives a write's private copy from the
   * value written (see `CachedWrite.parsed`).
   */
  writes(
    threadId: string,
    ns: string,
    checkpointId: string,
    rows: readonly Kit.PreparedWrite[],
    seq: number,
    seed?: (row: Kit.PreparedWrite) => unknown,
  ): void {
    const heads = this.threads.get(threadId);
    const head = heads?.get(ns);
    if (!head || head.id !== checkpointId) return;
    head.seq = seq;
    for (const row of rows) {
      const at = head.writes.findIndex((w) => w.taskId === row.taskId && w.idx === row.idx);
      if (at >= 0 && !row.replace) continue;
      const write = { taskId: row.taskId, idx: row.idx, channel: row.channel, data: row.data, parsed: seed?.(row) };
      if (at < 0) head.writes.push(write);
      else head.writes[at] = write;
    }
    this.resize(head);
    this.trim();
  }

  /** Every namespace of the thread (deleted, pruned, or written in a way the cache cannot follow). */
  forget(threadId: string, ns?: string): void {
    if (this.empty?.threadId === threadId) this.empty = undefined;
    const heads = this.threads.get(threadId);
    if (!heads) return;
    for (const [key, head] of heads) {
      if (ns !== undefined && key !== ns) continue;
      this.bytes -= head.bytes;
      heads.delete(key);
    }
    if (heads.size === 0) {
      this.threads.delete(threadId);
      if (threadId === this.newest) this.newest = undefined;
    }
  }

  clear(): void {
    this.empty = undefined;
    this.threads.clear();
    this.newest = undefined;
    this.bytes = 0;
  }

  get enabled(): boolean {
    return this.limits.threads > 0;
  }

  get size(): number {
    return this.threads.size;
  }

  private set(threadId: string, ns: string, head: CachedHead): void {
    if (this.limits.threads <= 0) return;
    let heads = this.threads.get(threadId);
    const old = heads?.get(ns);
    if (old) this.bytes -= old.bytes;
    if (!heads) {
      this.threads.set(threadId, (heads = new Map()));
      this.newest = threadId;
    } else this.touch(threadId, heads);
    heads.set(ns, head);
    head.bytes = 0;
    this.resize(head);
    this.trim();
  }

  private resize(head: CachedHead): void {
    let bytes = OVERHEAD + sizeOf(head.record) + sizeOf(head.metadata);
    for (const blob of head.blobs.values()) bytes += OVERHEAD + sizeOf(blob?.data ?? null);
    for (const write of head.writes) bytes += OVERHEAD + sizeOf(write.data);
    // Private copies (parsed values) take about as much again as their stored form.
    bytes *= 2;
    this.bytes += bytes - head.bytes;
    head.bytes = bytes;
  }

  /** Least recently used threads go first; a thread bigger than the whole budget is not kept. */
  private trim(): void {
    while (this.threads.size > this.limits.threads || (this.bytes > this.limits.bytes && this.threads.size > 0))
      this.forget(this.threads.keys().next().value!);
  }

  private touch(threadId: string, heads: Map<string, CachedHead>): void {
    if (threadId === this.newest) return;
    this.threads.delete(threadId);
    this.threads.set(threadId, heads);
    this.newest = threadId;
  }
}

function sizeOf(kept: Kept | null): number {
  return kept === null ? 0 : kept.length;
}
