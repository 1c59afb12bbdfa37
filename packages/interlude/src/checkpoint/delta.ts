import { StorageError } from "../errors/storage.js";
import type { Serializer } from "./serde.js";
import type { ChannelVersion } from "./types.js";

/**
 * Delta storage of channel values, shared by every saver.
 *
 * A checkpoint stores only the channels in `newVersions`; the rest are shared with its
 * ancestors through (channel, version) blobs. On top of that, a channel whose new value is an
 * array that extends the value this saver last wrote for it (same element objects, in order:
 * an append reducer) is stored as `{ base version, appended items }`.
 *
 * Why not "a full copy every N links": for a list growing by one item per step, a full copy
 * every N steps costs length/N bytes per step, which grows with the thread. Instead, every
 * N-th link is a segment holding the last N links' items (based N links back), every N²-th a
 * segment of the last N², and so on, like carries in a base-N counter. Each item is then
 * written about 1 + log_N(steps) times (2 for the first N² steps) and a read follows at most
 * (N - 1) links per level, so both stay bounded while the thread grows.
 *
 * A new process knows nothing of earlier writes and simply writes a full copy first.
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
  readonly link: number;
}

export interface DeltaOptions {
  /** Store appends to arrays as deltas (default true). */
  appendDeltas?: boolean;
  /** Links per segment level (default 32). */
  fanout?: number;
  /** Threads whose last written values are remembered for append detection (default 1000). */
  maxTrackedThreads?: number;
}

interface Mark {
  version: ChannelVersion;
  length: number;
}

/** What this process last wrote for one (thread, namespace, channel). */
export interface Lineage {
  version: ChannelVersion;
  /** Shallow copy: the caller may push onto the array it handed us. */
  items: readonly unknown[];
  /** Links since the last full copy (0: the last write was the full copy). */
  link: number;
  /** link -> version and length there, kept only while a later link may use it as a base. */
  marks: Map<number, Mark>;
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
    const key = ns ? `${ns}\u0000${channel}` : channel;
    const previous =
      this.enabled && present && Array.isArray(value) ? this.lineages(threadId, false)?.get(key) : undefined;
    const delta = previous && this.deltaFrom(previous, value as unknown[]);
    if (delta) {
      const payload = (value as unknown[]).slice(delta.base.length);
      return { channel, version, base: delta.base.version, present, payload, key, value, previous, link: delta.link };
    }
    return { channel, version, base: null, present, payload: value, key, value, previous: undefined, link: 0 };
  }

  /** Remembers what a plan wrote, for append detection in later puts; call once its write is durable. */
  commit(threadId: string, plan: BlobPlan): void {
    if (!this.enabled) return;
    const value = plan.value;
    if (plan.previous) {
      this.remember(
        threadId,
        plan.key,
        advance(plan.previous, plan.version, value as unknown[], plan.link, this.fanout),
      );
    } else if (plan.present && Array.isArray(value)) {
      this.remember(threadId, plan.key, start(plan.version, value));
    } else {
      this.threads.get(threadId)?.delete(plan.key);
    }
  }

  /**
   * A value read back at the version this process last wrote for the channel: later puts
   * that append to the read items (the next run of a thread, which starts from a read) are
   * stored as deltas, instead of a full copy per run. The items are the stored ones, so they
   * stand for that version as well as the written ones did.
   */
  learn(threadId: string, ns: string, channel: string, version: ChannelVersion, value: unknown): void {
    if (!Array.isArray(value)) return; // only arrays are appended to (most values of a read are not)
    const previous = this.threads.get(threadId)?.get(ns ? `${ns}\u0000${channel}` : channel);
    if (previous?.version === version && value.length === previous.items.length) previous.items = value.slice();
  }

  /** The next put of these channels writes a full copy (after a failed write, or when the base may be gone). */
  forget(threadId: string, ns?: string, channel?: string): void {
    if (ns === undefined || channel === undefined) {
      this.threads.delete(threadId);
      return;
    }
    this.lineages(threadId, false)?.delete(ns ? `${ns}\u0000${channel}` : channel);
  }

  private deltaFrom(previous: Lineage, value: readonly unknown[]): { base: Mark; link: number } | undefined {
    const prior = previous.items;
    if (value.length < prior.length) return undefined;
    for (let i = 0; i < prior.length; i++) if (value[i] !== prior[i]) return undefined;
    const link = previous.link + 1;
    const base = previous.marks.get(link - segmentSpan(link, this.fanout));
    return base && { base, link };
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

/** How many links back the base of `link` is: fanout^j for the largest j with fanout^j | link. */
function segmentSpan(link: number, fanout: number): number {
  let span = 1;
  while (link % (span * fanout) === 0) span *= fanout;
  return span;
}

function start(version: ChannelVersion, value: readonly unknown[]): Lineage {
  return { version, items: value.slice(), link: 0, marks: new Map([[0, { version, length: value.length }]]) };
}

function advance(
  previous: Lineage,
  version: ChannelVersion,
  value: readonly unknown[],
  link: number,
  fanout: number,
): Lineage {
  const marks = previous.marks;
  marks.set(link, { version, length: value.length });
  for (const at of marks.keys()) {
    if (at !== 0 && at + segmentSpan(at, fanout) < link) marks.delete(at);
  }
  return { version, items: value.slice(), link, marks };
}

export type BlobLookup = (channel: string, version: ChannelVersion) => StoredBlob | undefined;

/** Longest delta chain a read follows before declaring the store corrupt. */
const MAX_CHAIN = 100_000;

/**
 * Rebuilds a channel's value at `version` from its blob and, for deltas, its bases.
 * `undefined`: no blob at `version` at all (the checkpoint never stored that channel).
 */
export function assembleValue(
  channel: string,
  version: ChannelVersion,
  lookup: BlobLookup,
  serde: Serializer,
): { present: boolean; value: unknown } | undefined {
  let blob = lookup(channel, version);
  if (!blob) return undefined;
  if (blob.base === null)
    return blob.data === null ? { present: false, value: undefined } : { present: true, value: serde.loads(blob.data) };
  const deltas: Array<string | Uint8Array> = [];
  let at = version;
  while (blob.base !== null) {
    deltas.push(blob.data!);
    if (deltas.length > MAX_CHAIN)
      throw new StorageError("read", new Error(`channel "${channel}" has a delta chain longer than ${MAX_CHAIN}`));
    at = blob.base;
    const next = lookup(channel, at);
    if (!next)
      throw new StorageError(
        "read",
        new Error(`channel "${channel}" version ${version} is stored as an append to version ${at}, which is missing`),
      );
    blob = next;
  }
  const value = serde.loads(blob.data!) as unknown[];
  for (let i = deltas.length - 1; i >= 0; i--) {
    const items = serde.loads(deltas[i]!) as unknown[];
    for (const item of items) value.push(item);
  }
  return { present: true, value };
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
