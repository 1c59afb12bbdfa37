/**
 * One answer per interrupt, whoever sends it and through whichever process: a run that
 * answers interrupts reserves each answer in the database in the transaction that queues it.
 * A second answer finds the reservation and waits to see whether the first was taken (409
 * already_answered) or refused (then it may go ahead).
 */
import { isResumeMap } from "@interlude/core";
import type { AnswerRecord, PendingInterrupt } from "../store/records.js";
import type { StoreTx } from "../store/store.js";

/** How long an answer waits for an earlier reservation to settle (taken or refused). */
export const SETTLE_TIMEOUT_MS = 15_000;

/**
 * The interrupts a `resume` answers: the map's ids, or the one interrupt pending (`pending`,
 * read by queueView). A plain answer is bound to what was pending when its request arrived
 * (`receivedAt`): a question asked since then was not the one its sender saw, so the answer is
 * refused with the answer that overtook it (`overtaken`).
 */
export async function answeredIds(
  tx: StoreTx,
  threadId: string,
  resume: unknown,
  pending: readonly PendingInterrupt[],
  receivedAt?: string,
): Promise<{ answers: Map<string, unknown>; overtaken?: AnswerRecord }> {
  if (isResumeMap(resume)) return { answers: new Map(Object.entries(resume)) };
  if (receivedAt !== undefined && pending.some((p) => p.created_at > receivedAt)) {
    const overtaken = await tx.latestAnswer(threadId);
    if (overtaken) return { answers: new Map(), overtaken };
  }
  // Zero or several pending: the run itself refuses the answer (NothingToResume / Ambiguous).
  return { answers: pending.length === 1 ? new Map([[pending[0]!.interrupt_id, resume]]) : new Map() };
}

/** The first answer already given (or reserved) to one of `ids`, among `given` (read by queueView). */
export function earlierAnswer(
  given: ReadonlyMap<string, AnswerRecord>,
  ids: Iterable<string>,
): AnswerRecord | undefined {
  for (const id of ids) {
    const earlier = given.get(id);
    if (earlier) return earlier;
  }
  return undefined;
}

/** Under the thread's lock, after earlierAnswer found none: held writes, sent with the queueing's commit. */
export async function reserveAnswers(
  tx: StoreTx,
  threadId: string,
  runId: string,
  by: string,
  answers: Map<string, unknown>,
): Promise<void> {
  const at = new Date().toISOString();
  for (const [interruptId, answer] of answers)
    await tx.insertAnswer({
      thread_id: threadId,
      interrupt_id: interruptId,
      by,
      answer,
      at,
      run_id: runId,
      state: "reserved",
    });
}
