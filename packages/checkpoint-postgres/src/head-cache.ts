/**
 * The newest root checkpoint of recently used threads, as stored (record, metadata and every
 * blob its values need, delta bases included), so that loading a thread this process just wrote
 * or read sends PostgreSQL the id it holds and gets back only "unchanged" and the pending writes,
 * instead of the rows and a walk of the blobs' delta chains (interlude_read_head, schema.ts).
 *
 * Why it cannot serve a stale checkpoint: the cache is never read without asking the database.
 * Each entry carries the id of the checkpoint it was made from and the stamp of the thread's
 * head row then (that row version's xmin); PostgreSQL compares both with the newest checkpoint
 * and the head row now. Every put of the (thread, namespace) writes the head row, whichever
 * checkpoint id it writes, so a checkpoint another process wrote (a newer id), the same id
 * written again, and a blob of the held checkpoint rewritten in place (another process writing
 * an older checkpoint id again with different values at the same channel versions) all change
 * the stamp and send everything. Pending writes are not kept: they always come from the
 * database.
 *
 * A head another process has replaced since is not thrown away. Once another process has
 * written a thread (`contested`), its loads name the blob rows held by (channel, version, xmin)
 * (interlude_read_since), and PostgreSQL sends only the rows not held: a list appended to
 * elsewhere comes back as its new links, and is built on the private copy of the held list. A
 * held row rewritten in place has another xmin, and then every row comes back.
 *
 * Under the JSON serializer a head also keeps private plain copies of what it holds (the kit's
 * private-copies.ts), so that such a load copies instead of parsing.
 *
 * Bounded: least recently used threads go first, by count and by bytes. Pure bookkeeping: the
 * saver runs the statements.
 */
import type { ChannelVersion } from "@interlude/core";
import type * as Kit from "@interlude/core/saver-kit";
import { blobKey, type HeadCacheLimits, parsedAfter } from "@interlude/core/saver-kit";
import type { InlineValues } from "./inline-values.js";

type Kept = string | Uint8Array;

/** A blob as a head keeps it: with its row version's xmin when it has a row of its own (not inline). */
export interface HeldBlob extends Kit.StoredBlob {
  readonly stamp?: string;
}

/**
 * Whether a load names this blob of a head (interlude_read_since): it has a row of its own (not a
 * value kept inline in the checkpoint row) and the xmin that row had when read or written.
 */
export function namesRow(
  blob: HeldBlob | null | undefined,
  inline: InlineValues,
  key: string,
): blob is HeldBlob & { stamp: string } {
  return blob?.stamp !== undefined && !inline.has(key);
}

/**
 * The blob rows a head holds, as interlude_read_since's arguments (channels, versions, xmins):
 * array literals made once per head, which cost a fraction of what the driver spends turning
 * arrays into them at every load.
 */
type HeldRows = readonly [channels: string, versions: string, stamps: string];

/** The newest root checkpoint of one thread, as its rows hold it. */
export interface CachedHead {
  readonly id: string;
  /** The head row version's xmin when this checkpoint was the newest, as PostgreSQL returned it. */
  readonly stamp: string;
  readonly parentId: string | null;
  readonly record: Kept;
  readonly metadata: Kept;
  /** channel + version -> blob, `null` where the checkpoint names a version with no blob; inline values too. */
  readonly blobs: ReadonlyMap<string, HeldBlob | null>;
  /** Those of `blobs` that have rows, for a load to name (interlude_read_since); undefined: none. */
  readonly rows: HeldRows | undefined;
  /**
   * Another process has written the thread since this one held it: its loads name `rows`. A
   * thread only this process writes is not named, which would only cost its loads the arrays.
   */
  readonly contested: boolean;
  /** The values its row holds (inline-values.ts), which the thread's next put carries. */
  readonly inline: InlineValues;
  /** Private plain copies of it, under the JSON serializer (the kit's private-copies.ts). */
  parsed?: Kit.ParsedHead;
  readonly bytes: number;
}

/** Per entry and per blob, on top of the stored bytes: keys, objects, map slots. */
const OVERHEAD = 64;

export class HeadCache {
  /** Least recently used first. */
  private readonly heads = new Map<string, CachedHead>();
  private bytes = 0;

  /**
   * `limits` as `headCacheLimits` checked them. `copies`: heads also keep private plain copies,
   * which take about as much again as their stored form.
   */
  constructor(
    private readonly limits: HeadCacheLimits,
    private readonly copies = false,
  ) {}

  /** The head held for the thread, made the most recently used. */
  get(threadId: string): CachedHead | undefined {
    const head = this.heads.get(threadId);
    if (head) {
      this.heads.delete(threadId);
      this.heads.set(threadId, head);
    }
    return head;
  }

  /**
   * What a full read of the newest checkpoint found; `blobs` as read, keyed by `blobKey`.
   * Not kept when a value's chain is not all there (a row written before checkpoints listed
   * their versions): the next load reads it all again.
   */
  read(
    threadId: string,
    head: Omit<CachedHead, "blobs" | "rows" | "bytes">,
    versions: Record<string, ChannelVersion>,
    blobs: ReadonlyMap<string, HeldBlob | null>,
  ): CachedHead | undefined {
    return this.set(threadId, head, versions, blobs, undefined, null);
  }

  /**
   * After a root put this process stored: its checkpoint is the newest, made of the blobs it
   * wrote and, for the channels it did not write, those of the head it replaced. Only when
   * that head is the one held here (the put's compare-and-swap expected it, so nothing was
   * written in between); otherwise the thread is dropped and its next load reads everything.
   */
  put(put: Kit.PreparedPut, stamp: string, inline: InlineValues, seed?: Kit.PutSeed): void {
    const previous = this.heads.get(put.threadId);
    const chained = previous ? put.expectedHead === previous.id : put.expectedHead === null;
    if (!chained || (previous && previous.id > put.id)) {
      this.forget(put.threadId);
      return;
    }
    // Every row the put wrote has its transaction's id as xmin: the stamp.
    const written = new Map<string, HeldBlob | null>();
    for (const blob of put.blobs)
      written.set(blobKey(blob.channel, blob.version), { base: blob.base, data: blob.data, stamp });
    const head = {
      id: put.id,
      stamp,
      parentId: put.parentId ?? null,
      record: put.record,
      metadata: put.metadata,
      inline,
      parsed: seed && parsedAfter(put, seed, previous?.parsed),
      contested: previous?.contested ?? false,
    };
    this.set(put.threadId, head, put.versions, written, previous?.blobs);
  }

  forget(threadId: string): void {
    const head = this.heads.get(threadId);
    if (!head) return;
    this.bytes -= head.bytes;
    this.heads.delete(threadId);
  }

  clear(): void {
    this.heads.clear();
    this.bytes = 0;
  }

  get size(): number {
    return this.heads.size;
  }

  /**
   * Keeps the head with the blobs its values need, from `blobs`, then `before`; a blob in
   * neither is `missing` (null: known to be absent; undefined: not known, nothing is kept).
   */
  private set(
    threadId: string,
    head: Omit<CachedHead, "blobs" | "rows" | "bytes">,
    versions: Record<string, ChannelVersion>,
    blobs: ReadonlyMap<string, HeldBlob | null>,
    before: ReadonlyMap<string, HeldBlob | null> | undefined,
    missing?: null,
  ): CachedHead | undefined {
    this.forget(threadId);
    if (this.limits.threads <= 0) return undefined;
    const kept = new Map<string, HeldBlob | null>();
    let channels = "";
    let numbers = "";
    let stamps = "";
    let bytes = OVERHEAD + sizeOf(head.record) + sizeOf(head.metadata);
    for (const channel in versions) {
      // Each value's delta chain, down to its full copy.
      let version: ChannelVersion | null = versions[channel]!;
      while (version !== null) {
        const key = blobKey(channel, version);
        if (kept.has(key)) break;
        const blob = blobs.has(key) ? blobs.get(key) : before?.has(key) ? before.get(key) : missing;
        if (blob === undefined) return undefined;
        // Only what a load reads: a prepared blob carries more.
        const stored = blob && { base: blob.base, data: blob.data, stamp: blob.stamp };
        kept.set(key, stored);
        if (namesRow(blob, head.inline, key)) {
          const comma = channels ? "," : "";
          channels += `${comma}"${channel.replace(/["\\]/g, "\\$&")}"`;
          numbers += `${comma}${version}`;
          stamps += `${comma}${blob.stamp}`;
        }
        bytes += OVERHEAD + sizeOf(blob?.data ?? null);
        version = blob?.base ?? null;
      }
    }
    const rows: HeldRows | undefined = channels ? [`{${channels}}`, `{${numbers}}`, `{${stamps}}`] : undefined;
    bytes += (rows?.[0].length ?? 0) + (rows?.[1].length ?? 0) + (rows?.[2].length ?? 0);
    if (this.copies) bytes *= 2;
    // Fields listed, not spread: a spread of the caller's object costs ~20 µs here.
    const { id, stamp, parentId, record, metadata, inline, parsed, contested } = head;
    const entry: CachedHead = {
      id,
      stamp,
      parentId,
      record,
      metadata,
      inline,
      parsed,
      blobs: kept,
      rows,
      contested,
      bytes,
    };
    this.heads.set(threadId, entry);
    this.bytes += bytes;
    this.trim();
    return this.heads.get(threadId) === entry ? entry : undefined;
  }

  /** Least recently used threads go first; a thread bigger than the whole budget is not kept. */
  private trim(): void {
    while (this.heads.size > this.limits.threads || (this.bytes > this.limits.bytes && this.heads.size > 0))
      this.forget(this.heads.keys().next().value!);
  }
}

function sizeOf(kept: Kept | null): number {
  return kept === null ? 0 : kept.length;
}
