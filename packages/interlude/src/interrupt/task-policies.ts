/**
 * What `task({ name, retry, timeout, cachePolicy }, fn)` adds around a call: its retries, a
 * limit on each attempt, and its result kept in the graph's cache, keyed by its arguments.
 */
import { type BaseCache, type CachePolicy, cachePolicyOf } from "../cache/base.js";
import { cacheKey, taskNamespace } from "../cache/key.js";
import { type RetryPolicy, waitToRetry } from "../runner/retry.js";
import { currentTask } from "../runner/scope.js";
import { AttemptClock, type TimeoutPolicy, timeoutPolicy } from "../runner/timeout.js";
import { GraphBubbleUp } from "./signal.js";

export interface CallPolicies {
  /** Runs the call again when it fails, as a node's retryPolicy. */
  retry?: RetryPolicy;
  /** Limits on each attempt (ms, or a policy); a late attempt's result is dropped. */
  timeout?: number | TimeoutPolicy;
  /** Keep the result in the graph's cache (`compile({ cache })`) for calls with the same arguments. */
  cachePolicy?: CachePolicy | boolean;
  /** LangGraph.js's older name of `cachePolicy`, read as it reads it: when `cachePolicy` is not given. */
  cache?: CachePolicy | boolean;
}

/** `body` under the call's policies; checked when the task is declared (`policiesOf`). */
export function governed<T>(name: string, policies: ResolvedPolicies, body: () => Promise<T>): () => Promise<T> {
  const { retry, timeout } = policies;
  const once = timeout ? () => new AttemptClock(name, timeout).race(body(), () => true) : body;
  if (!retry) return once;
  return async () => {
    for (let failures = 1; ; failures++) {
      try {
        return await once();
      } catch (error) {
        if (error instanceof GraphBubbleUp) throw error;
        // The calling node's run: a cancelled one retries nothing.
        if (!(await waitToRetry(retry, failures, error, currentTask()?.run.signal))) throw error;
      }
    }
  };
}

export interface ResolvedPolicies {
  retry?: RetryPolicy;
  timeout?: TimeoutPolicy;
  cachePolicy?: CachePolicy;
}

export function policiesOf(name: string, options: CallPolicies): ResolvedPolicies {
  return {
    retry: options.retry,
    timeout: timeoutPolicy(name, options.timeout),
    cachePolicy: cachePolicyOf(options.cachePolicy ?? options.cache),
  };
}

/**
 * The cached result of `args`, or `body`'s, then kept unless `answered()` says the call used a
 * person's answer (never reused for another thread, as for nodes). Without a cache or policy,
 * just `body`.
 */
export async function throughCache<T>(
  cache: BaseCache | undefined,
  name: string,
  policy: CachePolicy | undefined,
  args: unknown[],
  body: () => Promise<T>,
  answered: () => boolean,
): Promise<{ value: T; cached: boolean }> {
  if (!cache || !policy) return { value: await body(), cached: false };
  const key = cacheKey(taskNamespace(name), policy, args);
  const [hit] = await cache.get([key]);
  if (hit) return { value: hit.value as T, cached: true };
  const value = await body();
  if (!answered()) await cache.set([{ key, value, ttl: policy.ttl }]);
  return { value, cached: false };
}
