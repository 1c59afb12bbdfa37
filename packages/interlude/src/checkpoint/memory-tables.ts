/**
 * What MemorySaver keeps of one (thread, namespace): its checkpoints, blobs and pending writes,
 * in a few flat arrays rather than a Map per table. A paused thread holds a few checkpoints,
 * a handful of blobs and two writes; a small Map costs ~190 bytes, and the six of them each
 * namespace had before cost more than the data they held. Lookups scan, which for a few entries
 * is as fast as hashing; a namespace with many blob groups builds an index.
 */
import type { StoredBlob } from "./delta.js";
import type { StoredWrite } from "./kit/saver-kit.js";
import type { ChannelVersion } from "./types.js";

/** One checkpoint row and the writes saved against it (flat: taskId, idx, channel, data per write). */
export interface CheckpointRow<Kept> {
  readonly id: string;
  parentId: string | undefined;
  record: Kept;
  metadata: Kept;
  writes: unknown[] | undefined;
}

const WRITE_STRIDE = 4;
/** A blob group: version, count, then (channel, base, data) per blob of that version. */
const GROUP_HEAD = 2;
const BLOB_STRIDE = 3;
/** Blob groups from which a namespace indexes them by version. */
const INDEX_FROM = 16;
/** Arrays up to this length grow by an exact copy: V8's growth by push leaves ~16 free slots. */
const EXACT_UP_TO = 64;

/** `array` with `items` appended: a new array of the exact length while small, else pushed in place. */
function appended<T>(array: T[], ...items: T[]): T[] {
  if (array.length + items.length > EXACT_UP_TO) {
    for (const item of items) array.push(item);
    return array;
  }
  const out = new Array<T>(array.length + items.length);
  for (let i = 0; i < array.length; i++) out[i] = array[i]!;
  for (let i = 0; i < items.length; i++) out[array.length + i] = items[i]!;
  return out;
}

/** Writes of one checkpoint from which their slots are indexed (a fan-out's step saves one per task). */
const INDEX_WRITES_FROM = 16 * WRITE_STRIDE;
/**
 * taskId -> offsets of its writes, for long write lists: scanning made a step of 100 tasks
 * quadratic. Keyed by the list itself, which grows in place past EXACT_UP_TO (a list copied while
 * small is a new key), and lives as long as the list does; `indexed` says how much of it is in.
 */
const slotIndexes = new WeakMap<unknown[], { indexed: number; byTask: Map<string, number | number[]> }>();

/** Offset of the write in slot (taskId, idx) of `writes`, or -1. */
function slotOf(writes: unknown[], taskId: string, idx: number): number {
  if (writes.length < INDEX_WRITES_FROM) {
    for (let i = 0; i < writes.length; i += WRITE_STRIDE) if (writes[i] === taskId && writes[i + 1] === idx) return i;
    return -1;
  }
  let index = slotIndexes.get(writes);
  if (!index) slotIndexes.set(writes, (index = { indexed: 0, byTask: new Map() }));
  // Catch up with the writes appended since (each in a slot of its own: putWrite adds no duplicates).
  const byTask = index.byTask;
  for (let i = index.indexed; i < writes.length; i += WRITE_STRIDE) {
    const task = writes[i] as string;
    const offsets = byTask.get(task);
    if (offsets === undefined) byTask.set(task, i);
    else if (typeof offsets === "number") byTask.set(task, [offsets, i]);
    else offsets.push(i);
  }
  index.indexed = writes.length;
  const offsets = byTask.get(taskId);
  if (offsets === undefined) return -1;
  if (typeof offsets === "number") return writes[offsets + 1] === idx ? offsets : -1;
  for (const i of offsets) if (writes[i + 1] === idx) return i;
  return -1;
}

/** A namespace's tables as plain arrays (what a frozen thread stores; see memory-threads.ts). */
export interface TableParts<Kept> {
  rows: Array<CheckpointRow<Kept>>;
  /** Blob groups: version, count, then (channel, base, data) per blob. */
  blobs: unknown[];
  /** Writes of checkpoints not stored: [checkpointId, writes] pairs. */
  orphans: Array<[string, unknown[]]>;
}

export class NamespaceTables<Kept> {
  /** Ordered by id (ids are time-ordered): oldest first. */
  rows: Array<CheckpointRow<Kept>> = [];
  /** Blobs in groups of one version (see GROUP_HEAD). */
  private blobs: unknown[] = [];
  private groups = 0;
  /** Offset of the newest group (-1: none). */
  private lastGroup = -1;
  /** version -> offset of its group (several: an array), once there are many groups. */
  private index: Map<ChannelVersion, number | number[]> | undefined;
  /** Writes saved against a checkpoint that is not stored (yet). */
  private orphans: Map<string, unknown[]> | undefined;

  parts(): TableParts<Kept> {
    return { rows: this.rows, blobs: this.blobs, orphans: this.orphans ? [...this.orphans] : [] };
  }

  /** Takes over `parts` (as `parts()` gave them). */
  restore(parts: TableParts<Kept>): void {
    this.rows = parts.rows;
    this.blobs = parts.blobs;
    this.orphans = parts.orphans.length ? new Map(parts.orphans) : undefined;
    this.groups = 0;
    this.lastGroup = -1;
    this.index = undefined;
    const blobs = this.blobs;
    for (let g = 0; g < blobs.length; g += GROUP_HEAD + (blobs[g + 1] as number) * BLOB_STRIDE) {
      this.groups++;
      this.lastGroup = g;
    }
    if (this.groups >= INDEX_FROM) this.buildIndex();
  }

  head(): CheckpointRow<Kept> | undefined {
    return this.rows[this.rows.length - 1];
  }

  row(id: string): CheckpointRow<Kept> | undefined {
    const at = this.find(id);
    return at < this.rows.length && this.rows[at]!.id === id ? this.rows[at] : undefined;
  }

  /** Position of `id`, or where it would go (binary search: ids sort by creation). */
  private find(id: string): number {
    const rows = this.rows;
    // Most lookups are of the newest checkpoint.
    const last = rows.length - 1;
    if (last >= 0 && rows[last]!.id <= id) return rows[last]!.id === id ? last : rows.length;
    let low = 0;
    let high = rows.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (rows[mid]!.id < id) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  /** Stores a checkpoint row (replacing one of the same id, whose writes stay). */
  putRow(id: string, parentId: string | undefined, record: Kept, metadata: Kept): void {
    const at = this.find(id);
    const existing = this.rows[at];
    if (existing?.id === id) {
      existing.parentId = parentId;
      existing.record = record;
      existing.metadata = metadata;
      return;
    }
    const writes = this.orphans?.get(id);
    if (writes) this.orphans!.delete(id);
    const row: CheckpointRow<Kept> = { id, parentId, record, metadata, writes };
    if (at === this.rows.length) this.rows = appended(this.rows, row);
    else this.rows.splice(at, 0, row);
  }

  /** Saves a write in the task's slot `idx`: kept when the slot is free, else only when `replace`. */
  putWrite(checkpointId: string, taskId: string, idx: number, channel: string, data: unknown, replace: boolean): void {
    const row = this.row(checkpointId);
    let writes = row ? row.writes : this.orphans?.get(checkpointId);
    if (writes) {
      const i = slotOf(writes, taskId, idx);
      if (i >= 0) {
        if (replace) {
          writes[i + 2] = channel;
          writes[i + 3] = data;
        }
        return;
      }
    }
    writes = appended(writes ?? [], taskId, idx, channel, data);
    if (row) row.writes = writes;
    else (this.orphans ??= new Map()).set(checkpointId, writes);
  }

  /** The writes saved against a checkpoint, in first-write order. */
  writesOf(row: CheckpointRow<Kept>): Array<StoredWrite<Kept>> {
    const writes = row.writes;
    const out: Array<StoredWrite<Kept>> = [];
    if (writes)
      for (let i = 0; i < writes.length; i += WRITE_STRIDE)
        out.push({ taskId: writes[i] as string, channel: writes[i + 2] as string, data: writes[i + 3] as Kept });
    return out;
  }

  blob(channel: string, version: ChannelVersion): StoredBlob | undefined {
    const at = this.blobAt(channel, version);
    if (at < 0) return undefined;
    return { base: this.blobs[at + 1] as ChannelVersion | null, data: this.blobs[at + 2] as StoredBlob["data"] };
  }

  hasBlob(channel: string, version: ChannelVersion): boolean {
    return this.blobAt(channel, version) >= 0;
  }

  putBlob(channel: string, version: ChannelVersion, base: ChannelVersion | null, data: StoredBlob["data"]): void {
    const at = this.blobAt(channel, version);
    if (at >= 0) {
      this.blobs[at + 1] = base;
      this.blobs[at + 2] = data;
      return;
    }
    const blobs = this.blobs;
    const last = this.lastGroup;
    // A put's blobs share the step's version: they extend the group the previous blob opened.
    if (last >= 0 && blobs[last] === version) {
      blobs[last + 1] = (blobs[last + 1] as number) + 1;
      this.blobs = appended(blobs, channel, base, data);
      return;
    }
    this.lastGroup = blobs.length;
    this.blobs = appended(blobs, version, 1, channel, base, data);
    this.groups++;
    if (this.index) this.indexGroup(version, this.lastGroup);
    else if (this.groups >= INDEX_FROM) this.buildIndex();
  }

  /** Every blob, for pruning. */
  *eachBlob(): Generator<{ channel: string; version: ChannelVersion; base: ChannelVersion | null }> {
    const blobs = this.blobs;
    for (let g = 0; g < blobs.length; g += GROUP_HEAD + (blobs[g + 1] as number) * BLOB_STRIDE) {
      const version = blobs[g] as ChannelVersion;
      const end = g + GROUP_HEAD + (blobs[g + 1] as number) * BLOB_STRIDE;
      for (let b = g + GROUP_HEAD; b < end; b += BLOB_STRIDE)
        yield { channel: blobs[b] as string, version, base: blobs[b + 1] as ChannelVersion | null };
    }
  }

  /** Removes checkpoints (and their writes) and blobs no remaining checkpoint reads. */
  remove(ids: ReadonlySet<string>, blobs: ReadonlyArray<{ channel: string; version: ChannelVersion }>): void {
    this.rows = this.rows.filter((row) => !ids.has(row.id));
    if (blobs.length === 0) return;
    const doomed = new Set(blobs.map((b) => `${b.channel}\u0000${b.version}`));
    const kept: Array<[string, ChannelVersion, ChannelVersion | null, StoredBlob["data"]]> = [];
    for (const { channel, version, base } of this.eachBlob())
      if (!doomed.has(`${channel}\u0000${version}`))
        kept.push([channel, version, base, this.blob(channel, version)!.data]);
    this.blobs = [];
    this.groups = 0;
    this.index = undefined;
    this.lastGroup = -1;
    for (const [channel, version, base, data] of kept) this.putBlob(channel, version, base, data);
  }

  /** Offset of the blob (its channel; base and data follow), or -1. */
  private blobAt(channel: string, version: ChannelVersion): number {
    const blobs = this.blobs;
    if (this.index) {
      const groups = this.index.get(version);
      if (typeof groups === "number") return this.inGroup(groups, channel);
      if (groups)
        for (const g of groups) {
          const at = this.inGroup(g, channel);
          if (at >= 0) return at;
        }
      return -1;
    }
    for (let g = 0; g < blobs.length; g += GROUP_HEAD + (blobs[g + 1] as number) * BLOB_STRIDE) {
      if (blobs[g] !== version) continue;
      const at = this.inGroup(g, channel);
      if (at >= 0) return at;
    }
    return -1;
  }

  private inGroup(g: number, channel: string): number {
    const blobs = this.blobs;
    const end = g + GROUP_HEAD + (blobs[g + 1] as number) * BLOB_STRIDE;
    for (let b = g + GROUP_HEAD; b < end; b += BLOB_STRIDE) if (blobs[b] === channel) return b;
    return -1;
  }

  private buildIndex(): void {
    this.index = new Map();
    const blobs = this.blobs;
    for (let g = 0; g < blobs.length; g += GROUP_HEAD + (blobs[g + 1] as number) * BLOB_STRIDE)
      this.indexGroup(blobs[g] as ChannelVersion, g);
  }

  private indexGroup(version: ChannelVersion, g: number): void {
    const groups = this.index!.get(version);
    if (groups === undefined) this.index!.set(version, g);
    else if (typeof groups === "number") this.index!.set(version, [groups, g]);
    else groups.push(g);
  }
}

/** A record or metadata (serialised, a private copy, or a compact form) or a value, as MemorySaver keeps it. */
export type Kept = string | Uint8Array | object;

/** A thread's root namespace, and those of its subgraphs. */
export class ThreadTables extends NamespaceTables<Kept> {
  /** Subgraph namespaces (most threads have none). */
  nested: Map<string, NamespaceTables<Kept>> | undefined;

  /** @param touchedAt when a checkpoint was last put (for `ttlMs`; 0 without it) */
  constructor(public touchedAt: number) {
    super();
  }

  namespace(ns: string): NamespaceTables<Kept> | undefined {
    return ns === "" ? this : this.nested?.get(ns);
  }

  /** The namespace's tables, made if missing. */
  namespaceToWrite(ns: string): NamespaceTables<Kept> {
    if (ns === "") return this;
    let tables = this.nested?.get(ns);
    if (!tables) (this.nested ??= new Map()).set(ns, (tables = new NamespaceTables()));
    return tables;
  }

  *namespaces(): Generator<[string, NamespaceTables<Kept>]> {
    yield ["", this];
    if (this.nested) yield* this.nested;
  }
}
