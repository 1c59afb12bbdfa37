/**
 * A request that answers interrupts gets its reply only once the answers were taken or
 * refused, so a refused answer is a 4xx on that request (422 with the validation issues),
 * not a failed run discovered later.
 */
import { type ErrorCode, statusOfCode } from "@interlude/core";
import type { ServerContext } from "../context.js";
import { ServerError } from "../errors.js";
import { isActive } from "../runs/lifecycle.js";
import { errorBody } from "../runs/outcome.js";
import { SettleWatch } from "../runs/settle-watch.js";
import type { RunRecord } from "../store/records.js";

const TIMEOUT_MS = 30_000;

/** A refusal recorded as a body (by this process or another) as the error it was. */
function asHttpError(body: Record<string, unknown>): Error {
  const { error: _name, code, message, ...details } = body as { error: string; code?: ErrorCode; message: string };
  return new ServerError(code ?? "RUN_FAILED", message, details, statusOfCode(code) ?? 409);
}

/**
 * @param local the run executes in this process (its log will say), else the bus tells.
 */
export async function awaitAcceptance(ctx: ServerContext, run: RunRecord, local: boolean): Promise<void> {
  if (!run.kwargs.answers?.length && run.kwargs.command?.resume === undefined) return;
  if (local) {
    const refusal = await ctx.broker.open(run.run_id).accepted;
    if (refusal !== undefined) throw asHttpError(errorBody(refusal) as Record<string, unknown>);
    return;
  }
  const until = Date.now() + TIMEOUT_MS;
  const settles = await SettleWatch.open(ctx.bus, run.run_id);
  try {
    await lookUntilSettled(ctx, run, until, settles);
  } finally {
    settles.close();
  }
}

/** Reads the run's answers until taken or refused; a refusal is thrown as the error it was. */
async function lookUntilSettled(
  ctx: ServerContext,
  run: RunRecord,
  until: number,
  settles: SettleWatch,
): Promise<void> {
  while (Date.now() < until) {
    const current = await ctx.store.getRun(run.run_id);
    if (!current) return;
    const states = await ctx.store.answerStates(run.run_id);
    if (states.includes("applied")) return;
    const finished = !isActive(current.status);
    // Finished with its reservations gone: the answers were refused (or the run cancelled).
    if (finished && !states.length && current.error && typeof current.error === "object")
      throw asHttpError(current.error as Record<string, unknown>);
    if (finished) return;
    // Woken when the executing process settles the answers or ends the run (a lost event: a second later).
    await settles.settled(run.run_id);
  }
}
