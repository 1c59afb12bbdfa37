/**
 * Server events that every process must see: inbox changes (for `GET /inbox/events`), runs to
 * cancel and runs handed to the process that owns them. In one process a local emitter; on
 * PostgreSQL, LISTEN/NOTIFY on the shared database.
 */
import { EventEmitter } from "node:events";
import type pg from "pg";

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
  | { type: "run.done"; run_id: string }
  /** The answers a run carried were taken (its first step got past them) or refused. */
  | { type: "answers.settled"; run_id: string }
  /** New stream events of a run are stored (see runs/event-relay.ts). */
  | { type: "run.events"; run_id: string };

export interface Bus {
  publish(event: BusEvent): Promise<void>;
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

const CHANNEL = "interlude_server_events";
/** NOTIFY payloads are limited to 8000 bytes; larger interrupt payloads are sent without `value`. */
const MAX_PAYLOAD = 7000;

export class PgBus implements Bus {
  private readonly local = new LocalBus();
  private client?: pg.PoolClient;
  private closed = false;

  constructor(private readonly pool: pg.Pool) {}

  async start(): Promise<void> {
    const client = await this.pool.connect();
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
    await client.query(`LISTEN ${CHANNEL}`);
  }

  private async reconnect(): Promise<void> {
    this.client?.release(true);
    this.client = undefined;
    await new Promise((r) => setTimeout(r, 500));
    if (!this.closed) await this.start().catch(() => this.reconnect());
  }

  async publish(event: BusEvent): Promise<void> {
    let payload = JSON.stringify(event);
    if (payload.length > MAX_PAYLOAD && "value" in event)
      payload = JSON.stringify({ ...event, value: null, truncated: true });
    await this.pool.query("SELECT pg_notify($1, $2)", [CHANNEL, payload]);
  }

  subscribe(listener: (event: BusEvent) => void): () => void {
    return this.local.subscribe(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.client) {
      await this.client.query(`UNLISTEN ${CHANNEL}`).catch(() => undefined);
      this.client.release();
    }
    await this.local.close();
  }
}
