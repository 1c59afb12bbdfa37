import { StorageError } from "../errors/storage.js";
import { baseIndex, type ChainLink, extendable, extendChain } from "./delta-chain.js";
import type { Serializer } from "./serde.js";
import type { ChannelVersion } from "./types.js";

/**
 * Delta storage of channel values, shared by every saver.
 *
 * A checkpoint stores only the channels in `newVersions`; the rest are shared with its
 * ancestors through (channel, version) blobs. On top of that, a channel whose new value is an
 * array that extends the value this saver last wrote or read for it (same element objects, in
 * order: an append reducer) is stored as `{ base version, appended items }`.
 *
 * Why not "a full copy every N links": for a list growing by one item per step, a full copy
 * every N steps costs length/N bytes per step, which grows with the thread. Instead the base is
 * usually the version before, and every time the list's length crosses a multiple of N^j the
 * write is a segment holding the items since the last such crossing (delta-chain.ts), like
 * carries in a base-N counter. Each item is then written about 1 + log_N(length) times and a read
 * follows at most (N - 1) links per level, so both stay bounded while the thread grows.
 *
 * A process that never wrote a thread writes a full copy first. One that did, and reads a newer
 * version another process wrote, goes on with that version's chain.
 */

/** A stored channel value. `base === null`: `data` is the whole value; else the items appended to version `base`. */
export interface StoredBlob {
  base: ChannelVersion | null;
  /** `null`: the channel has no value at this version (it was cleared). */
  data: string | Uint8Array | null;
}

/** What to store for one channel in a `put`. Pass it to `DeltaPlanner.commit` once the write is durable. */
export interface BlobPlan {
  channel: string;
  version: ChannelVersion;
  base: ChannelVersion | null;
  /** false: the channel has no value in the checkpoint. */
  present: boolean;
  /** The whole value, or the appended items when `base` is set. */
  payload: unknown;
  /** What `commit` needs (plain fields rather than a closure per channel and put). */
  readonly key: string;
  readonly value: unknown;
  /** The lineage a delta extends (undefined: a full copy). */
  readonly previous: Lineage | undefined;
  /** Where in `previous.chain` the base is. */
  readonly baseAt: number;
}

export interface DeltaOptions {
  /** Store appends to arrays as deltas (default true). */
  appendDeltas?: boolean;
  /** Items per segment level: a segment of level j holds about fanout^j appended items (default 32). */
  fanout?: number;
  /** Threads whose last written values are remembered for append detection (default 1000). */
  maxTrackedThreads?: number;
}

/** What this process last wrote, or read of another's writes, for one (thread, namespace, channel). */
export interface Lineage {
  version: ChannelVersion;
  /** Shallow copy: the caller may push onto the array it handed us. */
  items: readonly unknown[];
  /** The stored versions a read of `version` goes through, the full copy first and `version` last. */
  chain: readonly ChainLink[];
}

export class DeltaPlanner {
  private readonly enabled: boolean;
  private readonly fanout: number;
  private readonly maxThreads: number;
  private readonly threads = new Map<string, Map<string, Lineage>>();

  constructor(options: DeltaOptions = {}) {
    this.enabled = options.appendDeltas ?? true;
    this.fanout = Math.max(2, options.fanout ?? 32);
    this.maxThreads = Math.max(1, options.maxTrackedThreads ?? 1000);
  }

  plan(
    threadId: string,
    ns: string,
    channel: string,
    version: ChannelVersion,
    values: Record<string, unknown>,
  ): BlobPlan {
    const present = Object.hasOwn(values, channel);
    const value = present ? values[channel] : undefined;
    const key = lineageKey(ns, channel);
    const tracked =
      this.enabled && present && Array.isArray(value) ? this.lineages(threadId, false)?.get(key) : undefined;
    // A version appends only to an older one: the same version put again (a thread copied or
    // restored checkpoint by checkpoint) based on itself would be a chain that never ends.
    const previous = tracked && tracked.version < version ? tracked : undefined;
    const baseAt = previous ? this.baseFor(previous, value as unknown[]) : -1;
    if (baseAt >= 0) {
      const base = previous!.chain[baseAt]!;
      const payload = (value as unknown[]).slice(base.length);
      return { channel, version, base: base.version, present, payload, key, value, previous, baseAt };
    }
    return { channel, version, base: null, present, payload: value, key, value, previous: undefined, baseAt: -1 };
  }

  /** Remembers what a plan wrote, for append detection in later puts; call once its write is durable. */
  commit(threadId: string, plan: BlobPlan): void {
    if (!this.enabled) return;
    const value = plan.value;
    if (plan.previous) {
      const items = value as unknown[];
      const link = { version: plan.version, length: items.length };
      this.remember(threadId, plan.key, lineage(items, extendChain(plan.previous.chain, plan.baseAt, link)));
    } else if (plan.present && Array.isArray(value)) {
      this.remember(threadId, plan.key, lineage(value, [{ version: plan.version, length: value.length }]));
    } else {
      this.threads.get(threadId)?.delete(plan.key);
    }
  }

  /**
   * A value read back. At the version this process last wrote for the channel, later puts that
   * append to the read items (the next run of a thread, which starts from a read) are stored as
   * deltas, instead of a full copy per run. At a newer version, written by another process (or
   * another saver on the same storage), they continue that version's `chain` (from
   * `assembleValue`) instead of writing a full copy: with servers taking turns on a thread, a
   * full copy at every step. A thread this process does not write is not tracked for a read.
   */
  learn(
    threadId: string,
    ns: string,
    channel: string,
    version: ChannelVersion,
    value: unknown,
    chain?: readonly ChainLink[],
  ): void {
    if (!Array.isArray(value)) return; // only arrays are appended to (most values of a read are not)
    const lineages = this.threads.get(threadId);
    const key = lineageKey(ns, channel);
    const previous = lineages?.get(key);
    if (previous?.version === version) {
      if (value.length === previous.items.length) previous.items = value.slice();
    } else if (previous && chain && version > previous.version && extendable(chain)) {
      lineages!.set(key, lineage(value, chain));
    }
  }

  /** The chain a read of `version` goes through, when that is the version tracked for the channel. */
  chainAt(threadId: string, ns: string, channel: string, version: ChannelVersion): readonly ChainLink[] | undefined {
    const lineage = this.threads.get(threadId)?.get(lineageKey(ns, channel));
    return lineage?.version === version ? lineage.chain : undefined;
  }

  /** Whether reads of this thread may teach anything: only then is a read's chain worth collecting. */
  tracks(threadId: string): boolean {
    return this.threads.has(threadId);
  }

  /** The next put of these channels writes a full copy (after a failed write, or when the base may be gone). */
  forget(threadId: string, ns?: string, channel?: string): void {
    if (ns === undefined || channel === undefined) {
      this.threads.delete(threadId);
      return;
    }
    this.lineages(threadId, false)?.delete(lineageKey(ns, channel));
  }

  /** Where in `previous.chain` an append of `value` is based; -1: not an append, or a full copy is due. */
  private baseFor(previous: Lineage, value: readonly unknown[]): number {
    const prior = previous.items;
    if (value.length < prior.length) return -1;
    for (let i = 0; i < prior.length; i++) if (value[i] !== prior[i]) return -1;
    return baseIndex(previous.chain, value.length, this.fanout);
  }

  private lineages(threadId: string, create: boolean): Map<string, Lineage> | undefined {
    let lineages = this.threads.get(threadId);
    if (!lineages && create) {
      lineages = new Map();
      this.threads.set(threadId, lineages);
      if (this.threads.size > this.maxThreads) this.threads.delete(this.threads.keys().next().value!);
    }
    return lineages;
  }

  private remember(threadId: string, key: string, lineage: Lineage): void {
    const lineages = this.lineages(threadId, true)!;
    lineages.set(key, lineage);
    // Most recently written last, so the thread evicted first is the one idle longest.
    if (this.threads.size > 1) {
      this.threads.delete(threadId);
      this.threads.set(threadId, lineages);
    }
  }
}

/** A channel's key among a thread's lineages: the namespace goes in front, outside the root. */
function lineageKey(ns: string, channel: string): string {
  return ns ? `${ns}\u0000${channel}` : channel;
}

function lineage(value: readonly unknown[], chain: readonly ChainLink[]): Lineage {
  return { version: chain[chain.length - 1]!.version, items: value.slice(), chain };
}

export type BlobLookup = (channel: string, version: ChannelVersion) => StoredBlob | undefined;

/** Longest delta chain a read follows before declaring the store corrupt. */
const MAX_CHAIN = 100_000;

/** A channel's value as read back; `chain`: the links read, the full copy first, when asked for and the value is a list. */
export interface AssembledValue {
  present: boolean;
  value: unknown;
  chain?: ChainLink[];
}

/**
 * A value the caller already holds at a version of a channel, as a fresh copy it may hand out,
 * with the chain a read of that version goes through when it knows it; undefined: not held.
 */
export type KnownValue = (
  channel: string,
  version: ChannelVersion,
) => { value: unknown; chain?: readonly ChainLink[] } | undefined;

/**
 * Rebuilds a channel's value at `version` from its blob and, for deltas, its bases.
 * `undefined`: no blob at `version` at all (the checkpoint never stored that channel).
 * `withChain`: also the chain read, which `DeltaPlanner.learn` continues.
 * `known`: values already held, which the walk stops at instead of parsing their blobs (a list
 * another process appended to is then the held copy plus the new items). A held list is used
 * only with its chain when the chain is wanted.
 */
export function assembleValue(
  channel: string,
  version: ChannelVersion,
  lookup: BlobLookup,
  serde: Serializer,
  withChain = false,
  known?: KnownValue,
): AssembledValue | undefined {
  const deltas: Array<string | Uint8Array> = [];
  // The versions of the deltas, only when the caller wants the chain.
  const versions: ChannelVersion[] | undefined = withChain ? [] : undefined;
  let at = version;
  let start: { value: unknown; chain: ChainLink[] | undefined };
  for (;;) {
    const held = known?.(channel, at);
    if (held && (!withChain || held.chain || !Array.isArray(held.value))) {
      start = { value: held.value, chain: held.chain && Array.isArray(held.value) ? [...held.chain] : undefined };
      break;
    }
    const blob = lookup(channel, at);
    if (!blob) {
      if (deltas.length === 0) return undefined;
      throw new StorageError(
        "read",
        new Error(`channel "${channel}" version ${version} is stored as an append to version ${at}, which is missing`),
      );
    }
    if (blob.base === null) {
      if (blob.data === null) {
        if (deltas.length === 0) return { present: false, value: undefined };
        throw new StorageError("read", new Error(`channel "${channel}" version ${version} appends to a cleared value`));
      }
      const value = serde.loads(blob.data);
      start = { value, chain: versions && Array.isArray(value) ? [{ version: at, length: value.length }] : undefined };
      break;
    }
    deltas.push(blob.data!);
    versions?.push(at);
    if (deltas.length > MAX_CHAIN)
      throw new StorageError("read", new Error(`channel "${channel}" has a delta chain longer than ${MAX_CHAIN}`));
    at = blob.base;
  }
  if (deltas.length === 0) return { present: true, value: start.value, chain: start.chain };
  const value = start.value as unknown[];
  const chain = start.chain;
  for (let i = deltas.length - 1; i >= 0; i--) {
    const items = serde.loads(deltas[i]!) as unknown[];
    for (const item of items) value.push(item);
    chain?.push({ version: versions![i]!, length: value.length });
  }
  return { present: true, value, chain };
}

/**
 * Blob keys (`channel\0version`) that the given channel versions need, following delta bases.
 * Used by pruning: every other blob of the namespace can go.
 */
export function reachableBlobs(
  refs: Iterable<[channel: string, version: ChannelVersion]>,
  baseOf: (channel: string, version: ChannelVersion) => ChannelVersion | null | undefined,
): Set<string> {
  const keep = new Set<string>();
  for (const [channel, first] of refs) {
    let version: ChannelVersion | null | undefined = first;
    while (version !== null && version !== undefined) {
      const key = blobKey(channel, version);
      if (keep.has(key)) break;
      keep.add(key);
      version = baseOf(channel, version);
    }
  }
  return keep;
}

export function blobKey(channel: string, version: ChannelVersion): string {
  return `${channel}\u0000${version}`;
}
