import { deflateRawSync, inflateRawSync } from "node:zlib";
import type * as Kit from "@interlude/core/saver-kit";
import type { Statements } from "./statements.js";

/**
 * Large deltas are stored deflated (the `packing` column of `blobs`), in parts when that is
 * still more than a B-tree cell holds. A checkpoint's metadata and a pending write's data are
 * deflated the same way when their row would not fit its page (`packedToFit`, schema 8).
 *
 * A channel that grows by appends is stored as deltas, and every 32nd link re-writes the last
 * links' items as one segment so that a read follows a bounded chain (delta.ts): each item is
 * stored about twice. Deflating the segments, which are many items of the same shape, makes
 * the second copy cheap: on chat messages of English-like text a 6.4 kB segment keeps ~35%
 * of its size (on the benchmark's padded messages, ~3%). Only deltas whose row would not fit
 * its page are packed (`roomBeside`), so small writes and full copies (a graph that rewrites its
 * state every step) cost no compression; a segment is written once per 32 appends.
 *
 * A cell of more than ~1 kB (4 kB pages, a WITHOUT ROWID table) keeps ~490 bytes in its page
 * and the rest in overflow pages of its own, so a 2.3 kB value took two pages. A row that fits
 * shares its page with its neighbours; a deflated delta that still does not fit is cut into
 * rows of `blob_parts` that do. The threshold was a fixed 1 kB of data until session 39: a
 * delta of 0.9-1 kB, with its row's keys, then spilled ~500 bytes into an overflow page of its
 * own, and chat messages of 950 characters cost 5.2 kB per step against 1.1 kB now
 * (`bench/storage-anatomy.mjs --text=english --length=950`).
 */
/** The most a cell keeps in its page: SQLite's maxLocal of a WITHOUT ROWID table on 4 kB pages, (4096 - 12) * 64 / 255 - 23. */
const CELL_BYTES = 1002;
/** Room kept for a row's record header and its numbers (versions, sequence, packing): ~20-30 bytes in practice. */
const ROW_OVERHEAD = 32;
/** The smallest part: with keys so long that less fits, parts spill anyway. */
const MIN_PART_BYTES = 256;

/** `packing` values: how `data` is stored. NULL: as the serde wrote it. */
const DEFLATED_TEXT = 1;
const DEFLATED_BYTES = 2;
/** Added to the above: `data` is NULL, and the deflated bytes are the blob's rows in `blob_parts`. */
const IN_PARTS = 4;

/** A blob row as the blob statement reads it. */
interface PackedBlob extends Kit.StoredBlob {
  packing: number | null;
}

/**
 * Writes a blob the kit prepared, packed when it is a large delta. A channel left without a
 * value (a trigger consumed, `__start__` after the first step) gets no row: a read that finds
 * no blob treats the channel as empty, as it would the row (`assembleValue`), and most puts of
 * a run empty one such channel, so this is one statement and part of a page fewer per put.
 */
export function writeBlob(sql: Statements, put: Kit.PreparedPut, blob: Kit.PreparedBlob): void {
  const { threadId, ns } = put;
  const { channel, version, base, data } = blob;
  if (base === null && data === null) return;
  const room = roomBeside(threadId, ns, channel);
  const deflated = base === null || data === null || byteLength(data) <= room ? undefined : deflate(data);
  if (!deflated) {
    sql.putBlob.run(threadId, ns, channel, version, base, data, null);
    return;
  }
  const packing = typeof data === "string" ? DEFLATED_TEXT : DEFLATED_BYTES;
  if (deflated.length <= room) {
    sql.putBlob.run(threadId, ns, channel, version, base, deflated, packing);
    return;
  }
  sql.putBlob.run(threadId, ns, channel, version, base, null, packing + IN_PARTS);
  sql.deleteBlobParts.run(threadId, ns, channel, version);
  const partBytes = Math.max(room, MIN_PART_BYTES);
  for (let part = 0; part * partBytes < deflated.length; part++) {
    const bytes = deflated.subarray(part * partBytes, (part + 1) * partBytes);
    sql.putBlobPart.run(threadId, ns, channel, version, part, bytes);
  }
}

/** How many bytes one column of a row holds beside the row's other text and bytes (`columns`) and still fits its page. */
export function roomBeside(...columns: ReadonlyArray<string | Uint8Array | null>): number {
  let room = CELL_BYTES - ROW_OVERHEAD;
  for (const column of columns) if (column !== null) room -= byteLength(column);
  return room;
}

/**
 * A checkpoint's metadata or a pending write's data as its row stores it: deflated, with its
 * `packing`, when it is more than `room` bytes (so that the row would not fit its page) and
 * deflating makes it smaller. A resume recorded in the metadata, or an answer written, of ~1 kB
 * took a 4 kB overflow page of its own otherwise.
 */
export function packedToFit(
  data: string | Uint8Array,
  room: number,
): { data: string | Uint8Array; packing: number | null } {
  const deflated = byteLength(data) > room ? deflate(data) : undefined;
  if (!deflated) return { data, packing: null };
  return { data: deflated, packing: typeof data === "string" ? DEFLATED_TEXT : DEFLATED_BYTES };
}

/** A column stored by packedToFit (or a blob's deflated bytes), as it was given. */
export function unpacked(data: string | Uint8Array, packing: number | null): string | Uint8Array {
  if (packing === null) return data;
  const bytes = inflateRawSync(data);
  if (packing === DEFLATED_TEXT) return bytes.toString("utf8");
  if (packing === DEFLATED_BYTES) return new Uint8Array(bytes);
  throw new Error(`a value is stored with packing ${packing}, unknown to this @interlude/checkpoint-sqlite`);
}

function byteLength(data: string | Uint8Array): number {
  return typeof data === "string" ? Buffer.byteLength(data) : data.length;
}

/** A stored blob as the kit reads it: unpacked, and put together from its parts. */
export function readBlob(
  sql: Statements,
  threadId: string,
  ns: string,
  channel: string,
  version: number,
): Kit.StoredBlob | undefined {
  const row = sql.blob.get(threadId, ns, channel, version) as PackedBlob | undefined;
  if (!row || row.packing === null) return row;
  let packing = row.packing;
  let deflated = row.data as Uint8Array;
  if (packing & IN_PARTS) {
    deflated = Buffer.concat(sql.blobParts.all(threadId, ns, channel, version) as Buffer[]);
    packing -= IN_PARTS;
  }
  return { base: row.base, data: unpacked(deflated, packing) };
}

function deflate(data: string | Uint8Array): Buffer | undefined {
  // zlib's fastest level: the data is repetitive JSON, and a higher level gains ~5% for 2x the time.
  const deflated = deflateRawSync(data, { level: 1 });
  return deflated.length < data.length ? deflated : undefined;
}
