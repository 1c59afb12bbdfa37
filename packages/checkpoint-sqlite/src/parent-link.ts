/**
 * A checkpoint row's `parent_id`, kept relative to the row's own id: as a BLOB of the common
 * prefix's length, the common suffix's length and the UTF-8 of what differs in between. The
 * runtime's ids are time-ordered hex with a per-process tail, so a parent written by the same
 * process a step earlier differs from its child in a character or a few: 3-15 bytes instead of
 * 36 (issue 15 item 4: a row is written per step). An id that shares little with its child
 * stays TEXT, and so do the rows of schema version 4 and earlier; the storage type says which
 * form a row holds.
 */
export function keptParent(id: string, parentId: string | undefined): string | Buffer | null {
  if (parentId === undefined) return null;
  const most = Math.min(id.length, parentId.length, 255);
  let prefix = 0;
  while (prefix < most && id.charCodeAt(prefix) === parentId.charCodeAt(prefix)) prefix++;
  let suffix = 0;
  const room = Math.min(most, id.length - prefix, parentId.length - prefix);
  while (suffix < room && id.charCodeAt(id.length - 1 - suffix) === parentId.charCodeAt(parentId.length - 1 - suffix))
    suffix++;
  const middle = parentId.slice(prefix, parentId.length - suffix);
  const bytes = Buffer.byteLength(middle);
  if (2 + bytes >= parentId.length) return parentId;
  const kept = Buffer.allocUnsafe(2 + bytes);
  kept[0] = prefix;
  kept[1] = suffix;
  kept.write(middle, 2, "utf8");
  return kept;
}

/** The parent id from a row's kept form (either TEXT, or the relative BLOB) and the row's own id. */
export function parentOf(id: string, kept: string | Uint8Array | null): string | null {
  if (kept === null || typeof kept === "string") return kept;
  const middle = Buffer.from(kept.buffer, kept.byteOffset + 2, kept.length - 2).toString("utf8");
  return id.slice(0, kept[0]) + middle + id.slice(id.length - kept[1]!);
}
