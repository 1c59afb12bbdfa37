import type { Checkpoint, CheckpointMetadata, Serializer } from "@interlude/core";
import type * as Kit from "@interlude/core/saver-kit";

/**
 * How a checkpoint row keeps its record and metadata: without what the row's own columns
 * hold, and in the common shapes without their field names (issue 15 item 4: bytes per step
 * of a chat thread, where a row is written per step).
 *
 * - Record: `id` is `checkpoint_id`, and `ts` is `created_at` when it is the canonical ISO
 *   form of that instant (`new Date(ms).toISOString()`, which is what the runtime writes).
 *   The runtime's own shape (`v` 1 and the usual fields) is kept as the array
 *   `[channel_versions, versions_seen]`, plus `ts` when it is not canonical (~40 of ~150
 *   bytes), or from schema 7 as `[versions, channel_versions, versions_seen]` with versions
 *   numbered (see `numberedVersions`); any other record as an object without `id` (and `ts`
 *   when canonical).
 * - Metadata: `{ source, step, parents }`, in that order, is kept as `[source, step]`, or
 *   `[source, step, parents]` when `parents` is not empty (~30 of ~41 bytes); anything else,
 *   user keys included, as the object.
 *
 * Both go through the saver's serde like any value (a custom or encrypting serde sees them).
 * A kept array is unambiguous: records and metadata are objects, a compact metadata starts
 * with its `source` (a string) and a compact record with its `channel_versions` (an object)
 * or its versions (an array).
 * Records of schema version 3 and earlier (every field) and 4 (objects without `id`) read
 * unchanged; schema migration 5 marks the file so that an older package refuses it.
 */
export function slimKeeper(serde: Serializer): Kit.Keeper<string | Uint8Array> {
  return {
    record: (checkpoint) => serde.dumps(keptRecord(checkpoint), "checkpoint"),
    metadata: (metadata: CheckpointMetadata) => serde.dumps(keptMetadata(metadata), "metadata"),
    read: (kept) => expand(serde.loads(kept)),
  };
}

function keptRecord(checkpoint: Checkpoint): unknown {
  const { v, ts, channel_versions, versions_seen } = checkpoint;
  // Explicit fields on the hot path; a field a newer runtime adds is kept by the slow branch.
  if (Object.keys(checkpoint).length === 6 && v === 1) {
    const kept = numberedVersions(channel_versions, versions_seen) ?? [channel_versions, versions_seen];
    if (!isCanonical(ts)) kept.push(ts);
    return kept;
  }
  const { channel_values: _values, id: _id, ...record }: Partial<Checkpoint> = checkpoint;
  if (isCanonical(ts)) delete record.ts;
  return record;
}

function keptMetadata(metadata: CheckpointMetadata): unknown {
  const keys = Object.keys(metadata);
  const { source, step, parents } = metadata;
  if (keys.length !== 3 || keys[0] !== "source" || keys[1] !== "step" || keys[2] !== "parents") return metadata;
  if (typeof source !== "string" || typeof parents !== "object" || parents === null) return metadata;
  for (const _ in parents) return [source, step, parents];
  return [source, step];
}

type Versions = Checkpoint["channel_versions"];

/**
 * `[versions, channel_versions, versions_seen]` with each version replaced by its index in
 * `versions`, when some version is named more than once (most records: a step's channels share
 * its version, and `versions_seen` repeats versions of `channel_versions`): a version is ~18
 * characters (core algo/writes.ts), an index one or two. Undefined when it would save nothing.
 */
function numberedVersions(channelVersions: Versions, seen: Checkpoint["versions_seen"]): unknown[] | undefined {
  const index = new Map<number, number>();
  let named = 0;
  const number = (versions: Versions) => {
    const numbered: Record<string, number> = {};
    for (const channel in versions) {
      const version = versions[channel]!;
      let at = index.get(version);
      if (at === undefined) index.set(version, (at = index.size));
      numbered[channel] = at;
      named++;
    }
    return numbered;
  };
  const channels = number(channelVersions);
  const nodes: Record<string, Record<string, number>> = {};
  for (const node in seen) nodes[node] = number(seen[node]!);
  return index.size < named ? [[...index.keys()], channels, nodes] : undefined;
}

/** The versions `numbered` names by index in `versions`. */
function versionsAt(versions: readonly number[], numbered: Record<string, number>): Versions {
  const out: Versions = {};
  for (const channel in numbered) out[channel] = versions[numbered[channel]!]!;
  return out;
}

/** A record or metadata as it was written, from any kept form (the record still without `id`, see `fullRecord`). */
function expand(kept: unknown): unknown {
  if (!Array.isArray(kept)) return kept;
  if (typeof kept[0] === "string") return { source: kept[0], step: kept[1], parents: kept[2] ?? {} };
  if (Array.isArray(kept[0])) {
    const versions = kept[0] as number[];
    const seen: Checkpoint["versions_seen"] = {};
    for (const node in kept[2]) seen[node] = versionsAt(versions, kept[2][node]);
    const record: Record<string, unknown> = {
      v: 1,
      channel_versions: versionsAt(versions, kept[1]),
      versions_seen: seen,
    };
    if (kept.length > 3) record.ts = kept[3];
    return record;
  }
  const record: Record<string, unknown> = { v: 1, channel_versions: kept[0], versions_seen: kept[1] };
  if (kept.length > 2) record.ts = kept[2];
  return record;
}

/** `YYYY-MM-DDTHH:MM:SS.sssZ`, the shape of `toISOString()` for years 0 to 9999. */
const ISO_SHAPE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/**
 * Whether `ts` is `new Date(Date.parse(ts)).toISOString()`, without that call (~3 µs, at every
 * put): in this shape, `Date.parse` rejects out-of-range fields except a day past the month's
 * end and the hour 24, which both move to another day or hour. A year past 9999 (`+012026-...`)
 * is reported as not canonical: its ts is then kept in the record, a few bytes more.
 */
export function isCanonical(ts: string): boolean {
  if (!ISO_SHAPE.test(ts)) return false;
  const ms = Date.parse(ts);
  if (Number.isNaN(ms)) return false;
  const date = new Date(ms);
  return date.getUTCDate() === Number(ts.slice(8, 10)) && date.getUTCHours() === Number(ts.slice(11, 13));
}

/** The record as the runtime wrote it, from a stored record of any form (read by the keeper) and its row. */
export function fullRecord(stored: Record<string, unknown>, id: string, createdAt: number): Kit.CheckpointRecord {
  if (stored.id !== undefined) return stored as unknown as Kit.CheckpointRecord;
  const { v, ts, channel_versions, versions_seen, ...rest } = stored;
  return {
    v,
    id,
    ts: ts ?? new Date(createdAt).toISOString(),
    channel_versions,
    versions_seen,
    ...rest,
  } as Kit.CheckpointRecord;
}
