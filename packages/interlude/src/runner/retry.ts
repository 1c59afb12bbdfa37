import { setTimeout as wait } from "node:timers/promises";

/** LangGraph's retry policy for a node: how often and how long to wait before running it again. */
export interface RetryPolicy {
  /** Total attempts including the first (default 3). */
  maxAttempts?: number;
  /** Milliseconds before the first retry (default 500). */
  initialInterval?: number;
  backoffFactor?: number;
  maxInterval?: number;
  /** Adds up to a second, at random, to each wait (default true), as LangGraph.js. */
  jitter?: boolean;
  /** Which errors to retry (default `defaultRetryOn`). */
  retryOn?: (error: unknown) => boolean;
  /** LangGraph.js logs each retry unless false; Interlude does not log retries (they show in traces). */
  logWarning?: boolean;
}

/** HTTP statuses a retry cannot fix (a bad request, auth, not found, a conflict); 408 and 429 are retried. */
const STATUS_NO_RETRY = new Set([400, 401, 402, 403, 404, 405, 406, 407, 409]);

/**
 * LangGraph.js's default: retry what may pass next time, not a cancel or abort, a value the
 * graph refused, an aborted connection, a client error status, or an exhausted quota.
 */
function defaultRetryOn(error: unknown): boolean {
  const e = error as {
    name?: unknown;
    message?: unknown;
    code?: unknown;
    status?: unknown;
    response?: { status?: unknown };
    error?: { code?: unknown };
  } | null;
  if (e === null || typeof e !== "object") return true;
  const message = typeof e.message === "string" ? e.message : "";
  if (message.startsWith("Cancel") || message.startsWith("AbortError") || e.name === "AbortError") return false;
  if (e.name === "GraphValueError" || e.code === "ECONNABORTED") return false;
  const status = e.response?.status ?? e.status;
  if (status !== undefined && status !== null && STATUS_NO_RETRY.has(Number(status))) return false;
  return e.error?.code !== "insufficient_quota";
}

/** Delay before attempt `attempt` (1-based count of failures so far), or undefined to give up. */
function retryDelay(
  policy: RetryPolicy | undefined,
  attempt: number,
  error: unknown,
  random = Math.random,
): number | undefined {
  if (!policy) return undefined;
  const max = policy.maxAttempts ?? 3;
  if (attempt >= max) return undefined;
  if (!(policy.retryOn ?? defaultRetryOn)(error)) return undefined;
  const base = (policy.initialInterval ?? 500) * (policy.backoffFactor ?? 2) ** (attempt - 1);
  const capped = Math.min(base, policy.maxInterval ?? 128_000);
  return (policy.jitter ?? true) ? capped + random() * 1000 : capped;
}

/**
 * Waits before the next attempt and says whether to make it: not when the policy gives up, nor
 * in a cancelled run (`signal`), not even after a wait it was cancelled during.
 */
export async function waitToRetry(
  policy: RetryPolicy | undefined,
  attempt: number,
  error: unknown,
  signal: AbortSignal | undefined,
): Promise<boolean> {
  const delay = retryDelay(policy, attempt, error);
  if (delay === undefined || signal?.aborted) return false;
  await wait(delay, undefined, { signal }).catch(() => undefined);
  return !signal?.aborted;
}
