/** LangGraph's retry policy for a node: how often and how long to wait before running it again. */
export interface RetryPolicy {
  /** Total attempts including the first (default 3). */
  maxAttempts?: number;
  /** Milliseconds before the first retry (default 500). */
  initialInterval?: number;
  backoffFactor?: number;
  maxInterval?: number;
  jitter?: boolean;
  /** Which errors to retry (default: all). */
  retryOn?: (error: unknown) => boolean;
}

/** Delay before attempt `attempt` (1-based count of failures so far), or undefined to give up. */
export function retryDelay(
  policy: RetryPolicy | undefined,
  attempt: number,
  error: unknown,
  random = Math.random,
): number | undefined {
  if (!policy) return undefined;
  const max = policy.maxAttempts ?? 3;
  if (attempt >= max) return undefined;
  if (policy.retryOn && !policy.retryOn(error)) return undefined;
  const base = (policy.initialInterval ?? 500) * (policy.backoffFactor ?? 2) ** (attempt - 1);
  const capped = Math.min(base, policy.maxInterval ?? 128_000);
  return policy.jitter ? capped * (0.5 + random()) : capped;
}
