import { everyName } from "../errors/options.js";
import { KeptRecords } from "./compact-records.js";
import type { DeltaOptions } from "./delta.js";
import { KIT_OPTIONS, refuseUnknownOptions } from "./kit/known-options.js";
import type { ListCandidate, ListScope } from "./kit/list-scope.js";
import { type PutOutcome, type PutSteps, putInSteps } from "./kit/put-steps.js";
import { type PreparedWrites, SaverKit, type SaverKitOptions } from "./kit/saver-kit.js";
import { MemoryClaims } from "./memory-claims.js";
import type { Kept } from "./memory-tables.js";
import { MemoryThreads } from "./memory-threads.js";
import type { PreparedBlob, PreparedPut } from "./prepare.js";
import type { PruneRequest, RetentionOptions } from "./retention.js";
import type { Serializer } from "./serde.js";
import type { CheckpointTuple, ThreadClaim } from "./types.js";

export interface MemorySaverOptions extends DeltaOptions, RetentionOptions {
  serde?: Serializer;
  /**
   * Threads kept live (default 1000, the most recently used); the others are frozen into one
   * string each (~2.5x smaller) and thawed when used again. Only with the default JSON serde:
   * with a custom serde every thread stays live, and setting this throws `InvalidSaverOptionError`.
   */
  liveThreads?: number;
}

/** What `MemorySaverOptions` names: any other option is refused. */
const MEMORY_OPTIONS = [
  ...KIT_OPTIONS,
  ...everyName<Exclude<keyof MemorySaverOptions, keyof SaverKitOptions>>({ liveThreads: 1 }),
];

/**
 * Checkpoints in process memory, for tests, demos and single-process apps. Channel values are
 * stored serialised, records packed, and metadata and pending writes as private copies (or
 * serialised), so changing a state object after it was saved cannot change history. Threads
 * beyond the `liveThreads` most recently used are frozen into one string each
 * (memory-threads.ts): a paused thread costs ~1 kB.
 */
export class MemorySaver extends SaverKit<Kept> {
  private readonly threads: MemoryThreads;
  private readonly claims: MemoryClaims;
  private readonly steps: PutSteps<Kept>;
  /** Set when threads expire (`ttlMs`): puts stamp their thread. */
  private readonly clock: (() => number) | undefined;

  constructor(options: MemorySaverOptions = {}) {
    super(options, (serde) => new KeptRecords(serde));
    refuseUnknownOptions("MemorySaver", options, MEMORY_OPTIONS);
    this.threads = new MemoryThreads(this.keeper as KeptRecords, options.liveThreads);
    this.claims = new MemoryClaims(this.now);
    this.clock = this.ttlMs !== undefined && this.ttlMs > 0 ? this.now : undefined;
    this.steps = new MemoryPutSteps(this.threads, this.clock);
    this.sweepPeriodically(options);
  }

  protected storePut(put: PreparedPut<Kept>): PutOutcome {
    return putInSteps(put, this.steps);
  }

  protected storeWrites({ threadId, ns, checkpointId, taskId, rows }: PreparedWrites<Kept>): void {
    const tables = this.threads.toWrite(threadId, this.clock ? this.clock() : 0).namespaceToWrite(ns);
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
    for (const [threadId, thread] of this.threads.peek(scope.threadId)) {
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
    return this.threads.ids();
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
    for (const threadId of this.threads.ids()) {
      if (this.threads.touchedAt(threadId) >= cutoff) continue;
      await this.deleteThread(threadId);
      removed++;
    }
    return removed;
  }
}

/** LangGraph's name for the same saver. */
export { MemorySaver as InMemorySaver };

/** The put's primitive steps on the in-memory tables. */
class MemoryPutSteps implements PutSteps<Kept> {
  constructor(
    private readonly threads: MemoryThreads,
    private readonly clock: (() => number) | undefined,
  ) {}

  head(put: PreparedPut<Kept>): string | null {
    return this.threads.get(put.threadId)?.namespace(put.ns)?.head()?.id ?? null;
  }

  hasBlob(put: PreparedPut<Kept>, channel: string, version: number): boolean {
    return this.threads.get(put.threadId)?.namespace(put.ns)?.hasBlob(channel, version) ?? false;
  }

  writeBlob(put: PreparedPut<Kept>, blob: PreparedBlob): void {
    this.tables(put).putBlob(blob.channel, blob.version, blob.base, blob.data);
  }

  writeCheckpoint(put: PreparedPut<Kept>): void {
    this.tables(put).putRow(put.id, put.parentId, put.record, put.metadata);
    if (this.clock) this.threads.get(put.threadId)!.touchedAt = this.clock();
  }

  private tables(put: PreparedPut<Kept>) {
    return this.threads.toWrite(put.threadId, this.clock ? this.clock() : 0).namespaceToWrite(put.ns);
  }
}
