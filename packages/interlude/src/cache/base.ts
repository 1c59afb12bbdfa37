/**
 * Where nodes' results are cached across runs and threads (`compile({ cache })` with
 * `addNode(name, fn, { cachePolicy })`, or `task({ name, cachePolicy })`). The same shape as
 * LangGraph's `BaseCache`, so either's implementations serve both.
 */
import { defaultSerializer, type Serializer } from "../checkpoint/serde.js";

export type CacheNamespace = string[];
export type CacheFullKey = [namespace: CacheNamespace, key: string];

/** How a node's results are cached: `ttl` in seconds (none: kept until cleared), `keyFunc` from its input. */
export interface CachePolicy {
  /** Makes the key from `[input]` (default: its JSON). Inputs with the same key share a result. */
  keyFunc?: (args: unknown[]) => string;
  ttl?: number;
}

/** A `cachePolicy` option as a policy: `true` is the defaults, `false` or none is no caching. */
export function cachePolicyOf(option: CachePolicy | boolean | undefined): CachePolicy | undefined {
  return option === true ? {} : option || undefined;
}

export abstract class BaseCache<V = unknown> {
  constructor(readonly serde: Serializer = defaultSerializer) {}
  /** The entries found (missing and expired keys are left out). */
  abstract get(keys: CacheFullKey[]): Promise<Array<{ key: CacheFullKey; value: V }>>;
  abstract set(pairs: Array<{ key: CacheFullKey; value: V; ttl?: number }>): Promise<void>;
  /** Empties these namespaces, or everything when none is given. */
  abstract clear(namespaces: CacheNamespace[]): Promise<void>;
}
