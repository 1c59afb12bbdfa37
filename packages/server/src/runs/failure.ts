/**
 * A run that could not be executed or recorded (the database refused a write, or the server
 * broke): its waiters are ended at once with the failure, and the run's record and thread are
 * put right once storage takes writes again, so the thread is resumable from its last checkpoint.
 * A queued run the database failed goes back to the queue instead (`requeue`), and one it
 * failed before it started stays there (`queueAgain`).
 */
import type { StateSnapshot } from "@interlude/core";
import { countRunEnd, type RunEnd, type ServerContext } from "../context.js";
import { ServerError } from "../errors.js";
import { isClaimLost, isStorageFailure } from "../store/failures.js";
import type { RunRecord, RunStatus } from "../store/records.js";
import { nowOrUntilStored, retryUntilStored } from "../store/retry-until-stored.js";
import type { StoreTx } from "../store/store.js";
import { askedWhereAsked } from "../threads/state.js";
import { headIn, readSnapshot, stillAsked, syncWith } from "../threads/sync.js";
import { backToQueue } from "./drain.js";
import { revokeClaim } from "./joined-saver.js";
import { move } from "./lifecycle.js";
import { type ErrorBody, errorBody } from "./outcome.js";
import { dispatchNext } from "./thread-line.js";

class StorageFailedError extends ServerError {
  constructor(cause: unknown) {
    super(
      "STORAGE_FAILED",
      `The database failed while the run executed (${cause instanceof Error ? cause.message : String(cause)}). ` +
        "The thread keeps its last saved checkpoint, which may already hold this run's answers: retry once storage is back " +
        "(an answer the thread holds is refused as ALREADY_ANSWERED).",
    );
  }
}

/** A queued run's tries, the first included: past them, a database that keeps failing ends it `error`. */
const QUEUED_TRIES = 3;

/**
 * Ends the run's local waiters with `error`, then records the failure when storage allows; a
 * queued run the database failed goes back to the queue instead (`requeue`), unless it was being
 * stopped (`stopping`: cancelled, timed out), which no failure undoes.
 */
export function failRun(ctx: ServerContext, run: RunRecord, error: unknown, stopping = false): void {
  const storage = isStorageFailure(error);
  const queued = storage && !stopping && run.owner === null;
  if (queued && run.status === "pending") {
    queueAgain(ctx, run, error);
    return;
  }
  // A run whose claim was lost before its end was stored goes on as a lost run does, a wait or
  // stream run's too: elsewhere if another process took it over (then nothing moves here, and
  // its waiters here get the end recorded there), else from the queue.
  const lostClaim = !stopping && isClaimLost(error);
  if ((queued || lostClaim) && run.status === "running" && run.attempt < QUEUED_TRIES) {
    requeue(ctx, run, error);
    return;
  }
  const failure = storage ? new StorageFailedError(error) : error;
  const body = errorBody(failure);
  const log = ctx.broker.get(run.run_id);
  if (log && !log.done) {
    log.outcome = { run: { ...run, status: "error", error: body }, thread: undefined };
    log.accept(failure);
    log.push("error", body);
    log.push("end", null);
    ctx.broker.close(run.run_id);
  }
  console.error(`[interlude] run ${run.run_id} failed to execute:`, error);
  retryUntilStored(() => endStopped(ctx, run, ["pending", "running"], body, "error"));
}

/**
 * A queued run the database failed mid-way goes back to the queue once storage is back, to
 * continue from its last checkpoint, as when its process dies (runs/lease.ts): its client gave it
 * to the queue and waits for its end, which a database that blinked should not decide. Waiters
 * here follow it through the store from now on (it may go on in another process); its answers
 * stay reserved for the try that ends it.
 */
function requeue(ctx: ServerContext, run: RunRecord, error: unknown): void {
  console.error(`[interlude] run ${run.run_id} met a database failure; back to the queue once storage is back:`, error);
  ctx.broker.close(run.run_id);
  retryUntilStored(() => backToQueue(ctx, run));
}

/**
 * A queued run whose claim the database failed (its try here never started it): still queued,
 * it is given to the queue again once storage is back, unless someone took it meanwhile. Its
 * waiters here follow it through the store.
 */
function queueAgain(ctx: ServerContext, run: RunRecord, error: unknown): void {
  console.error(`[interlude] run ${run.run_id} could not be claimed; queued again once storage is back:`, error);
  ctx.broker.closeOpen(run.run_id);
  // Dispatched once a write goes through: on SQLite it executes here at once, and would fail again.
  retryUntilStored(async () => {
    if (await ctx.store.stillQueued(run.run_id)) await ctx.dispatcher.dispatch(run);
  });
}

/** Whether the thread's head moved past where the run started; read in `tx` where given (headIn). */
async function headMoved(ctx: ServerContext, run: RunRecord, tx?: StoreTx): Promise<boolean> {
  const head = tx ? await headIn(ctx, tx, run.thread_id) : await ctx.saver.getHeadId(run.thread_id);
  // A thread with no checkpoint when the run started is recorded with a null head (claimFieldsAt).
  return run.kwargs.started_at_checkpoint !== undefined && (head ?? null) !== run.kwargs.started_at_checkpoint;
}

/**
 * Whether a run took an answer without its thread's head moving: a subgraph saved its step past
 * the question, or the answered task its writes, and the failure came before the parent's step
 * was saved. The question is then no longer among those `asked` where they were asked
 * (askedWhereAsked).
 */
function answersTakenMidStep(run: RunRecord, asked: ReadonlySet<string> | undefined): boolean {
  const answered = run.kwargs.answers ?? [];
  if (!answered.length || run.kwargs.started_at_checkpoint === undefined) return false;
  return asked !== undefined && answered.some((id) => !asked.has(id));
}

/**
 * The thread's error after a run that stopped before finishing: none when it stopped at a
 * question, which waits for the answer; stopped between steps (a question whose answer a
 * subgraph took counts as answered, as `asked` shows), nothing would continue it unless told, so
 * it says why (`error`) until a run without input continues it.
 */
function stoppedError(
  snapshot: StateSnapshot | undefined,
  asked: ReadonlySet<string> | undefined,
  error: unknown,
): unknown {
  const asking = snapshot !== undefined && snapshot.interrupts.length > 0 && (asked?.size ?? 0) > 0;
  return snapshot !== undefined && snapshot.next.length > 0 && !asking ? error : null;
}

/**
 * Records a run that stopped before finishing (it failed, or its process is taken for dead) as
 * `error` (`interrupted` when it was cancelled), unless it moved from `from` since (recorded
 * already, or claimed again), with its answers settled as its checkpoints hold them and its
 * thread brought in line, in one transaction: a process that dies before it commits leaves the
 * run to the lease sweep, not the thread busy for good. Then its waiters anywhere (`run.done`)
 * and the thread's next run. A run taken for dead (`lost`, or cancelled before its process died)
 * loses its claim on the thread in that transaction too, before its checkpoints' head is
 * checked (`revokeClaim`).
 */
export async function endStopped(
  ctx: ServerContext,
  run: RunRecord,
  from: RunStatus | readonly RunStatus[],
  error: ErrorBody | null,
  end: Extract<RunEnd, "error" | "lost" | "interrupted">,
): Promise<void> {
  // Cancelled before its process died: it ends as cancelled, and its thread with no error.
  const to: RunStatus = end === "interrupted" ? "interrupted" : "error";
  // One read of the thread, its subgraphs' checkpoints included, serves the answers, the sync and
  // the thread's error (a sync that finds the head moved since reads it again). It comes before
  // the transaction, as no connection is asked for while it holds one.
  const read = await readSnapshot(ctx, run.thread_id, true);
  const asked = read && askedWhereAsked(read);
  // Its answers count as applied once it saved a checkpoint past where it started, whatever
  // came after, or took them in a step its parent's step did not get to save. The head is read
  // in the transaction where it can be, else before it.
  const before = answersTakenMidStep(run, asked) || (ctx.headStatement ? undefined : await headMoved(ctx, run));
  const recorded = await syncWith(
    ctx,
    run.thread_id,
    async (tx) => {
      if (!(await move(tx, run.run_id, from, to, { error, claimed: run.attempt }))) return false;
      if (end !== "error") await revokeClaim(ctx, tx, run.thread_id);
      await tx.settleAnswers(run.run_id, before ?? (await headMoved(ctx, run, tx)));
      return true;
    },
    async (snapshot, again) => ({
      error: error && stoppedError(snapshot, again ? await stillAsked(ctx, run.thread_id) : asked, error),
    }),
    read,
  );
  // Counted once recorded: a run whose end was recorded before something after it failed is not counted again.
  if (recorded === false) return;
  countRunEnd(ctx, end);
  // Tried again on its own when it fails: the retry of this function (failRun's) finds the run
  // moved and returns, and the thread's next run would wait for good.
  await nowOrUntilStored(`run ${run.run_id} ended, the thread's next run not started yet`, async () => {
    await ctx.bus.publish({ type: "run.done", run_id: run.run_id });
    await dispatchNext(ctx, run.thread_id);
  });
}
