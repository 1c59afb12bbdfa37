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
import type { ChannelVersions, Checkpoint, CheckpointMetadata } from "./types.js";

/** The keys of a record's version maps: channels, then each node's seen channels. */
export class RecordLayout {
  /** Position in the packer's layouts (-1: not interned). */
  index = -1;
  /** The numbered key sequence an interned layout is found by (compact-records' LayoutIndex). */
  sequence?: Int32Array;

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

/** Layouts (and metadata sources) interned at most: beyond, a record of a new shape gets a layout of its own. */
const MAX_LAYOUTS = 10_000;
/** Channel and node names numbered at most: a record with a name beyond gets a layout of its own. */
const MAX_KEYS = MAX_LAYOUTS * 8;
/** Steps whose common metadata is shared. */
const MAX_SHARED_STEP = 100_000;
/** In a key sequence, ends one version map and starts the next node's seen map (names are numbered from 1). */
const NEXT_NODE = 0;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Finite and not -0: what JSON keeps exactly (a frozen thread is JSON). */
function isVersion(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value) && !Object.is(value, -0);
}

function keyCount(object: object): number {
  let count = 0;
  for (const _ in object) count++;
  return count;
}

/**
 * Interned layouts by their key sequence (channels, then NEXT_NODE, node and its channels per
 * node), each name numbered once: a record's sequence is numbered and hashed as its versions
 * are read, then compared with the layouts of that hash in one flat array. A trie with a node
 * per key cost a pointer chase per key: with a hundred channels, half of a Pregel step.
 */
class LayoutIndex {
  private readonly names = new Map<string, number>();
  private readonly byHash = new Map<number, RecordLayout[]>();
  /** The sequence being read (reused: one record is packed at a time). */
  private sequence = new Int32Array(64);
  private length = 0;
  private hash = 0;
  /** A name of the sequence went unnumbered (too many names): its record cannot be interned. */
  private unnumbered = false;

  start(v: number): void {
    this.length = 0;
    this.hash = v | 0;
    this.unnumbered = false;
  }

  add(name: string): void {
    let id = this.names.get(name);
    if (id === undefined) {
      if (this.names.size >= MAX_KEYS) {
        this.unnumbered = true;
        return;
      }
      id = this.names.size + 1;
      this.names.set(name, id);
    }
    this.push(id);
  }

  nextNode(): void {
    this.push(NEXT_NODE);
  }

  private push(id: number): void {
    if (this.length === this.sequence.length) {
      const grown = new Int32Array(this.sequence.length * 2);
      grown.set(this.sequence);
      this.sequence = grown;
    }
    this.sequence[this.length++] = id;
    this.hash = (Math.imul(this.hash, 31) + id) | 0;
  }

  /** The interned layout of the sequence read, if any; `v` compared too (hashed lossily). */
  find(v: number): RecordLayout | undefined {
    if (this.unnumbered) return undefined;
    const candidates = this.byHash.get(this.hash);
    if (!candidates) return undefined;
    const { sequence, length } = this;
    for (const layout of candidates) {
      const keys = layout.sequence!;
      if (!Object.is(layout.v, v) || keys.length !== length) continue;
      let i = 0;
      while (i < length && keys[i] === sequence[i]) i++;
      if (i === length) return layout;
    }
    return undefined;
  }

  /** Interns `layout` as the sequence read; false when it cannot be (a name went unnumbered). */
  intern(layout: RecordLayout): boolean {
    if (this.unnumbered) return false;
    layout.sequence = this.sequence.slice(0, this.length);
    const candidates = this.byHash.get(this.hash);
    if (candidates) candidates.push(layout);
    else this.byHash.set(this.hash, [layout]);
    return true;
  }
}

class RecordPacker {
  private readonly index = new LayoutIndex();
  /** Interned layouts by index (what a frozen thread refers to). */
  readonly layoutList: RecordLayout[] = [];
  private readonly metadata = new Map<string, CheckpointMetadata[]>();

  /** The record of `checkpoint` packed, or undefined when it is not of the standard form. */
  pack(checkpoint: Checkpoint): PackedRecord | undefined {
    const { v, id, ts, channel_versions, versions_seen } = checkpoint;
    if (typeof v !== "number" || typeof id !== "string" || typeof ts !== "string") return undefined;
    if (keyCount(checkpoint) !== 6 || !isPlainObject(channel_versions) || !isPlainObject(versions_seen))
      return undefined;
    const versions: number[] = [];
    const index = this.index;
    index.start(v);
    for (const channel in channel_versions) {
      const version = channel_versions[channel];
      if (!isVersion(version) || channel === "__proto__") return undefined;
      versions.push(version);
      index.add(channel);
    }
    for (const node in versions_seen) {
      const seen = versions_seen[node];
      if (node === "__proto__" || !isPlainObject(seen)) return undefined;
      index.nextNode();
      index.add(node);
      for (const channel in seen) {
        const version = seen[channel];
        if (!isVersion(version) || channel === "__proto__") return undefined;
        versions.push(version);
        index.add(channel);
      }
    }
    let layout = index.find(v);
    if (!layout) {
      layout = layoutOf(v, channel_versions, versions_seen as Record<string, ChannelVersions>);
      if (this.layoutList.length < MAX_LAYOUTS && index.intern(layout)) layout.index = this.layoutList.push(layout) - 1;
    }
    // A copy of the exact length: an array grown by push keeps ~16 spare slots.
    return new PackedRecord(layout, id, ts, versions.slice());
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
    if (step < -1 || step > MAX_SHARED_STEP || keyCount(metadata) !== 3) return undefined;
    if (!isPlainObject(parents) || Object.getPrototypeOf(parents) !== Object.prototype) return undefined;
    for (const _ in parents) return undefined;
    let bySource = this.metadata.get(source);
    if (!bySource) {
      if (this.metadata.size >= MAX_LAYOUTS) return undefined;
      this.metadata.set(source, (bySource = []));
    }
    return (bySource[step + 1] ??= { source, step, parents: {} });
  }

  /** The interned layout of a record with these keys (as a frozen thread wrote a layout that was not interned). */
  layoutFrom([v, channels, seen]: [number, string[], Array<[string, string[]]>]): RecordLayout {
    const record: Checkpoint = {
      v,
      id: "",
      ts: "",
      channel_values: {},
      channel_versions: Object.fromEntries(channels.map((c) => [c, 0])),
      versions_seen: Object.fromEntries(
        seen.map(([node, keys]) => [node, Object.fromEntries(keys.map((c) => [c, 0]))]),
      ),
    };
    return this.pack(record)!.layout;
  }
}

function layoutOf(v: number, channelVersions: ChannelVersions, versionsSeen: Record<string, ChannelVersions>) {
  const seen = Object.keys(versionsSeen).map((node) => [node, Object.keys(versionsSeen[node]!)] as const);
  return new RecordLayout(v, Object.keys(channelVersions), seen);
}

/**
 * Records, metadata and pending writes when the serde is the JSON one (they are plain data):
 * records packed and metadata shared (`compact-records.ts`), else private copies (a copy is
 * ~25x cheaper than JSON there and back). Anything a copy cannot hold exactly, and everything
 * under a custom serde, is serialised.
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

  /**
   * A pending write's value: an object as a private copy (a string is serialised: a kept string
   * is always a serialised form), anything else serialised.
   */
  write(value: unknown, path: string): Kept {
    return typeof value === "object" && value !== null ? this.keep(value, path) : this.serde.dumps(value, path);
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
