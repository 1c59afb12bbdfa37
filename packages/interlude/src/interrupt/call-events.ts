/**
 * What the stream tells of a `task()` call that runs, as LangGraph tells the task it makes of
 * one: a `tasks` start (its arguments, triggered by a push), its result as an update of its own
 * (`{ [name]: result }`, marked `cached` when the cache gave it), and its `tasks` end. They are
 * told under the graph of the node that made the call.
 */
import { fastId } from "../algo/hash.js";
import { NS_SEP, PUSH } from "../constants.js";
import { publicInterrupt } from "../interrupt/record.js";
import { streamedTaskMetadata } from "../run/task-metadata.js";
import type { TaskScope } from "../runner/scope.js";
import { errorRecord } from "../thread/pending.js";
import { isGraphInterrupt } from "./signal.js";

/** The graph namespace of the node that runs in `scope`. */
function graphNs(scope: TaskScope): string {
  const cut = scope.ns.lastIndexOf(NS_SEP);
  return cut < 0 ? "" : scope.ns.slice(0, cut);
}

/** The call's task id, as its chain run names it (callbacks/trace.ts). */
function callTaskId(scope: TaskScope, name: string, index: number): string {
  return fastId(`${scope.taskId}|call|${index}|${name}`);
}

export function callStarted(scope: TaskScope, name: string, index: number, args: unknown[]): void {
  const emitter = scope.run.emitter;
  if (!emitter?.modes.has("tasks")) return;
  emitter.emit(graphNs(scope), "tasks", {
    id: callTaskId(scope, name, index),
    name,
    input: args,
    triggers: [PUSH],
    interrupts: [],
    metadata: streamedTaskMetadata(scope.config, undefined),
  });
}

export function callEnded(scope: TaskScope, name: string, index: number, value: unknown, cached = false): void {
  const emitter = scope.run.emitter;
  if (!emitter) return;
  const ns = graphNs(scope);
  if (emitter.modes.has("updates")) {
    const chunk: Record<string, unknown> = { [name]: value };
    if (cached) chunk.__metadata__ = { cached: true };
    emitter.emit(ns, "updates", chunk);
  }
  if (!cached) callResult(scope, name, index, [], null);
}

/** A call that failed, or stopped for a question. */
export function callFailed(scope: TaskScope, name: string, index: number, error: unknown): void {
  const interrupts = isGraphInterrupt(error) ? error.interrupts.map(publicInterrupt) : [];
  callResult(scope, name, index, interrupts, interrupts.length ? null : errorRecord(error));
}

function callResult(scope: TaskScope, name: string, index: number, interrupts: unknown[], error: unknown): void {
  const emitter = scope.run.emitter;
  if (emitter?.modes.has("tasks"))
    emitter.emit(graphNs(scope), "tasks", { id: callTaskId(scope, name, index), name, result: {}, interrupts, error });
}
