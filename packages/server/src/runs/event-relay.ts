/**
 * Stores the stream events of the runs this process executes (PostgreSQL deployments), so that
 * clients of other processes can follow them (http/sse.ts `sseFromStore`). Events are written in
 * one statement every few milliseconds, which also announces them on the bus (its watched channel) as
 * `run.events`. A background run's events are stored from its start (its clients are anywhere);
 * a streamed or waited run's only once a client elsewhere asks (`run.follow`), from its first
 * event: its own client is connected to this process, and storing every answer's events for
 * nobody was a round trip per answer and another, a minute later, to delete them. The asker
 * waits for the answer (`run.followed`, runs/follow-request.ts), sent once the events are stored.
 */
import type { Bus, BusEvent } from "../events/bus.js";
import { notificationsOf, type WatchedEvent } from "../events/notifications.js";
import type { Db } from "../store/db.js";
import { appendRunEvents, deleteRunEvents } from "../store/run-events.js";
import type { RunEvent, RunLog } from "./broker.js";

/** How long a finished run's events stay for late joiners (as its in-process log does). */
const KEEP_MS = 60_000;
const BATCH_MS = 10;

export class RunEventRelay {
  private pending = new Map<string, RunEvent[]>();
  private scheduled = false;
  private tail: Promise<void> = Promise.resolve();

  /**
   * @param db PostgreSQL's (its statements notify the other processes' buses)
   * @param bus for answers that go without stored events
   */
  /** @param watchChannel the deployment's (store/deployment-names.ts), where the stored events are told */
  constructor(
    private readonly db: Db,
    private readonly bus: Bus,
    private readonly watchChannel: string,
  ) {}

  add(runId: string, event: RunEvent): void {
    let events = this.pending.get(runId);
    if (!events) this.pending.set(runId, (events = []));
    events.push(event);
    if (!this.scheduled) {
      this.scheduled = true;
      // A short window: a step's events, or a short run's, go out in one insert (the run's
      // end flushes at once, so a follower waits at most this long for live events).
      setTimeout(() => void this.flush(), BATCH_MS);
    }
  }

  /**
   * Resolves once every event added so far is stored and announced. `also`: bus events to
   * announce in the same statement, after those (a run's `run.done` with its last events: one
   * round trip fewer per run). It rejects if they could not be sent; stored events that fail
   * are only logged.
   */
  flush(also: readonly WatchedEvent[] = []): Promise<void> {
    this.scheduled = false;
    const batch = this.pending;
    this.pending = new Map();
    const sent = this.tail.then(async () => {
      if (!batch.size && !also.length) return;
      const stored = [...batch.keys()].map((runId): WatchedEvent => ({ type: "run.events", run_id: runId }));
      const payloads = notificationsOf([...stored, ...also]);
      try {
        await appendRunEvents(this.db, batch, { channel: this.watchChannel, payloads });
      } catch (error) {
        // Followers elsewhere miss these events and fall back to the run's outcome; the runs themselves are unaffected.
        if (batch.size) console.error(`[interlude] events of runs ${[...batch.keys()].join(", ")} not stored:`, error);
        if (also.length) throw error;
      }
    });
    this.tail = sent.catch(() => undefined);
    return sent;
  }

  /**
   * Stores `log`'s events (those logged so far, then each as it comes) unless they already are.
   * A log that has ended is stored whole and let go.
   */
  relay(runId: string, log: RunLog): void {
    if (log.relayed) return;
    log.relayTo((event) => this.add(runId, event));
    if (log.done) this.release(runId);
  }

  /**
   * Answers a `run.follow` heard on the bus. The process holding the run's log (`log`, this
   * process's, if any) stores it and answers in the statement that stores the last of it, so the
   * asker finds them all; the run's owner holding none answers so at once (nothing will come).
   * Other processes stay silent.
   */
  async answer(ask: Extract<BusEvent, { type: "run.follow" }>, log: RunLog | undefined, here: string): Promise<void> {
    const answer = { type: "run.followed", run_id: ask.run_id, ask: ask.ask, stored: true } as const;
    if (!log) {
      if (ask.owner === here) await this.bus.publish({ ...answer, stored: false }).catch(() => undefined);
      return;
    }
    this.relay(ask.run_id, log);
    await this.flush([answer]).catch(() => this.bus.publish({ ...answer, stored: false }).catch(() => undefined));
  }

  /** The run has ended: its stored events go after a while. */
  release(runId: string): void {
    setTimeout(() => void deleteRunEvents(this.db, [runId]).catch(() => undefined), KEEP_MS).unref();
  }
}
