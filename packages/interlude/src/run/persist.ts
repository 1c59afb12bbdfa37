/**
 * Saving a run's progress with the chosen durability: `sync` waits for every save, `async`
 * lets the next step start while saves complete in order, `exit` saves only when the run
 * stops (finished or paused).
 */
import type { BaseCheckpointSaver } from "../checkpoint/base.js";
import { checkpointConfig } from "../checkpoint/tuple.js";
import type {
  ChannelVersions,
  Checkpoint,
  CheckpointMetadata,
  PendingWrite,
  RunnableConfig,
} from "../checkpoint/types.js";
import { writeRows } from "../checkpoint/writes.js";
import { InterludeError } from "../errors/base.js";
import { StorageError } from "../errors/storage.js";
import type { HeldClaim } from "../thread/claim.js";

/** When a run's checkpoints are saved: `sync` before the next step, `async` while it runs, `exit` when the run stops. */
export type Durability = "sync" | "async" | "exit";

export interface SavedHead {
  /** As saved: carries only the values of channels changed since its parent. */
  checkpoint: Checkpoint;
  metadata: CheckpointMetadata;
  parentId: string | undefined;
  writes: PendingWrite[];
  /** (task, idx) -> position in `writes`; made at the first write. */
  slots?: Map<string, number>;
}

/** Adds writes as a saver keeps them (`writeRows`: reserved channels replace the task's earlier write, others never overwrite). */
function recordWrites(head: SavedHead, taskId: string, writes: ReadonlyArray<[string, unknown]>): void {
  const slots = (head.slots ??= new Map());
  for (const row of writeRows(writes)) {
    const slot = `${taskId}\u0000${row.idx}`;
    const at = slots.get(slot);
    if (at === undefined) {
      slots.set(slot, head.writes.length);
      head.writes.push([taskId, row.channel, row.value]);
    } else if (row.replace) head.writes[at] = [taskId, row.channel, row.value];
  }
}

/** Options of writes the run does not wait to be committed (it flushes once at its end). */
const NOT_DURABLE = { durable: false } as const;

export class Persistence {
  /** The newest save (undefined: none yet); queued saves run after it. */
  private tail: Promise<void> | undefined;
  /** Saves started directly and not finished yet. */
  private inFlight = 0;
  /** Saves queued behind another and not finished yet. */
  private queued = 0;
  private failure: unknown;
  /** Id of the newest checkpoint saved (or queued) by this run: the expected head of the next save. */
  head: string | null;
  /** Id of the checkpoint the next save is a child of. */
  parentId: string | undefined;
  /** Channels changed since the last save. */
  readonly changed = new Set<string>();
  /** The newest checkpoint built but not saved (durability "exit"). */
  private unsaved: { checkpoint: Checkpoint; metadata: CheckpointMetadata; releaseClaim?: string } | undefined;
  /** The head as this run saved it, with the writes saved against it since (undefined: the head predates the run). */
  private saved: SavedHead | undefined;
  /** Durability "sync": every save waits for its commit; else the run flushes once at its end. */
  private readonly durable: boolean;
  /** The newest save did not wait for its commit (`withNext`): drain() flushes it. */
  private lazy = false;

  constructor(
    private readonly saver: BaseCheckpointSaver | undefined,
    private readonly threadId: string | undefined,
    private readonly ns: string,
    /** The caller's own configurable keys, handed to every save (`callerKeys`). */
    private readonly keys: Record<string, unknown> | undefined,
    readonly durability: Durability,
    head: string | null,
    parentId: string | undefined,
    /** Keep the head as saved, with its writes, for `savedHead()` (a run told `onFinalState`); else not kept. */
    private readonly keepsHead = false,
    /** The claim the run holds on its thread: every save first makes sure it still does (`HeldClaim.confirmed`). */
    private readonly claim?: HeldClaim,
  ) {
    this.head = head;
    this.parentId = parentId;
    this.durable = durability === "sync";
  }

  configFor(checkpointId: string | undefined): RunnableConfig {
    return checkpointConfig(this.threadId, this.ns, checkpointId, this.keys);
  }

  private enqueue(operation: string, save: () => Promise<unknown>): Promise<void> {
    const work = this.claim ? this.underClaim(this.claim, save) : save;
    // Nothing in flight with durability "sync": save directly, without queueing (the common
    // case, one save per step, where the queue's promises were a fifth of a step's cost).
    if (this.durable && this.inFlight === 0 && !this.failure) return this.direct(operation, work);
    const run = async () => {
      try {
        if (!this.failure) await work();
      } catch (error) {
        this.failure = this.wrap(operation, error);
      } finally {
        this.queued--;
      }
    };
    this.queued++;
    // After a direct save, the tail may be that save's rejection (its caller has it).
    const next = (this.tail ?? Promise.resolve()).then(run, run);
    this.tail = next;
    if (this.durable) return next.then(() => this.check());
    return Promise.resolve();
  }

  /**
   * The save, once the claim is known to be held when it starts (queued saves start later): a
   * claim that may have lapsed is renewed first, so a run taken for dead writes nothing more.
   */
  private underClaim(claim: HeldClaim, save: () => Promise<unknown>): () => Promise<unknown> {
    return () => {
      const confirming = claim.confirmed();
      return confirming ? confirming.then(save) : save();
    };
  }

  /** One promise over the saver's: this runs at every step. */
  private direct(operation: string, work: () => Promise<unknown>): Promise<void> {
    this.inFlight++;
    let pending: unknown;
    try {
      pending = work();
    } catch (error) {
      pending = Promise.reject(error);
    }
    // A saver written without async may return a plain value.
    const done = (pending instanceof Promise ? pending : Promise.resolve(pending)).then(
      () => {
        this.inFlight--;
      },
      (error: unknown) => {
        this.inFlight--;
        this.failure = this.wrap(operation, error);
        throw this.failure;
      },
    );
    this.tail = done;
    return done;
  }

  private wrap(operation: string, error: unknown): unknown {
    return error instanceof InterludeError ? error : new StorageError(operation, error);
  }

  private check(): void {
    if (this.failure) throw this.failure;
  }

  /**
   * Saves a checkpoint built by the run (`force`: now, even with durability "exit").
   * @param releaseClaim the run's claim owner, when the run saves nothing after it (`PutOptions.releaseClaim`)
   * @param withNext no node runs before the next save (the input checkpoint): with durability
   * "sync" this one need not wait for its commit, which a saver that batches makes with the next
   * one's (a kill in between leaves the thread as it was before the run)
   */
  saveCheckpoint(
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    {
      force = false,
      releaseClaim,
      withNext = false,
    }: { force?: boolean; releaseClaim?: string | undefined; withNext?: boolean } = {},
  ): Promise<void> {
    if (!this.saver) return Promise.resolve();
    if (this.durability === "exit" && !force) {
      this.unsaved = { checkpoint, metadata, releaseClaim };
      return Promise.resolve();
    }
    this.unsaved = undefined;
    const versions: ChannelVersions = {};
    for (const channel of this.changed) {
      const version = checkpoint.channel_versions[channel];
      if (version !== undefined) versions[channel] = version;
    }
    this.changed.clear();
    const config = this.configFor(this.parentId);
    const expectedHead = this.head;
    if (this.keepsHead) this.saved = { checkpoint, metadata, parentId: this.parentId, writes: [] };
    this.head = checkpoint.id;
    this.parentId = checkpoint.id;
    const saver = this.saver;
    const durable = this.durable && !(withNext && releaseClaim === undefined);
    if (this.durable) this.lazy = !durable;
    const options = releaseClaim !== undefined ? { expectedHead, durable, releaseClaim } : { expectedHead, durable };
    return this.enqueue("put", () => saver.put(config, checkpoint, metadata, versions, options));
  }

  /**
   * Saves writes of a task against the checkpoint it was prepared from.
   * @param releaseClaim the run's claim owner, when these are the run's last writes (`PutWritesOptions.releaseClaim`)
   */
  saveWrites(
    checkpointId: string,
    taskId: string,
    writes: Array<[string, unknown]>,
    releaseClaim?: string,
  ): Promise<void> {
    if (!this.saver || writes.length === 0) return Promise.resolve();
    // Writes must follow the checkpoint they belong to, even one held back by durability "exit".
    if (this.unsaved?.checkpoint.id === checkpointId)
      void this.saveCheckpoint(this.unsaved.checkpoint, this.unsaved.metadata, { force: true });
    const saver = this.saver;
    const config = this.configFor(checkpointId);
    if (this.saved && checkpointId === this.head) recordWrites(this.saved, taskId, writes);
    this.lazy = false;
    const options =
      releaseClaim !== undefined ? { durable: this.durable, releaseClaim } : this.durable ? undefined : NOT_DURABLE;
    return this.enqueue("putWrites", () => saver.putWrites(config, writes, taskId, options));
  }

  /**
   * The head checkpoint if this run saved it: what a saver's getTuple would return for it, minus
   * channel values. Undefined unless the persistence `keepsHead`.
   */
  savedHead(): SavedHead | undefined {
    return this.saved;
  }

  /**
   * Saves the last checkpoint held back by durability "exit" (called when the run stops).
   * Undefined when there is none: the caller awaits nothing (every step of a run ends here).
   */
  flushUnsaved(): Promise<void> | undefined {
    const unsaved = this.unsaved;
    if (!unsaved) return undefined;
    return this.saveCheckpoint(unsaved.checkpoint, unsaved.metadata, {
      force: true,
      releaseClaim: unsaved.releaseClaim,
    });
  }

  /**
   * Waits for queued saves (durable, with any durability) and surfaces the first failure.
   * Undefined when every save has finished and none needs a flush (a run with durability "sync").
   */
  drain(): Promise<void> | undefined {
    if (this.inFlight === 0 && this.queued === 0 && !((!this.durable || this.lazy) && this.saver)) {
      this.check();
      return undefined;
    }
    return this.drainSaves();
  }

  private async drainSaves(): Promise<void> {
    // A rejected direct save is recorded as this.failure (and was thrown to its caller).
    await this.tail?.catch(() => undefined);
    this.check();
    if ((!this.durable || this.lazy) && this.saver) {
      try {
        await this.saver.flush();
      } catch (error) {
        throw (this.failure = this.wrap("flush", error));
      }
    }
  }
}
