/**
 * What every part of the server shares: storage, the loaded graphs, the event bus, the
 * in-process run logs and the dispatcher that decides where runs execute.
 */

import { randomUUID } from "node:crypto";
import type { JoinedSaver } from "@interlude/checkpoint-postgres";
import type { BaseStore, CompiledStateGraph, RunControl } from "@interlude/core";
import type { SaverKit } from "@interlude/core/saver-kit";
import type { GraphRegistry } from "./config/graphs.js";
import type { Bus } from "./events/bus.js";
import type { RunBroker } from "./runs/broker.js";
import type { RunEventRelay } from "./runs/event-relay.js";
import type { Db, Statement } from "./store/db.js";
import type { RunRecord } from "./store/records.js";
import type { Store } from "./store/store.js";
import type { TtlPolicy } from "./threads/ttl.js";

export interface Dispatcher {
  /** True when every run executes in this process (SQLite). */
  readonly local: boolean;
  /** The run is first in its thread's queue: start it here or hand it to whoever should. */
  dispatch(run: RunRecord): Promise<void>;
  /**
   * Hands a background run, first in its thread's queue, to the queue within the transaction
   * `db` that queues it: it is handed on if and only if that transaction commits, so a process
   * dying just after the commit leaves no run queued that nobody will take. Absent: `dispatch`
   * after the commit (SQLite's one process starts it itself, and again at its next start).
   */
  dispatchIn?(db: Db, run: RunRecord): Promise<void>;
  /**
   * A slot to execute, here and at once, a background run this process is queueing and first in
   * its thread's line: it is claimed in the transaction that queues it, without the queue's
   * round trips (a job sent, fetched and completed, then a claim of its own). Returns the
   * slot's release (call it once the run has executed), or undefined: no free slot, or this
   * process takes no runs (the run goes through the queue).
   */
  takeHere?(): (() => void) | undefined;
  /** The runs this process takes from the queue at most, and those it executes now; undefined: no bound (SQLite), or it takes none. */
  workers?(): { max: number; active: number } | undefined;
  /**
   * A dispatcher has one of these two. Schedules the deadline check of an interrupt at `at`,
   * after the commit that recorded the question (SQLite: its one process reads due deadlines
   * from the questions themselves).
   */
  scheduleDeadline?(threadId: string, interruptId: string, at: Date): Promise<void>;
  /**
   * The same within the transaction `db` that records the question, so that its deadline is
   * scheduled if and only if that commits (PostgreSQL: a pg-boss job).
   */
  scheduleDeadlineIn?(db: Db, threadId: string, interruptId: string, at: Date): Promise<void>;
  /** Shutting down: take no more runs or deadlines (those under way finish; `close` waits for them). */
  stopTaking(): void;
  close(): Promise<void>;
}

export interface ServerContext {
  readonly store: Store;
  /** SQLite's or PostgreSQL's: what a rollback needs of it (`rewindThread`) every saver of this project has. */
  readonly saver: SaverKit;
  /** LangGraph's store (long-term memory): the graphs' `store`, and the /store API's. */
  readonly memory: BaseStore;
  /**
   * The saver's read of a thread's head as a statement of the store's database (PostgreSQL,
   * where both share one): queueing a run reads it in its view's round trip instead of asking
   * the saver. Undefined: ask the saver (`getHeadId`).
   */
  readonly headStatement?: (threadId: string) => Statement;
  /**
   * The saver's statements for the store's transactions, when the saver is the PostgresSaver on
   * the store's own database: a run's claim and last writes ride in them (runs/joined-saver.ts).
   */
  readonly joinedSaver?: JoinedSaver;
  readonly graphs: GraphRegistry;
  readonly bus: Bus;
  readonly broker: RunBroker;
  /** Identifies this process as the owner of the stream and wait runs it serves. */
  readonly processId: string;
  /**
   * False for a PostgreSQL server started with concurrency 0: it executes no run, stream and
   * wait runs included; `interlude worker` processes do, so CPU-bound nodes never block its HTTP
   * event loop, and it follows their runs through the database.
   */
  readonly executesRuns: boolean;
  dispatcher: Dispatcher;
  /** The runs executing in this process: how to stop each, and when it has recorded its outcome. */
  readonly executing: Map<string, Execution>;
  /** How long a running run's heartbeat may be silent before it counts as lost. */
  readonly runLeaseMs: number;
  /** Stores the stream events of runs executed here for other processes' clients (PostgreSQL only). */
  readonly runEvents?: RunEventRelay;
  /** How long a run's claim on its thread (in the checkpoint storage) lasts without renewal; undefined: the runtime's default (30 s). */
  readonly claimTtlMs?: number;
  /** How long a cancelled run waits for its nodes to honour the AbortSignal before abandoning them. */
  readonly abortGraceMs: number;
  /** At shutdown, how long runs may take to reach a step boundary before they are aborted (runs/drain.ts). */
  readonly drainGraceMs: number;
  /** Longest a run may execute before it is stopped (status `timeout`); undefined: no limit unless the run asks. */
  readonly runTimeoutMs?: number;
  /** The clock interrupts' ages and due deadlines are read against (Date.now but in tests). */
  readonly now: () => number;
  /** Threads' TTLs: the default for a thread created without one, and how often to sweep (threads/ttl.ts). */
  readonly threadTtl: TtlPolicy;
  /** How often each process looks for crons whose next run has come (crons/sweeper.ts). */
  readonly cronSweepMs: number;
  /** This process's PostgreSQL connection pools, for `GET /metrics` (none on SQLite). */
  readonly pools?: readonly ConnectionPool[];
  /** Runs whose end this process recorded since it started, by how they ended (`GET /metrics`). */
  readonly runsEnded: Map<RunEnd, number>;
}

/**
 * How a run ended: its final status; rolled back (a cancel that deletes it); or lost (its process
 * stopped before it finished, recorded by the process that found it: lease.ts).
 */
export type RunEnd = "success" | "error" | "timeout" | "interrupted" | "rolled_back" | "lost";

export function countRunEnd(ctx: ServerContext, end: RunEnd): void {
  ctx.runsEnded.set(end, (ctx.runsEnded.get(end) ?? 0) + 1);
}

/** What `GET /metrics` reads of a connection pool (pg.Pool has these). */
export interface ConnectionPool {
  readonly options: { readonly max?: number | undefined };
  readonly totalCount: number;
  readonly idleCount: number;
  readonly waitingCount: number;
}

/** Why a run executing here was told to stop. */
export type StopReason = "interrupt" | "rollback" | "timeout";

export interface Execution {
  controller: AbortController;
  /** Asked to drain at shutdown: the run stops at its next step boundary (runs/drain.ts). */
  control: RunControl;
  action?: StopReason;
  /** Resolves once the run's outcome is recorded (or it was given back to the queue). */
  finished: Promise<void>;
  /** Someone waits for the run's answers: settle them as soon as the run got past them (runs/settle-on-request.ts). */
  askToSettle(): void;
}

export function newProcessId(): string {
  return randomUUID();
}

export function graphOf(ctx: ServerContext, graphId: string | null | undefined): CompiledStateGraph | undefined {
  return graphId ? ctx.graphs.get(graphId) : undefined;
}
