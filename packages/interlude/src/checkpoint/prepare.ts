import type { SaverStats } from "./base.js";
import { checkpointIdOf, checkpointNsOf } from "./base.js";
import type { BlobPlan, DeltaPlanner, StoredBlob } from "./delta.js";
import { createdAtOf } from "./retention.js";
import type { Serializer } from "./serde.js";
import { recordOf, requireThreadId } from "./tuple.js";
import type { ChannelVersion, ChannelVersions, Checkpoint, CheckpointMetadata, RunnableConfig } from "./types.js";
import { writeRows } from "./writes.js";

export interface PreparedBlob extends StoredBlob {
  channel: string;
  version: ChannelVersion;
  plan: BlobPlan;
}

/** A checkpoint serialised and split into rows, before anything is written. */
export interface PreparedPut<Kept = string | Uint8Array> {
  id: string;
  parentId: string | undefined;
  createdAt: number;
  record: Kept;
  metadata: Kept;
  blobs: PreparedBlob[];
  /** Call once the rows are durable: remembers the values for append detection and counts bytes. */
  commit(): void;
}

/** How a saver keeps a checkpoint's record and metadata; by default both are serialised with its serde. */
export interface RecordKeeper<Kept> {
  record(checkpoint: Checkpoint): Kept;
  metadata(metadata: CheckpointMetadata): Kept;
}

/** Where a `put(config, checkpoint, ...)` writes: the thread and namespace, the parent, and when. */
export interface PutTarget {
  threadId: string;
  ns: string;
  parentId: string | undefined;
  createdAt: number;
}

export function putTarget(config: RunnableConfig, checkpoint: Checkpoint): PutTarget {
  return {
    threadId: requireThreadId(config),
    ns: checkpointNsOf(config),
    parentId: checkpointIdOf(config),
    createdAt: createdAtOf(checkpoint.ts, checkpoint.id),
  };
}

/** Where a `putWrites(config, ...)` writes: the thread, namespace and checkpoint named by `config`. */
export function writesTarget(config: RunnableConfig): { threadId: string; ns: string; checkpointId: string } {
  const checkpointId = checkpointIdOf(config);
  if (checkpointId === undefined)
    throw new TypeError("putWrites needs configurable.checkpoint_id: the checkpoint the writes belong to.");
  return { threadId: requireThreadId(config), ns: checkpointNsOf(config), checkpointId };
}

/**
 * Serialises everything a `put` writes first, so that a value that cannot be stored fails the
 * put before any row is touched.
 */
export function preparePut<Kept = string | Uint8Array>(
  serde: Serializer,
  planner: DeltaPlanner,
  stats: SaverStats,
  target: PutTarget,
  checkpoint: Checkpoint,
  metadata: CheckpointMetadata,
  newVersions: ChannelVersions,
  keeper?: RecordKeeper<Kept>,
): PreparedPut<Kept> {
  const values = checkpoint.channel_values;
  const blobs: PreparedBlob[] = [];
  for (const channel in newVersions) {
    const plan = planner.plan(target.threadId, target.ns, channel, newVersions[channel]!, values);
    const data = plan.present ? dumpsPlanned(serde, plan, values[channel]) : null;
    blobs.push({ channel, version: plan.version, base: plan.base, data, plan });
  }
  // Without a keeper, Kept is the default `string | Uint8Array`.
  const record = keeper ? keeper.record(checkpoint) : (serde.dumps(recordOf(checkpoint), "checkpoint") as Kept);
  const meta = keeper ? keeper.metadata(metadata) : (serde.dumps(metadata, "metadata") as Kept);
  return new Prepared(target, checkpoint.id, record, meta, blobs, planner, stats, false);
}

/** A class rather than an object literal with a `commit` closure: one allocation fewer per put. */
class Prepared<Kept> implements PreparedPut<Kept> {
  readonly parentId: string | undefined;
  readonly createdAt: number;

  constructor(
    readonly target: { threadId: string; parentId: string | undefined; createdAt: number },
    readonly id: string,
    readonly record: Kept,
    readonly metadata: Kept,
    readonly blobs: PreparedBlob[],
    private readonly planner: DeltaPlanner,
    private readonly stats: SaverStats,
    /** Written without deltas after a base turned out to be gone. */
    private readonly fullCopies: boolean,
  ) {
    this.parentId = target.parentId;
    this.createdAt = target.createdAt;
  }

  commit(): void {
    const threadId = this.target.threadId;
    // What this process remembers may point at removed rows: start over with full copies.
    if (this.fullCopies) this.planner.forget(threadId);
    else for (const blob of this.blobs) this.planner.commit(threadId, blob.plan);
    countPut(this.stats, this);
  }

  withBlobs(blobs: PreparedBlob[]): Prepared<Kept> {
    return new Prepared(this.target, this.id, this.record, this.metadata, blobs, this.planner, this.stats, true);
  }
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

function countPut(stats: SaverStats, prepared: PreparedPut<unknown>): void {
  // A record or metadata kept unserialised (MemorySaver's private copies) counts no bytes.
  let bytes = sizeOf(prepared.record) + sizeOf(prepared.metadata);
  for (const blob of prepared.blobs) {
    bytes += blob.data?.length ?? 0;
    if (blob.base !== null) stats.deltaBlobsWritten++;
  }
  stats.checkpointsWritten++;
  stats.blobsWritten += prepared.blobs.length;
  stats.bytesWritten += bytes;
}

function sizeOf(kept: unknown): number {
  return typeof kept === "string" || kept instanceof Uint8Array ? kept.length : 0;
}

/** The same put with every value as a full copy: used when a delta's base turned out to be gone. */
export function withoutDeltas<Kept>(
  prepared: PreparedPut<Kept>,
  serde: Serializer,
  planner: DeltaPlanner,
  stats: SaverStats,
  threadId: string,
  checkpoint: Checkpoint,
): PreparedPut<Kept> {
  const blobs = prepared.blobs.map((blob) => {
    if (blob.base === null) return blob;
    const data = serde.dumps(checkpoint.channel_values[blob.channel], `state.${blob.channel}`);
    return { ...blob, base: null, data };
  });
  if (prepared instanceof Prepared) return prepared.withBlobs(blobs) as Prepared<Kept>;
  const target = { threadId, parentId: prepared.parentId, createdAt: prepared.createdAt };
  return new Prepared(target, prepared.id, prepared.record, prepared.metadata, blobs, planner, stats, true);
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
