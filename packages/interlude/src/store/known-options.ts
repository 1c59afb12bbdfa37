/**
 * A store's options checked by name, as the savers' are. One that LangGraph.js's store takes and
 * Interlude's does not (semantic search's `index`, an item `ttl`) is refused with what to do
 * instead; any other unknown one (a misspelling) with the options the store takes. Ignored, either
 * would lose its behaviour without a word: items that never expire, a pool on the wrong server.
 */
import { unknownOption } from "../errors/options.js";
import { UnsupportedStoreOptionError } from "../errors/store.js";

/**
 * Throws `UnsupportedStoreOptionError` for an option of `options` that is not `known`.
 * `unsupported`: LangGraph.js's options this store refuses, each with what to do instead.
 */
export function refuseStoreOptions(
  store: string,
  options: object | undefined,
  known: readonly string[],
  unsupported: Readonly<Record<string, string>> = {},
): void {
  if (options === undefined || options === null) return;
  const unknown = unknownOption(options, known);
  if (!unknown) return;
  throw new UnsupportedStoreOptionError(
    unknown.name,
    unsupported[unknown.name] ??
      (known.length ? `${store} takes ${known.join(", ")}.` : `${store} takes no options; create it without them.`),
  );
}
