import { registerSerializable } from "../checkpoint/serde-registry.js";

const OVERWRITE = "__overwrite__";

/** What `overwritten` returns for a write that is not an overwrite. */
export const NOT_OVERWRITE: unique symbol = Symbol("not an overwrite");

/** A write that replaces a reducer's value instead of being reduced into it (`Overwrite` is one, and so is its plain form). */
export interface OverwriteValue<ValueType> {
  __overwrite__: ValueType;
}

/**
 * Written to a state key with a reducer, replaces its value instead of being reduced into it
 * (`{ messages: new Overwrite([]) }` empties a message list). One per key and step.
 */
export class Overwrite<V = unknown> implements OverwriteValue<V> {
  readonly lg_name = "Overwrite";
  readonly [OVERWRITE]: V;
  constructor(value: V) {
    this[OVERWRITE] = value;
  }
  get value(): V {
    return this[OVERWRITE];
  }
  toJSON(): { [OVERWRITE]: V } {
    return { [OVERWRITE]: this[OVERWRITE] };
  }
  /** Whether `value` is an overwrite: an `Overwrite`, its JSON `{ __overwrite__ }`, or tagged `lg_name: "Overwrite"`. */
  static isInstance(value: unknown): value is Overwrite | OverwriteValue<unknown> {
    if (typeof value !== "object" || value === null) return false;
    return OVERWRITE in value || (value as { lg_name?: unknown }).lg_name === "Overwrite";
  }
}

/**
 * The value an overwrite carries, or `NOT_OVERWRITE`. LangGraph's wire forms count too:
 * `{ __overwrite__: value }` and `{ type: "__overwrite__", value }`.
 */
export function overwritten(write: unknown): unknown {
  if (typeof write !== "object" || write === null) return NOT_OVERWRITE;
  if (OVERWRITE in write) return (write as Record<string, unknown>)[OVERWRITE];
  const tagged = write as { type?: unknown; value?: unknown };
  return tagged.type === OVERWRITE && "value" in tagged ? tagged.value : NOT_OVERWRITE;
}

registerSerializable("Overwrite", Overwrite);
