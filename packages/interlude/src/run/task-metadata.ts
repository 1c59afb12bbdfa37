/**
 * What LangGraph tells a node about itself in its config: `metadata.langgraph_*` (read by
 * LangChain's tracers and stream handlers, and by nodes that log or route on their own name),
 * and `executionInfo` (which attempt this is, of which task, on which checkpoint).
 */
import type { PreparedTask } from "../algo/tasks.js";
import { shallowCopy } from "../checkpoint/plain-copy.js";
import { PUSH } from "../constants.js";

/** The `metadata` a task's config carries: the caller's, where the task stands in the run, and its node's own. */
export function taskMetadata(
  base: unknown,
  task: PreparedTask,
  step: number,
  own?: Record<string, unknown>,
): Record<string, unknown> {
  const push = task.path[0] === PUSH;
  // Copied, then set key by key: a spread followed by keys takes V8's slow path (see shallowCopy).
  const metadata = shallowCopy(base as object | undefined);
  metadata.langgraph_step = step;
  metadata.langgraph_node = task.name;
  // A Send's task, as LangGraph describes it: triggered by a push, its path ends in `false` (not a call).
  metadata.langgraph_triggers = push ? [PUSH] : task.triggers;
  metadata.langgraph_path = push ? [...task.path, false] : task.path;
  metadata.langgraph_checkpoint_ns = task.ns;
  metadata.checkpoint_ns = task.ns;
  // The node's own metadata comes last, as in LangGraph.
  return own ? Object.assign(metadata, own) : metadata;
}

/** Which attempt of a task runs: the retries of a node with a retry policy count up from 1. */
export interface AttemptInfo {
  number: number;
  /** Epoch ms the first attempt started. */
  firstTime: number;
}

export interface ExecutionInfo {
  checkpointId: string;
  checkpointNs: string;
  taskId: string;
  threadId: string | undefined;
  nodeAttempt: number;
  nodeFirstAttemptTime: number;
}

export function executionInfo(
  task: PreparedTask,
  checkpointId: string,
  threadId: string | undefined,
  attempt: AttemptInfo | undefined,
): ExecutionInfo {
  return {
    checkpointId,
    checkpointNs: task.ns,
    taskId: task.id,
    threadId,
    nodeAttempt: attempt?.number ?? 1,
    nodeFirstAttemptTime: attempt?.firstTime ?? Date.now(),
  };
}

/** Keys a `tasks` event leaves out of the task's metadata: the task's own fields and namespace say them. */
const INTERNAL_KEYS = new Set([
  "thread_id",
  "checkpoint_id",
  "checkpoint_ns",
  "checkpoint_map",
  "langgraph_step",
  "langgraph_node",
  "langgraph_triggers",
  "langgraph_path",
  "langgraph_checkpoint_ns",
]);
/** Run ids LangGraph copies from `configurable` into a run's metadata. */
const PROPAGATED = ["task_id", "run_id", "assistant_id", "graph_id"];

/**
 * The `metadata` of a `tasks` event, as LangGraph 1.7 streams it: the run's and the node's
 * metadata less the internal keys (`ls_integration`, `lc_agent_name` and the user's stay), and
 * the caller's tags.
 */
export function streamedTaskMetadata(
  config: { metadata?: unknown; configurable?: Record<string, unknown>; tags?: unknown },
  own: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const metadata: Record<string, unknown> = { ls_integration: "langgraph" };
  for (const source of [config.metadata as Record<string, unknown> | undefined, own])
    if (source) for (const key in source) if (!INTERNAL_KEYS.has(key)) metadata[key] = source[key];
  const configurable = config.configurable;
  if (configurable)
    for (const key of PROPAGATED)
      if (!(key in metadata) && configurable[key] !== undefined) metadata[key] = configurable[key];
  const tags = Array.isArray(config.tags) ? config.tags.filter((tag) => !String(tag).startsWith("seq:step")) : [];
  if (tags.length) metadata.tags = tags;
  return metadata;
}
