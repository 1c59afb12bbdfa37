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

/** The writes that mark a task finished, without those to untracked keys (never stored). */
export function finishedWrites(writes: readonly Write[], untracked: ReadonlySet<string>): Array<[string, unknown]> {
  const kept = (untracked.size ? writes.filter(([channel]) => !untracked.has(channel)) : writes) as Array<
    [string, unknown]
  >;
  return [...kept, [DONE, true]];
}

export interface StoppedStep {
  checkpointId: string;
  outcomes: readonly TaskOutcome[];
  /** Finished tasks' writes were already saved as each finished. */
  finishedSaved: boolean;
  /** The `Command({ update })` of this run, kept with the paused checkpoint. */
  commandWrites: readonly Write[];
  /** Who answered in this run, recorded with the next checkpoint. */
  audit: ResumeRecord | undefined;
  /** The run's claim on the thread, released with the last of these writes when the saver can (the run saves nothing after them). */
  claimOwner?: string;
  /** State keys whose writes are never stored. */
  untracked: ReadonlySet<string>;
}

/** Saves the outcome of every task of a step that paused or failed. */
export async function saveStoppedStep(persistence: Persistence, step: StoppedStep): Promise<void> {
  const saves = stoppedStepWrites(step);
  for (const [i, [taskId, writes]] of saves.entries())
    await persistence.saveWrites(
      step.checkpointId,
      taskId,
      writes,
      i === saves.length - 1 ? step.claimOwner : undefined,
    );
}

/**
 * A paused task's record. A task whose subgraph drained keeps the questions stored with it (as
 * LangGraph's): it stopped at no question of its own, and its subgraph's question, asked in an
 * earlier run, may still wait for the answer this run brought (the subgraph drained before the
 * step that takes it) or have taken it: the same answer sent again then continues the thread
 * once, where replacing the record with no question would refuse it (NOTHING_TO_RESUME).
 */
function interruptedWrites(outcome: Extract<TaskOutcome, { kind: "interrupted" }>): Array<[string, unknown]> {
  const writes: Array<[string, unknown]> = [];
  if (outcome.drained === undefined) writes.push([INTERRUPT, outcome.interrupts], [RESUME, outcome.answers]);
  else if (outcome.answers.length) writes.push([RESUME, outcome.answers]);
  if (outcome.taskCalls.length) writes.push([TASK_RESULT, outcome.taskCalls]);
  if (outcome.failure !== undefined) writes.push([ERROR, errorRecord(outcome.failure)]);
  return writes;
}

/** What a stopped step saves, task by task (the null task's last). */
function stoppedStepWrites(step: StoppedStep): Array<[taskId: string, writes: Array<[string, unknown]>]> {
  const { outcomes, finishedSaved, commandWrites, audit, untracked } = step;
  const saves: Array<[string, Array<[string, unknown]>]> = [];
  for (const outcome of outcomes) {
    const taskId = outcome.task.id;
    if (outcome.kind === "done" && !finishedSaved) saves.push([taskId, finishedWrites(outcome.writes, untracked)]);
    if (outcome.kind === "failed") saves.push([taskId, [[ERROR, errorRecord(outcome.error)]]]);
    if (outcome.kind === "interrupted") {
      const writes = interruptedWrites(outcome);
      if (writes.length) saves.push([taskId, writes]);
    }
  }
  const nullWrites: Array<[string, unknown]> = [...(commandWrites as Array<[string, unknown]>)];
  if (audit) nullWrites.push([AUDIT, audit]);
  if (nullWrites.length) saves.push([NULL_TASK_ID, nullWrites]);
  return saves;
}
