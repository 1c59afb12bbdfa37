import type { SaverStats } from "./base.js";
import { checkpointIdOf, checkpointNsOf } from "./base.js";
import type { BlobPlan, DeltaPlanner, StoredBlob } from "./delta.js";
import { createdAtOf } from "./retention.js";
import type { Serializer } from "./serde.js";
import { recordOf, requireThreadId } from "./tuple.js";
import type {
  ChannelVersion,
  ChannelVersions,
  Checkpoint,
  CheckpointMetadata,
  PutOptions,
  RunnableConfig,
} from "./types.js";
import { writeRows } from "./writes.js";

export interface PreparedBlob extends StoredBlob {
  channel: string;
  version: ChannelVersion;
  plan: BlobPlan;
}

/**
 * A checkpoint serialised and split into rows, before anything is written: what a backend
 * stores for one `put`, and the head it must find there first.
 */
export interface PreparedPut<Kept = string | Uint8Array> {
  readonly threadId: string;
  readonly ns: string;
  readonly id: string;
  readonly parentId: string | undefined;
  /** Epoch ms (from the checkpoint's `ts`), for pruning by age. */
  readonly createdAt: number;
  readonly record: Kept;
  readonly metadata: Kept;
  /** Only the channels in `newVersions`: the rest are shared with earlier checkpoints. */
  readonly blobs: readonly PreparedBlob[];
  /** Every channel's version in the checkpoint (what a load needs, written blobs or not). */
  readonly versions: ChannelVersions;
  /** The head the (thread, namespace) must have: an id, `null` (none yet), or `undefined` (no check). */
  readonly expectedHead: string | null | undefined;
  /** false: the caller flushes later; a saver that batches commits may resolve before committing. */
  readonly durable: boolean;
  /** The claim the caller releases next (`PutOptions.releaseClaim`): a backend may release it with the put. */
  readonly releaseClaim?: string | undefined;
  /** The checkpoint as given to `put`, for a saver that keeps copies of what it wrote (never to be changed). */
  readonly checkpoint?: Checkpoint;
  /** The metadata as given to `put`, for the same savers (never to be changed). */
  readonly givenMetadata?: CheckpointMetadata;
}

/** How a saver keeps a checkpoint's record and metadata; by default both are serialised with its serde. */
export interface RecordKeeper<Kept> {
  record(checkpoint: Checkpoint): Kept;
  metadata(metadata: CheckpointMetadata): Kept;
}

/** How a saver keeps a pending write's value; without `write` it is serialised with its serde. */
export interface WriteKeeper<Kept> {
  write?(value: unknown, path: string): Kept;
}

/** Where a `put(config, checkpoint, ...)` writes, and on what condition. */
export interface PutTarget {
  threadId: string;
  ns: string;
  parentId: string | undefined;
  expectedHead: string | null | undefined;
  durable: boolean;
  releaseClaim?: string;
}

export function putTarget(config: RunnableConfig, options: PutOptions | undefined): PutTarget {
  return {
    threadId: requireThreadId(config),
    ns: checkpointNsOf(config),
    parentId: checkpointIdOf(config),
    expectedHead: options?.expectedHead,
    durable: options?.durable !== false,
    releaseClaim: options?.releaseClaim,
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
  target: PutTarget,
  checkpoint: Checkpoint,
  metadata: CheckpointMetadata,
  newVersions: ChannelVersions,
  keeper?: RecordKeeper<Kept>,
): Prepared<Kept> {
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
  return new Prepared(target, checkpoint, metadata, record, meta, blobs, false);
}

/** A class rather than an object literal with getters and closures: one allocation per put. */
export class Prepared<Kept> implements PreparedPut<Kept> {
  readonly id: string;
  private created: number | undefined;

  constructor(
    private readonly target: PutTarget,
    readonly checkpoint: Checkpoint,
    readonly givenMetadata: CheckpointMetadata,
    readonly record: Kept,
    readonly metadata: Kept,
    readonly blobs: PreparedBlob[],
    /** Written without deltas after a base turned out to be gone. */
    readonly fullCopies: boolean,
  ) {
    this.id = checkpoint.id;
  }

  get threadId(): string {
    return this.target.threadId;
  }

  get ns(): string {
    return this.target.ns;
  }

  get parentId(): string | undefined {
    return this.target.parentId;
  }

  get expectedHead(): string | null | undefined {
    return this.target.expectedHead;
  }

  get durable(): boolean {
    return this.target.durable;
  }

  get releaseClaim(): string | undefined {
    return this.target.releaseClaim;
  }

  get versions(): ChannelVersions {
    return this.checkpoint.channel_versions;
  }

  /** Parsed on first use: MemorySaver never stores it (it reads `ts` when pruning). */
  get createdAt(): number {
    this.created ??= createdAtOf(this.checkpoint.ts, this.checkpoint.id);
    return this.created;
  }

  /** Call once the rows are durable: remembers the values for append detection and counts bytes. */
  commit(planner: DeltaPlanner, stats: SaverStats): void {
    const threadId = this.target.threadId;
    // What this process remembers may point at removed rows: start over with full copies.
    if (this.fullCopies) planner.forget(threadId);
    else for (const blob of this.blobs) planner.commit(threadId, blob.plan);
    countPut(stats, this);
  }

  /** The same put with every value as a full copy: used when a delta's base turned out to be gone. */
  withoutDeltas(serde: Serializer): Prepared<Kept> {
    const blobs = this.blobs.map((blob) => {
      if (blob.base === null) return blob;
      const data = serde.dumps(this.checkpoint.channel_values[blob.channel], `state.${blob.channel}`);
      return { ...blob, base: null, data };
    });
    return new Prepared(this.target, this.checkpoint, this.givenMetadata, this.record, this.metadata, blobs, true);
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
  let bytes = sizeOf(prepared.record) + sizeOf(prepared.metadata);
  for (const blob of prepared.blobs) {
    bytes += blob.data?.length ?? 0;
    if (blob.base !== null) stats.deltaBlobsWritten++;
  }
  stats.checkpointsWritten++;
  stats.blobsWritten += prepared.blobs.length;
  stats.bytesWritten += bytes;
}

/** The bytes of what was serialised: a private copy (MemorySaver's records, metadata and writes) counts none. */
function sizeOf(kept: unknown): number {
  return typeof kept === "string" || kept instanceof Uint8Array ? kept.length : 0;
}

export interface PreparedWrite<Kept = string | Uint8Array> {
  taskId: string;
  idx: number;
  channel: string;
  data: Kept;
  replace: boolean;
  /** The value as the caller wrote it (theirs: copy it before keeping it), e.g. for a read cache. */
  value: unknown;
}

export function prepareWrites<Kept = string | Uint8Array>(
  serde: Serializer,
  stats: SaverStats,
  taskId: string,
  writes: ReadonlyArray<readonly [string, unknown]>,
  keeper?: WriteKeeper<Kept>,
): Array<PreparedWrite<Kept>> {
  const rows = writeRows(writes).map((row) => {
    const path = `writes.${row.channel}`;
    // Without a keeper's `write`, Kept is the default `string | Uint8Array`.
    const data = keeper?.write ? keeper.write(row.value, path) : (serde.dumps(row.value, path) as Kept);
    return { taskId, idx: row.idx, channel: row.channel, data, replace: row.replace, value: row.value };
  });
  for (const row of rows) stats.bytesWritten += sizeOf(row.data);
  return rows;
}
