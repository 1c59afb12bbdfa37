/**
 * Small channel values kept in the checkpoint row (an `inline` column) instead of a blob row
 * each. A put of the approval graph wrote two to four blob rows besides its checkpoint row:
 * more statements and index entries on every put (SQLite: a B-tree leaf and its parents
 * rewritten in the WAL; PostgreSQL: a heap tuple and an index entry each). A row holds the
 * small values of its checkpoint, the ones the put wrote and the ones carried from its parent,
 * so a read never looks beyond the row for them, and a pruned or deleted row takes nothing
 * another row needs.
 *
 * Only whole values (no delta) that are not arrays, of text form, are kept inline: an array
 * can become the base of a later delta, which a put looks for among the blob rows (its text
 * does not always start with "[": a tagged serialisation starts with "~"). A value stored
 * inline that became a base anyway makes the put retry with full copies (the kit's
 * BASE_MISSING), never a wrong read. Text with a NUL character is not kept inline either: a
 * PostgreSQL text column refuses it.
 *
 * A value is kept at the version its row's record names for the channel (a put writes its
 * channels at those versions, and carries a parent's value only at the version it names too),
 * so the versions are not repeated here: a read takes a value from the row only for that
 * version (a delta's base, at an older version, is always a blob row).
 *
 * Form: per value `<channel length>:<channel><data length>:<data>`, lengths in UTF-16 code
 * units: parsed with `indexOf` and `slice`, with no escaping of the serialised value.
 */
import type { PreparedBlob } from "../prepare.js";
import type { ChannelVersion } from "../types.js";

/** A value up to this many characters may be kept inline. */
export const INLINE_VALUE_CHARS = 256;
/** A row keeps at most this many characters of values inline (beyond, values go to `blobs`). */
export const INLINE_ROW_CHARS = 1024;

/** True when a stored blob of this form may be kept inline (see the top of this file). */
export function inlinable(base: ChannelVersion | null, data: string | Uint8Array | null): data is string {
  return (
    base === null &&
    typeof data === "string" &&
    data.length <= INLINE_VALUE_CHARS &&
    data[0] !== "[" &&
    !data.includes("\u0000")
  );
}

/** True when a blob a put writes may be kept inline: `inlinable`, and its value is not an array. */
export function inlinableBlob(blob: PreparedBlob): blob is PreparedBlob & { data: string } {
  return inlinable(blob.base, blob.data) && !Array.isArray(blob.plan.value);
}

/** Values chosen for one row, in the order they were added, within `INLINE_ROW_CHARS`. */
export class InlineRow {
  private readonly values = new Map<string, string>();
  private chars = 0;

  /** Adds the value unless the row is full; false when it must go to `blobs` instead. */
  add(channel: string, data: string): boolean {
    if (this.chars + data.length > INLINE_ROW_CHARS) return false;
    this.values.set(channel, data);
    this.chars += data.length;
    return true;
  }

  has(channel: string): boolean {
    return this.values.has(channel);
  }

  /** The column's value: null when nothing is inline. */
  encode(): string | null {
    if (this.values.size === 0) return null;
    let text = "";
    for (const [channel, data] of this.values) text += `${channel.length}:${channel}${data.length}:${data}`;
    return text;
  }
}

/** Channel -> serialised value, from an `inline` column (null or empty: none). */
export function decodeInline(text: string | null): Map<string, string> {
  const values = new Map<string, string>();
  if (!text) return values;
  let at = 0;
  while (at < text.length) {
    const channelAt = text.indexOf(":", at) + 1;
    const channelLength = channelAt === 0 ? Number.NaN : Number(text.slice(at, channelAt - 1));
    const lengthAt = channelAt + channelLength;
    const dataAt = Number.isInteger(channelLength) ? text.indexOf(":", lengthAt) + 1 : 0;
    const dataLength = dataAt === 0 ? Number.NaN : Number(text.slice(lengthAt, dataAt - 1));
    const end = dataAt + dataLength;
    if (!Number.isInteger(dataLength) || end > text.length)
      throw new Error("a checkpoint row's inline values are damaged; restore the database from a backup");
    values.set(text.slice(channelAt, lengthAt), text.slice(dataAt, end));
    at = end;
  }
  return values;
}
