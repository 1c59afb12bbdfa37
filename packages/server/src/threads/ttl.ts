/**
 * Thread TTLs, as LangGraph Server has them: a thread nobody has touched for its TTL is deleted
 * (strategy "delete") or cut down to its newest checkpoint ("keep_latest"). The TTL comes from
 * the thread's creation or update (`ttl` in minutes, as the SDK sends it) or from the config's
 * `checkpointer.ttl.default_ttl` for threads created without one. Each run touches the thread
 * (its `updated_at`), so a thread in use does not expire: the sweeper (ttl-sweeper.ts) reads the
 * stored expiry as "not before" and looks at the thread's last activity before acting.
 */

export type TtlStrategy = "delete" | "keep_latest";

export interface ThreadTtl {
  strategy: TtlStrategy;
  /** How long the thread may stay untouched. */
  ms: number;
}

export interface TtlPolicy {
  /** The TTL of a thread created without one (none: such threads stay). */
  default?: ThreadTtl;
  /** How often a process looks for threads past their TTL. */
  sweepMs: number;
}

export const MINUTE_MS = 60_000;
/** Every five minutes unless the config says otherwise: a TTL is counted in minutes at least. */
export const DEFAULT_SWEEP_MS = 5 * MINUTE_MS;

/**
 * A stateless run's thread is deleted by the process that made the run, once the run ends
 * (threads/delete.ts). Should that process stop or die first (the run goes on elsewhere), the
 * sweep deletes it instead, once no run has been in progress on it for a sweep interval: time
 * enough for its process to read the run's outcome from it and delete it first.
 */
export function temporaryThreadTtl(policy: TtlPolicy): ThreadTtl {
  return { strategy: "delete", ms: policy.sweepMs };
}

/** A TTL as the API takes it (`{ ttl: minutes, strategy? }`, validated by http/schemas.ts), else the default. */
export function ttlOf(
  given: { ttl: number; strategy?: TtlStrategy | null } | null | undefined,
  fallback: ThreadTtl | undefined,
): ThreadTtl | undefined {
  if (!given) return fallback;
  return { strategy: given.strategy ?? "delete", ms: given.ttl * MINUTE_MS };
}

/** When a thread last touched at `updatedAt` (ISO) is past `ttl` (ms since the epoch). */
export function dueAt(updatedAt: string, ttl: ThreadTtl): number {
  return Date.parse(updatedAt) + ttl.ms;
}
