/**
 * Small values in the checkpoint row (`inline`, the saver kit's inline.ts): which of a put's
 * values go there and which get a blob row, and the values a stored row holds. Pure: the saver
 * finds the parent's inline values (from the head cache, the put held back with it, or the
 * parent's row) and runs the statements.
 *
 * Only in the root namespace, where the head cache holds a put's parent: a subgraph's puts
 * write blob rows as before, so no parent of theirs has values that must be carried.
 *
 * The parent's inline values are carried first: they fit (the parent's row held them, and the
 * put replaces some of them at most), and none of them has a blob row a carried copy would
 * collide with. The put's own small values then take the room left; the others get blob rows
 * at their new versions.
 */
import type * as Kit from "@interlude/core/saver-kit";
import { blobKey, decodeInline, InlineRow, inlinableBlob } from "@interlude/core/saver-kit";

/** A checkpoint's inline values, by `blobKey(channel, version)`. */
export type InlineValues = ReadonlyMap<string, string>;

export const NO_INLINE_VALUES: InlineValues = new Map();

/** A value that gets a blob row of its own. */
type BlobRow = Pick<Kit.PreparedBlob, "channel" | "version" | "base" | "data">;

/** A put and its plan. */
export interface PlannedPut {
  readonly put: Kit.PreparedPut;
  readonly plan: InlinePlan;
}

export interface InlinePlan {
  /** The row's `inline` column: null when nothing is inline. */
  readonly column: string | null;
  /** The values in the row, for the head cache (the parent of the thread's next put). */
  readonly values: InlineValues;
  /** The blobs that get rows of their own. */
  readonly rows: readonly BlobRow[];
}

/** True when the put's row may hold values, so that the saver looks for its parent's. */
export function mayInline(put: Kit.PreparedPut): boolean {
  return put.ns === "";
}

/**
 * The plan of `put`, whose parent's inline values are `parent` (none when the put has no
 * parent). A channel left without a value (a trigger consumed, `__start__` after the first
 * step) gets nothing: a load that finds no value at a version the checkpoint names reads the
 * channel as empty, as it would the row (`assembleValue`).
 */
export function planInline(put: Kit.PreparedPut, parent: InlineValues): InlinePlan {
  if (!mayInline(put)) return { column: null, values: NO_INLINE_VALUES, rows: put.blobs.filter(isStored) };
  const row = new InlineRow();
  const values = new Map<string, string>();
  const rows: BlobRow[] = [];
  if (parent.size > 0) {
    const written = new Set(put.blobs.map((blob) => blob.channel));
    for (const channel in put.versions) {
      if (written.has(channel)) continue;
      const key = blobKey(channel, put.versions[channel]!);
      const data = parent.get(key);
      if (data === undefined) continue;
      if (row.add(channel, data)) values.set(key, data);
      // Not reached while rows keep to INLINE_ROW_CHARS (see the top of this file): never lost, though.
      else rows.push({ channel, version: put.versions[channel]!, base: null, data });
    }
  }
  for (const blob of put.blobs) {
    if (!isStored(blob)) continue;
    if (inlinableBlob(blob) && row.add(blob.channel, blob.data))
      values.set(blobKey(blob.channel, blob.version), blob.data);
    else rows.push(blob);
  }
  return { column: row.encode(), values, rows };
}

/** A stored row's inline values, keyed by the versions its checkpoint names (a value is kept at those only). */
export function inlineValues(column: string | null, versions: Readonly<Record<string, number>>): InlineValues {
  if (!column) return NO_INLINE_VALUES;
  const values = new Map<string, string>();
  for (const [channel, data] of decodeInline(column)) {
    const version = versions[channel];
    if (version !== undefined) values.set(blobKey(channel, version), data);
  }
  return values;
}

function isStored(blob: BlobRow): boolean {
  return blob.base !== null || blob.data !== null;
}

/** The blobs read, and the row's inline values as blobs: what the checkpoint's values are made of. */
export function withInline(
  blobs: ReadonlyMap<string, Kit.StoredBlob | null>,
  inline: InlineValues,
): ReadonlyMap<string, Kit.StoredBlob | null> {
  if (inline.size === 0) return blobs;
  const all = new Map(blobs);
  for (const [key, data] of inline) all.set(key, { base: null, data });
  return all;
}

/** A parent's row as SQL.inlineOf reads it (undefined: not stored). */
export interface ParentRow {
  channels: string[] | null;
  versions: number[] | null;
  inline: string | null;
}

/** The inline values of a parent's row, keyed by the versions it names. */
export function parentValues(row: ParentRow | undefined): InlineValues {
  if (!row?.inline || !row.channels || !row.versions) return NO_INLINE_VALUES;
  const versions: Record<string, number> = {};
  row.channels.forEach((channel, i) => {
    versions[channel] = row.versions![i]!;
  });
  return inlineValues(row.inline, versions);
}
