import { CheckpointConflictError } from "../errors/storage.js";
import { BaseCheckpointSaver, checkpointIdOf, checkpointNsOf, threadIdOf } from "./base.js";
import { assembleValue, blobKey, type DeltaOptions, DeltaPlanner, reachableBlobs, type StoredBlob } from "./delta.js";
import { MemoryClaims } from "./memory-claims.js";
import { copyPlain, NOT_PLAIN } from "./plain-copy.js";
import {
  type PreparedBlob,
  preparePut,
  prepareWrites,
  type RecordKeeper,
  withoutDeltas,
  writesTarget,
} from "./prepare.js";
import { listQuery, listTuples } from "./query.js";
import {
  checkpointsToPrune,
  createdAtOf,
  type PruneOptions,
  type PruneRequest,
  pruneRequest,
  type RetentionOptions,
  sweepInterval,
} from "./retention.js";
import { defaultSerializer, JsonSerializer, type Serializer } from "./serde.js";
import { buildTuple, type CheckpointRecord, checkpointConfig, recordOf, requireThreadId } from "./tuple.js";
import type {
  ChannelVersions,
  Checkpoint,
  CheckpointListOptions,
  CheckpointMetadata,
  CheckpointTuple,
  PendingWrite,
  PutOptions,
  RunnableConfig,
  ThreadClaim,
} from "./types.js";

export interface MemorySaverOptions extends DeltaOptions, RetentionOptions {
  serde?: Serializer;
}

/** A record or metadata: serialised, or a private copy (a plain object) when it is plain data. */
type Kept = string | Uint8Array | object;

interface StoredCheckpoint {
  parentId: string | undefined;
  record: Kept;
  metadata: Kept;
}

interface StoredWrite {
  taskId: string;
  channel: string;
  data: string | Uint8Array;
}

interface NamespaceStore {
  checkpoints: Map<string, StoredCheckpoint>;
  /** Checkpoint ids, oldest first (ids are time-ordered). */
  order: string[];
  /** channel -> version -> value (number keys: no key strings to build on the hot path). */
  blobs: Map<string, Map<number, StoredBlob>>;
  /** checkpoint id -> `taskId\0idx` -> write, in first-write order. */
  writes: Map<string, Map<string, StoredWrite>>;
}

interface ThreadStore {
  namespaces: Map<string, NamespaceStore>;
  /** When a checkpoint was last put (for `ttlMs`). */
  touchedAt: number;
}

/**
 * Checkpoints in process memory, for tests, demos and single-process apps. Values are stored
 * serialised and records as private copies, so changing a state object after it was saved
 * cannot change history.
 */
export class MemorySaver extends BaseCheckpointSaver {
  private readonly threads = new Map<string, ThreadStore>();
  private readonly serde: Serializer;
  private readonly records: KeptRecords;
  private readonly planner: DeltaPlanner;
  private readonly claims: MemoryClaims;
  private readonly now: () => number;
  private readonly ttlMs: number | undefined;
  private readonly timer: ReturnType<typeof setInterval> | undefined;

  constructor(options: MemorySaverOptions = {}) {
    super();
    this.serde = options.serde ?? defaultSerializer;
    this.records = new KeptRecords(this.serde);
    this.planner = new DeltaPlanner(options);
    this.now = options.now ?? Date.now;
    this.claims = new MemoryClaims(this.now);
    this.ttlMs = options.ttlMs;
    const every = sweepInterval(options);
    if (every > 0) {
      this.timer = setInterval(() => void this.sweep(), every);
      this.timer.unref();
    }
  }

  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const threadId = threadIdOf(config);
    if (threadId === undefined) return undefined;
    const ns = checkpointNsOf(config);
    const store = this.threads.get(threadId)?.namespaces.get(ns);
    if (!store) return undefined;
    const id = checkpointIdOf(config) ?? store.order[store.order.length - 1];
    return id === undefined ? undefined : this.load(threadId, ns, store, id);
  }

  async *list(config: RunnableConfig, options?: CheckpointListOptions): AsyncGenerator<CheckpointTuple> {
    const query = listQuery(options);
    const onlyId = checkpointIdOf(config);
    const wantedNs = config.configurable?.checkpoint_ns;
    const candidates: Array<{ threadId: string; ns: string; id: string; store: NamespaceStore }> = [];
    for (const [threadId, thread] of this.threadsOf(threadIdOf(config))) {
      for (const [ns, store] of thread.namespaces) {
        if (wantedNs !== undefined && ns !== wantedNs) continue;
        for (const id of store.order) {
          if (onlyId !== undefined && id !== onlyId) continue;
          if (query.before !== undefined && id >= query.before) continue;
          candidates.push({ threadId, ns, id, store });
        }
      }
    }
    candidates.sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
    yield* listTuples(
      candidates,
      query,
      ({ store, id }) => {
        const stored = store.checkpoints.get(id);
        return stored && (this.records.read(stored.metadata) as CheckpointMetadata);
      },
      ({ threadId, ns, store, id }) => this.load(threadId, ns, store, id),
    );
  }

  async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
    options?: PutOptions,
  ): Promise<RunnableConfig> {
    const threadId = requireThreadId(config);
    const ns = checkpointNsOf(config);
    const existing = this.threads.get(threadId)?.namespaces.get(ns);
    const head = existing?.order[existing.order.length - 1] ?? null;
    if (options?.expectedHead !== undefined && options.expectedHead !== head) {
      throw new CheckpointConflictError(threadId, options.expectedHead, head);
    }
    // createdAt is derived from the stored `ts` when pruning, off the hot path.
    const target = { threadId, ns, parentId: checkpointIdOf(config), createdAt: 0 };
    let prepared = preparePut(
      this.serde,
      this.planner,
      this.stats,
      target,
      checkpoint,
      metadata,
      newVersions,
      this.records,
    );
    if (hasMissingBase(existing, prepared.blobs)) {
      prepared = withoutDeltas(prepared, this.serde, this.planner, this.stats, threadId, checkpoint);
    }
    const store = existing ?? this.createNamespace(threadId, ns);
    for (const blob of prepared.blobs) {
      let versions = store.blobs.get(blob.channel);
      if (!versions) store.blobs.set(blob.channel, (versions = new Map()));
      versions.set(blob.version, { base: blob.base, data: blob.data });
    }
    const newest = store.order[store.order.length - 1];
    if (newest === undefined || prepared.id > newest) store.order.push(prepared.id);
    else if (!store.checkpoints.has(prepared.id)) insertOrdered(store.order, prepared.id);
    store.checkpoints.set(prepared.id, {
      parentId: prepared.parentId,
      record: prepared.record,
      metadata: prepared.metadata,
    });
    if (this.ttlMs) this.threads.get(threadId)!.touchedAt = this.now();
    prepared.commit();
    return checkpointConfig(threadId, ns, prepared.id);
  }

  async putWrites(
    config: RunnableConfig,
    writes: Array<[channel: string, value: unknown]>,
    taskId: string,
  ): Promise<void> {
    const { threadId, ns, checkpointId } = writesTarget(config);
    const rows = prepareWrites(this.serde, this.stats, taskId, writes);
    const store = this.threads.get(threadId)?.namespaces.get(ns) ?? this.createNamespace(threadId, ns);
    let slots = store.writes.get(checkpointId);
    if (!slots) store.writes.set(checkpointId, (slots = new Map()));
    for (const row of rows) {
      const key = `${taskId}\u0000${row.idx}`;
      if (row.replace || !slots.has(key)) slots.set(key, { taskId, channel: row.channel, data: row.data });
    }
  }

  async deleteThread(threadId: string): Promise<void> {
    this.threads.delete(threadId);
    this.planner.forget(threadId);
  }

  async claimThread(threadId: string, claim: ThreadClaim): Promise<boolean> {
    return this.claims.claim(threadId, claim);
  }

  async releaseThread(threadId: string, owner: string): Promise<void> {
    this.claims.release(threadId, owner);
  }

  override async prune(target: string | PruneOptions, options?: PruneOptions): Promise<number> {
    const request = pruneRequest(target, options, this.now());
    let removed = 0;
    for (const [, thread] of this.threadsOf(request.threadId)) {
      for (const store of thread.namespaces.values()) removed += pruneNamespace(store, request, this.records);
    }
    return removed;
  }

  override async sweep(): Promise<number> {
    this.claims.sweep();
    if (!this.ttlMs) return 0;
    const cutoff = this.now() - this.ttlMs;
    let removed = 0;
    for (const [threadId, thread] of this.threads) {
      if (thread.touchedAt >= cutoff) continue;
      await this.deleteThread(threadId);
      removed++;
    }
    return removed;
  }

  override async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
  }

  private threadsOf(threadId: string | undefined): Iterable<[string, ThreadStore]> {
    if (threadId === undefined) return this.threads;
    const thread = this.threads.get(threadId);
    return thread ? [[threadId, thread]] : [];
  }

  private createNamespace(threadId: string, ns: string): NamespaceStore {
    let thread = this.threads.get(threadId);
    if (!thread) this.threads.set(threadId, (thread = { namespaces: new Map(), touchedAt: this.now() }));
    const store: NamespaceStore = { checkpoints: new Map(), order: [], blobs: new Map(), writes: new Map() };
    thread.namespaces.set(ns, store);
    return store;
  }

  private load(threadId: string, ns: string, store: NamespaceStore, id: string): CheckpointTuple | undefined {
    const stored = store.checkpoints.get(id);
    if (!stored) return undefined;
    const record = this.records.read(stored.record) as CheckpointRecord;
    const values: Record<string, unknown> = {};
    const versions = record.channel_versions;
    const blobs = store.blobs;
    const lookup = (channel: string, version: number) => blobs.get(channel)?.get(version);
    for (const channel in versions) {
      const loaded = assembleValue(channel, versions[channel]!, lookup, this.serde);
      if (!loaded?.present) continue;
      values[channel] = loaded.value;
      this.planner.learn(threadId, ns, channel, versions[channel]!, loaded.value);
    }
    const writes: PendingWrite[] = [];
    for (const write of store.writes.get(id)?.values() ?? [])
      writes.push([write.taskId, write.channel, this.serde.loads(write.data)]);
    const metadata = this.records.read(stored.metadata) as CheckpointMetadata;
    return buildTuple({ threadId, ns, record, values, metadata, parentId: stored.parentId, writes });
  }
}

/** LangGraph's name for the same saver. */
export { MemorySaver as InMemorySaver };

function insertOrdered(order: string[], id: string): void {
  let i = order.length;
  while (i > 0 && order[i - 1]! > id) i--;
  order.splice(i, 0, id);
}

function pruneNamespace(store: NamespaceStore, request: PruneRequest, kept: KeptRecords): number {
  const records = new Map<string, CheckpointRecord>();
  for (const [id, stored] of store.checkpoints) records.set(id, kept.read(stored.record) as CheckpointRecord);
  const newestFirst = [...store.order].reverse().map((id) => ({ id, createdAt: createdAtOf(records.get(id)!.ts, id) }));
  const doomed = new Set(checkpointsToPrune(newestFirst, request));
  if (doomed.size === 0) return 0;
  for (const id of doomed) {
    store.checkpoints.delete(id);
    store.writes.delete(id);
  }
  store.order = store.order.filter((id) => !doomed.has(id));
  const refs: Array<[string, number]> = [];
  for (const id of store.order) {
    const versions = records.get(id)!.channel_versions;
    for (const channel of Object.keys(versions)) refs.push([channel, versions[channel]!]);
  }
  const keep = reachableBlobs(refs, (channel, version) => store.blobs.get(channel)?.get(version)?.base);
  for (const [channel, versions] of store.blobs) {
    for (const version of versions.keys()) if (!keep.has(blobKey(channel, version))) versions.delete(version);
    if (versions.size === 0) store.blobs.delete(channel);
  }
  return doomed.size;
}

/** True when a delta's base is not in the store (pruned, or written by another saver): the put must write full copies. */
function hasMissingBase(store: NamespaceStore | undefined, blobs: readonly PreparedBlob[]): boolean {
  for (const blob of blobs) {
    if (blob.base !== null && !store?.blobs.get(blob.channel)?.has(blob.base)) return true;
  }
  return false;
}

/**
 * Records and metadata as private copies when the serde is the JSON one (they are plain data,
 * and a copy is ~25x cheaper than JSON there and back); anything a copy cannot hold exactly,
 * and everything under a custom serde, is serialised.
 */
class KeptRecords implements RecordKeeper<Kept> {
  private readonly copies: boolean;

  constructor(private readonly serde: Serializer) {
    this.copies = serde instanceof JsonSerializer;
  }

  record(checkpoint: Checkpoint): Kept {
    return this.keep(recordOf(checkpoint), "checkpoint");
  }

  metadata(metadata: CheckpointMetadata): Kept {
    return this.keep(metadata, "metadata");
  }

  /** A fresh object each time: the caller may change what it is given. */
  read(kept: Kept): unknown {
    if (typeof kept === "string" || kept instanceof Uint8Array) return this.serde.loads(kept);
    return copyPlain(kept);
  }

  private keep(value: object, path: string): Kept {
    const copy = this.copies ? copyPlain(value) : NOT_PLAIN;
    return copy === NOT_PLAIN ? this.serde.dumps(value, path) : copy;
  }
}
