/**
 * A state update on a thread paused at an `interrupt()`: the question stays pending on the new
 * checkpoint when the paused node is still next there, so that the answer sent afterwards
 * finds it and the node, run again, sees the edited state.
 */
import { interruptId } from "../algo/hash.js";
import type { PreparedTask } from "../algo/tasks.js";
import { INTERRUPT, RESUME, TASK_RESULT } from "../constants.js";
import type { PendingIndex } from "../thread/pending.js";
import type { GivenAnswer, StoredInterrupt } from "./record.js";

function samePath(a: PreparedTask, b: PreparedTask): boolean {
  return a.name === b.name && a.path[0] === b.path[0] && a.path[1] === b.path[1];
}

/** Ids follow the task's namespace, which changes with the checkpoint. */
function moved(stored: StoredInterrupt, ns: string): StoredInterrupt {
  return { ...stored, id: interruptId(ns, stored.key ?? stored.index ?? 0), ns };
}

function movedAnswer(answer: GivenAnswer, ns: string): GivenAnswer {
  return { ...answer, id: interruptId(ns, answer.key ?? answer.index ?? 0) };
}

/**
 * The pending writes (interrupts, answers so far, `task()` results) of the paused tasks of
 * `before` that are still next in `after`, keyed by their task id there. Interrupts raised by
 * a subgraph of a task are not carried: the subgraph's checkpoints belong to the old task.
 */
export function carriedInterrupts(
  pending: PendingIndex,
  before: readonly PreparedTask[],
  after: readonly PreparedTask[],
): Map<string, Array<[string, unknown]>> {
  const carried = new Map<string, Array<[string, unknown]>>();
  for (const task of before) {
    const record = pending.tasks.get(task.id);
    if (!record?.interrupts?.length || record.done) continue;
    if (record.interrupts.some((i) => i.ns !== task.ns)) continue;
    const target = after.find((candidate) => samePath(candidate, task));
    if (!target) continue;
    const writes: Array<[string, unknown]> = [
      [INTERRUPT, record.interrupts.map((i) => moved(i, target.ns))],
      [RESUME, (record.answers ?? []).map((a) => movedAnswer(a, target.ns))],
    ];
    if (record.taskCalls?.length) writes.push([TASK_RESULT, record.taskCalls]);
    carried.set(target.id, writes);
  }
  return carried;
}
