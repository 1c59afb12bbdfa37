import { MissingThreadIdError } from "../errors/graph.js";
import { threadIdOf } from "./base.js";
import type { Checkpoint, CheckpointMetadata, CheckpointTuple, PendingWrite, RunnableConfig } from "./types.js";

/** A checkpoint without its values: what a checkpoint row stores (values live in blobs). */
export type CheckpointRecord = Omit<Checkpoint, "channel_values">;

export function recordOf(checkpoint: Checkpoint): CheckpointRecord {
  // Explicit fields are several times faster than a rest spread on this hot path; any extra
  // field a newer runtime adds is kept by the slow branch.
  const { v, id, ts, channel_versions, versions_seen } = checkpoint;
  if (Object.keys(checkpoint).length === 6) return { v, id, ts, channel_versions, versions_seen };
  const { channel_values: _values, ...record } = checkpoint;
  return record;
}

export function requireThreadId(config: RunnableConfig): string {
  const threadId = threadIdOf(config);
  if (threadId === undefined) throw new MissingThreadIdError();
  return threadId;
}

/** A checkpoint's config; `threadId` is undefined only for a run without a checkpointer. */
export function checkpointConfig(
  threadId: string | undefined,
  ns: string,
  checkpointId: string | undefined,
): RunnableConfig {
  return { configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: checkpointId } };
}

export interface TupleParts {
  threadId: string;
  ns: string;
  record: CheckpointRecord;
  values: Record<string, unknown>;
  metadata: CheckpointMetadata;
  parentId: string | null | undefined;
  writes: PendingWrite[];
}

/** Builds the tuple; `parts.record` must be freshly loaded, as it becomes the returned checkpoint. */
export function buildTuple(parts: TupleParts): CheckpointTuple {
  const { threadId, ns, record, values, metadata, parentId, writes } = parts;
  const tuple: CheckpointTuple = {
    config: checkpointConfig(threadId, ns, record.id),
    checkpoint: Object.assign(record, { channel_values: values }) as Checkpoint,
    metadata,
    pendingWrites: writes,
  };
  // Kept even when the parent was pruned: the link is history, and the child reads fine alone.
  if (parentId) tuple.parentConfig = checkpointConfig(threadId, ns, parentId);
  return tuple;
}
