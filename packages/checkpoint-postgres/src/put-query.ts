/** A prepared put as the arguments of the put statements (sql.ts, schema.ts). */
import type * as Kit from "@interlude/core/saver-kit";
import type { QueryConfig } from "pg";
import { named } from "./sql.js";

/** interlude_put_checkpoint's arguments: the head expected, the delta bases to check, then the rows. */
export function putQuery(put: Kit.PreparedPut): QueryConfig {
  const versions = put.versions;
  const channels = Object.keys(versions);
  const deltas = put.blobs.filter((blob) => blob.base !== null);
  const blobs = put.blobs;
  const values = [
    put.threadId,
    put.ns,
    put.expectedHead !== undefined,
    put.expectedHead ?? null,
    deltas.map((b) => b.channel),
    deltas.map((b) => b.base),
    blobs.map((b) => b.channel),
    blobs.map((b) => b.version),
    blobs.map((b) => b.base),
    blobs.map((b) => toBytes(b.data)),
    put.id,
    put.parentId ?? null,
    put.createdAt,
    toBytes(put.record),
    toBytes(put.metadata),
    channels,
    channels.map((c) => versions[c]),
  ];
  return put.releaseClaim === undefined ? named("put", values) : named("putRelease", [...values, put.releaseClaim]);
}

/** SQL.putWhole's arguments (putFirst's for a thread's first), for a put that names its head and stores only whole values; else undefined. */
export function wholePutQuery(put: Kit.PreparedPut): QueryConfig | undefined {
  if (put.expectedHead === undefined || put.blobs.some((b) => b.base !== null)) return undefined;
  const versions = put.versions;
  const channels = Object.keys(versions);
  const blobs = put.blobs;
  const values = [
    put.threadId,
    put.ns,
    put.expectedHead,
    blobs.map((b) => b.channel),
    blobs.map((b) => b.version),
    blobs.map((b) => toBytes(b.data)),
    put.id,
    put.parentId ?? null,
    put.createdAt,
    toBytes(put.record),
    toBytes(put.metadata),
    channels,
    channels.map((c) => versions[c]),
  ];
  const first = put.expectedHead === null;
  if (put.releaseClaim === undefined) return named(first ? "putFirst" : "putWhole", values);
  return named(first ? "putFirstRelease" : "putWholeRelease", [...values, put.releaseClaim]);
}

/** A serialised value as bytea. */
export function toBytes(data: string | Uint8Array | null): Buffer | null {
  if (data === null) return null;
  return typeof data === "string"
    ? Buffer.from(data, "utf8")
    : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}
