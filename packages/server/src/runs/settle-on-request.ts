/**
 * A run's answers are applied (`reserved` -> `applied`) when it finishes, in its finishing
 * transaction. Someone waiting on them sooner (a competing answer that must get its 409, a
 * client of another process waiting to hear that its answers were taken) asks for them on the
 * bus (`answers.settle`), and the process executing the run settles them at once if the run
 * got past them, or as soon as it does. They used to be settled on a timer, 50 ms into every
 * run: a transaction of its own for every run slower than that, which on a loaded machine was
 * most of them, for a waiter that almost never exists.
 */
import type { ServerContext } from "../context.js";
import type { Bus } from "../events/bus.js";

export class SettleOnRequest {
  private taken = false;
  private asked = false;
  private sent = false;

  constructor(
    private readonly ctx: ServerContext,
    private readonly runId: string,
  ) {}

  /** Someone waits for the run's answers to settle. */
  ask(): void {
    this.asked = true;
    this.settleIfDue();
  }

  /** The run got past its answers (its first chunk). */
  take(): void {
    this.taken = true;
    this.settleIfDue();
  }

  private settleIfDue(): void {
    if (!this.taken || !this.asked || this.sent) return;
    this.sent = true;
    // Failed: the next ask tries again (the waiter asks at each look), and the finish settles them anyway.
    void settleAndAnnounce(this.ctx, this.runId, true).catch(() => (this.sent = false));
  }
}

/** Asks whichever process executes `runId` to settle its answers now (see SettleOnRequest). */
export function askToSettle(bus: Bus, runId: string): void {
  void bus.publish({ type: "answers.settle", run_id: runId }).catch(() => undefined);
}

/**
 * Marks the run's answers taken (`applied`) or refused and says so on the bus, so that whoever
 * waits on them (settle-watch.ts) looks again at once.
 */
async function settleAndAnnounce(ctx: ServerContext, runId: string, taken: boolean): Promise<void> {
  const settled = { type: "answers.settled", run_id: runId } as const;
  const { publishIn } = ctx.bus;
  // On PostgreSQL the update and its announcement are one round trip (a transaction of two held writes).
  if (publishIn)
    return ctx.store.tx(async (tx) => {
      await tx.settleAnswers(runId, taken);
      await publishIn.call(ctx.bus, tx.db, [settled]);
    });
  await ctx.store.settleAnswers(runId, taken);
  await ctx.bus.publish(settled);
}
