/**
 * One answer per interrupt, whoever sends it and through whichever process: before a run
 * that answers interrupts is queued, each answer is reserved in the database. A second
 * answer finds the reservation and waits to see whether the first was taken (409
 * already_answered) or refused (then it may go ahead).
 */
import { isResumeMap } from "interlude";
import type { ServerContext } from "../context.js";
import { AlreadyAnsweredError } from "../errors.js";
import type { AnswerRecord } from "../store/records.js";

const SETTLE_POLL_MS = 20;
const SETTLE_TIMEOUT_MS = 15_000;

/** The interrupts a `resume` answers: the map's ids, or the one interrupt pending. */
export async function answeredIds(ctx: ServerContext, threadId: string, resume: unknown): Promise<Map<string, unknown>> {
  if (isResumeMap(resume)) return new Map(Object.entries(resume));
  const pending = await ctx.store.pendingOf(threadId);
  // Zero or several pending: the run itself refuses the answer (NothingToResume / Ambiguous).
  return pending.length === 1 ? new Map([[pending[0]!.interrupt_id, resume]]) : new Map();
}

async function reserveOne(ctx: ServerContext, record: AnswerRecord): Promise<void> {
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  for (;;) {
    const earlier = await ctx.store.reserveAnswer(record);
    if (!earlier) return;
    if (earlier.state === "applied" || Date.now() > deadline) throw new AlreadyAnsweredError(earlier);
    await new Promise((r) => setTimeout(r, SETTLE_POLL_MS));
  }
}

export async function reserveAnswers(ctx: ServerContext, threadId: string, runId: string, by: string, answers: Map<string, unknown>): Promise<void> {
  const at = new Date().toISOString();
  try {
    for (const [interruptId, answer] of answers) await reserveOne(ctx, { thread_id: threadId, interrupt_id: interruptId, by, answer, at, run_id: runId, state: "reserved" });
  } catch (error) {
    await ctx.store.settleAnswers(runId, false);
    throw error;
  }
}
