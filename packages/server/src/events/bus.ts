/**
 * Server events that every process must see: inbox changes (for `GET /inbox/events`), runs to
 * cancel and runs handed to the process that owns them. In one process a local emitter; on
 * PostgreSQL, LISTEN/NOTIFY on the shared database.
 */
import { EventEmitter } from "node:events";
import pg from "pg";
import type { Db } from "../store/db.js";

export interface InterruptCreatedEvent {
  type: "interrupt.created";
  thread_id: string;
  interrupt_id: string;
  graph_id: string | null;
  assistant_id: string | null;
  value: unknown;
  response_schema: unknown;
  ns: string[];
  created_at: string;
}

export interface InterruptResolvedEvent {
  type: "interrupt.resolved";
  thread_id: string;
  interrupt_id: string;
  /** Who answered; null when the interrupt went away unanswered (thread deleted, run cancelled, state edited). */
  by: string | null;
  answer: unknown;
  at: string;
}

export type BusEvent =
  | InterruptCreatedEvent
  | InterruptResolvedEvent
  | { type: "run.cancel"; run_id: string; action: "interrupt" | "rollback" }
  | { type: "run.dispatch"; run_id: string; owner: string }
  /** A run was put in the shared queue: whoever has a free worker fetches it now, not at its next poll. */
  | { type: "run.queued" }
  | { type: "run.done"; run_id: string }
  /** The answers a run carried were taken (its first step got past them) or refused. */
  | { type: "answers.settled"; run_id: string }
  /** An assistant was created, changed or deleted: other processes drop it from their caches. */
  | { type: "assistant.changed"; assistant_id: string }
  /** New stream events of a run are stored (see runs/event-relay.ts). */
  | { type: "run.events"; run_id: string }
  /** A client of another process follows this run: whoever executes it stores its events from now on. */
  | { type: "run.follow"; run_id: string };

export interface Bus {
  publish(event: BusEvent): Promise<void>;
  /**
   * PostgreSQL: publishes `event` as a write of the transaction `db` is in, sent when it commits
   * (and not at all if it rolls back), with no round trip of its own. Absent on a local bus.
   */
  publishIn?(db: Db, event: BusEvent): Promise<void>;
  subscribe(listener: (event: BusEvent) => void): () => void;
  close(): Promise<void>;
}

export class LocalBus implements Bus {
  private readonly emitter = new EventEmitter().setMaxListeners(0);
  async publish(event: BusEvent): Promise<void> {
    this.emitter.emit("event", event);
  }
  subscribe(listener: (event: BusEvent) => void): () => void {
    this.emitter.on("event", listener);
    return () => this.emitter.off("event", listener);
  }
  async close(): Promise<void> {
    this.emitter.removeAllListeners();
  }
}

export const BUS_CHANNEL = "interlude_server_events";
const CHANNEL = BUS_CHANNEL;
/** NOTIFY payloads are limited to 8000 bytes; larger interrupt payloads are sent without `value`. */
const MAX_PAYLOAD = 7000;

/** The NOTIFY payload of an event (a statement that writes may send it itself: `SELECT pg_notify(BUS_CHANNEL, payload)`). */
export function notificationOf(event: BusEvent): string {
  const payload = JSON.stringify(event);
  return payload.length > MAX_PAYLOAD && "value" in event
    ? JSON.stringify({ ...event, value: null, truncated: true })
    : payload;
}

export class PgBus implements Bus {
  private readonly local = new LocalBus();
  private client?: pg.Client;
  private closed = false;

  /**
   * @param url the database, for the LISTEN connection (its own, held for good: taking it from
   *   `pool` would leave the pool one short for as long as the process lives)
   * @param pool for NOTIFY
   */
  constructor(
    private readonly url: string,
    private readonly pool: pg.Pool,
  ) {}

  async start(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url });
    this.client = client;
    client.on("notification", (message) => {
      if (message.channel !== CHANNEL || !message.payload) return;
      try {
        void this.local.publish(JSON.parse(message.payload) as BusEvent);
      } catch {
        // A malformed payload is not ours; ignore it.
      }
    });
    client.on("error", () => {
      if (!this.closed) void this.reconnect();
    });
    await client.connect();
    await client.query(`LISTEN ${CHANNEL}`);
  }

  private async reconnect(): Promise<void> {
    const broken = this.client;
    this.client = undefined;
    await broken?.end().catch(() => undefined);
    await new Promise((r) => setTimeout(r, 500));
    if (!this.closed) await this.start().catch(() => this.reconnect());
  }

  /**
   * Events published in one event-loop turn go out in one statement (a round trip per event
   * was a third of a run's statements). Batches are sent one after the other, so events arrive
   * in the order they were published.
   */
  publish(event: BusEvent): Promise<void> {
    const payload = notificationOf(event);
    return new Promise((resolve, reject) => {
      this.outbox.push({ payload, resolve, reject });
      if (this.outbox.length === 1) setImmediate(() => (this.sending = this.sending.then(() => this.send())));
    });
  }

  private readonly outbox: Array<{ payload: string; resolve: () => void; reject: (error: unknown) => void }> = [];
  private sending: Promise<void> = Promise.resolve();

  private async send(): Promise<void> {
    const batch = this.outbox.splice(0);
    try {
      // Identical payloads in one transaction are delivered once: only repeated "run.events" can be.
      await this.pool.query("SELECT pg_notify($1, p) FROM unnest($2::text[]) AS p", [
        CHANNEL,
        batch.map((b) => b.payload),
      ]);
      for (const b of batch) b.resolve();
    } catch (error) {
      for (const b of batch) b.reject(error);
    }
  }

  publishIn(db: Db, event: BusEvent): Promise<void> {
    return db.write("SELECT pg_notify(?, ?)", [CHANNEL, notificationOf(event)]);
  }

  subscribe(listener: (event: BusEvent) => void): () => void {
    return this.local.subscribe(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.client?.end().catch(() => undefined);
    await this.local.close();
  }
}
