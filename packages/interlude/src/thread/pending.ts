/**
 * Reading what a checkpoint's pending writes say about each of its tasks: finished (with its
 * writes), paused (with its interrupts and the answers given so far), failed, or untouched.
 */

import type { Write } from "../algo/writes.js";
import type { PendingWrite, ResumeRecord } from "../checkpoint/types.js";
import { AUDIT, DONE, ERROR, INTERRUPT, NULL_TASK_ID, RESUME, TASK_RESULT } from "../constants.js";
import type { GivenAnswer, StoredInterrupt, TaskCallRecord } from "../interrupt/record.js";

export interface TaskRecord {
  writes?: Write[];
  done: boolean;
  interrupts?: StoredInterrupt[];
  answers?: GivenAnswer[];
  taskCalls?: TaskCallRecord[];
  error?: { name: string; message: string };
}

export interface PendingIndex {
  tasks: Map<string, TaskRecord>;
  /** Writes that belong to no task (a `Command({ update })` sent with an answer). */
  nullWrites: Write[];
  audit: ResumeRecord[];
}

/** What a checkpoint without pending writes has: shared, as a run starts every step from one (never to be changed). */
export const NO_PENDING: PendingIndex = { tasks: new Map(), nullWrites: [], audit: [] };

const SPECIAL = new Set([ERROR, INTERRUPT, RESUME, TASK_RESULT, DONE]);

export function indexPendingWrites(writes: readonly PendingWrite[] | undefined): PendingIndex {
  const tasks = new Map<string, TaskRecord>();
  const nullWrites: Write[] = [];
  const audit: ResumeRecord[] = [];
  for (const [taskId, channel, value] of writes ?? []) {
    if (taskId === NULL_TASK_ID) {
      if (channel === AUDIT) audit.push(value as ResumeRecord);
      else nullWrites.push([channel, value]);
      continue;
    }
    let record = tasks.get(taskId);
    if (!record) tasks.set(taskId, (record = { done: false }));
    if (channel === DONE) record.done = true;
    else if (channel === INTERRUPT) record.interrupts = value as StoredInterrupt[];
    else if (channel === RESUME) record.answers = value as GivenAnswer[];
    else if (channel === TASK_RESULT) record.taskCalls = value as TaskCallRecord[];
    else if (channel === ERROR) record.error = value as { name: string; message: string };
    else if (!SPECIAL.has(channel)) (record.writes ??= []).push([channel, value]);
  }
  return { tasks, nullWrites, audit };
}

export function errorRecord(error: unknown): { name: string; message: string } {
  return error instanceof Error
    ? { name: error.name, message: error.message }
    : { name: "Error", message: String(error) };
}

/** A stored error as an Error again; its class and extra fields are not kept (as in LangGraph). */
export function errorFromRecord(saved: unknown): Error {
  const { name, message } = saved as { name: string; message: string };
  const error = new Error(message);
  error.name = name;
  return error;
}
