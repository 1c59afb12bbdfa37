/**
 * Options checked by name. LangGraph.js ignores an option it does not know; here a misspelling
 * is refused, because what it meant would silently not happen: `interruptBefor` runs past its
 * breakpoint, a saver's `defaultTTL` never expires a thread.
 */
import { GraphValidationError } from "./graph.js";

/**
 * Every member of `K`, listed. With `K` given, the compiler refuses a record that misses a member
 * or adds one: a list of option names cannot drift from the options' type.
 */
export function everyName<K extends string>(names: Record<K, 1>): K[] {
  return Object.keys(names) as K[];
}

/** The first option of `options` that is not `known` (one set to undefined passes), if any. */
export function unknownOption(options: object, known: readonly string[]): { name: string; value: unknown } | undefined {
  for (const [name, value] of Object.entries(options))
    if (value !== undefined && !known.includes(name)) return { name, value };
  return undefined;
}

/**
 * For the calls that build a graph (`compile`, `addNode`, `new Pregel`, `task`, ...): throws
 * `GraphValidationError` for an option of `options` that is not `known`, naming those it takes.
 */
export function refuseUnknownGraphOptions(
  call: string,
  options: object | undefined,
  known: readonly string[],
  node?: string,
): void {
  if (options === undefined || options === null) return;
  const unknown = unknownOption(options, known);
  if (unknown)
    throw new GraphValidationError(
      `${call} has no option "${unknown.name}". It takes ${known.join(", ")}: check the spelling.`,
      node,
    );
}
