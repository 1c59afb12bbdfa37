/**
 * How a step's writes apply to channels. Mutates the channels and the version maps it is
 * given (the loop owns both and copies them into each checkpoint it saves).
 */
import type { Channel } from "../channels/base.js";
import type { ChannelVersions, Checkpoint } from "../checkpoint/types.js";
import type { GraphSpec } from "./spec.js";

export type Write = readonly [channel: string, value: unknown];

export interface TaskWrites {
  name: string;
  triggers: readonly string[];
  writes: readonly Write[];
}

/**
 * The next version of a channel: one more than the last, plus a random fraction. Versions
 * only need to grow along one history, but savers key stored values by (channel, version), so
 * two forks of one checkpoint must not produce the same version for different values.
 */
export function nextVersion(current: number | undefined): number {
  return Math.floor(current ?? 0) + 1 + Math.random() * 0.999;
}

function bump(versions: ChannelVersions, channel: string, updated: Set<string>): void {
  versions[channel] = nextVersion(versions[channel]);
  updated.add(channel);
}

/**
 * Applies the writes of the tasks of one step, in task order (so reducers see a
 * deterministic order whatever order the tasks finished in). Returns the updated channels.
 */
export function applyWrites(
  spec: GraphSpec,
  checkpoint: Checkpoint,
  channels: ReadonlyMap<string, Channel>,
  tasks: readonly TaskWrites[],
): Set<string> {
  const versions = checkpoint.channel_versions;
  const updated = new Set<string>();

  for (const task of tasks) {
    const seen = { ...checkpoint.versions_seen[task.name] };
    for (const channel of task.triggers) seen[channel] = versions[channel] ?? 0;
    checkpoint.versions_seen[task.name] = seen;
  }
  for (const task of tasks) {
    for (const channel of task.triggers) {
      if (channels.get(channel)!.consume()) bump(versions, channel, updated);
    }
  }

  const grouped = new Map<string, unknown[]>();
  for (const task of tasks) {
    for (const [channel, value] of task.writes) {
      const list = grouped.get(channel);
      if (list) list.push(value);
      else grouped.set(channel, [value]);
    }
  }
  for (const [channel, values] of grouped) {
    const target = channels.get(channel);
    if (target && target.update(values)) bump(versions, channel, updated);
  }
  for (const channel of spec.ephemeralChannels) {
    if (!grouped.has(channel) && channels.get(channel)!.update([])) bump(versions, channel, updated);
  }
  return updated;
}

/** Writes that belong to no task (input, `Command({ update })`): applied as a step of their own. */
export function applyNullWrites(spec: GraphSpec, checkpoint: Checkpoint, channels: ReadonlyMap<string, Channel>, writes: readonly Write[]): Set<string> {
  const versions = checkpoint.channel_versions;
  const updated = new Set<string>();
  const grouped = new Map<string, unknown[]>();
  for (const [channel, value] of writes) {
    const list = grouped.get(channel);
    if (list) list.push(value);
    else grouped.set(channel, [value]);
  }
  for (const [channel, values] of grouped) {
    const target = channels.get(channel);
    if (target && target.update(values)) bump(versions, channel, updated);
  }
  void spec;
  return updated;
}

/** Channels rebuilt from a checkpoint's saved values. */
export function channelsFromCheckpoint(spec: GraphSpec, checkpoint: Checkpoint | undefined): Map<string, Channel> {
  const channels = new Map<string, Channel>();
  const values = checkpoint?.channel_values;
  for (const [name, make] of spec.channelFactories) {
    const empty = make();
    channels.set(name, values && name in values ? empty.fromCheckpoint(values[name]) : empty);
  }
  return channels;
}

/** The values to store in a checkpoint. */
export function channelValues(channels: ReadonlyMap<string, Channel>): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [name, channel] of channels) {
    if (channel.isAvailable()) values[name] = channel.checkpoint();
  }
  return values;
}
