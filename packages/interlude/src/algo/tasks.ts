/**
 * Which tasks run next. Pure: reads the checkpoint's versions and the channels, decides.
 */
import type { Channel } from "../channels/base.js";
import type { Checkpoint } from "../checkpoint/types.js";
import { NS_END, NS_SEP, PULL, PUSH, START, TASKS } from "../constants.js";
import type { TimeoutPolicy } from "../runner/timeout.js";
import { FastIdsAfter } from "./hash.js";
import { type GraphSpec, NO_TASK } from "./spec.js";

/** `[PULL, node]` for a node triggered by edges, `[PUSH, index]` for a `Send`. */
export type TaskPath = readonly [typeof PULL, string] | readonly [typeof PUSH, number];

export interface SendPacket {
  node: string;
  args: unknown;
  /** The Send's own limits, instead of its node's. */
  timeout?: TimeoutPolicy;
}

/** A task prepared for a step: a node to run once, with its input. */
export interface PreparedTask {
  id: string;
  name: string;
  path: TaskPath;
  /** The state (pull), the `Send` argument (push), or the run's input (`__start__`). */
  input: unknown;
  /** The state at the step's start, when `input` is something else (a Send's argument, for its node's branches). */
  state?: Record<string, unknown>;
  /** Channels that triggered it; recorded as seen once it ran. */
  triggers: readonly string[];
  /** Checkpoint namespace of this task: subgraphs it runs store their checkpoints here. */
  ns: string;
  /** A Send's own limits, instead of its node's `timeout`. */
  timeout?: TimeoutPolicy;
}

export function readState(channels: ReadonlyMap<string, Channel>, keys: readonly string[]): Record<string, unknown> {
  const state: Record<string, unknown> = {};
  for (const key of keys) {
    const channel = channels.get(key)!;
    if (channel.isAvailable()) state[key] = channel.get();
  }
  return state;
}

function taskNamespace(parentNs: string, name: string, id: string): string {
  return parentNs ? `${parentNs}${NS_SEP}${name}${NS_END}${id}` : `${name}${NS_END}${id}`;
}

/**
 * The namespace a subgraph run by a task saves under: the task's own, or, for a subgraph that
 * keeps its state across the parent's runs, the same namespace without task ids (`parent|child`).
 */
export function subgraphNamespace(taskNs: string, persistent: boolean): string {
  if (!persistent) return taskNs;
  return taskNs
    .split(NS_SEP)
    .map((segment) => segment.split(NS_END)[0])
    .join(NS_SEP);
}

function isTriggered(
  spec: GraphSpec,
  checkpoint: Checkpoint,
  channels: ReadonlyMap<string, Channel>,
  name: string,
): string[] | undefined {
  const node = spec.nodes.get(name)!;
  const seen = checkpoint.versions_seen[name];
  let fired: string[] | undefined;
  for (const channel of node.triggers) {
    const version = checkpoint.channel_versions[channel];
    if (version === undefined || !channels.get(channel)!.isAvailable()) continue;
    if (seen === undefined || (seen[channel] ?? 0) < version) (fired ??= []).push(channel);
  }
  return fired;
}

/**
 * The tasks of the step that follows `checkpoint`. `candidates` narrows the pull check to
 * nodes triggered by channels updated in the last step (all nodes when omitted).
 */
export function prepareNextTasks(
  spec: GraphSpec,
  checkpoint: Checkpoint,
  channels: ReadonlyMap<string, Channel>,
  step: number,
  parentNs: string,
  candidates?: Iterable<string>,
): PreparedTask[] {
  const tasks: PreparedTask[] = [];
  let state: Record<string, unknown> | undefined;
  const sends = channels.get(TASKS)!;
  if (sends.isAvailable()) {
    const packets = sends.get() as SendPacket[];
    const ids = new FastIdsAfter(`${checkpoint.id}|${parentNs}|${step}|push|`);
    for (let i = 0; i < packets.length; i++) {
      const packet = packets[i]!;
      if (!spec.nodes.has(packet.node)) continue;
      const id = ids.id(`${i}|${packet.node}`);
      const task: PreparedTask = {
        id,
        name: packet.node,
        path: [PUSH, i],
        input: packet.args,
        triggers: [TASKS],
        ns: taskNamespace(parentNs, packet.node, id),
      };
      if (packet.timeout) task.timeout = packet.timeout;
      // A Send's node routes on the graph's state (with its own writes), not on what it was sent.
      if (spec.nodes.get(packet.node)!.branches.length) task.state = state ??= readState(channels, spec.stateKeys);
      tasks.push(task);
    }
  }
  let pulled: FastIdsAfter | undefined;
  for (const name of candidates ?? spec.nodes.keys()) {
    const triggers = isTriggered(spec, checkpoint, channels, name);
    if (!triggers) continue;
    const node = spec.nodes.get(name)!;
    const input = node.readInput?.(channels);
    if (input === NO_TASK) continue;
    pulled ??= new FastIdsAfter(`${checkpoint.id}|${parentNs}|${step}|pull|`);
    const id = pulled.id(name);
    const task: PreparedTask = {
      id,
      name,
      path: [PULL, name],
      input: undefined,
      triggers,
      ns: taskNamespace(parentNs, name, id),
    };
    // A node reading its own channels (a low-level graph's) needs the state only to route.
    if (node.readInput) {
      task.input = input;
      if (node.branches.length) task.state = state ??= readState(channels, spec.stateKeys);
      tasks.push(task);
      continue;
    }
    state ??= readState(channels, spec.stateKeys);
    task.input = state;
    if (name === START) {
      task.input = channels.get(START)!.get();
      task.state = state;
    } else if (node.inputKeys) {
      task.input = withValues(state, node.inputKeys);
      task.state = state;
    }
    tasks.push(task);
  }
  return tasks;
}

/**
 * LangGraph's order of a step's tasks, in which their writes reach reducers: nodes pulled by
 * their edges by name, then `Send`s in the order they were sent.
 */
export function compareTaskPaths(a: TaskPath, b: TaskPath): number {
  if (a[0] !== b[0]) return a[0] === PULL ? -1 : 1;
  if (a[0] === PUSH) return (a[1] as number) - (b[1] as number);
  return a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0;
}

/**
 * Nodes that a set of updated channels may trigger, by name: LangGraph prepares (and so starts,
 * streams and lists) a step's pulled tasks in that order once a step has run; a step prepared
 * from a loaded checkpoint lists them in graph order (`prepareNextTasks` without candidates).
 */
export function candidateNodes(spec: GraphSpec, updated: Iterable<string>): Iterable<string> {
  const nodes = new Set<string>();
  for (const channel of updated) {
    const triggered = spec.triggerIndex.get(channel);
    if (triggered) for (const name of triggered) nodes.add(name);
  }
  return nodes.size > 1 ? [...nodes].sort() : nodes;
}

/** The keys of `state` that hold a value (a node's input schema's view, as LangGraph gives it). */
function withValues(state: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const view: Record<string, unknown> = {};
  for (const key of keys) if (state[key] !== undefined) view[key] = state[key];
  return view;
}
