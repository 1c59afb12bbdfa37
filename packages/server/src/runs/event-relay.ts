/**
 * Stores the stream events of the runs this process executes (PostgreSQL deployments), so that
 * clients of other processes can follow them (http/sse.ts `sseFromStore`). Events are written in
 * one statement per run and event-loop turn, then announced on the bus as `run.events`.
 */
import type { Bus } from "../events/bus.js";
import type { Db } from "../store/db.js";
import { appendRunEvents, deleteRunEvents } from "../store/run-events.js";
import type { RunEvent } from "./broker.js";

/** How long a finished run's events stay for late joiners (as its in-process log does). */
const KEEP_MS = 60_000;

export class RunEventRelay {
  private pending = new Map<string, RunEvent[]>();
  private scheduled = false;
  private tail: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly bus: Bus,
  ) {}

  add(runId: string, event: RunEvent): void {
    let events = this.pending.get(runId);
    if (!events) this.pending.set(runId, (events = []));
    events.push(event);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => void this.flush());
    }
  }

  /** Resolves once every event added so far is stored and announced. */
  flush(): Promise<void> {
    this.scheduled = false;
    const batch = this.pending;
    this.pending = new Map();
    this.tail = this.tail.then(async () => {
      for (const [runId, events] of batch) {
        try {
          await appendRunEvents(this.db, runId, events);
          await this.bus.publish({ type: "run.events", run_id: runId });
        } catch (error) {
          // Followers elsewhere miss these events and fall back to the run's outcome; the run itself is unaffected.
          console.error(`[interlude] events of run ${runId} not stored:`, error);
        }
      }
    });
    return this.tail;
  }

  /** The run has ended: its events go after a while. */
  release(runId: string): void {
    setTimeout(() => void deleteRunEvents(this.db, [runId]).catch(() => undefined), KEEP_MS).unref();
  }
}
