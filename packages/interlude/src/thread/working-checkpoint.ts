/**
 * The checkpoint a run (or a state update) works on, and the records it saves from it. The
 * working copy's version maps are mutated step by step; each saved record gets copies of them.
 */
import { changedChannelValues } from "../algo/writes.js";
import type { Channel } from "../channels/base.js";
import { newCheckpointId } from "../checkpoint/id.js";
import { isoNow } from "../checkpoint/timestamp.js";
import { CHECKPOINT_VERSION, type Checkpoint } from "../checkpoint/types.js";

/** The working checkpoint of a thread that has none yet. */
export function emptyCheckpoint(): Checkpoint {
  return {
    v: CHECKPOINT_VERSION,
    id: newCheckpointId(),
    ts: isoNow(),
    channel_values: {},
    channel_versions: {},
    versions_seen: {},
  };
}

/** A copy whose maps may be changed without touching `checkpoint` (the channel values are shared). */
export function copyCheckpoint(checkpoint: Checkpoint): Checkpoint {
  // A map left out (a checkpoint written by hand) is copied as empty, as LangGraph.js does.
  return {
    ...checkpoint,
    channel_values: { ...checkpoint.channel_values },
    channel_versions: { ...checkpoint.channel_versions },
    versions_seen: Object.fromEntries(
      Object.entries(checkpoint.versions_seen ?? {}).map(([node, versions]) => [node, { ...versions }]),
    ),
  };
}

/** A working copy of a saved checkpoint that may be mutated. */
export function workingCopy(saved: Checkpoint): Checkpoint {
  return { ...saved, channel_versions: { ...saved.channel_versions }, versions_seen: { ...saved.versions_seen } };
}

/**
 * A new record to save from the working checkpoint. It carries only the values of `changed`
 * channels (those changed since the last save): the saver shares the rest with earlier checkpoints.
 */
export function checkpointToSave(
  working: Checkpoint,
  channels: ReadonlyMap<string, Channel>,
  changed: Iterable<string>,
): Checkpoint {
  return {
    v: CHECKPOINT_VERSION,
    id: newCheckpointId(),
    ts: isoNow(),
    channel_values: changedChannelValues(channels, changed),
    channel_versions: { ...working.channel_versions },
    versions_seen: { ...working.versions_seen },
  };
}
