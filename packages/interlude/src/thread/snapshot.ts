/**
 * `getState` and `getStateHistory`: what a thread looks like at a checkpoint: its values,
 * which tasks run next, which of them are paused and on what question.
 */

import type { GraphInternals } from "../algo/spec.js";
import {
  compareTaskPaths,
  type PreparedTask,
  prepareNextTasks,
  readState,
  subgraphNamespace,
  type TaskPath,
} from "../algo/tasks.js";
import { applyNullWrites, channelsFromCheckpoint, type Write } from "../algo/writes.js";
import { type BaseCheckpointSaver, checkpointIdOf, checkpointNsOf } from "../checkpoint/base.js";
import { type MaybePromise, SaverKit } from "../checkpoint/kit/saver-kit.js";
import { afterLangChainLoaded } from "../checkpoint/serde-langchain.js";
import type { CheckpointMetadata, CheckpointTuple, RunnableConfig } from "../checkpoint/types.js";
import type { Interrupt } from "../interrupt/record.js";
import { locatedInterrupt, publicInterrupt, type StoredInterrupt } from "../interrupt/record.js";
import { indexPendingWrites, type PendingIndex, type TaskRecord } from "./pending.js";
import { readOnlyChannels } from "./read-channels.js";
import { workingCopy } from "./working-checkpoint.js";

export interface PregelTaskDescription {
  readonly id: string;
  readonly name: string;
  readonly path: TaskPath;
  readonly error?: { name: string; message: string };
  readonly interrupts: readonly Interrupt[];
  /** The subgraph's own snapshot (with `{ subgraphs: true }`), or the config that addresses it. */
  readonly state?: StateSnapshot | RunnableConfig;
  readonly result?: Record<string, unknown>;
}

type Writable<T> = { -readonly [K in keyof T]: T[K] };

export interface StateSnapshot {
  /** Typed `any` and `string[]`, as LangGraph.js's snapshot. */
  readonly values: any;
  readonly next: string[];
  readonly config: RunnableConfig;
  readonly metadata?: CheckpointMetadata;
  readonly createdAt?: string;
  readonly parentConfig?: RunnableConfig;
  readonly tasks: readonly PregelTaskDescription[];
  readonly interrupts: readonly Interrupt[];
}

/**
 * A subgraph snapshot's config carries `checkpoint_map` (namespace -> checkpoint id, from the
 * root down to it), as LangGraph.js's does: what time travel into the subgraph reads.
 */
function withCheckpointMap(tuple: CheckpointTuple, ns: string): RunnableConfig {
  const id = tuple.config.configurable?.checkpoint_id as string;
  const checkpoint_map = { ...tuple.metadata.parents, [ns]: id };
  return { ...tuple.config, configurable: { ...tuple.config.configurable, checkpoint_map } };
}

/**
 * The metadata with `thread_id` added, copied key by key: on Node 20 adding a key to a spread
 * copy (`{ ...metadata, thread_id }`) takes V8's slow path, ~3 µs, a tenth of a cached getState.
 */
function withThreadId(metadata: CheckpointMetadata, threadId: unknown): CheckpointMetadata {
  const out: Record<string, unknown> = {};
  for (const key in metadata) out[key] = metadata[key as keyof CheckpointMetadata];
  out.thread_id = threadId;
  return out as unknown as CheckpointMetadata;
}

function emptySnapshot(config: RunnableConfig): StateSnapshot {
  return { values: {}, next: [], config, tasks: [], interrupts: [] };
}

/**
 * Writes the snapshot's values include beyond the checkpoint's: an update sent with an answer,
 * then, for the thread's current state, what the finished tasks of a paused step wrote (in
 * task order). LangGraph shows a checkpoint of the history as it was saved, without the latter.
 */
function pendingValueWrites(pending: PendingIndex, finished: PreparedTask[]): readonly Write[] {
  if (finished.length === 0) return pending.nullWrites;
  const writes: Write[] = [...pending.nullWrites];
  finished.sort((a, b) => compareTaskPaths(a.path, b.path));
  for (const task of finished) writes.push(...(pending.tasks.get(task.id)!.writes ?? []));
  return writes;
}

/**
 * `getState`: the snapshot `config` addresses in `saver`, with its subgraphs' own snapshots
 * when `subgraphs` is set (a subgraph's state lives in its parent's saver).
 */
export function stateAt(
  graph: GraphInternals,
  saver: BaseCheckpointSaver,
  config: RunnableConfig,
  subgraphs: boolean,
): Promise<StateSnapshot> {
  const build = (tuple: CheckpointTuple | undefined): StateSnapshot | Promise<StateSnapshot> => {
    if (!tuple) return emptySnapshot(config);
    const snapshot = snapshotOf(graph, tuple, !checkpointIdOf(config));
    return subgraphs ? withSubgraphStates(graph, snapshot, saver) : snapshot;
  };
  // A synchronous read (SQLite, memory) is built on at once: one promise where going through
  // getTuple's costs three, and on Node 20 every promise also runs the async hooks
  // AsyncLocalStorage turns on. No async function around it for the same reason.
  let read: MaybePromise<CheckpointTuple | undefined>;
  try {
    read = SaverKit.readTuple(saver, config);
  } catch (error) {
    read = Promise.reject(error);
  }
  if (!(read instanceof Promise)) {
    try {
      return Promise.resolve(build(read));
    } catch (error) {
      return Promise.reject(error);
    }
  }
  return read
    .then(undefined, (error: unknown) => afterLangChainLoaded(error, () => saver.getTuple(config)))
    .then(build);
}

/**
 * The snapshot with each subgraph task's `state` (the config that addresses the subgraph)
 * replaced by the subgraph's own snapshot, read from `saver`.
 */
async function withSubgraphStates(
  graph: GraphInternals,
  snapshot: StateSnapshot,
  saver: BaseCheckpointSaver,
): Promise<StateSnapshot> {
  const tasks: PregelTaskDescription[] = [];
  for (const task of snapshot.tasks) {
    const subgraph = graph.spec.nodes.get(task.name)?.subgraph;
    if (!subgraph) tasks.push(task);
    else tasks.push({ ...task, state: await stateAt(subgraph, saver, task.state as RunnableConfig, true) });
  }
  return { ...snapshot, tasks };
}

/**
 * Synchronous (getState pays for no extra turn); a subgraph task's `state` is the config that
 * addresses the subgraph, which `withSubgraphStates` may replace with its snapshot.
 * @param current the thread's current state (getState without a checkpoint id), not a checkpoint of its history
 */
export function snapshotOf(graph: GraphInternals, tuple: CheckpointTuple, current = false): StateSnapshot {
  const spec = graph.spec;
  const pending = indexPendingWrites(tuple.pendingWrites);
  // Tasks come from the checkpoint as saved; values add its pending writes. Without any, both
  // read the same (read-only) channels, built once.
  const saved = readOnlyChannels(spec, tuple.checkpoint);
  const ns = checkpointNsOf(tuple.config);
  const threadId = tuple.config.configurable?.thread_id as string | undefined;
  const prepared = prepareNextTasks(spec, tuple.checkpoint, saved, tuple.metadata.step + 1, ns);

  const tasks: PregelTaskDescription[] = [];
  const located: Interrupt[] = [];
  const next: string[] = [];
  const finished: PreparedTask[] = [];
  for (const task of prepared) {
    const record = pending.tasks.get(task.id);
    const stored = record?.done ? [] : (record?.interrupts ?? []);
    for (const interrupt of stored) located.push(locatedInterrupt(interrupt));
    tasks.push(describeTask(spec, task, record, stored, threadId));
    // Tasks lists every task of the step (`result` tells which finished); next the unfinished.
    if (record?.done && current) finished.push(task);
    else next.push(task.name);
  }
  const extra = pendingValueWrites(pending, finished);
  let channels = saved;
  if (extra.length) {
    const checkpoint = workingCopy(tuple.checkpoint);
    channels = channelsFromCheckpoint(spec, checkpoint);
    applyNullWrites(checkpoint, channels, extra);
  }
  return {
    values: spec.rootKey
      ? readState(channels, spec.stateKeys)[spec.rootKey]
      : readState(channels, spec.snapshotKeys ?? spec.stateKeys),
    next,
    config: ns ? withCheckpointMap(tuple, ns) : tuple.config,
    metadata: threadId === undefined ? tuple.metadata : withThreadId(tuple.metadata, threadId),
    createdAt: tuple.checkpoint.ts,
    parentConfig: tuple.parentConfig,
    tasks,
    interrupts: located,
  };
}

/** A task as a snapshot (and the `checkpoints` stream) describes it, from its pending writes. */
export function describePendingTask(
  spec: GraphInternals["spec"],
  task: PreparedTask,
  record: TaskRecord | undefined,
  threadId: string | undefined,
): PregelTaskDescription {
  return describeTask(spec, task, record, record?.done ? [] : (record?.interrupts ?? []), threadId);
}

/** One task of the snapshot; built key by key, in the order LangGraph gives them. */
function describeTask(
  spec: GraphInternals["spec"],
  task: PreparedTask,
  record: TaskRecord | undefined,
  stored: readonly StoredInterrupt[],
  threadId: string | undefined,
): PregelTaskDescription {
  const description: Writable<PregelTaskDescription> = {
    id: task.id,
    name: task.name,
    path: task.path,
    interrupts: stored.map(publicInterrupt),
  };
  if (record?.error) description.error = record.error;
  const subgraph = spec.nodes.get(task.name)?.subgraph;
  // The config that addresses the subgraph's checkpoints (or those of a nested interrupt's graph).
  if (subgraph || stored.some((i) => i.ns && i.ns !== task.ns)) {
    const checkpoint_ns = subgraphNamespace(task.ns, subgraph?.subgraphCheckpoints === "persistent");
    description.state = { configurable: { thread_id: threadId, checkpoint_ns } };
  }
  if (record?.done)
    description.result = Object.fromEntries((record.writes ?? []).filter(([k]) => spec.stateKeySet.has(k)));
  return description;
}
