/** A prepared put as the arguments of the put statements (sql.ts, schema.ts). */
import { blobKey } from "@interlude/core/saver-kit";
import type { QueryConfig } from "pg";
import type { PlannedPut } from "./inline-values.js";
import { named, type PutShape } from "./sql.js";

/**
 * interlude_put_inline's arguments (schema.ts): the head expected, the delta bases to check,
 * then the rows; then `owner`, the claim the put is fenced by (and releases, with
 * `releaseClaim`), as the database knows it (undefined: not fenced).
 */
export function putQuery(planned: PlannedPut, owner: string | undefined): QueryConfig {
  const { put, plan } = planned;
  const blobs = plan.rows;
  const deltas = blobs.filter((blob) => blob.base !== null);
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
    ...checkpointValues(planned),
  ];
  return named(put.releaseClaim === undefined ? "put" : "putRelease", [...values, owner ?? null]);
}

/**
 * The arguments of the put's one statement (SQL.put_first, put_whole, put_deltas: sql.ts), for
 * a put that names the head it expects; undefined for one that does not, and for a thread's
 * first put with deltas (a base written by a deleted thread: the long way says so). With
 * `before`, a put held back until this one (deferred-puts.ts: `pairs`): one statement writes
 * both, expecting the head that `before` expected. `owner`: the claim the put is fenced by (and
 * releases, with `releaseClaim`), as the database knows it; undefined: not fenced.
 */
export function oneStatementPut(
  planned: PlannedPut,
  before: PlannedPut | undefined,
  owner: string | undefined,
): QueryConfig | undefined {
  const { put } = planned;
  const expected = before ? before.put.expectedHead : put.expectedHead;
  if (expected === undefined) return undefined;
  const blobs = before ? [...before.plan.rows, ...planned.plan.rows] : planned.plan.rows;
  // A delta on a blob row written in the same statement is not looked for: the statement's
  // snapshot cannot see it. One on a value `before` keeps inline is, and is refused (no row).
  const written = before && new Set(before.plan.rows.map((b) => blobKey(b.channel, b.version)));
  const deltas = put.blobs.filter((b) => b.base !== null && !written?.has(blobKey(b.channel, b.base)));
  const based = deltas.length > 0 || blobs.some((b) => b.base !== null);
  if (expected === null && based) return undefined;
  const shape: PutShape = expected === null ? "first" : based ? "deltas" : "whole";
  const values = [
    put.threadId,
    put.ns,
    expected,
    blobs.map((b) => b.channel),
    blobs.map((b) => b.version),
    blobs.map((b) => toBytes(b.data)),
    ...checkpointValues(planned),
  ];
  if (shape === "deltas")
    values.push(
      blobs.map((b) => b.base),
      deltas.map((b) => b.channel),
      deltas.map((b) => b.base),
    );
  values.push(owner ?? null);
  if (before) values.push(...checkpointValues(before));
  const release = put.releaseClaim === undefined ? "" : "_release";
  return named(`put_${shape}${release}${before ? "_pair" : ""}`, values);
}

/** The checkpoint row's values, the same in both statements. */
function checkpointValues({ put, plan }: PlannedPut): unknown[] {
  const channels = Object.keys(put.versions);
  return [
    put.id,
    put.parentId ?? null,
    put.createdAt,
    toBytes(put.record),
    toBytes(put.metadata),
    channels,
    channels.map((c) => put.versions[c]),
    plan.column,
  ];
}

/** A serialised value as bytea. */
export function toBytes(data: string | Uint8Array | null): Buffer | null {
  if (data === null) return null;
  return typeof data === "string"
    ? Buffer.from(data, "utf8")
    : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

/** SQLSTATEs raised by interlude_put (schema.ts): the head moved (its DETAIL holds the head), a delta's base is gone. */
export const HEAD_MOVED = "IL409";
export const BASE_GONE = "IL412";
const UNIQUE_VIOLATION = "23505";

/**
 * A one-statement put that found its checkpoint or a blob stored already (sql.ts, putStatement)
 * stored nothing: as a refusal, no row, so that the put goes through interlude_put.
 */
export function rewritten(error: unknown): { rows: Array<{ stamp: string }> } {
  if ((error as { code?: string }).code === UNIQUE_VIOLATION) return { rows: [] };
  throw error;
}
