/**
 * How a step's writes apply to channels. Mutates the channels and the version maps it is
 * given (the loop owns both and copies them into each checkpoint it saves).
 */
import type { AfterFinish } from "../channels/after-finish.js";
import type { Channel } from "../channels/base.js";
import { isUntracked } from "../channels/untracked.js";
import type { ChannelVersions, Checkpoint } from "../checkpoint/types.js";
import { TASKS } from "../constants.js";
import type { GraphSpec, Write } from "./spec.js";

export type { Write } from "./spec.js";

export interface TaskWrites {
  name: string;
  triggers: readonly string[];
  writes: readonly Write[];
}

/**
 * The newest version in a large version map that a step bumped, so that the next step need not
 * scan it: a scan costs ~6 µs per step in a map of 100 channels (a dictionary by then), a lookup
 * ~0.1 µs. Only the Bumper writes into a map in place (every other change makes a new map),
 * and what it writes is above everything in the map, so the entry stays right. Small maps are
 * scanned: remembering each one (a new map whenever cleared channels are forgotten) cost more.
 */
const newestVersion = new WeakMap<ChannelVersions, number>();
/** From this many channels on, a map's newest version is remembered. */
const REMEMBERED_FROM = 32;

/**
 * Assigns the step's version to updated channels, computing it on first use. It writes to the
 * checkpoint's current version map: forgetting cleared channels replaces that map mid-step.
 */
class Bumper {
  private version: number | undefined;
  /** The map whose newest version is known to be this step's (or that is too small to remember it). */
  private marked: ChannelVersions | undefined;
  /** The step's maps are large enough for their newest version to be remembered. */
  private remembers = false;
  readonly updated = new Set<string>();
  constructor(private readonly checkpoint: Checkpoint) {}
  bump(channel: string): void {
    const versions = this.checkpoint.channel_versions;
    if (versions !== this.marked) {
      this.version ??= this.nextVersion(versions);
      if (this.remembers) newestVersion.set(versions, this.version);
      this.marked = versions;
    }
    versions[channel] = this.version!;
    this.updated.add(channel);
  }

  /**
   * One more than the newest version in the checkpoint (so versions order steps across
   * channels, and the node that wrote last can be found), plus a random fraction, because savers
   * key stored values by (channel, version) and two forks of one checkpoint must not produce the
   * same version for different values.
   */
  private nextVersion(versions: ChannelVersions): number {
    let max = newestVersion.get(versions);
    this.remembers = max !== undefined;
    if (max === undefined) {
      max = 0;
      let count = 0;
      for (const channel in versions) {
        count++;
        if (versions[channel]! > max) max = versions[channel]!;
      }
      this.remembers = count >= REMEMBERED_FROM;
    }
    return Math.floor(max) + 1 + Math.random() * 0.999;
  }
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
  const bumper = new Bumper(checkpoint);

  for (const task of tasks) {
    const seen = { ...checkpoint.versions_seen[task.name] };
    for (const channel of task.triggers) seen[channel] = versions[channel] ?? 0;
    checkpoint.versions_seen[task.name] = seen;
  }
  for (const task of tasks) {
    for (const channel of task.triggers) {
      if (channels.get(channel)!.consume()) bumper.bump(channel);
    }
  }

  const grouped = groupByChannel(tasks.map((task) => task.writes));
  updateChannels(channels, grouped, bumper);
  clearEphemerals(spec, checkpoint, channels, grouped, bumper);
  if (spec.noticingChannels.length) noticeStep(spec, channels, bumper);
  if (spec.finishChannels.length && !triggersNextStep(spec, channels, bumper.updated))
    finishDeferred(spec, channels, bumper);
  return bumper.updated;
}

function triggersNextStep(
  spec: GraphSpec,
  channels: ReadonlyMap<string, Channel>,
  updated: ReadonlySet<string>,
): boolean {
  for (const channel of updated) {
    if ((channel === TASKS || spec.triggerIndex.has(channel)) && channels.get(channel)!.isAvailable()) return true;
  }
  return false;
}

/** Channels of one's own hear of a step that did not update them, as LangGraph.js tells every channel. */
function noticeStep(spec: GraphSpec, channels: ReadonlyMap<string, Channel>, bumper: Bumper): void {
  for (const name of spec.noticingChannels) {
    const channel = channels.get(name)!;
    if (channel.isAvailable() && !bumper.updated.has(name) && channel.update([])) bumper.bump(name);
  }
}

/** The run would finish here: deferred nodes waiting for it are released. */
function finishDeferred(spec: GraphSpec, channels: ReadonlyMap<string, Channel>, bumper: Bumper): void {
  for (const name of spec.finishChannels) {
    if ((channels.get(name) as AfterFinish<unknown, unknown>).finish()) bumper.bump(name);
  }
}

/**
 * Ephemeral channels (triggers, sends, the input) last one step: those not written in this
 * step are cleared. Those already cleared in an earlier step are forgotten: their versions are
 * dropped, and what nodes saw of them (a cleared trigger carries no information, and its next
 * write gets a version above everything seen). Checkpoint records so stay the size of what is
 * live rather than of the graph, and this scan only visits channels that have a version.
 */
function clearEphemerals(
  spec: GraphSpec,
  checkpoint: Checkpoint,
  channels: ReadonlyMap<string, Channel>,
  written: ReadonlyMap<string, unknown>,
  bumper: Bumper,
): void {
  const versions = checkpoint.channel_versions;
  let forgotten: string[] | undefined;
  // for-in, not Object.keys: no key list per step (bumps only change values of existing keys).
  for (const channel in versions) {
    if (!spec.ephemeralSet.has(channel) || written.has(channel) || bumper.updated.has(channel)) continue;
    if (channels.get(channel)!.update([])) bumper.bump(channel);
    else (forgotten ??= []).push(channel);
  }
  if (forgotten) forget(checkpoint, forgotten);
}

/**
 * Both maps are rebuilt rather than `delete`d from: a deletion turns an object into a slow
 * dictionary, and the loop copies these maps at every step (a spread of a dictionary costs
 * ~30x that of a plain object, and serialising it more too).
 */
function forget(checkpoint: Checkpoint, forgotten: readonly string[]): void {
  checkpoint.channel_versions = without(checkpoint.channel_versions, forgotten);
  const seenByNode = checkpoint.versions_seen;
  let changed = false;
  const kept: Record<string, ChannelVersions> = {};
  for (const node in seenByNode) {
    const seen = seenByNode[node]!;
    if (!forgotten.some((channel) => channel in seen)) {
      kept[node] = seen;
      continue;
    }
    changed = true;
    // Copy on write: saved checkpoints may share this object.
    const rest = without(seen, forgotten);
    if (hasKeys(rest)) kept[node] = rest;
  }
  if (changed) checkpoint.versions_seen = kept;
}

function hasKeys(object: object): boolean {
  for (const _ in object) return true;
  return false;
}

function without(versions: ChannelVersions, forgotten: readonly string[]): ChannelVersions {
  const kept: ChannelVersions = {};
  for (const channel in versions) if (!forgotten.includes(channel)) kept[channel] = versions[channel]!;
  return kept;
}

/** Writes that belong to no task (input, `Command({ update })`): applied as a step of their own. */
export function applyNullWrites(
  checkpoint: Checkpoint,
  channels: ReadonlyMap<string, Channel>,
  writes: readonly Write[],
): Set<string> {
  const bumper = new Bumper(checkpoint);
  updateChannels(channels, groupByChannel([writes]), bumper);
  return bumper.updated;
}

/** Each channel's values in the order they were written (lists in order, each in order). */
function groupByChannel(lists: ReadonlyArray<readonly Write[]>): Map<string, unknown[]> {
  const grouped = new Map<string, unknown[]>();
  for (const writes of lists) {
    for (const [channel, value] of writes) {
      const list = grouped.get(channel);
      if (list) list.push(value);
      else grouped.set(channel, [value]);
    }
  }
  return grouped;
}

function updateChannels(
  channels: ReadonlyMap<string, Channel>,
  grouped: ReadonlyMap<string, unknown[]>,
  bumper: Bumper,
): void {
  for (const [channel, values] of grouped) {
    const target = channels.get(channel);
    if (target?.update(values)) bumper.bump(channel);
  }
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

/** What a channel stores; undefined when empty, also for a channel of one's own written as LangGraph.js's throw. */
function savedValue(channel: Channel): unknown {
  try {
    return channel.checkpoint();
  } catch (error) {
    if ((error as Error | null)?.name === "EmptyChannelError") return undefined;
    throw error;
  }
}

/**
 * The values of some channels only (those changed since the last save): what a saver needs,
 * since it stores a checkpoint's values per (channel, version) and shares the others. A channel
 * is stored whenever it has something to keep, available or not yet: a join that has heard from
 * some of its sources, a deferred node's trigger held back, a unique topic's seen values.
 */
export function changedChannelValues(
  channels: ReadonlyMap<string, Channel>,
  changed: Iterable<string>,
): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const name of changed) {
    const channel = channels.get(name);
    // An untracked key is left out, not stored as empty: the checkpoint knows nothing of it.
    if (!channel || isUntracked(channel)) continue;
    const saved = savedValue(channel);
    if (saved !== undefined) values[name] = saved;
  }
  return values;
}
