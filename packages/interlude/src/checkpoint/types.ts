/**
 * The records that cross the storage boundary. They are plain data: a saver may serialise
 * them however it likes, but must give back exactly what it was given.
 */

/**
 * Version of a channel's value: strictly increasing along one history, and unique across forks
 * (an integer step plus a random fraction), so savers may key stored values by it.
 */
export type ChannelVersion = number;
export type ChannelVersions = Record<string, ChannelVersion>;

/** Schema version of the `Checkpoint` record. */
export const CHECKPOINT_VERSION = 1 as const;

export interface Checkpoint {
  /** Schema version of this record. */
  v: number;
  /** Time-ordered id: lexicographic order is creation order (see `newCheckpointId`). */
  id: string;
  /** ISO-8601 creation time. */
  ts: string;
  /** Current value of every channel that has one. */
  channel_values: Record<string, unknown>;
  channel_versions: ChannelVersions;
  /** For each node, the version of each trigger channel it last ran on. */
  versions_seen: Record<string, ChannelVersions>;
}

export type CheckpointSource = "input" | "loop" | "update" | "fork";

/** An answer given to interrupts, recorded for audit in the checkpoint that follows it. */
export interface ResumeRecord {
  /** Who answered (free text, from `Command({ by })` or the server's authentication). */
  by?: string;
  reason?: string;
  /** ISO-8601 time the answer was received. */
  at: string;
  /** interrupt id -> answer */
  answers: Record<string, unknown>;
}

export interface CheckpointMetadata {
  source: CheckpointSource;
  /** -1 for the input checkpoint, then 0, 1, 2, ... */
  step: number;
  /** checkpoint_ns -> checkpoint id of the parent graphs' checkpoints. */
  parents: Record<string, string>;
  /** node name -> update it returned in the step that produced this checkpoint. */
  writes?: Record<string, unknown> | null;
  /** Answers applied by the run that produced this checkpoint. */
  resume?: ResumeRecord[];
  [key: string]: unknown;
}

export interface Configurable {
  thread_id?: string;
  checkpoint_id?: string;
  checkpoint_ns?: string;
  /** Typed `any`, as LangChain's: a node reads its own keys (`config.configurable?.user_id`) without casts. */
  [key: string]: any;
}

export interface RunnableConfig {
  configurable?: Configurable;
  [key: string]: unknown;
}

/** `[taskId, channel, value]` */
export type PendingWrite = [taskId: string, channel: string, value: unknown];

export interface CheckpointTuple {
  config: RunnableConfig;
  checkpoint: Checkpoint;
  metadata: CheckpointMetadata;
  parentConfig?: RunnableConfig;
  pendingWrites: PendingWrite[];
}

export interface CheckpointListOptions {
  limit?: number;
  /** Only checkpoints strictly older than this one. */
  before?: RunnableConfig;
  /** Only checkpoints whose metadata has these key/values (shallow equality of JSON values). */
  filter?: Record<string, unknown>;
}

export interface PutOptions {
  /**
   * Compare-and-swap: the newest checkpoint of (thread, namespace) must currently be this id
   * (`null`: the thread must have no checkpoint in this namespace yet). When it is not, the
   * saver throws `CheckpointConflictError` and writes nothing. Omitted: no check.
   */
  expectedHead?: string | null;
  /**
   * false: the caller calls `flush()` before it relies on this write (a run with durability
   * "async" or "exit" does at its end), so a saver that batches commits may resolve before the
   * write is committed. Savers that commit every write ignore it.
   */
  durable?: boolean;
  /** The run saves nothing after this checkpoint: see `PutWritesOptions.releaseClaim`. */
  releaseClaim?: string;
}

/** Options of `putWrites` (see `PutOptions.durable`). */
export interface PutWritesOptions {
  durable?: boolean;
  /**
   * These are the last writes of a run holding the thread's claim as this owner: the caller
   * calls `releaseThread(threadId, owner)` next. A saver may release the claim along with the
   * writes (atomically, in one round trip) and then make that call free; one that ignores it
   * loses nothing.
   */
  releaseClaim?: string;
}

export interface ThreadClaim {
  /** Unique id of the run holding the thread. */
  owner: string;
  /** The claim lapses after this long unless renewed; a crashed process frees its threads. */
  ttlMs: number;
  /** Take the claim over from this owner even before it lapses: it is known to be dead (see thread/claim-owner.ts). */
  replaces?: string;
}

/** Who holds a thread's claim, and until when (ms since the epoch) unless renewed. */
export interface ClaimHolder {
  owner: string;
  expiresAt: number;
}
