import { deflateRawSync, inflateRawSync } from "node:zlib";
import type * as Kit from "@interlude/core/saver-kit";

/**
 * Large delta segments are stored deflated (the `packing` column of `blobs`).
 *
 * A channel that grows by appends is stored as deltas, and every 32nd link re-writes the last
 * links' items as one segment so that a read follows a bounded chain (delta.ts): each item is
 * stored about twice. Deflating the segments, which are many items of the same shape, makes
 * the second copy cheap: on chat messages of English-like text a 6.4 kB segment keeps ~35%
 * of its size (on the benchmark's padded messages, ~3%). Only deltas of at least
 * `PACK_MIN_BYTES` are packed, so small writes and full copies (a graph that rewrites its
 * state every step) cost no compression; a segment is written once per 32 appends.
 */
const PACK_MIN_BYTES = 2048;

/** `packing` values: how `data` is stored. NULL: as the serde wrote it. */
const DEFLATED_TEXT = 1;
const DEFLATED_BYTES = 2;

/** A blob row as the blob statements read it. */
export interface PackedBlob extends Kit.StoredBlob {
  packing: number | null;
}

/** The data and packing to store for a blob the kit prepared. */
export function pack(blob: Kit.PreparedBlob): [data: string | Uint8Array | null, packing: number | null] {
  const data = blob.data;
  if (blob.base === null || data === null || data.length < PACK_MIN_BYTES) return [data, null];
  // zlib's fastest level: the data is repetitive JSON, and a higher level gains ~5% for 2x the time.
  const deflated = deflateRawSync(data, { level: 1 });
  if (deflated.length >= data.length) return [data, null];
  return [deflated, typeof data === "string" ? DEFLATED_TEXT : DEFLATED_BYTES];
}

/** A stored blob as the kit reads it, inflated when it was packed. */
export function unpack(row: PackedBlob | undefined): Kit.StoredBlob | undefined {
  if (!row || row.packing === null) return row;
  const bytes = inflateRawSync(row.data as Uint8Array);
  if (row.packing === DEFLATED_TEXT) return { base: row.base, data: bytes.toString("utf8") };
  if (row.packing === DEFLATED_BYTES) return { base: row.base, data: new Uint8Array(bytes) };
  throw new Error(`a blob is stored with packing ${row.packing}, unknown to this @interlude/checkpoint-sqlite`);
}
