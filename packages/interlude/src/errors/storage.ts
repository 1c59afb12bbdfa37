import { InterludeError } from "./base.js";

/** Another run holds the thread. Nothing ran; retry when it has finished. */
export class ThreadBusyError extends InterludeError {
  readonly threadId: string;
  /** When the holder's claim lapses unless renewed (ms since the epoch), when the saver can tell. */
  readonly claimExpiresAt?: number;
  constructor(threadId: string, claimExpiresAt?: number) {
    super(
      "THREAD_BUSY",
      `Thread "${threadId}" is being run by another caller. Nothing was run or changed; ` +
        `wait for that run to finish (or pause) and try again.` +
        (claimExpiresAt === undefined
          ? ""
          : ` If its process died, the claim lapses at ${new Date(claimExpiresAt).toISOString()} (in ${Math.max(0, Math.ceil((claimExpiresAt - Date.now()) / 1000))} s).`),
      { details: { thread_id: threadId } },
    );
    this.threadId = threadId;
    if (claimExpiresAt !== undefined) this.claimExpiresAt = claimExpiresAt;
  }
}

/**
 * The run's claim on its thread went to someone else while it ran (it could not renew it in
 * time, and another run, or a server that took its process for dead, has the thread now). The
 * run stopped before its next write: nothing after its last saved checkpoint was stored.
 */
export class ThreadClaimLostError extends InterludeError {
  readonly threadId: string;
  constructor(threadId: string) {
    super(
      "THREAD_CLAIM_LOST",
      `This run's claim on thread "${threadId}" lapsed and was taken by another caller before the run's next write, ` +
        "so the run stopped without writing again; the thread keeps its last saved checkpoint. " +
        "Read the thread again (getState()) before running it: whoever holds it now may have moved it on. " +
        "A run whose process is paused or cut off from storage for longer than its claim's TTL (claimTtlMs) loses its claim.",
      { details: { thread_id: threadId } },
    );
    this.threadId = threadId;
  }
}

/** A checkpoint write lost a compare-and-swap: someone else wrote the thread first. */
export class CheckpointConflictError extends InterludeError {
  constructor(threadId: string, expected: string | null, actual: string | null) {
    super(
      "CHECKPOINT_CONFLICT",
      `Thread "${threadId}" changed while this run was writing it (expected head ${expected ?? "none"}, found ${actual ?? "none"}). ` +
        `This write was discarded; reload the thread with getState() and retry.`,
    );
  }
}

/**
 * The storage backend failed (down, full, read-only). The last good checkpoint is intact.
 * `advice`: what to do, where that is not to retry a thread's call (say, at a process's start).
 */
export class StorageError extends InterludeError {
  constructor(
    operation: string,
    cause: unknown,
    advice = "The thread is unchanged since its last saved checkpoint; retry once storage is back.",
  ) {
    const text = cause instanceof Error ? cause.message : String(cause);
    super("STORAGE_FAILED", `Checkpoint storage failed during ${operation}: ${text}. ${advice}`, { cause });
  }
}

/** A value cannot be stored (a function, a symbol, an unregistered class). */
export class SerializationError extends InterludeError {
  constructor(message: string) {
    super("SERIALIZATION", message);
  }
}

/** A saver was constructed (or called) with an option value it cannot use. */
export class InvalidSaverOptionError extends InterludeError {
  constructor(option: string, value: unknown, expected: string) {
    super("INVALID_SAVER_OPTION", `${option} is ${String(value)}; it must be ${expected}.`);
  }

  /** An option the saver does not take at all; `instead` says what it takes, or what to do. */
  static notTaken(option: { name: string; value: unknown }, instead: string): InvalidSaverOptionError {
    return new InvalidSaverOptionError(
      option.name,
      JSON.stringify(option.value) ?? String(option.value),
      `left out: ${instead}`,
    );
  }
}
