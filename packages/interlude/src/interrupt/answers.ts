/**
 * Turning a `Command({ resume })` into answers bound to the questions that are pending, and
 * handing each task the answers that belong to it.
 */

import type { PreparedTask } from "../algo/tasks.js";
import { isoNow } from "../checkpoint/timestamp.js";
import type { ResumeRecord } from "../checkpoint/types.js";
import type { NothingToResumeReason } from "../errors/resume.js";
import type { Command } from "../primitives/command.js";
import type { TaskRecord } from "../thread/pending.js";
import { matchResume } from "./match.js";
import { type FreshAnswer, type GivenAnswer, publicInterrupt, type StoredInterrupt } from "./record.js";

export interface ResolvedResume {
  /** interrupt id -> the answer and the question it answers */
  answers: Map<string, FreshAnswer>;
  /** The audit record saved with the next checkpoint. */
  record: ResumeRecord;
}

/** Matches the command's answer(s) to the pending questions, or throws a typed refusal. */
export function resolveResume(
  threadId: string,
  pending: readonly StoredInterrupt[],
  command: Command,
  emptyReason: NothingToResumeReason,
  positional: boolean,
): ResolvedResume {
  const matched = matchResume(threadId, pending.map(publicInterrupt), command.resume, emptyReason, positional);
  const byId = new Map(pending.map((p) => [p.id, p]));
  const answers = new Map<string, FreshAnswer>();
  for (const [id, value] of matched) {
    const question = byId.get(id)!;
    answers.set(id, { value, digest: question.digest, question: question.value });
  }
  // Built by a loop: Object.fromEntries over a Map costs ~1 µs (its keys are interrupt ids, never `__proto__`).
  const given: Record<string, unknown> = {};
  for (const [id, value] of matched) given[id] = value;
  const record: ResumeRecord = { at: isoNow(), answers: given };
  if (command.by !== undefined) record.by = command.by;
  if (command.reason !== undefined) record.reason = command.reason;
  return { answers, record };
}

/**
 * Answers a task has: those given in earlier runs, plus those sent with this run for its
 * pending interrupts, bound to the slot (position or key) and the question they answer.
 */
export function answersFor(
  task: PreparedTask,
  record: TaskRecord,
  fresh: ReadonlyMap<string, FreshAnswer>,
): GivenAnswer[] {
  const answers = [...(record.answers ?? [])];
  for (const question of record.interrupts ?? []) {
    // Questions asked by a subgraph of this task are answered inside the subgraph's run.
    if (question.ns !== task.ns) continue;
    const answer = fresh.get(question.id);
    if (!answer) continue;
    const given: GivenAnswer = {
      id: question.id,
      digest: question.digest,
      value: answer.value,
      question: question.value,
      fresh: true,
    };
    if (question.key !== undefined) given.key = question.key;
    else given.index = question.index;
    answers.push(given);
  }
  return answers;
}
