/**
 * What a caller sees of the state: `outputKeys` as LangGraph takes it (one key's value when a
 * string, those keys when a list), else every key given.
 */
import { GraphValueError } from "../errors/graph.js";
import type { GraphSpec } from "./spec.js";

export type OutputKeys = string | readonly string[];

export function selectOutput(values: Record<string, unknown>, keys: OutputKeys | undefined): unknown {
  if (keys === undefined) return values;
  if (typeof keys === "string") return values[keys];
  const out: Record<string, unknown> = {};
  for (const key of keys) if (key in values) out[key] = values[key];
  return out;
}

/** Whether the caller reads `key`: one of the run's `outputKeys`, else any key of the state. */
export function isOutputKey(spec: GraphSpec, keys: OutputKeys | undefined, key: string): boolean {
  if (keys === undefined) return spec.stateKeySet.has(key);
  return typeof keys === "string" ? keys === key : keys.includes(key);
}

/** A run's `outputKeys`, refused when it names a key the state does not have. */
export function checkOutputKeys(spec: GraphSpec, keys: OutputKeys | undefined): void {
  if (keys === undefined) return;
  for (const key of typeof keys === "string" ? [keys] : keys)
    if (!spec.stateKeySet.has(key))
      throw new GraphValueError(
        `outputKeys names "${key}", which is not a key of the graph's state. Its keys: ${spec.stateKeys.join(", ")}.`,
      );
}
