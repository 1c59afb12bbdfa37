import type { Checkpoint, CheckpointMetadata, Serializer } from "@interlude/core";
import type * as Kit from "@interlude/core/saver-kit";

/**
 * A checkpoint row's record without what the row's own columns already hold: `id` is
 * `checkpoint_id`, and `ts` is `created_at` when it is the canonical ISO form of that instant
 * (`new Date(ms).toISOString()`, which is what the runtime writes). That is ~75 of the ~230
 * bytes a record took (issue 15 item 4: bytes per step of a chat thread).
 *
 * Records written before (schema version 3 and earlier) carry both fields and read unchanged;
 * a record of this form says so by lacking `id`. Schema migration 4 marks the file, so an
 * older package refuses it instead of returning checkpoints without ids.
 */
export function slimKeeper(serde: Serializer): Kit.Keeper<string | Uint8Array> {
  return {
    record: (checkpoint) => serde.dumps(slimRecord(checkpoint), "checkpoint"),
    metadata: (metadata: CheckpointMetadata) => serde.dumps(metadata, "metadata"),
    read: (kept) => serde.loads(kept),
  };
}

function slimRecord(checkpoint: Checkpoint): Record<string, unknown> {
  const { v, ts, channel_versions, versions_seen } = checkpoint;
  // Explicit fields on the hot path; a field a newer runtime adds is kept by the slow branch.
  let record: Record<string, unknown>;
  if (Object.keys(checkpoint).length === 6) record = { v, ts, channel_versions, versions_seen };
  else {
    const { channel_values: _values, id: _id, ...rest } = checkpoint;
    record = rest;
  }
  if (isCanonical(ts)) delete record.ts;
  return record;
}

function isCanonical(ts: string): boolean {
  const ms = Date.parse(ts);
  return !Number.isNaN(ms) && new Date(ms).toISOString() === ts;
}

/** The record as the runtime wrote it, from a stored record of either form and its row. */
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
