import { everyName, unknownOption } from "../errors/options.js";
import { InvalidSaverOptionError } from "../errors/storage.js";
import { checkpointIdOf } from "./base.js";
import type { CheckpointListOptions, CheckpointMetadata, CheckpointTuple } from "./types.js";

/** `list()`'s options (and `getStateHistory()`'s) by name. */
export const LIST_OPTIONS = everyName<keyof CheckpointListOptions>({ limit: 1, before: 1, filter: 1 });

/** `list` options in the form every saver applies them. */
export interface ListQuery {
  /** Only ids strictly lower (older) than this. */
  before?: string;
  limit: number;
  filter?: Record<string, unknown>;
}

/** A misspelt option (`{ limt: 1 }`) is refused: it would list the whole history. */
export function listQuery(options: CheckpointListOptions = {}): ListQuery {
  const unknown = unknownOption(options, LIST_OPTIONS);
  if (unknown) throw InvalidSaverOptionError.notTaken(unknown, `list() takes ${LIST_OPTIONS.join(", ")}`);
  const before = options.before ? checkpointIdOf(options.before) : undefined;
  const limit = options.limit === undefined || options.limit < 0 ? Number.POSITIVE_INFINITY : options.limit;
  const filter = options.filter && Object.keys(options.filter).length > 0 ? options.filter : undefined;
  return { before, limit, filter };
}

type Maybe<T> = T | undefined | Promise<T | undefined>;

/**
 * The part of `list()` every saver shares: candidates (newest first) whose metadata passes the
 * query's filter are loaded and yielded, up to the limit. A candidate gone meanwhile is skipped.
 * @param metadataOf a candidate's metadata; only called when the query has a filter
 */
export async function* listTuples<C>(
  candidates: Iterable<C>,
  query: ListQuery,
  metadataOf: (candidate: C) => Maybe<CheckpointMetadata>,
  load: (candidate: C) => Maybe<CheckpointTuple>,
): AsyncGenerator<CheckpointTuple> {
  let yielded = 0;
  for (const candidate of candidates) {
    if (yielded >= query.limit) return;
    if (query.filter) {
      const metadata = await metadataOf(candidate);
      if (!metadata || !matchesFilter(metadata, query.filter)) continue;
    }
    const tuple = await load(candidate);
    if (!tuple) continue;
    yielded++;
    yield tuple;
  }
}

/** Metadata filter: every key of `filter` must hold an equal JSON value in the metadata. */
function matchesFilter(metadata: CheckpointMetadata, filter: Record<string, unknown> | undefined): boolean {
  if (!filter) return true;
  for (const key of Object.keys(filter)) if (!sameJson(metadata[key], filter[key])) return false;
  return true;
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  return keysA.every((key) => sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}
