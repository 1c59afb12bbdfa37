import type { CheckpointListOptions, CheckpointMetadata } from "./types.js";
import { checkpointIdOf } from "./base.js";

/** `list` options in the form every saver applies them. */
export interface ListQuery {
  /** Only ids strictly lower (older) than this. */
  before?: string;
  limit: number;
  filter?: Record<string, unknown>;
}

export function listQuery(options: CheckpointListOptions = {}): ListQuery {
  const before = options.before ? checkpointIdOf(options.before) : undefined;
  const limit = options.limit === undefined || options.limit < 0 ? Number.POSITIVE_INFINITY : options.limit;
  const filter = options.filter && Object.keys(options.filter).length > 0 ? options.filter : undefined;
  return { before, limit, filter };
}

/** Metadata filter: every key of `filter` must hold an equal JSON value in the metadata. */
export function matchesFilter(metadata: CheckpointMetadata, filter: Record<string, unknown> | undefined): boolean {
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
