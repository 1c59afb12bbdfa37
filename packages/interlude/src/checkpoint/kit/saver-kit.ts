import { InterludeError } from "../../errors/base.js";
import { CheckpointConflictError, StorageError } from "../../errors/storage.js";
import { BaseCheckpointSaver, checkpointIdOf, checkpointNsOf, threadIdOf } from "../base.js";
import { assembleValue, type BlobLookup, type DeltaOptions, DeltaPlanner } from "../delta.js";
import {
  type PreparedPut,
  type PreparedWrite,
  preparePut,
  prepareWrites,
  putTarget,
  writesTarget,
} from "../prepare.js";
import { listQuery, listTuples } from "../query.js";
import {
  createdAtOf,
  type PruneOptions,
  type PruneRequest,
  pruneRequest,
  type RetentionOptions,
  sweepInterval,
} from "../retention.js";
import { defaultSerializer, type Serializer } from "../serde.js";
import { buildTuple, type CheckpointRecord, checkpointConfig } from "../tuple.js";
import type {
  ChannelVersion,
  ChannelVersions,
  Checkpoint,
  CheckpointListOptions,
  CheckpointMetadata,
  CheckpointTuple,
  PendingWrite,
  PutOptions,
  PutWritesOptions,
  RunnableConfig,
} from "../types.js";
import { type ListCandidate, type ListScope, listScope } from "./list-scope.js";
import { copiedParts, knownValues, type ParsedHead } from "./private-copies.js";
import { type PruneCandidate, type PrunePlan, planPrune, type StoredBlobRef } from "./prune-plan.js";
import { BASE_MISSING, type PutOutcome, STORED } from "./put-steps.js";

export type MaybePromise<T> = T | Promise<T>;

/** Options every kit saver accepts. */
export interface SaverKitOptions extends DeltaOptions, RetentionOptions {
  serde?: Serializer;
}

/** A checkpoint row as stored: the record and metadata as the saver keeps them. */
export interface StoredCheckpoint<Kept> {
  parentId: string | null | undefined;
  record: Kept;
  metadata: Kept;
}

/** A pending write as stored, in the order it was first written. */
export interface StoredWrite<Kept = string | Uint8Array> {
  taskId: string;
  channel: string;
  data: Kept;
}

/** What one `putWrites` stores: rows already serialised and numbered (`WRITES_IDX_MAP`). */
export interface PreparedWrites<Kept = string | Uint8Array> {
  threadId: string;
  ns: string;
  checkpointId: string;
  taskId: string;
  rows: Array<PreparedWrite<Kept>>;
  durable: boolean;
  /** The claim the caller releases next (`PutWritesOptions.releaseClaim`): a backend may release it with the writes. */
  releaseClaim?: string;
}

/**
 * How a kit saver keeps a checkpoint's record and metadata, and with `write` its pending writes'
 * values, each read back with `read` (default: serialised with its serde).
 */
export interface Keeper<Kept> {
  record(checkpoint: Checkpoint): Kept;
  metadata(metadata: CheckpointMetadata): Kept;
  write?(value: unknown, path: string): Kept;
  read(kept: Kept): unknown;
}

/**
 * The storage pipeline every saver shares, as a template: the kit owns the algorithm
 * (serialising first, delta planning, the head compare-and-swap, the full-copy retry when a
 * delta's base is gone, assembling values on load, list filtering, prune planning, counters)
 * and a backend supplies only its primitive operations, each of which it may run in one
 * transaction or round trip of its own:
 *
 * - `storePut(put)`: apply a prepared put atomically (see `putInSteps` for step-wise engines);
 * - `storeWrites(writes)`, `loadTuple(...)` (with `tupleOf` to assemble), `listCandidates(scope)`;
 * - `removeThread`, `threadsCreatedBefore`, `pruneThread` (with `planPrune`), and the claims.
 */
export abstract class SaverKit<Kept = string | Uint8Array> extends BaseCheckpointSaver {
  protected readonly serde: Serializer;
  protected readonly planner: DeltaPlanner;
  /** Clock for claims, pruning and idle threads (options.now, for tests). */
  protected readonly now: () => number;
  protected readonly ttlMs: number | undefined;
  protected readonly keeper: Keeper<Kept> | undefined;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(options: SaverKitOptions = {}, keeper?: (serde: Serializer) => Keeper<Kept>) {
    super();
    this.serde = options.serde ?? defaultSerializer;
    this.planner = new DeltaPlanner(options);
    this.now = options.now ?? Date.now;
    this.ttlMs = options.ttlMs;
    this.keeper = keeper?.(this.serde);
  }

  /** Applies one prepared put atomically: check the head and the delta bases, then write everything or nothing. */
  protected abstract storePut(put: PreparedPut<Kept>): MaybePromise<PutOutcome>;
  protected abstract storeWrites(writes: PreparedWrites<Kept>): MaybePromise<void>;
  /** The checkpoint `id` (undefined: the newest) of (thread, namespace), assembled with `tupleOf`. */
  protected abstract loadTuple(
    threadId: string,
    ns: string,
    id: string | undefined,
  ): MaybePromise<CheckpointTuple | undefined>;
  /** Checkpoints in `scope`, newest first. */
  protected abstract listCandidates(scope: ListScope): MaybePromise<Iterable<ListCandidate<Kept>>>;
  /** Deletes every checkpoint, blob and write of the thread (not its claim). */
  protected abstract removeThread(threadId: string): MaybePromise<void>;
  /** Threads with a checkpoint created before `cutoff` (epoch ms). */
  protected abstract threadsCreatedBefore(cutoff: number): MaybePromise<Iterable<string>>;
  /**
   * Prunes one thread in one transaction: read its rows, `this.planPrune(...)`, delete; returns
   * how many checkpoints went. With `request.after` (a rewind) the newest go too, and each
   * namespace's head is then its newest checkpoint left (none left: no head).
   */
  protected abstract pruneThread(threadId: string, request: PruneRequest): MaybePromise<number>;

  async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
    options?: PutOptions,
  ): Promise<RunnableConfig> {
    const target = putTarget(config, options);
    // A put called without newVersions (as LangGraph.js's savers allow): every value it carries.
    const versions = newVersions ?? versionsOfValues(checkpoint);
    let put = preparePut(this.serde, this.planner, target, checkpoint, metadata, versions, this.keeper);
    // Awaited only when the backend is asynchronous: a synchronous put costs no extra turn.
    let outcome = this.storePut(put);
    if (outcome instanceof Promise) outcome = await outcome;
    if (outcome === BASE_MISSING) {
      put = put.withoutDeltas(this.serde);
      outcome = await this.storePut(put);
    }
    if (outcome !== STORED) {
      if (outcome === BASE_MISSING) throw new StorageError("put", new Error("a full-copy put reported a missing base"));
      throw new CheckpointConflictError(put.threadId, put.expectedHead ?? null, outcome.head);
    }
    put.commit(this.planner, this.stats);
    return checkpointConfig(put.threadId, put.ns, put.id);
  }

  async putWrites(
    config: RunnableConfig,
    writes: Array<[channel: string, value: unknown]>,
    taskId: string,
    options?: PutWritesOptions,
  ): Promise<void> {
    const { threadId, ns, checkpointId } = writesTarget(config);
    const rows = prepareWrites(this.serde, this.stats, taskId, writes, this.keeper);
    const durable = options?.durable !== false;
    await this.storeWrites({ threadId, ns, checkpointId, taskId, rows, durable, releaseClaim: options?.releaseClaim });
  }

  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    return this.loadFor(config);
  }

  /**
   * `saver.getTuple(config)`, without its promise when `saver` is a kit saver that reads
   * synchronously (SQLite, memory) and whose `getTuple` is the kit's own: getState then builds
   * its snapshot in the same turn. Errors are thrown, not rejected.
   */
  static readTuple(saver: BaseCheckpointSaver, config: RunnableConfig): MaybePromise<CheckpointTuple | undefined> {
    if (saver instanceof SaverKit && saver.getTuple === SaverKit.prototype.getTuple) return saver.loadFor(config);
    return saver.getTuple(config);
  }

  private loadFor(config: RunnableConfig): MaybePromise<CheckpointTuple | undefined> {
    const threadId = threadIdOf(config);
    if (threadId === undefined) return undefined;
    return this.loadTuple(threadId, checkpointNsOf(config), checkpointIdOf(config));
  }

  async *list(config: RunnableConfig, options?: CheckpointListOptions): AsyncGenerator<CheckpointTuple> {
    const query = listQuery(options);
    const candidates = await this.listCandidates(listScope(config, query));
    yield* listTuples(
      candidates,
      query,
      (c) => (c.metadata === undefined ? undefined : (this.read(c.metadata) as CheckpointMetadata)),
      (c) => this.loadTuple(c.threadId, c.ns, c.id),
    );
  }

  async deleteThread(threadId: string): Promise<void> {
    await this.removeThread(threadId);
    this.planner.forget(threadId);
  }

  /**
   * Drops every checkpoint saved after `checkpointId`, in every namespace of the thread, with
   * their pending writes and the values only they read, in one transaction: the thread is then
   * as it was when that checkpoint was its newest. Returns how many went. `checkpointId` may be
   * any id: to undo a run, pass `newCheckpointId()` taken before it started rather than its first
   * checkpoint, since a subgraph paused at a question saved its own checkpoints after its
   * parent's newest, before the run that answers it.
   */
  async rewindThread(threadId: string, checkpointId: string): Promise<number> {
    try {
      return await this.pruneThread(threadId, { threadId, after: checkpointId });
    } finally {
      // Lists remembered for append detection may be of versions that went.
      this.planner.forget(threadId);
    }
  }

  override async prune(target: string | PruneOptions, options?: PruneOptions): Promise<number> {
    const request = pruneRequest(target, options, this.now());
    // pruneRequest refuses keepLast without a thread: no thread means a cutoff.
    const threads =
      request.threadId !== undefined ? [request.threadId] : await this.threadsCreatedBefore(request.cutoff!);
    let removed = 0;
    for (const threadId of threads) removed += await this.pruneThread(threadId, request);
    return removed;
  }

  override async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
  }

  /** Calls `sweep()` every `sweepIntervalMs` when the options set `ttlMs`; `close()` stops it. */
  protected sweepPeriodically(options: RetentionOptions): void {
    const every = sweepInterval(options);
    if (every <= 0) return;
    this.timer = setInterval(() => void this.sweep().catch(() => {}), every);
    this.timer.unref();
  }

  /** A stored record or metadata as the value it was. */
  protected read(kept: Kept): unknown {
    return this.keeper ? this.keeper.read(kept) : this.serde.loads(kept as string | Uint8Array);
  }

  /**
   * A checkpoint as `getTuple` returns it, from its row, its blobs (`lookup`, delta bases
   * included) and its writes. `replaced`: private copies of a head of the thread that this one
   * replaced, copied (instead of parsed) at the versions whose stored form `holds` says is
   * unchanged, there or as the base of an append.
   */
  protected tupleOf(
    threadId: string,
    ns: string,
    stored: StoredCheckpoint<Kept>,
    lookup: BlobLookup,
    writes: Iterable<StoredWrite<Kept>>,
    record = this.read(stored.record) as CheckpointRecord,
    replaced?: { parsed: ParsedHead; holds: (channel: string, version: ChannelVersion) => boolean },
  ): CheckpointTuple {
    const values: Record<string, unknown> = {};
    const versions = record.channel_versions;
    // A list's chain of bases, for a thread this process writes: later appends continue it.
    const tracked = this.planner.tracks(threadId);
    const known =
      replaced &&
      knownValues(replaced.parsed, replaced.holds, (channel, version) =>
        this.planner.chainAt(threadId, ns, channel, version),
      );
    for (const channel in versions) {
      const loaded = assembleValue(channel, versions[channel]!, lookup, this.serde, tracked, known);
      if (!loaded?.present) continue;
      values[channel] = loaded.value;
      this.planner.learn(threadId, ns, channel, versions[channel]!, loaded.value, loaded.chain);
    }
    const pending: PendingWrite[] = [];
    const keptWrites = this.keeper?.write !== undefined;
    for (const { taskId, channel, data } of writes)
      pending.push([taskId, channel, keptWrites ? this.read(data) : this.serde.loads(data as string | Uint8Array)]);
    const metadata = this.read(stored.metadata) as CheckpointMetadata;
    return buildTuple({ threadId, ns, record, values, metadata, parentId: stored.parentId, writes: pending });
  }

  /**
   * The same tuple from a head cache's private copies (private-copies.ts) instead of the stored
   * form: `stored` gives the parent id and, the first time it is needed, the metadata to parse;
   * `writes` are the pending writes, read.
   */
  protected tupleFromCopies(
    threadId: string,
    ns: string,
    parsed: ParsedHead,
    stored: Pick<StoredCheckpoint<Kept>, "parentId" | "metadata">,
    writes: PendingWrite[],
  ): CheckpointTuple {
    const versions = parsed.record.channel_versions;
    const { record, values, metadata } = copiedParts(
      parsed,
      (channel, value) => this.planner.learn(threadId, ns, channel, versions[channel]!, value),
      () => this.read(stored.metadata) as CheckpointMetadata,
    );
    return buildTuple({ threadId, ns, record, values, metadata, parentId: stored.parentId, writes });
  }

  /** What a prune of one thread removes, from all its checkpoint rows and blobs. */
  protected planPrune(
    request: PruneRequest,
    checkpoints: Iterable<PruneCandidate<Kept>>,
    blobs: Iterable<StoredBlobRef>,
  ): PrunePlan {
    return planPrune(request, checkpoints, blobs, {
      versions: (record) => (this.read(record) as CheckpointRecord).channel_versions,
      createdAt: (record, id) => createdAtOf((this.read(record) as CheckpointRecord).ts, id),
    });
  }
}

/** Interlude's own errors pass through; anything a driver throws becomes a StorageError naming the operation. */
export function storageError(operation: string, error: unknown): Error {
  return error instanceof InterludeError ? error : new StorageError(operation, error);
}

/** The versions of the channels a checkpoint carries values of. */
function versionsOfValues(checkpoint: Checkpoint): ChannelVersions {
  const versions: ChannelVersions = {};
  for (const channel in checkpoint.channel_values) {
    const version = checkpoint.channel_versions[channel];
    if (version !== undefined) versions[channel] = version;
  }
  return versions;
}
