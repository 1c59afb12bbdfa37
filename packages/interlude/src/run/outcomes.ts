/**
 * What a stopped step leaves in storage: each task's result as pending writes of the
 * checkpoint the step started from, so that resuming runs only what did not finish.
 */

import type { Write } from "../algo/writes.js";
import type { ResumeRecord } from "../checkpoint/types.js";
import { AUDIT, DONE, ERROR, INTERRUPT, NULL_TASK_ID, RESUME, TASK_RESULT } from "../constants.js";
import type { TaskOutcome } from "../runner/outcome.js";
import { errorRecord } from "../thread/pending.js";
import type { Persistence } from "./persist.js";

/** The writes that mark a task finished. */
export function finishedWrites(writes: readonly Write[]): Array<[string, unknown]> {
  return [...(writes as Array<[string, unknown]>), [DONE, true]];
}

/**
 * Saves the outcome of every task of a step that paused or failed.
 * @param finishedSaved finished tasks' writes were already saved as each finished
 * @param commandWrites the `Command({ update })` of this run, kept with the paused checkpoint
 * @param audit who answered in this run, recorded with the next checkpoint
 * @param claimOwner the run's claim on the thread, released with the last of these writes
 * when the saver can (the run saves nothing after them)
 */
export async function saveStoppedStep(
  persistence: Persistence,
  checkpointId: string,
  outcomes: readonly TaskOutcome[],
  finishedSaved: boolean,
  commandWrites: readonly Write[],
  audit: ResumeRecord | undefined,
  claimOwner?: string,
): Promise<void> {
  const saves = stoppedStepWrites(outcomes, finishedSaved, commandWrites, audit);
  for (const [i, [taskId, writes]] of saves.entries())
    await persistence.saveWrites(checkpointId, taskId, writes, i === saves.length - 1 ? claimOwner : undefined);
}

/** What a stopped step saves, task by task (the null task's last). */
function stoppedStepWrites(
  outcomes: readonly TaskOutcome[],
  finishedSaved: boolean,
  commandWrites: readonly Write[],
  audit: ResumeRecord | undefined,
): Array<[taskId: string, writes: Array<[string, unknown]>]> {
  const saves: Array<[string, Array<[string, unknown]>]> = [];
  for (const outcome of outcomes) {
    const taskId = outcome.task.id;
    if (outcome.kind === "done" && !finishedSaved) saves.push([taskId, finishedWrites(outcome.writes)]);
    if (outcome.kind === "failed") saves.push([taskId, [[ERROR, errorRecord(outcome.error)]]]);
    if (outcome.kind === "interrupted") {
      const writes: Array<[string, unknown]> = [
        [INTERRUPT, outcome.interrupts],
        [RESUME, outcome.answers],
      ];
      if (outcome.taskCalls.length) writes.push([TASK_RESULT, outcome.taskCalls]);
      if (outcome.failure !== undefined) writes.push([ERROR, errorRecord(outcome.failure)]);
      saves.push([taskId, writes]);
    }
  }
  const nullWrites: Array<[string, unknown]> = [...(commandWrites as Array<[string, unknown]>)];
  if (audit) nullWrites.push([AUDIT, audit]);
  if (nullWrites.length) saves.push([NULL_TASK_ID, nullWrites]);
  return saves;
}
