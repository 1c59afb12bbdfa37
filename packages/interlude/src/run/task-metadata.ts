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
