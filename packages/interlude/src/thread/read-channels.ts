/**
 * Channels that a snapshot reads a checkpoint's values and next tasks from, and never updates.
 * A snapshot of a graph builds every channel (its state keys, a trigger per node, sends, the
 * input), and most of them have no value in the checkpoint: those are one empty instance per
 * graph, shared by every read, instead of a new object per channel and read.
 */
import type { GraphSpec } from "../algo/spec.js";
import type { Channel } from "../channels/base.js";
import type { Checkpoint } from "../checkpoint/types.js";

/** A channel's shared empty instance; `holdsDefault`: its empty form has a value, built anew per read. */
interface Empty {
  readonly name: string;
  readonly channel: Channel;
  readonly holdsDefault: boolean;
}

const emptyChannels = new WeakMap<GraphSpec, readonly Empty[]>();

function emptiesOf(spec: GraphSpec): readonly Empty[] {
  let empties = emptyChannels.get(spec);
  if (!empties) {
    const made: Empty[] = [];
    for (const [name, make] of spec.channelFactories) {
      const channel = make();
      made.push({ name, channel, holdsDefault: channel.isAvailable() });
    }
    emptyChannels.set(spec, (empties = made));
  }
  return empties;
}

/** Read-only channels of `checkpoint` (`fromCheckpoint` builds a new channel and leaves the shared one as it was). */
export function readOnlyChannels(spec: GraphSpec, checkpoint: Checkpoint): ReadonlyMap<string, Channel> {
  const values = checkpoint.channel_values;
  const channels = new Map<string, Channel>();
  for (const { name, channel, holdsDefault } of emptiesOf(spec)) {
    if (name in values) channels.set(name, channel.fromCheckpoint(values[name]));
    // A default is handed out with the values: each read gets its own.
    else channels.set(name, holdsDefault ? spec.channelFactories.get(name)!() : channel);
  }
  return channels;
}
