/**
 * A checkpoint row's `parent_id`, kept relative to the row's own id: the marker U+0001, the
 * common prefix's length and the common suffix's length (one character each), then what
 * differs in between. The runtime's ids are time-ordered hex with a per-process tail, so a
 * parent written by the same process a step earlier differs from its child in a character or
 * a few: 4-16 bytes instead of 36 (issue 15 item 4: a row is written per step).
 *
 * TEXT, not BLOB: better-sqlite3 returns a BLOB as a new Buffer, which cost a load ~5 µs
 * (~12% of a getTuple). An id that shares little with its child is kept as it is, as are the
 * rows of schema version 4 and earlier; an id that itself starts with the marker (no runtime
 * id does) is kept as a BLOB of its UTF-8, so that every form reads back unambiguously.
 */
const MARKER = "\u0001";
/** Lengths are one character each, below 128 so that UTF-8 keeps them one byte. */
const MAX_LENGTH = 127;

export function keptParent(id: string, parentId: string | undefined): string | Buffer | null {
  if (parentId === undefined) return null;
  if (parentId.startsWith(MARKER)) return Buffer.from(parentId, "utf8");
  const most = Math.min(id.length, parentId.length, MAX_LENGTH);
  let prefix = 0;
  while (prefix < most && id.charCodeAt(prefix) === parentId.charCodeAt(prefix)) prefix++;
  let suffix = 0;
  const room = Math.min(most, id.length - prefix, parentId.length - prefix);
  while (suffix < room && id.charCodeAt(id.length - 1 - suffix) === parentId.charCodeAt(parentId.length - 1 - suffix))
    suffix++;
  const middle = parentId.slice(prefix, parentId.length - suffix);
  if (3 + middle.length >= parentId.length) return parentId;
  return MARKER + String.fromCharCode(prefix, suffix) + middle;
}

/** The parent id from a row's kept form and the row's own id. */
export function parentOf(id: string, kept: string | Uint8Array | null): string | null {
  if (kept === null) return null;
  if (typeof kept !== "string") return Buffer.from(kept).toString("utf8");
  if (!kept.startsWith(MARKER)) return kept;
  const prefix = kept.charCodeAt(1);
  const suffix = kept.charCodeAt(2);
  return id.slice(0, prefix) + kept.slice(3) + id.slice(id.length - suffix);
}
