import type { DeltaOptions, StoredBlob } from "./delta.js";
import type { ListCandidate, ListScope } from "./kit/list-scope.js";
import { type PutOutcome, type PutSteps, putInSteps } from "./kit/put-steps.js";
import { type PreparedWrites, SaverKit, type StoredWrite } from "./kit/saver-kit.js";
import { MemoryClaims } from "./memory-claims.js";
import { copyPlain, NOT_PLAIN } from "./plain-copy.js";
import type { PreparedBlob, PreparedPut } from "./prepare.js";
import type { PruneRequest, RetentionOptions } from "./retention.js";
import { JsonSerializer, type Serializer } from "./serde.js";
import { recordOf } from "./tuple.js";
import type { Checkpoint, CheckpointMetadata, CheckpointTuple, ThreadClaim } from "./types.js";

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
export class MemorySaver extends SaverKit<Kept> {
  private readonly threads = new Map<string, ThreadStore>();
  private readonly claims: MemoryClaims;
  private readonly steps: PutSteps<Kept>;

  constructor(options: MemorySaverOptions = {}) {
    super(options, (serde) => new KeptRecords(serde));
    this.claims = new MemoryClaims(this.now);
    this.steps = new MemoryPutSteps(this.threads, this.now, this.ttlMs !== undefined && this.ttlMs > 0);
    this.sweepPeriodically(options);
  }

  protected storePut(put: PreparedPut<Kept>): PutOutcome {
    return putInSteps(put, this.steps);
  }

  protected storeWrites({ threadId, ns, checkpointId, taskId, rows }: PreparedWrites): void {
    const store = namespaceOf(this.threads, threadId, ns, this.now);
    let slots = store.writes.get(checkpointId);
    if (!slots) store.writes.set(checkpointId, (slots = new Map()));
    for (const row of rows) {
      const key = `${taskId}\u0000${row.idx}`;
      if (row.replace || !slots.has(key)) slots.set(key, { taskId, channel: row.channel, data: row.data });
    }
  }

  protected loadTuple(threadId: string, ns: string, id: string | undefined): CheckpointTuple | undefined {
    const store = this.threads.get(threadId)?.namespaces.get(ns);
    const at = id ?? store?.order[store.order.length - 1];
    const stored = at === undefined ? undefined : store?.checkpoints.get(at);
    if (!store || !stored) return undefined;
    const blobs = store.blobs;
    const lookup = (channel: string, version: number) => blobs.get(channel)?.get(version);
    return this.tupleOf(threadId, ns, stored, lookup, store.writes.get(at!)?.values() ?? []);
  }

  protected listCandidates(scope: ListScope): Array<ListCandidate<Kept>> {
    const candidates: Array<ListCandidate<Kept>> = [];
    for (const [threadId, thread] of this.threadsOf(scope.threadId)) {
      for (const [ns, store] of thread.namespaces) {
        if (scope.ns !== undefined && ns !== scope.ns) continue;
        for (const id of store.order) {
          if (scope.id !== undefined && id !== scope.id) continue;
          if (scope.before !== undefined && id >= scope.before) continue;
          candidates.push({ threadId, ns, id, metadata: store.checkpoints.get(id)!.metadata });
        }
      }
    }
    return candidates.sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  }

  protected removeThread(threadId: string): void {
    this.threads.delete(threadId);
  }

  protected threadsCreatedBefore(): Iterable<string> {
    return [...this.threads.keys()];
  }

  protected pruneThread(threadId: string, request: PruneRequest): number {
    const thread = this.threads.get(threadId);
    if (!thread) return 0;
    const checkpoints = [];
    const blobs = [];
    for (const [ns, store] of thread.namespaces) {
      for (const [id, stored] of store.checkpoints) checkpoints.push({ ns, id, record: stored.record });
      for (const [channel, versions] of store.blobs)
        for (const [version, blob] of versions) blobs.push({ ns, channel, version, base: blob.base });
    }
    const plan = this.planPrune(request, checkpoints, blobs);
    for (const { ns, checkpoints: doomed, blobs: unread } of plan.namespaces) {
      const store = thread.namespaces.get(ns)!;
      for (const id of doomed) {
        store.checkpoints.delete(id);
        store.writes.delete(id);
      }
      const gone = new Set(doomed);
      store.order = store.order.filter((id) => !gone.has(id));
      for (const { channel, version } of unread) {
        const versions = store.blobs.get(channel)!;
        versions.delete(version);
        if (versions.size === 0) store.blobs.delete(channel);
      }
    }
    return plan.removed;
  }

  async claimThread(threadId: string, claim: ThreadClaim): Promise<boolean> {
    return this.claims.claim(threadId, claim);
  }

  async releaseThread(threadId: string, owner: string): Promise<void> {
    this.claims.release(threadId, owner);
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

  private threadsOf(threadId: string | undefined): Iterable<[string, ThreadStore]> {
    if (threadId === undefined) return this.threads;
    const thread = this.threads.get(threadId);
    return thread ? [[threadId, thread]] : [];
  }
}

/** LangGraph's name for the same saver. */
export { MemorySaver as InMemorySaver };

/** The put's primitive steps on the in-memory tables. */
class MemoryPutSteps implements PutSteps<Kept> {
  constructor(
    private readonly threads: Map<string, ThreadStore>,
    private readonly now: () => number,
    /** Threads expire (`ttlMs`): a put marks its thread as touched. */
    private readonly touches: boolean,
  ) {}

  head(put: PreparedPut<Kept>): string | null {
    const store = this.threads.get(put.threadId)?.namespaces.get(put.ns);
    return store?.order[store.order.length - 1] ?? null;
  }

  hasBlob(put: PreparedPut<Kept>, channel: string, version: number): boolean {
    return this.threads.get(put.threadId)?.namespaces.get(put.ns)?.blobs.get(channel)?.has(version) ?? false;
  }

  writeBlob(put: PreparedPut<Kept>, blob: PreparedBlob): void {
    const store = namespaceOf(this.threads, put.threadId, put.ns, this.now);
    let versions = store.blobs.get(blob.channel);
    if (!versions) store.blobs.set(blob.channel, (versions = new Map()));
    versions.set(blob.version, { base: blob.base, data: blob.data });
  }

  writeCheckpoint(put: PreparedPut<Kept>): void {
    const store = namespaceOf(this.threads, put.threadId, put.ns, this.now);
    const newest = store.order[store.order.length - 1];
    if (newest === undefined || put.id > newest) store.order.push(put.id);
    else if (!store.checkpoints.has(put.id)) insertOrdered(store.order, put.id);
    store.checkpoints.set(put.id, { parentId: put.parentId, record: put.record, metadata: put.metadata });
    if (this.touches) this.threads.get(put.threadId)!.touchedAt = this.now();
  }
}

function namespaceOf(threads: Map<string, ThreadStore>, threadId: string, ns: string, now: () => number) {
  let thread = threads.get(threadId);
  if (!thread) threads.set(threadId, (thread = { namespaces: new Map(), touchedAt: now() }));
  let store = thread.namespaces.get(ns);
  if (!store) {
    store = { checkpoints: new Map(), order: [], blobs: new Map(), writes: new Map() };
    thread.namespaces.set(ns, store);
  }
  return store;
}

function insertOrdered(order: string[], id: string): void {
  let i = order.length;
  while (i > 0 && order[i - 1]! > id) i--;
  order.splice(i, 0, id);
}

/**
 * Records and metadata as private copies when the serde is the JSON one (they are plain data,
 * and a copy is ~25x cheaper than JSON there and back); anything a copy cannot hold exactly,
 * and everything under a custom serde, is serialised.
 */
class KeptRecords {
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
