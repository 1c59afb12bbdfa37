import { InterludeError } from "../errors/base.js";

export interface PruneOptions {
  /** Keep this many newest checkpoints per (thread, namespace). */
  keepLast?: number;
  /** Remove checkpoints created before this time (a Date), or more than this many milliseconds ago (a number). */
  olderThan?: Date | number;
}

/** A prune call in one form: which thread (all when absent), and what may go. */
export interface PruneRequest {
  threadId?: string;
  keepLast?: number;
  /** Epoch ms: checkpoints created before it may go. */
  cutoff?: number;
  /**
   * A rewind (`SaverKit.rewindThread`): every checkpoint whose id is greater goes, the newest
   * included, in every namespace; the other fields are then ignored.
   */
  after?: string;
}

/** Retention options every saver accepts. */
export interface RetentionOptions {
  /** Threads with no checkpoint written for this long are deleted by `sweep()` (and automatically, see each saver). */
  ttlMs?: number;
  /** How often the saver sweeps on its own when `ttlMs` is set (default: ttlMs / 2, at most one minute). 0: never, call `sweep()` yourself. */
  sweepIntervalMs?: number;
  /** Clock, for tests. */
  now?: () => number;
}

export class InvalidPruneError extends InterludeError {
  constructor(message: string) {
    super("INVALID_PRUNE", message);
  }
}

/** `prune(threadId, { keepLast })`, `prune({ olderThan })` or both, as one request. */
export function pruneRequest(
  target: string | PruneOptions,
  options: PruneOptions | undefined,
  now: number,
): PruneRequest {
  const threadId = typeof target === "string" ? target : undefined;
  const { keepLast, olderThan } = typeof target === "string" ? (options ?? {}) : target;
  if (keepLast === undefined && olderThan === undefined) {
    throw new InvalidPruneError(
      "prune needs keepLast or olderThan, e.g. prune(threadId, { keepLast: 10 }) or prune({ olderThan: 7 * 86_400_000 }).",
    );
  }
  if (keepLast !== undefined && !(Number.isInteger(keepLast) && keepLast >= 1)) {
    throw new InvalidPruneError(
      `keepLast must be a whole number of at least 1 (the newest checkpoint is always kept), got ${keepLast}.`,
    );
  }
  if (keepLast !== undefined && threadId === undefined) {
    throw new InvalidPruneError("keepLast applies to one thread: prune(threadId, { keepLast }).");
  }
  const cutoff =
    olderThan === undefined ? undefined : olderThan instanceof Date ? olderThan.getTime() : now - olderThan;
  return { threadId, keepLast, cutoff };
}

/**
 * Which checkpoints of one (thread, namespace) a prune removes, given them newest first.
 * The newest is always kept (it is what the thread resumes from), unless rewinding.
 */
export function checkpointsToPrune(
  newestFirst: ReadonlyArray<{ id: string; createdAt: number }>,
  request: PruneRequest,
): string[] {
  const { after } = request;
  if (after !== undefined) return newestFirst.filter((row) => row.id > after).map((row) => row.id);
  const keep = Math.max(1, request.keepLast ?? 1);
  const out: string[] = [];
  for (let i = keep; i < newestFirst.length; i++) {
    const row = newestFirst[i]!;
    if (request.cutoff === undefined || row.createdAt < request.cutoff) out.push(row.id);
  }
  return out;
}

/** Epoch ms of an ISO timestamp, or of the id's embedded time when the timestamp is unusable. */
export function createdAtOf(ts: string, id: string): number {
  const parsed = Date.parse(ts);
  if (!Number.isNaN(parsed)) return parsed;
  const fromId = Number.parseInt(id.replace(/-/g, "").slice(0, 12), 16);
  return Number.isNaN(fromId) ? 0 : fromId;
}

export function sweepInterval(options: RetentionOptions): number {
  if (!options.ttlMs) return 0;
  return options.sweepIntervalMs ?? Math.min(60_000, Math.max(1, Math.floor(options.ttlMs / 2)));
}
