/**
 * Waiting for a run to settle its answers (taken or refused) or to end, heard on the bus. The
 * watch is opened before the waiter reads the answers' state and stays open across its looks:
 * an event published between a look and the wait that follows it is remembered, not missed.
 * (Watching only after the look cost such a waiter its whole SETTLE_LOOK_MS.)
 */
import type { Bus, BusEvent } from "../events/bus.js";
import { askToSettle } from "./settle-on-request.js";

/** How long a wait lasts when nothing is heard: the waiter then looks again, in case an event was lost. */
const SETTLE_LOOK_MS = 1_000;

export class SettleWatch {
  /**
   * The runs waited on, and those of them heard settling or ending since: only these are kept,
   * since a watching process hears every run's end (PostgreSQL: the whole cluster's).
   */
  private readonly expected = new Set<string>();
  private readonly heard = new Set<string>();
  private waiting?: { runId: string; wake: () => void };
  private readonly unsubscribe: () => void;
  private unwatch?: () => void;

  private constructor(private readonly bus: Bus) {
    this.unsubscribe = bus.subscribe((event) => this.hear(event));
  }

  /**
   * Watches for `runId` settling or ending and asks its process to settle now; resolves once
   * every event committed from then on reaches the watch (Bus.watch). The caller looks next.
   */
  static async open(bus: Bus, runId: string | null): Promise<SettleWatch> {
    const watch = new SettleWatch(bus);
    if (runId !== null) watch.expected.add(runId);
    try {
      watch.unwatch = await bus.watch();
    } catch (error) {
      watch.close();
      throw error;
    }
    if (runId !== null) askToSettle(bus, runId);
    return watch;
  }

  /**
   * Resolves when `runId` was heard settling or ending since it was first waited on (or since
   * the last wait on it), at once if it already was, else after `ms`; asks its process to
   * settle now. The caller looks at the state again after.
   */
  async settled(runId: string | null, ms = SETTLE_LOOK_MS): Promise<void> {
    if (runId === null) return new Promise((resolve) => setTimeout(resolve, ms));
    this.expected.add(runId);
    if (this.heard.delete(runId)) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(wake, ms);
      function wake() {
        clearTimeout(timer);
        resolve();
      }
      // Waiting before asking: an answer delivered at once still ends this wait.
      this.waiting = { runId, wake };
      askToSettle(this.bus, runId);
    });
    this.waiting = undefined;
  }

  close(): void {
    this.waiting?.wake();
    this.unsubscribe();
    this.unwatch?.();
  }

  private hear(event: BusEvent): void {
    if (event.type !== "answers.settled" && event.type !== "run.done") return;
    if (!this.expected.has(event.run_id)) return;
    if (this.waiting?.runId === event.run_id) this.waiting.wake();
    else this.heard.add(event.run_id);
  }
}
