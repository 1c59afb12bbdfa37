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
 */
export async function saveStoppedStep(
  persistence: Persistence,
  checkpointId: string,
  outcomes: readonly TaskOutcome[],
  finishedSaved: boolean,
  commandWrites: readonly Write[],
  audit: ResumeRecord | undefined,
): Promise<void> {
  for (const outcome of outcomes) {
    const taskId = outcome.task.id;
    if (outcome.kind === "done" && !finishedSaved)
      await persistence.saveWrites(checkpointId, taskId, finishedWrites(outcome.writes));
    if (outcome.kind === "failed")
      await persistence.saveWrites(checkpointId, taskId, [[ERROR, errorRecord(outcome.error)]]);
    if (outcome.kind === "interrupted") {
      const writes: Array<[string, unknown]> = [
        [INTERRUPT, outcome.interrupts],
        [RESUME, outcome.answers],
      ];
      if (outcome.taskCalls.length) writes.push([TASK_RESULT, outcome.taskCalls]);
      await persistence.saveWrites(checkpointId, taskId, writes);
    }
  }
  const nullWrites: Array<[string, unknown]> = [...(commandWrites as Array<[string, unknown]>)];
  if (audit) nullWrites.push([AUDIT, audit]);
  if (nullWrites.length) await persistence.saveWrites(checkpointId, NULL_TASK_ID, nullWrites);
}
