/**
 * Compact forms of what MemorySaver keeps of each checkpoint besides its values. A record's
 * version maps cost an object per map plus a boxed number per version (~240 bytes for four
 * channels); packed, the keys live once in a layout shared by every record of the same shape
 * and the versions in one unboxed number array (~130 bytes). Metadata of the common shape
 * (`{ source, step, parents: {} }`) is one shared copy per (source, step).
 *
 * Both read back exactly what a private copy (or JSON) would: anything else (extra fields,
 * other values, another shape) is not packed, and the caller keeps a copy instead.
 */
import type { Kept } from "./memory-tables.js";
import { copyPlain, NOT_PLAIN } from "./plain-copy.js";
import { JsonSerializer, type Serializer } from "./serde.js";
import { type CheckpointRecord, recordOf } from "./tuple.js";
import type { Checkpoint, CheckpointMetadata, ChannelVersions } from "./types.js";

/** The keys of a record's version maps: channels, then each node's seen channels. */
export class RecordLayout {
  /** Position in the packer's layouts (-1: not interned). */
  index = -1;

  constructor(
    readonly v: number,
    readonly channels: readonly string[],
    readonly seen: ReadonlyArray<readonly [node: string, channels: readonly string[]]>,
  ) {}
}

/** A record as a layout, its id and timestamp, and its versions in layout order. */
export class PackedRecord {
  constructor(
    readonly layout: RecordLayout,
    readonly id: string,
    readonly ts: string,
    readonly versions: readonly number[],
  ) {}
}

/** Layouts interned at most: beyond, a record of a new shape gets a layout of its own. */
const MAX_LAYOUTS = 10_000;
/** Steps whose common metadata is shared. */
const MAX_SHARED_STEP = 100_000;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Appends a version map's keys to `keys` and its values to `versions`; false when it is not one. */
function collect(map: unknown, keys: string[], versions: number[]): boolean {
  if (!isPlainObject(map)) return false;
  for (const key in map) {
    const version = map[key];
    // Finite and not -0: what JSON keeps exactly (a frozen thread is JSON).
    if (typeof version !== "number" || !Number.isFinite(version) || Object.is(version, -0) || key === "__proto__")
      return false;
    keys.push(key);
    versions.push(version);
  }
  return true;
}

export class RecordPacker {
  private readonly layouts = new Map<string, RecordLayout>();
  /** Interned layouts by index (what a frozen thread refers to). */
  readonly layoutList: RecordLayout[] = [];
  /** The layout of the last record packed: consecutive steps of a run usually share it. */
  private last: RecordLayout | undefined;
  private readonly metadata = new Map<string, CheckpointMetadata[]>();

  /** The record of `checkpoint` packed, or undefined when it is not of the standard form. */
  pack(checkpoint: Checkpoint): PackedRecord | undefined {
    const { v, id, ts, channel_versions, versions_seen } = checkpoint;
    if (typeof v !== "number" || typeof id !== "string" || typeof ts !== "string") return undefined;
    if (Object.keys(checkpoint).length !== 6 || !isPlainObject(versions_seen)) return undefined;
    const versions: number[] = [];
    const channels: string[] = [];
    if (!collect(channel_versions, channels, versions)) return undefined;
    const seen: Array<[string, string[]]> = [];
    for (const node in versions_seen) {
      if (node === "__proto__") return undefined;
      const keys: string[] = [];
      if (!collect(versions_seen[node], keys, versions)) return undefined;
      seen.push([node, keys]);
    }
    // A copy of the exact length: an array grown by push keeps ~16 spare slots.
    return new PackedRecord(this.layoutOf(v, channels, seen), id, ts, versions.slice());
  }

  unpack(packed: PackedRecord): CheckpointRecord {
    const { layout, versions } = packed;
    const channelVersions: ChannelVersions = {};
    let at = 0;
    for (const channel of layout.channels) channelVersions[channel] = versions[at++]!;
    const versionsSeen: Record<string, ChannelVersions> = {};
    for (const [node, channels] of layout.seen) {
      const seen: ChannelVersions = {};
      for (const channel of channels) seen[channel] = versions[at++]!;
      versionsSeen[node] = seen;
    }
    return {
      v: layout.v,
      id: packed.id,
      ts: packed.ts,
      channel_versions: channelVersions,
      versions_seen: versionsSeen,
    };
  }

  /** One shared copy of metadata of the common shape, or undefined (the caller copies it). */
  sharedMetadata(metadata: CheckpointMetadata): CheckpointMetadata | undefined {
    const { source, step, parents } = metadata;
    if (typeof source !== "string" || !Number.isInteger(step) || Object.is(step, -0)) return undefined;
    if (step < -1 || step > MAX_SHARED_STEP || Object.keys(metadata).length !== 3) return undefined;
    if (!isPlainObject(parents) || Object.getPrototypeOf(parents) !== Object.prototype) return undefined;
    for (const _ in parents) return undefined;
    let bySource = this.metadata.get(source);
    if (!bySource) {
      if (this.metadata.size >= MAX_LAYOUTS) return undefined;
      this.metadata.set(source, (bySource = []));
    }
    return (bySource[step + 1] ??= { source, step, parents: {} });
  }

  /** A layout as a frozen thread wrote it (one not interned then). */
  layoutFrom([v, channels, seen]: [number, string[], Array<[string, string[]]>]): RecordLayout {
    return this.layoutOf(v, channels, seen);
  }

  private layoutOf(v: number, channels: string[], seen: Array<[string, string[]]>): RecordLayout {
    const last = this.last;
    if (last && sameLayout(last, v, channels, seen)) return last;
    const signature = `${v}\u0001${channels.join("\u0000")}\u0001${seen.map(([node, keys]) => `${node}\u0002${keys.join("\u0000")}`).join("\u0001")}`;
    let layout = this.layouts.get(signature);
    if (!layout) {
      layout = new RecordLayout(v, channels, seen);
      if (this.layouts.size < MAX_LAYOUTS) {
        layout.index = this.layoutList.push(layout) - 1;
        this.layouts.set(signature, layout);
      }
    }
    this.last = layout;
    return layout;
  }
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function sameLayout(layout: RecordLayout, v: number, channels: string[], seen: Array<[string, string[]]>): boolean {
  if (layout.v !== v || !sameKeys(layout.channels, channels) || layout.seen.length !== seen.length) return false;
  for (let i = 0; i < seen.length; i++) {
    const [node, keys] = layout.seen[i]!;
    if (node !== seen[i]![0] || !sameKeys(keys, seen[i]![1])) return false;
  }
  return true;
}

/**
 * Records and metadata when the serde is the JSON one (they are plain data): records packed
 * and metadata shared (`compact-records.ts`), else private copies (a copy is ~25x cheaper than
 * JSON there and back). Anything a copy cannot hold exactly, and everything under a custom
 * serde, is serialised.
 */
export class KeptRecords {
  /** Records and metadata are plain data (the JSON serde): kept packed, shared or copied. */
  readonly copies: boolean;
  readonly packer = new RecordPacker();

  constructor(readonly serde: Serializer) {
    this.copies = serde instanceof JsonSerializer;
  }

  record(checkpoint: Checkpoint): Kept {
    return (this.copies && this.packer.pack(checkpoint)) || this.keep(recordOf(checkpoint), "checkpoint");
  }

  metadata(metadata: CheckpointMetadata): Kept {
    return (this.copies && this.packer.sharedMetadata(metadata)) || this.keep(metadata, "metadata");
  }

  /** A fresh object each time: the caller may change what it is given. */
  read(kept: Kept): unknown {
    if (typeof kept === "string" || kept instanceof Uint8Array) return this.serde.loads(kept);
    if (kept instanceof PackedRecord) return this.packer.unpack(kept);
    return copyPlain(kept);
  }

  private keep(value: object, path: string): Kept {
    const copy = this.copies ? copyPlain(value) : NOT_PLAIN;
    return copy === NOT_PLAIN ? this.serde.dumps(value, path) : copy;
  }
}
