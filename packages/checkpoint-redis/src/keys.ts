import type { ChannelVersion } from "@interlude/core";
import type { StoredBlob } from "@interlude/core/saver-kit";

/**
 * Key layout. Every key of a thread carries `{threadId}` as its hash tag, so a thread lives
 * in one cluster slot and one Lua script can change it atomically.
 *
 *   <p>:{t}:cp      hash  ns\0id\0r | \0m | \0p   -> record, metadata, "parentId\0createdAt"
 *   <p>:{t}:idx:ns  zset  checkpoint ids (score 0: ordered by id, newest = last)
 *   <p>:{t}:nss     set   namespaces of the thread
 *   <p>:{t}:heads   hash  ns -> newest checkpoint id
 *   <p>:{t}:blobs   hash  ns\0channel\0version -> blob
 *   <p>:{t}:w       hash  ns\0checkpointId\0taskId\0idx -> "seq\0channel\0data"
 *   <p>:{t}:wi      zset  the same fields (score 0), to find a checkpoint's writes by prefix
 *   <p>:{t}:meta    hash  seq (write counter)
 *   <p>:{t}:claim   string owner, with PX expiry
 *   <p>:threads     zset  thread id -> last put (ms), for pruning by age and sweeping
 */
export function threadKeys(prefix: string, threadId: string) {
  const base = `${prefix}:{${threadId}}`;
  return {
    base,
    cp: `${base}:cp`,
    idx: (ns: string) => `${base}:idx:${ns}`,
    nss: `${base}:nss`,
    heads: `${base}:heads`,
    blobs: `${base}:blobs`,
    writes: `${base}:w`,
    writeIndex: `${base}:wi`,
    meta: `${base}:meta`,
    claim: `${base}:claim`,
  };
}

export type ThreadKeys = ReturnType<typeof threadKeys>;

export const cpField = (ns: string, id: string, part: "r" | "m" | "p") => `${ns}\u0000${id}\u0000${part}`;
export const blobPrefix = (ns: string, channel: string) => `${ns}\u0000${channel}\u0000`;
export const writePrefix = (ns: string, checkpointId: string) => `${ns}\u0000${checkpointId}\u0000`;

/** Serialiser output as a Redis string: text as is, bytes as base64. */
export function encodeData(data: string | Uint8Array): string {
  return typeof data === "string" ? `s${data}` : `b${Buffer.from(data).toString("base64")}`;
}

export function decodeData(stored: string): string | Uint8Array {
  return stored[0] === "s" ? stored.slice(1) : new Uint8Array(Buffer.from(stored.slice(1), "base64"));
}

/** "E": no value; "F<data>": full value; "D<base>\n<data>": items appended to version base. */
export function encodeBlob(blob: StoredBlob): string {
  if (blob.data === null) return "E";
  return blob.base === null ? `F${encodeData(blob.data)}` : `D${blob.base}\n${encodeData(blob.data)}`;
}

export function decodeBlob(stored: string): StoredBlob {
  if (stored === "E") return { base: null, data: null };
  if (stored[0] === "F") return { base: null, data: decodeData(stored.slice(1)) };
  const newline = stored.indexOf("\n");
  return { base: Number(stored.slice(1, newline)) as ChannelVersion, data: decodeData(stored.slice(newline + 1)) };
}
