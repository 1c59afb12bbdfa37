/**
 * `getState` and `getStateHistory`: what a thread looks like at a checkpoint: its values,
 * which tasks run next, which of them are paused and on what question.
 */

import { prepareNextTasks, readState, subgraphNamespace, type TaskPath } from "../algo/tasks.js";
import { applyNullWrites, channelsFromCheckpoint } from "../algo/writes.js";
import type { CheckpointMetadata, CheckpointTuple, RunnableConfig } from "../checkpoint/types.js";
import { publicInterrupt } from "../interrupt/signal.js";
import type { Interrupt } from "../primitives/interrupt-record.js";
import type { GraphInternals } from "./graph-internals.js";
import { indexPendingWrites } from "./pending.js";
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

export interface StateSnapshot {
  readonly values: Record<string, unknown>;
  readonly next: readonly string[];
  readonly config: RunnableConfig;
  readonly metadata?: CheckpointMetadata;
  readonly createdAt?: string;
  readonly parentConfig?: RunnableConfig;
  readonly tasks: readonly PregelTaskDescription[];
  readonly interrupts: readonly Interrupt[];
}

export type SubgraphStateReader = (
  graph: unknown,
  config: RunnableConfig,
  subgraphs: boolean,
) => Promise<StateSnapshot | undefined>;

/**
 * A subgraph snapshot's config carries `checkpoint_map` (namespace -> checkpoint id, from the
 * root down to it), as LangGraph.js's does: what time travel into the subgraph reads.
 */
function withCheckpointMap(tuple: CheckpointTuple, ns: string): RunnableConfig {
  const id = tuple.config.configurable?.checkpoint_id as string;
  const checkpoint_map = { ...tuple.metadata.parents, [ns]: id };
  return { ...tuple.config, configurable: { ...tuple.config.configurable, checkpoint_map } };
}

export function emptySnapshot(config: RunnableConfig): StateSnapshot {
  return { values: {}, next: [], config, tasks: [], interrupts: [] };
}

export async function snapshotOf(
  graph: GraphInternals,
  tuple: CheckpointTuple,
  subgraphs: boolean,
  readSubgraph: SubgraphStateReader,
): Promise<StateSnapshot> {
  const spec = graph.spec;
  const pending = indexPendingWrites(tuple.pendingWrites);
  // Values include pending null writes (an update sent with an answer); tasks come from the
  // checkpoint as saved. Without null writes both read the same channels, built once.
  let channels = channelsFromCheckpoint(spec, tuple.checkpoint);
  const saved = channels;
  if (pending.nullWrites.length) {
    const checkpoint = workingCopy(tuple.checkpoint);
    channels = channelsFromCheckpoint(spec, checkpoint);
    applyNullWrites(checkpoint, channels, pending.nullWrites);
  }
  const ns = (tuple.config.configurable?.checkpoint_ns as string | undefined) ?? "";
  const threadId = tuple.config.configurable?.thread_id;
  const prepared = prepareNextTasks(spec, tuple.checkpoint, saved, tuple.metadata.step + 1, ns);

  const tasks: PregelTaskDescription[] = [];
  for (const task of prepared) {
    const record = pending.tasks.get(task.id);
    const interrupts = (record?.done ? [] : (record?.interrupts ?? [])).map(publicInterrupt);
    let state: StateSnapshot | RunnableConfig | undefined;
    const subgraph = spec.nodes.get(task.name)?.subgraph;
    const persistent = (subgraph as GraphInternals | undefined)?.subgraphCheckpoints === "persistent";
    const childNs = subgraphNamespace(task.ns, persistent);
    const childConfig: RunnableConfig = { configurable: { thread_id: threadId, checkpoint_ns: childNs } };
    if (subgraph && subgraphs) state = await readSubgraph(subgraph, childConfig, true);
    else if (subgraph || interrupts.some((i) => i.ns && i.ns !== task.ns)) state = childConfig;
    const description: PregelTaskDescription = {
      id: task.id,
      name: task.name,
      path: task.path,
      interrupts,
      ...(record?.error ? { error: record.error } : {}),
      ...(state ? { state } : {}),
      ...(record?.done
        ? { result: Object.fromEntries((record.writes ?? []).filter(([k]) => spec.stateKeySet.has(k))) }
        : {}),
    };
    tasks.push(description);
  }
  return {
    values: readState(channels, spec.stateKeys),
    // Every task of the step, finished or not, as LangGraph.js lists them (`result` tells which finished).
    next: tasks.map((t) => t.name),
    config: ns ? withCheckpointMap(tuple, ns) : tuple.config,
    metadata: tuple.metadata,
    createdAt: tuple.checkpoint.ts,
    parentConfig: tuple.parentConfig,
    tasks,
    interrupts: tasks.flatMap((t) => t.interrupts),
  };
}
