import type { PruneOptions } from "./retention.js";
import { InvalidPruneError } from "./retention.js";
import type {
  ChannelVersions,
  Checkpoint,
  CheckpointListOptions,
  CheckpointMetadata,
  CheckpointTuple,
  ClaimHolder,
  PutOptions,
  PutWritesOptions,
  RunnableConfig,
  ThreadClaim,
} from "./types.js";

/** Counters a saver keeps of what it wrote; the conformance suite uses them to see delta sharing. */
export interface SaverStats {
  checkpointsWritten: number;
  /** Channel values written (full copies and appends). */
  blobsWritten: number;
  /** Of those, appends stored as `{ base version, appended items }`. */
  deltaBlobsWritten: number;
  /** Serialised bytes of checkpoints, metadata, channel values and writes. */
  bytesWritten: number;
}

/**
 * The storage contract every checkpointer implements (same method names as LangGraph.js's
 * `BaseCheckpointSaver`, plus the thread claim and compare-and-swap Interlude needs for its
 * one-writer-per-thread rule). Every saver must pass the shared conformance suite.
 *
 * Storage model: a checkpoint's `channel_values` are stored per (channel, version); `put`
 * stores only the channels listed in `newVersions`, so a step costs what it changed, not the
 * size of the whole state. `getTuple` returns the full values again.
 */
export abstract class BaseCheckpointSaver {
  readonly stats: SaverStats = { checkpointsWritten: 0, blobsWritten: 0, deltaBlobsWritten: 0, bytesWritten: 0 };

  /** The checkpoint named by `configurable.checkpoint_id`, or the thread's newest one. */
  abstract getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined>;

  /** The checkpoint alone (LangGraph's `saver.get(config)`): `getTuple`'s without its metadata and writes. */
  async get(config: RunnableConfig): Promise<Checkpoint | undefined> {
    return (await this.getTuple(config))?.checkpoint;
  }

  /**
   * The id of the thread's newest checkpoint in `checkpoint_ns` (default ""), or undefined when
   * it has none. Savers override it to read the id alone instead of the whole checkpoint.
   */
  async getHeadId(threadId: string, checkpointNs = ""): Promise<string | undefined> {
    return (await this.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: checkpointNs } }))?.checkpoint.id;
  }

  /** Checkpoints of a thread (and namespace), newest first. */
  abstract list(config: RunnableConfig, options?: CheckpointListOptions): AsyncGenerator<CheckpointTuple>;

  /**
   * Saves a checkpoint as a child of `config.configurable.checkpoint_id` (if any) and returns
   * the config that addresses it. Only channels in `newVersions` are written: `channel_values`
   * holds at least those of them that have a value (one in `newVersions` but absent from
   * `channel_values` was cleared); the values of other channels may be omitted.
   */
  abstract put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
    options?: PutOptions,
  ): Promise<RunnableConfig>;

  /**
   * Saves writes of one task against the checkpoint in `config`. Writes to the reserved
   * channels in `WRITES_IDX_MAP` replace that task's earlier write to the same channel.
   */
  abstract putWrites(
    config: RunnableConfig,
    writes: Array<[channel: string, value: unknown]>,
    taskId: string,
    options?: PutWritesOptions,
  ): Promise<void>;

  /** Resolves once every write made so far is durable (only savers that batch commits have anything to do). */
  flush(): Promise<void> {
    return Promise.resolve();
  }

  /** Removes every checkpoint and write of the thread, in all namespaces. */
  abstract deleteThread(threadId: string): Promise<void>;

  /**
   * Claims the thread for one run. Returns false when another owner holds an unexpired claim.
   * Claiming again with the same owner renews it. Durable savers store the claim so it holds
   * across processes; the claim lapses after `ttlMs` so a crashed process frees its threads.
   */
  abstract claimThread(threadId: string, claim: ThreadClaim): Promise<boolean>;

  /** Gives the claim back (no-op when `owner` no longer holds it). */
  abstract releaseThread(threadId: string, owner: string): Promise<void>;

  /**
   * Who holds the thread's claim (undefined: nobody, or this saver cannot tell). Savers that
   * can tell let a claim whose owner is known dead be taken over at once (`ThreadClaim.replaces`)
   * and say when a live one lapses.
   */
  async claimHolder(_threadId: string): Promise<ClaimHolder | undefined> {
    return undefined;
  }

  /**
   * Removes old checkpoints (and their writes and the channel values only they used):
   * `prune(threadId, { keepLast: 10 })`, `prune({ olderThan: 7 * 86_400_000 })` (ms ago, or a Date),
   * or both. The newest checkpoint of each (thread, namespace) always stays, values and pending
   * writes intact, so the thread resumes as before. Returns how many checkpoints were removed.
   */
  prune(target: string | PruneOptions, options?: PruneOptions): Promise<number> {
    void target;
    void options;
    return Promise.reject(new InvalidPruneError(`${this.constructor.name} does not support pruning.`));
  }

  /** Deletes threads idle longer than the saver's `ttlMs`; returns how many. No-op without `ttlMs`. */
  sweep(): Promise<number> {
    return Promise.resolve(0);
  }

  /**
   * `"[ClassName]"`: a config holding a saver (a node's `config`, a traced run's) is written out
   * without walking its connections, which may hold timers or refer to themselves.
   */
  toJSON(): string {
    return `[${this.constructor.name}]`;
  }

  /** Stops timers and closes connections the saver opened itself (never ones it was given). */
  close(): Promise<void> {
    return Promise.resolve();
  }
}

export function threadIdOf(config: RunnableConfig): string | undefined {
  const id = config.configurable?.thread_id;
  return id === undefined || id === null ? undefined : String(id);
}

export function checkpointNsOf(config: RunnableConfig): string {
  return (config.configurable?.checkpoint_ns as string | undefined) ?? "";
}

export function checkpointIdOf(config: RunnableConfig): string | undefined {
  return config.configurable?.checkpoint_id as string | undefined;
}
