/**
 * A saver's options checked by name. One it does not take (a misspelling, or an option of
 * LangGraph's own saver, such as the Redis saver's `defaultTTL`) is refused with what it takes,
 * instead of being ignored: a TTL nobody applies loses nothing at once, and everything later.
 */
import { everyName, unknownOption } from "../../errors/options.js";
import { InvalidSaverOptionError } from "../../errors/storage.js";
import type { SaverKitOptions } from "./saver-kit.js";

/** What every kit saver takes (`SaverKitOptions`). */
export const KIT_OPTIONS = everyName<keyof SaverKitOptions>({
  serde: 1,
  appendDeltas: 1,
  fanout: 1,
  maxTrackedThreads: 1,
  ttlMs: 1,
  sweepIntervalMs: 1,
  now: 1,
});

/** A serializer passed where options go (LangGraph's savers take one there). */
function isSerializer(value: object): boolean {
  const serde = value as Record<string, unknown>;
  return ["dumps", "loads", "dumpsTyped", "loadsTyped"].some((name) => typeof serde[name] === "function");
}

/**
 * Throws `InvalidSaverOptionError` for an option of `options` that is not `known` (one set to
 * undefined passes). `hints`: what to do instead of an option, by name.
 */
export function refuseUnknownOptions(
  saver: string,
  options: unknown,
  known: readonly string[],
  hints: Readonly<Record<string, string>> = {},
): void {
  if (options === undefined || options === null) return;
  if (typeof options !== "object" || Array.isArray(options) || isSerializer(options))
    throw new InvalidSaverOptionError(
      `${saver}'s options`,
      typeof options === "object" && isSerializer(options) ? "a serializer" : JSON.stringify(options),
      `an object of options (a serializer goes in it as { serde })`,
    );
  const unknown = unknownOption(options, known);
  if (unknown)
    throw InvalidSaverOptionError.notTaken(unknown, hints[unknown.name] ?? `${saver} takes ${known.join(", ")}`);
}
