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
  if (threadId === undefined) throw new MissingThreadIdError(config);
  return threadId;
}

/**
 * A checkpoint's config; `threadId` is undefined only for a run without a checkpointer. `keys`
 * are the caller's own configurable keys (`callerKeys`), which a saver is handed too.
 */
export function checkpointConfig(
  threadId: string | undefined,
  ns: string,
  checkpointId: string | undefined,
  keys?: Record<string, unknown>,
): RunnableConfig {
  if (keys) return { configurable: { ...keys, thread_id: threadId, checkpoint_ns: ns, checkpoint_id: checkpointId } };
  return { configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: checkpointId } };
}

/** The keys of a checkpoint's address, which a run sets itself. */
const ADDRESS = new Set(["thread_id", "checkpoint_ns", "checkpoint_id", "checkpoint_map"]);

/**
 * The caller's configurable keys besides a checkpoint's address (a tenant id, say): a run hands
 * them to every saver call, as LangGraph.js does, so a saver of one's own can read them.
 * Undefined when there are none (most runs), so that a save builds no bigger config.
 */
export function callerKeys(config: RunnableConfig | undefined): Record<string, unknown> | undefined {
  const configurable = config?.configurable;
  let keys: Record<string, unknown> | undefined;
  for (const key in configurable) if (!ADDRESS.has(key)) (keys ??= {})[key] = configurable[key];
  return keys;
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
