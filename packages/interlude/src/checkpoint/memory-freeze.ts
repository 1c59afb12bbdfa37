/**
 * A MemorySaver thread frozen into one JSON string, and thawed back into live tables. Freezing
 * changes how a thread is held, never what it reads back: a packed record thaws as the same
 * record, a private copy as its serialised form (which reads back equal), data as is. A thread
 * holding bytes (a custom serde's `Uint8Array`) is not frozen.
 *
 * The text is small because what repeats is written once: versions in a table per thread
 * (referred to by position), record layouts and channel names in tables per saver, shared
 * metadata as its (source, step), and ids, parent ids, timestamps and task ids relative to
 * the previous row or write:
 *
 *   [touchedAt, versions, ...[ns, rows, blobs, orphans]]
 *   row:      [id, parent, record, metadata, writes]
 *   id:       a string, or [p, middle, q]: the previous row's id's first p and last q characters around middle
 *   parent:   0 none, 1 the previous row's id, or the id
 *   record:   the serialised record, or [layout, ts, ...version refs]; ts 0: the previous row's,
 *             else like an id, relative to it
 *   metadata: the serialised metadata, or [source, step] (the shared one)
 *   writes:   0, or (task (0: the previous write's), idx, channel, data) per write; data is
 *             the serialised value, or the private copy as JSON
 *   blobs:    (version ref, count, then (channel, base ref or null, data) per blob) per group
 */
import { type KeptRecords, PackedRecord, type RecordLayout } from "./compact-records.js";
import { type CheckpointRow, type Kept, type TableParts, ThreadTables } from "./memory-tables.js";
import { isJsonExact } from "./serde.js";
import type { ChannelVersion, CheckpointMetadata } from "./types.js";

/** What the frozen text holds; a write's value may be any JSON (a private copy). */
type Json = null | number | string | Json[] | { [key: string]: Json };

/** Thrown inside `freeze` when the thread holds something JSON cannot. */
const UNFREEZABLE = Symbol("unfreezable");
/** Channel names a saver numbers at most (beyond, they are written out). */
const MAX_NAMES = 10_000;
/** Common characters below which an id is written out rather than relative to the previous one. */
const MIN_SHARED = 8;

/** One freeze or thaw: the thread's versions, and what the previous row and write were. */
class Pass {
  readonly versions: ChannelVersion[] = [];
  private readonly versionAt = new Map<ChannelVersion, number>();
  id = "";
  ts = "";
  task = "";

  constructor(versions?: ChannelVersion[]) {
    if (versions) this.versions = versions;
  }

  ref(version: ChannelVersion): number {
    let at = this.versionAt.get(version);
    if (at === undefined) {
      // JSON would write it as null: the blob stored at that version could not be found again.
      if (typeof version === "number" && !Number.isFinite(version)) throw UNFREEZABLE;
      at = this.versions.push(version) - 1;
      this.versionAt.set(version, at);
    }
    return at;
  }
}

export class ThreadFreezer {
  private readonly names: string[] = [];
  private readonly nameAt = new Map<string, number>();

  constructor(private readonly records: KeptRecords) {}

  /** The thread as one string, or undefined when it holds something JSON cannot. */
  freeze(thread: ThreadTables): string | undefined {
    const pass = new Pass();
    const namespaces: Json[] = [];
    try {
      for (const [ns, tables] of thread.namespaces()) namespaces.push([ns, ...this.freezeParts(tables.parts(), pass)]);
    } catch (error) {
      if (error === UNFREEZABLE) return undefined;
      throw error;
    }
    return flat(JSON.stringify([thread.touchedAt, pass.versions, ...namespaces]));
  }

  thaw(text: string): ThreadTables {
    const [touchedAt, versions, ...namespaces] = JSON.parse(text) as [number, ChannelVersion[], ...Json[][]];
    const thread = new ThreadTables(touchedAt);
    const pass = new Pass(versions);
    for (const [ns, rows, blobs, orphans] of namespaces as Array<[string, Json[][], Json[], Array<[string, Json[]]>]>) {
      pass.id = "";
      pass.ts = "";
      thread.namespaceToWrite(ns).restore({
        rows: rows.map((row) => this.thawRow(row, pass)),
        blobs: this.thawBlobs(blobs, pass),
        orphans: orphans.map(([id, writes]) => [id, this.thawWrites(writes, pass)]),
      });
    }
    return thread;
  }

  private freezeParts(parts: TableParts<Kept>, pass: Pass): Json[] {
    pass.id = "";
    pass.ts = "";
    const rows: Json[] = parts.rows.map((row) => this.freezeRow(row, pass));
    const blobs = parts.blobs;
    const frozen: Json[] = new Array(blobs.length);
    for (let g = 0; g < blobs.length; ) {
      const count = blobs[g + 1] as number;
      frozen[g] = pass.ref(blobs[g] as ChannelVersion);
      frozen[g + 1] = count;
      const end = g + 2 + count * 3;
      for (let b = g + 2; b < end; b += 3) {
        frozen[b] = this.name(blobs[b] as string);
        frozen[b + 1] = blobs[b + 1] === null ? null : pass.ref(blobs[b + 1] as ChannelVersion);
        frozen[b + 2] = data(blobs[b + 2]);
      }
      g = end;
    }
    const orphans: Json[] = parts.orphans.map(([id, writes]) => [id, this.freezeWrites(writes, pass)]);
    return [rows, frozen, orphans];
  }

  private freezeRow(row: CheckpointRow<Kept>, pass: Pass): Json {
    const previous = pass.id;
    const frozen: Json[] = [
      relativeId(row.id, previous),
      row.parentId === undefined ? 0 : row.parentId === previous && previous ? 1 : row.parentId,
      this.freezeRecord(row, pass),
      this.freezeMetadata(row.metadata),
      row.writes ? this.freezeWrites(row.writes, pass) : 0,
    ];
    pass.id = row.id;
    return frozen;
  }

  private thawRow([id, parent, record, metadata, writes]: Json[], pass: Pass): CheckpointRow<Kept> {
    const previous = pass.id;
    const rowId = typeof id === "string" ? id : absoluteId(id as [number, string, number], previous);
    pass.id = rowId;
    return {
      id: rowId,
      parentId: parent === 0 ? undefined : parent === 1 ? previous : (parent as string),
      record: typeof record === "string" ? record : this.thawRecord(rowId, record as Json[], pass),
      metadata: typeof metadata === "string" ? metadata : this.sharedMetadata(metadata as [string, number]),
      writes: writes === 0 ? undefined : this.thawWrites(writes as Json[], pass),
    };
  }

  private freezeRecord(row: CheckpointRow<Kept>, pass: Pass): Json {
    const record = row.record;
    if (!(record instanceof PackedRecord) || record.id !== row.id) return this.serialised(record);
    const layout: Json = record.layout.index >= 0 ? record.layout.index : inlineLayout(record.layout);
    const frozen: Json[] = [layout, record.ts === pass.ts ? 0 : relativeId(record.ts, pass.ts)];
    for (const version of record.versions) frozen.push(pass.ref(version));
    pass.ts = record.ts;
    return frozen;
  }

  private thawRecord(id: string, [layout, ts, ...refs]: Json[], pass: Pass): PackedRecord {
    const packer = this.records.packer;
    const known: RecordLayout =
      typeof layout === "number"
        ? packer.layoutList[layout]!
        : packer.layoutFrom(layout as unknown as [number, string[], Array<[string, string[]]>]);
    if (ts !== 0) pass.ts = typeof ts === "string" ? ts : absoluteId(ts as [number, string, number], pass.ts);
    const values = new Array<number>(refs.length);
    for (let i = 0; i < refs.length; i++) values[i] = pass.versions[refs[i] as number]!;
    return new PackedRecord(known, id, pass.ts, values);
  }

  private freezeMetadata(metadata: Kept): Json {
    const m = metadata as CheckpointMetadata;
    if (this.records.packer.sharedMetadata(m) === metadata) return [m.source, m.step];
    return this.serialised(metadata);
  }

  private sharedMetadata([source, step]: [string, number]): CheckpointMetadata {
    return this.records.packer.sharedMetadata({ source: source as CheckpointMetadata["source"], step, parents: {} })!;
  }

  private freezeWrites(writes: readonly unknown[], pass: Pass): Json[] {
    const frozen: Json[] = new Array(writes.length);
    pass.task = "";
    for (let i = 0; i < writes.length; i += 4) {
      const task = writes[i] as string;
      frozen[i] = task === pass.task ? 0 : task;
      frozen[i + 1] = writes[i + 1] as number;
      frozen[i + 2] = this.name(writes[i + 2] as string);
      frozen[i + 3] = this.frozenWrite(writes[i + 3] as Kept);
      pass.task = task;
    }
    return frozen;
  }

  /**
   * A write's value: a private copy as is when JSON holds it exactly (it thaws as the copy it
   * was), else serialised as records and metadata are (JSON alone would lose what the serde's
   * tags keep: undefined, -0, NaN, BigInt). A serialised form is a string, a copy never is.
   */
  private frozenWrite(kept: Kept): Json {
    if (typeof kept === "object" && !(kept instanceof Uint8Array) && isJsonExact(kept)) return kept as Json;
    return this.serialised(kept);
  }

  private thawWrites(frozen: readonly Json[], pass: Pass): unknown[] {
    const writes: unknown[] = new Array(frozen.length);
    pass.task = "";
    for (let i = 0; i < frozen.length; i += 4) {
      if (frozen[i] !== 0) pass.task = frozen[i] as string;
      writes[i] = pass.task;
      writes[i + 1] = frozen[i + 1];
      writes[i + 2] = this.nameOf(frozen[i + 2]!);
      writes[i + 3] = frozen[i + 3];
    }
    return writes;
  }

  private thawBlobs(frozen: readonly Json[], pass: Pass): unknown[] {
    const blobs: unknown[] = new Array(frozen.length);
    for (let g = 0; g < frozen.length; ) {
      const count = frozen[g + 1] as number;
      blobs[g] = pass.versions[frozen[g] as number];
      blobs[g + 1] = count;
      const end = g + 2 + count * 3;
      for (let b = g + 2; b < end; b += 3) {
        blobs[b] = this.nameOf(frozen[b]!);
        blobs[b + 1] = frozen[b + 1] === null ? null : pass.versions[frozen[b + 1] as number];
        blobs[b + 2] = frozen[b + 2];
      }
      g = end;
    }
    return blobs;
  }

  /** A channel name's number in this saver's table, or the name when the table is full. */
  private name(channel: string): Json {
    let at = this.nameAt.get(channel);
    if (at === undefined) {
      if (this.names.length >= MAX_NAMES) return channel;
      at = this.names.push(channel) - 1;
      this.nameAt.set(channel, at);
    }
    return at;
  }

  private nameOf(frozen: Json): string {
    return typeof frozen === "number" ? this.names[frozen]! : (frozen as string);
  }

  /** A kept record, metadata or write as its serialised form (a copy is plain data under the JSON serde). */
  private serialised(kept: Kept): string {
    if (typeof kept === "string") return kept;
    if (kept instanceof Uint8Array) throw UNFREEZABLE;
    const value = kept instanceof PackedRecord ? this.records.packer.unpack(kept) : kept;
    const text = this.records.serde.dumps(value);
    if (typeof text !== "string") throw UNFREEZABLE;
    return text;
  }
}

function data(value: unknown): Json {
  if (value instanceof Uint8Array) throw UNFREEZABLE;
  return value as Json;
}

function inlineLayout(layout: RecordLayout): Json {
  return [layout.v, [...layout.channels], layout.seen.map(([node, channels]) => [node, [...channels]])];
}

/** `id` (or a timestamp) as [p, middle, q] around what it shares with `previous`, or itself. */
function relativeId(id: string, previous: string): Json {
  const limit = Math.min(id.length, previous.length);
  let p = 0;
  while (p < limit && id.charCodeAt(p) === previous.charCodeAt(p)) p++;
  let q = 0;
  while (q < limit - p && id.charCodeAt(id.length - 1 - q) === previous.charCodeAt(previous.length - 1 - q)) q++;
  return p + q < MIN_SHARED ? id : [p, id.slice(p, id.length - q), q];
}

function absoluteId([p, middle, q]: [number, string, number], previous: string): string {
  // Joined: one flat string rather than a rope (ids are kept and compared).
  return [previous.slice(0, p), middle, previous.slice(previous.length - q)].join("");
}

/**
 * The same text as one flat string. JSON.stringify builds its result as a rope of parts of
 * 32, 64, 128... characters (~30% over the text for 1 kB); reading a character flattens it
 * in place, and the garbage collector then drops the rope's nodes.
 */
function flat(text: string): string {
  text.charCodeAt(0);
  return text;
}
