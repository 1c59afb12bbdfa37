/**
 * Server events that every process must see: inbox changes (for `GET /inbox/events`), runs to
 * cancel and runs handed to the process that owns them. In one process a local emitter; on
 * PostgreSQL, LISTEN/NOTIFY on the shared database.
 */
import { EventEmitter } from "node:events";
import { statementOn } from "@interlude/checkpoint-postgres/pool";
import { KEEP_IDLE_SESSION } from "@interlude/checkpoint-postgres/session-settings";
import pg from "pg";
import type { Db } from "../store/db.js";
import type { DeploymentNames } from "../store/deployment-names.js";
import { watchLiveness } from "./listener-liveness.js";
import { eventsOf, outgoing } from "./notifications.js";

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
  /** A deadline job was queued: processes that take them ring an alarm at `at` (ISO) instead of polling. */
  | { type: "deadline.scheduled"; at: string }
  | { type: "run.done"; run_id: string }
  /** The answers a run carried were taken (its first step got past them) or refused. */
  | { type: "answers.settled"; run_id: string }
  /** Someone waits for a run's answers to settle: the process executing it settles them as soon as it can. */
  | { type: "answers.settle"; run_id: string }
  /** An assistant was created, changed or deleted: other processes drop it from their caches. */
  | { type: "assistant.changed"; assistant_id: string }
  /** New stream events of a run are stored (see runs/event-relay.ts). */
  | { type: "run.events"; run_id: string }
  /**
   * A client of another process follows this run: whoever executes it stores its events from now
   * on and answers `run.followed` with the same `ask` (runs/follow-request.ts); `owner` is the process that must execute it.
   */
  | { type: "run.follow"; run_id: string; owner: string; ask: string }
  /** The answer to `run.follow`: the run's events are stored (sent after them), or its owner holds none (`stored` false). */
  | { type: "run.followed"; run_id: string; ask: string; stored: boolean }
  /**
   * Delivered in this process only, once its LISTEN connection is back after a cut: what other
   * processes notified meanwhile was lost, so whoever acts on notifications looks again.
   */
  | { type: "bus.reconnected" };

export interface Bus {
  publish(event: BusEvent): Promise<void>;
  /**
   * PostgreSQL: publishes `events` as a write of the transaction `db` is in (one NOTIFY unless
   * they do not fit), sent when it commits (and not at all if it rolls back), with no round trip
   * of its own. Absent on a local bus.
   */
  publishIn?(db: Db, events: readonly BusEvent[]): Promise<void>;
  /**
   * Listeners hear every event published in this process, and those of other processes
   * addressed to whoever executes a run or takes work. Interrupts created and resolved, runs done,
   * answers settled and run events stored elsewhere are heard only while watched (`watch`).
   */
  subscribe(listener: (event: BusEvent) => void): () => void;
  /**
   * Hears every event, those of other processes included (events/notifications.ts
   * the watched channel), until the returned function is called. Resolves once they are heard: an
   * event committed after that reaches the listeners, so a waiter watches, then reads the state
   * it waits on. One process executing a waited run hears its own events without watching.
   */
  watch(): Promise<() => void>;
  /**
   * Whether the process `processId` hears the bus (PostgreSQL: its LISTEN connection is open), so
   * that a question to it is worth waiting for. Absent on a local bus (one process).
   */
  hears?(processId: string): Promise<boolean>;
  close(): Promise<void>;
}

export class LocalBus implements Bus {
  private readonly emitter = new EventEmitter().setMaxListeners(0);
  async publish(event: BusEvent): Promise<void> {
    this.deliver(event);
  }
  /** Hands `event` to this process's listeners now (publish without its promise). */
  deliver(event: BusEvent): void {
    this.emitter.emit("event", event);
  }
  subscribe(listener: (event: BusEvent) => void): () => void {
    this.emitter.on("event", listener);
    return () => this.emitter.off("event", listener);
  }
  /** One process: every event is heard. */
  async watch(): Promise<() => void> {
    return () => undefined;
  }
  async close(): Promise<void> {
    this.emitter.removeAllListeners();
  }
}

/**
 * How long a process keeps listening to the watched channel after its last watcher has gone: a
 * waiter looking again (each second) does not LISTEN and UNLISTEN each time.
 */
const LINGER_MS = 5_000;

/**
 * How long watch() waits for WATCH to be acknowledged before letting its waiter go on: a waiter
 * must not hang on a LISTEN connection that stopped answering (it reads the state itself).
 */
const WATCH_WAIT_MS = 1_000;

/** How long close() waits for the LISTEN connection's end to be confirmed before cutting it. */
const END_WAIT_MS = 1_000;

/** The deployment's statements on its channels (events/notifications.ts: the watch lock). */
function statementsOf({ busChannel, watchChannel, watchLock }: DeploymentNames) {
  /**
   * `pg_notify(channels[i], payloads[i])` for each i, in order, in one statement (the arrays'
   * placeholders as given), leaving out watched events when no process watches.
   */
  const notifyAll = (channels: string, payloads: string) =>
    `SELECT pg_notify(c, p) FROM unnest(${channels}::text[], ${payloads}::text[]) AS n(c, p)
     WHERE c <> '${watchChannel}' OR NOT pg_try_advisory_xact_lock(${watchLock})`;
  return {
    /** On the pool, numbered parameters. */
    notify: notifyAll("$1", "$2"),
    /** In a store transaction, whose statements number `?`. */
    notifyIn: notifyAll("?", "?"),
    listen: `LISTEN ${busChannel}; ${KEEP_IDLE_SESSION}`,
    watch: `LISTEN ${watchChannel}; SELECT pg_advisory_lock_shared(${watchLock})`,
    unwatch: `UNLISTEN ${watchChannel}; SELECT pg_advisory_unlock_shared(${watchLock})`,
  };
}

/**
 * Statements on one connection, each sent once the one before is answered: a liveness check may
 * fall due while a WATCH waits for its lock (node-postgres 8 warns of a statement queued behind
 * another on a client, and 9 refuses it).
 */
function oneAtATime(client: pg.Client): (sql: string) => Promise<unknown> {
  let last: Promise<unknown> = Promise.resolve();
  return (sql) => {
    const sent = last.then(() => client.query(sql));
    last = sent.catch(() => undefined);
    return sent;
  };
}

/** The name of a process's LISTEN connection, as PostgreSQL lists it (`pg_stat_activity`). */
const listenerName = (processId: string) => `interlude ${processId}`;

export class PgBus implements Bus {
  private readonly local = new LocalBus();
  private client?: pg.Client;
  private closed = false;
  private readonly statements: ReturnType<typeof statementsOf>;

  /**
   * @param url the database, for the LISTEN connection (its own, held for good: taking it from
   *   `pool` would leave the pool one short for as long as the process lives)
   * @param pool for NOTIFY
   * @param processId this process's (its LISTEN connection is named after it: see `hears`)
   * @param names the deployment's channels and watch lock (store/deployment-names.ts)
   * @param livenessMs how often the LISTEN connection is checked (listener-liveness.ts)
   */
  constructor(
    private readonly url: string,
    private readonly pool: pg.Pool,
    private readonly processId: string,
    private readonly names: DeploymentNames,
    private readonly livenessMs = 10_000,
  ) {
    this.statements = statementsOf(names);
  }

  async start(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.url,
      application_name: listenerName(this.processId),
      keepAlive: true,
    });
    this.client = client;
    client.on("notification", (message) => {
      const { busChannel, watchChannel } = this.names;
      if ((message.channel !== busChannel && message.channel !== watchChannel) || !message.payload) return;
      for (const event of eventsOf(message.payload)) this.local.deliver(event);
    });
    client.on("error", () => {
      if (!this.closed) void this.reconnect();
    });
    await client.connect();
    // Idle between events: a database's idle-session timeout would end it.
    const send = oneAtATime(client);
    await send(this.statements.listen);
    this.stopLiveness?.();
    // end() would wait for a goodbye that cannot come; the client's 'error' follows.
    this.stopLiveness = watchLiveness(send, () => client.connection.stream.destroy(), this.livenessMs);
    this.listening = send;
    // Watched before this connection (re)opened, or a watch failed with the old one: listened to
    // again. No await since `listening` was set: a watch() now cannot also send WATCH (the shared
    // lock taken twice would outlive UNWATCH).
    if (this.watchers > 0 || this.watching) await (this.watching = this.watchOn(send));
  }

  private watchers = 0;
  /** Sends on the connection once it listens to the bus channel; undefined while it connects or reconnects. */
  private listening?: (sql: string) => Promise<unknown>;
  /** Set while this process listens to the watched channel (or is about to): settles once it does. */
  private watching?: Promise<void>;
  private unlisten?: NodeJS.Timeout;
  /** Stops the current connection's liveness check (listener-liveness.ts). */
  private stopLiveness?: () => void;

  /** Sends WATCH on the connection; if it fails, the next watch() (or reconnect) sends it again. */
  private watchOn(send: (sql: string) => Promise<unknown>): Promise<void> {
    const watching: Promise<void> = send(this.statements.watch).then(
      () => undefined,
      (error: unknown) => {
        if (this.watching === watching) this.watching = undefined;
        throw error;
      },
    );
    return watching;
  }

  async watch(): Promise<() => void> {
    this.watchers++;
    clearTimeout(this.unlisten);
    this.unlisten = undefined;
    // Without a connection (connecting, reconnecting), start() watches once it has one.
    this.watching ??= this.listening ? this.watchOn(this.listening) : Promise.resolve();
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      if (--this.watchers > 0) return;
      this.unlisten = setTimeout(() => {
        this.unlisten = undefined;
        this.watching = undefined;
        void this.listening?.(this.statements.unwatch).catch(() => undefined);
      }, LINGER_MS);
      this.unlisten.unref();
    };
    // A broken or half-open connection, or a lock held long: the waiter goes on after WATCH_WAIT_MS
    // and its own looks (each second) cover the gap; a reconnect watches again.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.watching.catch(() => undefined),
      new Promise((resolve) => (timer = setTimeout(resolve, WATCH_WAIT_MS))),
    ]);
    clearTimeout(timer);
    return release;
  }

  private async reconnect(): Promise<void> {
    this.stopLiveness?.();
    const broken = this.client;
    this.client = undefined;
    this.listening = undefined;
    await broken?.end().catch(() => undefined);
    await new Promise((r) => setTimeout(r, 500));
    if (this.closed) return;
    try {
      await this.start();
    } catch {
      return this.reconnect();
    }
    this.local.deliver({ type: "bus.reconnected" });
  }

  /**
   * Events published in one event-loop turn go out in one statement (a round trip per event
   * was a third of a run's statements). Batches are sent one after the other, so events arrive
   * in the order they were published.
   */
  publish(event: BusEvent): Promise<void> {
    return new Promise((resolve, reject) => {
      this.outbox.push({ event, resolve, reject });
      if (this.outbox.length === 1) setImmediate(() => (this.sending = this.sending.then(() => this.send())));
    });
  }

  private readonly outbox: Array<{ event: BusEvent; resolve: () => void; reject: (error: unknown) => void }> = [];
  private sending: Promise<void> = Promise.resolve();

  private async send(): Promise<void> {
    const batch = this.outbox.splice(0);
    try {
      const { channels, payloads } = outgoing(
        batch.map((b) => b.event),
        this.names,
      );
      // On a connection set up as the pool's owner sets them (the store: store/db.ts), as every use of it.
      await statementOn(this.pool, { text: this.statements.notify, values: [channels, payloads] });
      for (const b of batch) b.resolve();
    } catch (error) {
      for (const b of batch) b.reject(error);
    }
  }

  async publishIn(db: Db, events: readonly BusEvent[]): Promise<void> {
    const { channels, payloads } = outgoing(events, this.names);
    await db.write(this.statements.notifyIn, [channels, payloads]);
  }

  subscribe(listener: (event: BusEvent) => void): () => void {
    return this.local.subscribe(listener);
  }

  async hears(processId: string): Promise<boolean> {
    const { rows } = await statementOn(this.pool, {
      text: "SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE application_name = $1) AS hears",
      values: [listenerName(processId)],
    });
    return rows[0]?.hears === true;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stopLiveness?.();
    clearTimeout(this.unlisten);
    const client = this.client;
    if (client) {
      // A connection the network dropped silently would never confirm its end: cut it after a while.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        client.end().catch(() => undefined),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, END_WAIT_MS))),
      ]);
      clearTimeout(timer);
      client.connection.stream.destroy();
    }
    await this.local.close();
  }
}
