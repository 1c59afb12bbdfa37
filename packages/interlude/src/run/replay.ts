/**
 * Time travel across subgraphs: which checkpoint each graph of a run starts from when the
 * caller asked for an older one (LangGraph.js's rules, restated).
 *
 * - A subgraph's checkpoint given to the parent (`invoke(null | Command, subgraphConfig)`): the
 *   parent starts from the checkpoint it had when that one was made (`metadata.parents[""]`),
 *   and each subgraph on the way down from its own.
 * - The parent replays an older checkpoint: a persistent subgraph (`checkpointer: true`) starts,
 *   on its first run, from its newest checkpoint made before the replayed one.
 */
import { type BaseCheckpointSaver, checkpointIdOf } from "../checkpoint/base.js";
import type { CheckpointTuple } from "../checkpoint/types.js";
import { CheckpointNotFoundError } from "../errors/graph.js";
import type { StoredInterrupt } from "../interrupt/record.js";
import { isCommand } from "../primitives/command.js";
import type { RunScope } from "../runner/scope.js";
import { indexPendingWrites } from "../thread/pending.js";

/** The subgraph checkpoint a caller addressed through the parent. */
export interface SubgraphTarget {
  ns: string;
  checkpointId?: string;
}

export interface ResolvedTarget {
  /** The parent's checkpoint when the target was made. */
  parentCheckpointId?: string;
  /** Namespace -> checkpoint each subgraph on the way down starts from. */
  replay: Map<string, string>;
  /** The questions pending at the target: what a `Command({ resume })` answers. */
  pending: StoredInterrupt[];
}

/** Where a graph starts: a given checkpoint, or its newest one made before a given checkpoint. */
export type StartPoint = { at: string } | { before: string };

export async function resolveSubgraphTarget(
  saver: BaseCheckpointSaver,
  threadId: string,
  target: SubgraphTarget,
  keys?: Record<string, unknown>,
): Promise<ResolvedTarget> {
  const configurable: Record<string, unknown> = { ...keys, thread_id: threadId, checkpoint_ns: target.ns };
  if (target.checkpointId) configurable.checkpoint_id = target.checkpointId;
  const tuple = await saver.getTuple({ configurable });
  if (!tuple) throw new CheckpointNotFoundError(threadId, target.checkpointId ?? target.ns);
  const replay = new Map<string, string>();
  const parents = tuple.metadata.parents ?? {};
  for (const [ns, id] of Object.entries(parents)) if (ns) replay.set(ns, id);
  replay.set(target.ns, tuple.checkpoint.id);
  const pending: StoredInterrupt[] = [];
  for (const record of indexPendingWrites(tuple.pendingWrites).tasks.values())
    if (record.interrupts && !record.done) pending.push(...record.interrupts);
  return { parentCheckpointId: parents[""], replay, pending };
}

/**
 * The checkpoint persistent subgraphs are replayed "as of", or undefined when the run is not
 * time travel: it is when a checkpoint was asked for, the call is not an answer, and that
 * checkpoint is not the head (or is a head made by `updateState`, measured from its source).
 */
export function replayBound(tuple: CheckpointTuple, requested: boolean, input: unknown, atHead: boolean) {
  if (!requested) return undefined;
  if (isCommand(input) ? input.resume !== undefined : input !== null && input !== undefined) return undefined;
  const edited = tuple.metadata.source === "update" || tuple.metadata.source === "fork";
  if (atHead && !edited) return undefined;
  const source = edited && tuple.parentConfig ? checkpointIdOf(tuple.parentConfig) : undefined;
  return source ?? tuple.checkpoint.id;
}

/** Where a subgraph run in namespace `ns` starts, when the run is time travel (taken once per namespace). */
export function subgraphStart(scope: RunScope, ns: string, persistent: boolean): StartPoint | undefined {
  const at = scope.replay?.get(ns);
  if (at !== undefined) {
    scope.replay!.delete(ns);
    return { at };
  }
  const bound = scope.replayBefore;
  if (!persistent || !bound || bound.taken.has(ns)) return undefined;
  bound.taken.add(ns);
  return { before: bound.checkpointId };
}

export async function newestBefore(
  saver: BaseCheckpointSaver,
  configurable: Record<string, unknown>,
  checkpointId: string,
): Promise<CheckpointTuple | undefined> {
  for await (const tuple of saver.list(
    { configurable },
    { before: { configurable: { checkpoint_id: checkpointId } }, limit: 1 },
  ))
    return tuple;
  return undefined;
}
