import { PackedRecord, RecordPacker } from "./compact-records.js";
import type { DeltaOptions } from "./delta.js";
import type { ListCandidate, ListScope } from "./kit/list-scope.js";
import { type PutOutcome, type PutSteps, putInSteps } from "./kit/put-steps.js";
import { type PreparedWrites, SaverKit } from "./kit/saver-kit.js";
import { MemoryClaims } from "./memory-claims.js";
import { NamespaceTables } from "./memory-tables.js";
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

/** A thread's root namespace, and those of its subgraphs. */
class ThreadTables extends NamespaceTables<Kept> {
  /** Subgraph namespaces (most threads have none). */
  nested: Map<string, NamespaceTables<Kept>> | undefined;

  /** @param touchedAt when a checkpoint was last put (for `ttlMs`; 0 without it) */
  constructor(public touchedAt: number) {
    super();
  }

  namespace(ns: string): NamespaceTables<Kept> | undefined {
    return ns === "" ? this : this.nested?.get(ns);
  }

  *namespaces(): Generator<[string, NamespaceTables<Kept>]> {
    yield ["", this];
    if (this.nested) yield* this.nested;
  }
}

/**
 * Checkpoints in process memory, for tests, demos and single-process apps. Values are stored
 * serialised and records as private copies, so changing a state object after it was saved
 * cannot change history.
 */
export class MemorySaver extends SaverKit<Kept> {
  private readonly threads = new Map<string, ThreadTables>();
  private readonly claims: MemoryClaims;
  private readonly steps: PutSteps<Kept>;

  constructor(options: MemorySaverOptions = {}) {
    super(options, (serde) => new KeptRecords(serde));
    this.claims = new MemoryClaims(this.now);
    this.steps = new MemoryPutSteps(this.threads, this.ttlMs !== undefined && this.ttlMs > 0 ? this.now : undefined);
    this.sweepPeriodically(options);
  }

  protected storePut(put: PreparedPut<Kept>): PutOutcome {
    return putInSteps(put, this.steps);
  }

  protected storeWrites({ threadId, ns, checkpointId, taskId, rows }: PreparedWrites): void {
    const tables = namespaceOf(this.threads, threadId, ns, this.ttlMs ? this.now : undefined);
    for (const row of rows) tables.putWrite(checkpointId, taskId, row.idx, row.channel, row.data, row.replace);
  }

  protected loadTuple(threadId: string, ns: string, id: string | undefined): CheckpointTuple | undefined {
    const tables = this.threads.get(threadId)?.namespace(ns);
    const row = id === undefined ? tables?.head() : tables?.row(id);
    if (!tables || !row) return undefined;
    const lookup = (channel: string, version: number) => tables.blob(channel, version);
    return this.tupleOf(threadId, ns, row, lookup, tables.writesOf(row));
  }

  protected listCandidates(scope: ListScope): Array<ListCandidate<Kept>> {
    const candidates: Array<ListCandidate<Kept>> = [];
    for (const [threadId, thread] of this.threadsOf(scope.threadId)) {
      for (const [ns, tables] of thread.namespaces()) {
        if (scope.ns !== undefined && ns !== scope.ns) continue;
        for (const { id, metadata } of tables.rows) {
          if (scope.id !== undefined && id !== scope.id) continue;
          if (scope.before !== undefined && id >= scope.before) continue;
          candidates.push({ threadId, ns, id, metadata });
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
    for (const [ns, tables] of thread.namespaces()) {
      for (const { id, record } of tables.rows) checkpoints.push({ ns, id, record });
      for (const blob of tables.eachBlob()) blobs.push({ ns, ...blob });
    }
    const plan = this.planPrune(request, checkpoints, blobs);
    for (const { ns, checkpoints: doomed, blobs: unread } of plan.namespaces)
      thread.namespace(ns)!.remove(new Set(doomed), unread);
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

  private threadsOf(threadId: string | undefined): Iterable<[string, ThreadTables]> {
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
    private readonly threads: Map<string, ThreadTables>,
    /** Set when threads expire (`ttlMs`): a put marks its thread as touched. */
    private readonly now: (() => number) | undefined,
  ) {}

  head(put: PreparedPut<Kept>): string | null {
    return this.threads.get(put.threadId)?.namespace(put.ns)?.head()?.id ?? null;
  }

  hasBlob(put: PreparedPut<Kept>, channel: string, version: number): boolean {
    return this.threads.get(put.threadId)?.namespace(put.ns)?.hasBlob(channel, version) ?? false;
  }

  writeBlob(put: PreparedPut<Kept>, blob: PreparedBlob): void {
    namespaceOf(this.threads, put.threadId, put.ns, this.now).putBlob(blob.channel, blob.version, blob.base, blob.data);
  }

  writeCheckpoint(put: PreparedPut<Kept>): void {
    namespaceOf(this.threads, put.threadId, put.ns, this.now).putRow(put.id, put.parentId, put.record, put.metadata);
    if (this.now) this.threads.get(put.threadId)!.touchedAt = this.now();
  }
}

/** @param now set when threads expire: a new thread counts as touched */
function namespaceOf(
  threads: Map<string, ThreadTables>,
  threadId: string,
  ns: string,
  now: (() => number) | undefined,
): NamespaceTables<Kept> {
  let thread = threads.get(threadId);
  if (!thread) threads.set(threadId, (thread = new ThreadTables(now ? now() : 0)));
  if (ns === "") return thread;
  let tables = thread.nested?.get(ns);
  if (!tables) (thread.nested ??= new Map()).set(ns, (tables = new NamespaceTables()));
  return tables;
}

/**
 * Records and metadata when the serde is the JSON one (they are plain data): records packed
 * and metadata shared (`compact-records.ts`), else private copies (a copy is ~25x cheaper than
 * JSON there and back). Anything a copy cannot hold exactly, and everything under a custom
 * serde, is serialised.
 */
class KeptRecords {
  private readonly copies: boolean;
  private readonly packer = new RecordPacker();

  constructor(private readonly serde: Serializer) {
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
