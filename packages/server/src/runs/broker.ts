/**
 * The events of runs executing in this process, for the clients streaming them: each run has
 * a log (so a client can rejoin with Last-Event-ID) and live subscribers. Logs of finished
 * runs are kept a little while for late joiners.
 */
import type { RunRecord, ThreadRecord } from "../store/records.js";

export interface RunEvent {
  id: string;
  event: string;
  data: unknown;
}

type Listener = (event: RunEvent | null) => void;

export class RunLog {
  readonly events: RunEvent[] = [];
  private readonly listeners = new Set<Listener>();
  private sink?: (event: RunEvent) => void;
  done = false;
  /**
   * The run was stopped because this process shuts down (runs/drain.ts): at a step boundary, to
   * go on through the queue; or ended, to go on through its client (a run without input), as it
   * asked (`on_disconnect: "cancel"`) or because it reached no boundary in time.
   */
  drained?: "queue" | "client";
  /** How the run ended, as recorded (set just before the log closes, when this process executed it). */
  outcome?: { run: RunRecord | undefined; thread: ThreadRecord | undefined };
  /** Settles once the run's answers are accepted (first chunk) or refused. */
  readonly accepted: Promise<unknown>;
  private settle!: (error: unknown) => void;
  private settled = false;

  constructor() {
    this.accepted = new Promise((resolve) => (this.settle = resolve));
  }

  /** `error` undefined: the answers were taken; otherwise why they were refused. */
  accept(error?: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.settle(error);
  }

  push(event: string, data: unknown): void {
    const entry = { id: String(this.events.length), event, data };
    this.events.push(entry);
    this.sink?.(entry);
    for (const listener of this.listeners) listener(entry);
  }

  /** Whether the events go to a sink (relayTo) too. */
  get relayed(): boolean {
    return this.sink !== undefined;
  }

  /** Hands every event, those already logged first, to `sink` as well. */
  relayTo(sink: (event: RunEvent) => void): void {
    this.sink = sink;
    for (const entry of this.events) sink(entry);
  }

  close(): void {
    this.done = true;
    this.accept();
    for (const listener of this.listeners) listener(null);
    this.listeners.clear();
  }

  /** Replays events after `lastEventId`, then follows live ones; `null` marks the end. */
  follow(listener: Listener, lastEventId?: string): () => void {
    const from = lastEventId === undefined ? 0 : Number(lastEventId) + 1;
    for (const entry of this.events.slice(Number.isFinite(from) ? from : 0)) listener(entry);
    if (this.done) {
      listener(null);
      return () => undefined;
    }
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

export class RunBroker {
  private readonly logs = new Map<string, RunLog>();
  constructor(private readonly keepMs = 60_000) {}

  /**
   * The run's log, opened if it has none here. A closed one is given as it is: its followers
   * replay it to its end (a new one in its place would never close).
   */
  open(runId: string): RunLog {
    return this.logs.get(runId) ?? this.fresh(runId);
  }

  /** The log of the run's execution here: a new one if the last one closed (a run given back to the queue goes on). */
  openExecution(runId: string): RunLog {
    const log = this.logs.get(runId);
    return log && !log.done ? log : this.fresh(runId);
  }

  private fresh(runId: string): RunLog {
    const log = new RunLog();
    this.logs.set(runId, log);
    return log;
  }

  get(runId: string): RunLog | undefined {
    return this.logs.get(runId);
  }

  /** The runs whose logs here are still open. */
  openRunIds(): string[] {
    const ids: string[] = [];
    for (const [runId, log] of this.logs) if (!log.done) ids.push(runId);
    return ids;
  }

  /** Closes the run's log if it is open here (close() also restarts a closed one's keeping). */
  closeOpen(runId: string): void {
    if (this.logs.get(runId)?.done === false) this.close(runId);
  }

  close(runId: string): void {
    const log = this.logs.get(runId);
    if (!log) return;
    log.close();
    setTimeout(() => {
      if (this.logs.get(runId) === log) this.logs.delete(runId);
    }, this.keepMs).unref();
  }
}
