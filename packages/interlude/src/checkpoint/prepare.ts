import type { Checkpoint, CheckpointMetadata, ChannelVersion, ChannelVersions } from "./types.js";
import type { Serializer } from "./serde.js";
import type { BlobPlan, DeltaPlanner, StoredBlob } from "./delta.js";
import type { SaverStats } from "./base.js";
import { recordOf } from "./tuple.js";
import { writeRows } from "./writes.js";

export interface PreparedBlob extends StoredBlob {
  channel: string;
  version: ChannelVersion;
}

/** A checkpoint serialised and split into rows, before anything is written. */
export interface PreparedPut {
  id: string;
  parentId: string | undefined;
  createdAt: number;
  record: string | Uint8Array;
  metadata: string | Uint8Array;
  blobs: PreparedBlob[];
  /** Call once the rows are durable: remembers the values for append detection and counts bytes. */
  commit(): void;
}

/**
 * Serialises everything a `put` writes first, so that a value that cannot be stored fails the
 * put before any row is touched.
 */
export function preparePut(
  serde: Serializer,
  planner: DeltaPlanner,
  stats: SaverStats,
  target: { threadId: string; ns: string; parentId: string | undefined; createdAt: number },
  checkpoint: Checkpoint,
  metadata: CheckpointMetadata,
  newVersions: ChannelVersions,
): PreparedPut {
  const values = checkpoint.channel_values;
  const plans: BlobPlan[] = [];
  const blobs: PreparedBlob[] = [];
  for (const channel of Object.keys(newVersions)) {
    const plan = planner.plan(target.threadId, target.ns, channel, newVersions[channel]!, values);
    plans.push(plan);
    const data = plan.present ? dumpsPlanned(serde, plan, values[channel]) : null;
    blobs.push({ channel, version: plan.version, base: plan.base, data });
  }
  const record = serde.dumps(recordOf(checkpoint), "checkpoint");
  const meta = serde.dumps(metadata, "metadata");
  const prepared: PreparedPut = {
    id: checkpoint.id,
    parentId: target.parentId,
    createdAt: target.createdAt,
    record,
    metadata: meta,
    blobs,
    commit() {
      for (const plan of plans) plan.commit();
      countPut(stats, prepared);
    },
  };
  return prepared;
}

/** Serialises a plan's payload; for an append, a failure is re-raised from the whole value so its path is right. */
function dumpsPlanned(serde: Serializer, plan: BlobPlan, value: unknown): string | Uint8Array {
  const path = `state.${plan.channel}`;
  if (plan.base === null) return serde.dumps(plan.payload, path);
  try {
    return serde.dumps(plan.payload, path);
  } catch (error) {
    serde.dumps(value, path);
    throw error;
  }
}

function countPut(stats: SaverStats, prepared: PreparedPut): void {
  let bytes = prepared.record.length + prepared.metadata.length;
  for (const blob of prepared.blobs) {
    bytes += blob.data?.length ?? 0;
    if (blob.base !== null) stats.deltaBlobsWritten++;
  }
  stats.checkpointsWritten++;
  stats.blobsWritten += prepared.blobs.length;
  stats.bytesWritten += bytes;
}

/** The same put with every value as a full copy: used when a delta's base turned out to be gone. */
export function withoutDeltas(
  prepared: PreparedPut,
  serde: Serializer,
  planner: DeltaPlanner,
  stats: SaverStats,
  threadId: string,
  checkpoint: Checkpoint,
): PreparedPut {
  const blobs = prepared.blobs.map((blob) => {
    if (blob.base === null) return blob;
    const data = serde.dumps(checkpoint.channel_values[blob.channel], `state.${blob.channel}`);
    return { ...blob, base: null, data };
  });
  const full: PreparedPut = {
    ...prepared,
    blobs,
    commit() {
      // What this process remembers may point at removed rows: start over with full copies.
      planner.forget(threadId);
      countPut(stats, full);
    },
  };
  return full;
}

export interface PreparedWrite {
  taskId: string;
  idx: number;
  channel: string;
  data: string | Uint8Array;
  replace: boolean;
}

export function prepareWrites(
  serde: Serializer,
  stats: SaverStats,
  taskId: string,
  writes: ReadonlyArray<readonly [string, unknown]>,
): PreparedWrite[] {
  const rows = writeRows(writes).map((row) => ({
    taskId,
    idx: row.idx,
    channel: row.channel,
    data: serde.dumps(row.value, `writes.${row.channel}`),
    replace: row.replace,
  }));
  for (const row of rows) stats.bytesWritten += row.data.length;
  return rows;
}
