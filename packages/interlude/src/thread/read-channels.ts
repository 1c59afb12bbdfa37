/**
 * Channels that a snapshot reads a checkpoint's values and next tasks from, and never updates.
 * A snapshot of a graph builds every channel (its state keys, a trigger per node, sends, the
 * input), and most of them have no value in the checkpoint: those are one empty instance per
 * graph, shared by every read, instead of a new object per channel and read.
 */
import type { GraphSpec } from "../algo/spec.js";
import type { Channel } from "../channels/base.js";
import type { Checkpoint } from "../checkpoint/types.js";

const emptyChannels = new WeakMap<GraphSpec, ReadonlyMap<string, Channel>>();

function emptiesOf(spec: GraphSpec): ReadonlyMap<string, Channel> {
  let empties = emptyChannels.get(spec);
  if (!empties) {
    const made = new Map<string, Channel>();
    for (const [name, make] of spec.channelFactories) made.set(name, make());
    emptyChannels.set(spec, (empties = made));
  }
  return empties;
}

/** Read-only channels of `checkpoint` (`fromCheckpoint` builds a new channel and leaves the shared one as it was). */
export function readOnlyChannels(spec: GraphSpec, checkpoint: Checkpoint): ReadonlyMap<string, Channel> {
  const values = checkpoint.channel_values;
  const channels = new Map<string, Channel>();
  for (const [name, empty] of emptiesOf(spec)) {
    if (name in values) channels.set(name, empty.fromCheckpoint(values[name]));
    // An empty channel that holds a default hands that value out: each read gets its own.
    else channels.set(name, empty.isAvailable() ? spec.channelFactories.get(name)!() : empty);
  }
  return channels;
}
