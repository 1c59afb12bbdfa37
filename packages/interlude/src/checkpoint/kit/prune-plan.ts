import { blobKey, reachableBlobs } from "../delta.js";
import { checkpointsToPrune, type PruneRequest } from "../retention.js";
import type { ChannelVersion, ChannelVersions } from "../types.js";

/** One stored checkpoint of the thread being pruned. */
export interface PruneCandidate<Kept> {
  ns: string;
  id: string;
  /** Epoch ms; undefined: read from the record's `ts`. */
  createdAt?: number;
  record: Kept;
}

/** One stored blob of the thread being pruned (what a delta chain needs: its base). */
export interface StoredBlobRef {
  ns: string;
  channel: string;
  version: ChannelVersion;
  base: ChannelVersion | null;
}

/** What a prune of one thread removes, per namespace. */
export interface PrunePlan {
  namespaces: Array<{ ns: string; checkpoints: string[]; blobs: Array<{ channel: string; version: ChannelVersion }> }>;
  /** Checkpoints removed in all. */
  removed: number;
}

/** How the kit reads a stored record: its channel versions, and its creation time. */
export interface RecordReader<Kept> {
  versions(record: Kept): ChannelVersions;
  createdAt(record: Kept, id: string): number;
}

/**
 * Which checkpoints of one thread a prune removes (see `checkpointsToPrune`), and which blobs
 * no remaining checkpoint then reads, directly or as a delta base.
 */
export function planPrune<Kept>(
  request: PruneRequest,
  checkpoints: Iterable<PruneCandidate<Kept>>,
  blobs: Iterable<StoredBlobRef>,
  reader: RecordReader<Kept>,
): PrunePlan {
  const byNs = groupBy(checkpoints, (row) => row.ns);
  const blobsByNs = groupBy(blobs, (blob) => blob.ns);
  const plan: PrunePlan = { namespaces: [], removed: 0 };
  for (const [ns, rows] of byNs) {
    rows.sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
    const ages = rows.map((row) => ({ id: row.id, createdAt: row.createdAt ?? reader.createdAt(row.record, row.id) }));
    const doomed = new Set(checkpointsToPrune(ages, request));
    if (doomed.size === 0) continue;
    const refs: Array<[string, ChannelVersion]> = [];
    for (const row of rows) {
      if (doomed.has(row.id)) continue;
      const versions = reader.versions(row.record);
      for (const channel of Object.keys(versions)) refs.push([channel, versions[channel]!]);
    }
    const stored = blobsByNs.get(ns) ?? [];
    const bases = new Map(stored.map((blob) => [blobKey(blob.channel, blob.version), blob.base]));
    const keep = reachableBlobs(refs, (channel, version) => bases.get(blobKey(channel, version)));
    const unread = stored
      .filter((blob) => !keep.has(blobKey(blob.channel, blob.version)))
      .map(({ channel, version }) => ({ channel, version }));
    plan.namespaces.push({ ns, checkpoints: [...doomed], blobs: unread });
    plan.removed += doomed.size;
  }
  return plan;
}

function groupBy<T>(items: Iterable<T>, keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}
