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
/** Steps whose common metadata is shared. */
const MAX_SHARED_STEP = 100_000;
/** In the key trie, ends one version map and starts the next node's seen map. */
const NEXT_NODE = Symbol("next node");

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
 * Layouts by their key sequence (v, channels, then NEXT_NODE, node, its channels per node): a
 * record finds its layout by one map lookup per key, without building a key list or string.
 */
class LayoutTrie {
  private readonly next = new Map<unknown, LayoutTrie>();
  /** The child found last: the records of one run mostly follow the same path. */
  private lastKey: unknown;
  private lastChild: LayoutTrie | undefined;
  layout: RecordLayout | undefined;

  /** `undefined` when the trie is full (the record then gets a layout of its own). */
  child(key: unknown, budget: { nodes: number }): LayoutTrie | undefined {
    if (key === this.lastKey && this.lastChild) return this.lastChild;
    let child = this.next.get(key);
    if (!child) {
      if (budget.nodes <= 0) return undefined;
      budget.nodes--;
      child = new LayoutTrie();
      this.next.set(key, child);
    }
    this.lastKey = key;
    this.lastChild = child;
    return child;
  }
}

class RecordPacker {
  private readonly trie = new LayoutTrie();
  private readonly budget = { nodes: MAX_LAYOUTS * 8 };
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
    let at: LayoutTrie | undefined = this.trie.child(v, this.budget);
    for (const channel in channel_versions) {
      const version = channel_versions[channel];
      if (!isVersion(version) || channel === "__proto__") return undefined;
      versions.push(version);
      at = at?.child(channel, this.budget);
    }
    for (const node in versions_seen) {
      const seen = versions_seen[node];
      if (node === "__proto__" || !isPlainObject(seen)) return undefined;
      at = at?.child(NEXT_NODE, this.budget)?.child(node, this.budget);
      for (const channel in seen) {
        const version = seen[channel];
        if (!isVersion(version) || channel === "__proto__") return undefined;
        versions.push(version);
        at = at?.child(channel, this.budget);
      }
    }
    let layout = at?.layout;
    if (!layout) {
      layout = layoutOf(v, channel_versions, versions_seen as Record<string, ChannelVersions>);
      if (at) {
        at.layout = layout;
        layout.index = this.layoutList.push(layout) - 1;
      }
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
