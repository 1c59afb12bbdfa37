import { createHash } from "node:crypto";
import type { CacheFullKey, CachePolicy } from "./base.js";

/** The namespace of a node's results, and of a `task()`'s (as LangGraph names them). */
export function nodeNamespace(node: string): string[] {
  return ["__pregel_ns_writes", "__dynamic__", node];
}

export function taskNamespace(name: string): string[] {
  return ["__pregel_ns_writes", name];
}

/**
 * The key of a result: a SHA-256 of `keyFunc([input])` or of `[input]`'s JSON. A cryptographic
 * hash because two inputs with one key share a result, across threads.
 */
export function cacheKey(namespace: string[], policy: CachePolicy, input: unknown): CacheFullKey {
  const text = policy.keyFunc ? policy.keyFunc([input]) : JSON.stringify([input]);
  return [namespace, createHash("sha256").update(String(text)).digest("hex")];
}
