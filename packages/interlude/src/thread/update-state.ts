/**
 * `updateState` and `bulkUpdateState`: write to a thread as if nodes had returned values,
 * creating a new checkpoint per superstep (a fork when the config names an older one). The
 * original history is unchanged.
 */
import { branchWrites, edgeWrites, outputWrites, stateAfterWrites } from "../algo/output.js";
import type { GraphInternals } from "../algo/spec.js";
import { type PreparedTask, prepareNextTasks, readState } from "../algo/tasks.js";
import { applyNullWrites, applyWrites, channelsFromCheckpoint, type TaskWrites } from "../algo/writes.js";
import type { Channel } from "../channels/base.js";
import { type BaseCheckpointSaver, checkpointIdOf, checkpointNsOf } from "../checkpoint/base.js";
import { callerKeys, requireThreadId } from "../checkpoint/tuple.js";
import type {
  ChannelVersions,
  Checkpoint,
  CheckpointMetadata,
  CheckpointTuple,
  RunnableConfig,
} from "../checkpoint/types.js";
import { COPY, END, INPUT, INTERRUPT, START } from "../constants.js";
import { GraphValidationError, InvalidUpdateError } from "../errors/graph.js";
import { carriedInterrupts } from "../interrupt/carry.js";
import { DEFAULT_CLAIM_TTL_MS, withThreadClaim } from "./claim.js";
import { loadStart } from "./load.js";
import { indexPendingWrites } from "./pending.js";
import { checkpointToSave, emptyCheckpoint, workingCopy } from "./working-checkpoint.js";

/** One update of a superstep: `values` as if node `asNode` had returned them. */
interface StateUpdate {
  values: unknown;
  asNode?: string;
}

/** Updates applied together, as the tasks of one step are. */
export interface Superstep {
  updates: readonly StateUpdate[];
}

/** The node that wrote last, which an update without `asNode` is attributed to. */
function lastWriter(checkpoint: Checkpoint, graph: GraphInternals): string {
  let best: string | undefined;
  let bestVersion = -1;
  let tie = false;
  for (const [node, seen] of Object.entries(checkpoint.versions_seen)) {
    if (node === INTERRUPT || !graph.spec.nodes.has(node)) continue;
    const version = Math.max(0, ...Object.values(seen));
    if (version > bestVersion) {
      best = node;
      bestVersion = version;
      tie = false;
    } else if (version === bestVersion) tie = true;
  }
  if (!best) return START;
  if (tie)
    throw new GraphValidationError(
      `Several nodes ran last on this thread, so the update cannot be attributed; pass asNode to updateState.`,
    );
  return best;
}

/** What one update writes: the values, then the edges and branches of the node it is attributed to. */
async function updateWrites(
  graph: GraphInternals,
  channels: ReadonlyMap<string, Channel>,
  update: StateUpdate,
  node: string,
  config: RunnableConfig,
): Promise<TaskWrites> {
  const spec = graph.spec;
  if (node !== END && !spec.nodes.has(node)) {
    throw new GraphValidationError(
      `updateState asNode "${node}" is not a node of this graph. Nodes: ${[...spec.nodes.keys()].join(", ")}.`,
      node,
    );
  }
  const writer = node === END ? { edges: [], branches: [] } : spec.nodes.get(node)!;
  const triggers =
    node === START || node === END ? [] : spec.nodes.get(node)!.triggers.filter((c) => channels.get(c)!.isAvailable());
  // As LangGraph.js: an update marks none of a low-level node's triggers seen, so a node whose
  // trigger still holds an unseen value (not a one-step channel) is still to run.
  if ("updateWrites" in writer && writer.updateWrites)
    return { name: node, triggers: [], writes: await writer.updateWrites(update.values, config) };
  const writes = outputWrites(spec, node, update.values);
  edgeWrites(writer.edges, writes);
  if (writer.branches.length)
    await branchWrites(
      spec,
      node,
      writer.branches,
      stateAfterWrites(spec, readState(channels, spec.stateKeys), writes),
      config,
      writes,
    );
  return { name: node, triggers, writes };
}

/**
 * A copy given task results (`updateState(config, [[values, node], ...], "__copy__")`, as in
 * LangGraph.js): the fork, then a step in which each pair is that node's update. Other values
 * given with a copy are refused (LangGraph.js drops them).
 */
function withCopiesExpanded(superstep: Superstep): Superstep[] {
  const copy = superstep.updates.find((update) => update.asNode === COPY);
  if (!copy) return [superstep];
  if (superstep.updates.length > 1)
    throw new GraphValidationError(`"${COPY}" copies a checkpoint: it cannot be one of several updates of a step.`);
  const { values } = copy;
  if (values === null || values === undefined) return [superstep];
  const pairs = Array.isArray(values) && values.length > 0 && values.every((v) => Array.isArray(v) && v.length === 2);
  if (!pairs)
    throw new GraphValidationError(
      `updateState(config, values, "${COPY}") takes null (a plain copy) or a list of [values, node] pairs (the copy's tasks' results).`,
    );
  return [
    { updates: [{ values: null, asNode: COPY }] },
    { updates: (values as Array<[unknown, string]>).map(([update, asNode]) => ({ values: update, asNode })) },
  ];
}

export async function updateThreadState(
  graph: GraphInternals,
  saver: BaseCheckpointSaver,
  config: RunnableConfig,
  supersteps: readonly Superstep[],
): Promise<RunnableConfig> {
  const threadId = requireThreadId(config);
  const ns = checkpointNsOf(config);
  const keys = callerKeys(config);
  const base = { ...keys, thread_id: threadId, checkpoint_ns: ns };
  return withThreadClaim(saver, threadId, DEFAULT_CLAIM_TTL_MS, async (claim) => {
    const start = await loadStart(saver, threadId, ns, checkpointIdOf(config), keys);
    const latest = start.latest;
    let tuple = start.tuple;
    let head = latest?.checkpoint.id ?? null;
    let saved: RunnableConfig = config;
    for (const superstep of supersteps.flatMap(withCopiesExpanded)) {
      const next = await applySuperstep(graph, tuple, superstep, config, ns);
      // As a run's saves are (persist.ts): not after the claim went to someone else.
      await claim.confirmed();
      saved = await saver.put(
        { configurable: { ...base, checkpoint_id: tuple?.checkpoint.id } },
        next.checkpoint,
        next.metadata,
        next.versions,
        { expectedHead: head },
      );
      for (const [taskId, writes] of next.carried) await saver.putWrites(saved, writes, taskId);
      head = next.checkpoint.id;
      tuple = await saver.getTuple(saved);
    }
    return saved;
  });
}

interface UpdatedCheckpoint {
  checkpoint: Checkpoint;
  metadata: CheckpointMetadata;
  versions: ChannelVersions;
  /** Pending writes moved to the new checkpoint, by task id. */
  carried: Map<string, Array<[string, unknown]>>;
}

async function applySuperstep(
  graph: GraphInternals,
  tuple: CheckpointTuple | undefined,
  superstep: Superstep,
  config: RunnableConfig,
  ns: string,
): Promise<UpdatedCheckpoint> {
  const spec = graph.spec;
  const saved = tuple?.checkpoint;
  const checkpoint = saved ? workingCopy(saved) : emptyCheckpoint();
  const channels = channelsFromCheckpoint(spec, saved);
  const step = tuple ? tuple.metadata.step + 1 : 0;
  const parents = tuple?.metadata.parents ?? {};
  if (superstep.updates.length === 1 && superstep.updates[0]!.asNode === COPY) {
    // A copy of the checkpoint as it is: the same next tasks, run again from here.
    if (!saved) throw new GraphValidationError(`updateState(config, null, "${COPY}") needs a checkpoint to copy.`);
    const copy = checkpointToSave(checkpoint, channels, []);
    return { checkpoint: copy, metadata: { source: "fork", step, parents }, versions: {}, carried: new Map() };
  }
  if (superstep.updates.some((update) => update.asNode === INPUT))
    return inputSuperstep(graph, tuple, superstep, config);
  const pending = indexPendingWrites(tuple?.pendingWrites);
  const before: readonly PreparedTask[] = saved ? prepareNextTasks(spec, saved, channels, step, ns) : [];
  // The update sent with an answer, pending on the source checkpoint, becomes part of the new one.
  const changed = pending.nullWrites.length
    ? applyNullWrites(checkpoint, channels, pending.nullWrites)
    : new Set<string>();

  const tasks: TaskWrites[] = [];
  for (const update of superstep.updates) {
    if (update.asNode === COPY)
      throw new GraphValidationError(`"${COPY}" copies a checkpoint and cannot be combined with other updates.`);
    const node = update.asNode ?? (saved ? lastWriter(checkpoint, graph) : START);
    tasks.push(await updateWrites(graph, channels, update, node, config));
  }
  for (const channel of applyWrites(spec, checkpoint, channels, tasks)) changed.add(channel);

  const next = checkpointToSave(checkpoint, channels, changed);
  const versions: ChannelVersions = {};
  for (const channel of changed)
    if (next.channel_versions[channel] !== undefined) versions[channel] = next.channel_versions[channel]!;
  checkpoint.id = next.id;
  const after = prepareNextTasks(spec, checkpoint, channels, step + 1, ns);
  return {
    checkpoint: next,
    metadata: { ...callerMetadata(config), source: "update", step, parents },
    versions,
    carried: carriedInterrupts(pending, before, after),
  };
}

/**
 * `asNode: "__input__"`: the checkpoint a run's input makes, its `__start__` task still to run
 * (as in LangGraph.js, the tasks that were next are not dropped: a thread's history is cloned
 * by replaying its input, then its nodes' updates).
 */
function inputSuperstep(
  graph: GraphInternals,
  tuple: CheckpointTuple | undefined,
  superstep: Superstep,
  config: RunnableConfig,
): UpdatedCheckpoint {
  if (superstep.updates.length > 1)
    throw new InvalidUpdateError(
      `An update as "${INPUT}" is a run's input: it cannot be one of several updates of a step.`,
    );
  const spec = graph.spec;
  const checkpoint = tuple ? workingCopy(tuple.checkpoint) : emptyCheckpoint();
  const channels = channelsFromCheckpoint(spec, tuple?.checkpoint);
  const input = superstep.updates[0]!.values;
  const writes = spec.inputWrites?.(input) ?? [[START, input]];
  if (writes.length === 0)
    throw new InvalidUpdateError(`updateState as "${INPUT}" was given no value for the graph's input channels.`);
  const changed = applyNullWrites(checkpoint, channels, writes);
  const next = checkpointToSave(checkpoint, channels, changed);
  const versions: ChannelVersions = {};
  for (const channel of changed)
    if (next.channel_versions[channel] !== undefined) versions[channel] = next.channel_versions[channel]!;
  const step = tuple ? tuple.metadata.step + 1 : -1;
  const parents = tuple?.metadata.parents ?? {};
  return {
    checkpoint: next,
    metadata: { ...callerMetadata(config), source: "input", step, parents },
    versions,
    carried: new Map(),
  };
}

/** The caller's `config.metadata` goes along with an update, as in LangGraph: who made the edit, say. */
function callerMetadata(config: RunnableConfig): Record<string, unknown> {
  const extra = config.metadata;
  return typeof extra === "object" && extra !== null ? (extra as Record<string, unknown>) : {};
}
