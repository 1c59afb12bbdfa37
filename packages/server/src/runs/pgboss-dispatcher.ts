/**
 * PostgreSQL (any number of server and worker processes): background and queued runs, and
 * interrupt deadlines, are pg-boss jobs on the shared database, so whichever process is free
 * takes them. A run's job lasts until a process claims the run, whose lease covers it from
 * there (runs/lease.ts); a job taken by a process that died or never saw it expires a lease after
 * and is taken again, and a run left without a job gets one (runs/stranded-runs.ts).
 * Stream and wait runs execute in the process their client
 * is connected to; when one becomes first in line elsewhere, that process is told via the bus.
 * That is what keeps a second server from costing throughput: an answer through either server
 * issues the same statements as through one, with no hop through the queue (a job's insert,
 * fetch and completion, and a wake-up) and no events to relay to the client's process.
 */
import { onPooledClient } from "@interlude/checkpoint-postgres/pool";
import { ownSessions } from "@interlude/checkpoint-postgres/session-settings";
import pg from "pg";
import PgBoss from "pg-boss";
import type { Dispatcher, ServerContext } from "../context.js";
import { DeadlineAlarm } from "../inbox/deadline-alarm.js";
import { fireDeadline } from "../inbox/deadlines.js";
import type { Db } from "../store/db.js";
import type { RunRecord } from "../store/records.js";
import { executeRun } from "./executor.js";
import { QueueConsumer } from "./queue-consumer.js";
import { type Question, queueLosses } from "./stranded-runs.js";

const RUN_QUEUE = "interlude-run";
const DEADLINE_QUEUE = "interlude-deadline";
/**
 * Jobs are fetched when the bus says a run was queued (run.queued) or an alarm rings for a
 * deadline (deadline.scheduled, and the pending table at start): this poll only catches a
 * notification lost while LISTEN reconnected, or a deadline whose announcing process died.
 */
const SAFETY_POLL_MS = 15_000;
/** A second look for due deadline jobs this long after the alarm rang (ms). */
const CLOCK_MARGIN_MS = 1_000;
/** Deadline jobs handled at once by a process. */
const DEADLINE_SLOTS = 4;
/** A completed job is moved to pg-boss's archive table after this (s). */
const ARCHIVE_AFTER_S = 60;
/** A job failed or expired is taken again after this (s). */
const RETRY_DELAY_S = 1;

export interface PgBossOptions {
  connectionString: string;
  /** pg-boss's schema, the deployment's (store/deployment-names.ts). */
  schema: string;
  /** pg-boss's pool (config/postgres-connections.ts). */
  connections: number;
  /** Runs this process executes at once (from the queue); 0 only enqueues. */
  concurrency?: number;
}

export class PgBossDispatcher implements Dispatcher {
  readonly local = false;
  /** pg-boss's connections (its `db`): ended here, after it stops. */
  private readonly pool: pg.Pool;
  private readonly boss: PgBoss;
  private runs?: QueueConsumer<{ run_id: string }>;
  private deadlines?: QueueConsumer<Question>;
  private alarm?: DeadlineAlarm;
  private unsubscribe?: () => void;

  constructor(
    private readonly ctx: ServerContext,
    private readonly options: PgBossOptions,
  ) {
    // No cron schedules are used: `schedule: false` spares pg-boss's own polling worker for them.
    // Its maintenance stays: once a lease, one process of the deployment expires the jobs taken
    // a lease ago and not completed (one statement per process to decide which one).
    this.pool = new pg.Pool({
      connectionString: options.connectionString,
      max: options.connections,
      application_name: "pgboss",
    });
    this.pool.on("error", logError("pg-boss's connection"));
    // Set up as every connection the server keeps (session-settings.ts), which pg-boss's own pool is not.
    ownSessions(this.pool);
    this.boss = new PgBoss({
      db: {
        executeSql: (text: string, values?: unknown[]) =>
          onPooledClient(this.pool, (client) => client.query(text, values)),
      },
      schema: options.schema,
      schedule: false,
      maintenanceIntervalSeconds: this.jobExpiry(),
      // Completed jobs go to pg-boss's archive table soon rather than after 12 hours: the job
      // table, which the maintenance's look for lost runs scans, holds little more than live jobs.
      archiveCompletedAfterSeconds: ARCHIVE_AFTER_S,
    });
    this.boss.on("error", (error) =>
      console.error("[interlude] pg-boss:", error instanceof Error ? error.message : error),
    );
    this.boss.on("maintenance", () => void this.recoverLosses().catch(logError("recovering queued runs")));
  }

  /**
   * A job's time to be completed once taken (s): a run's job completes as soon as its run is
   * claimed, and a deadline's handling is a few statements, so a job still taken after a lease
   * was lost by the process that took it.
   */
  private jobExpiry(): number {
    return Math.max(1, Math.ceil(this.ctx.runLeaseMs / 1000));
  }

  async start(): Promise<void> {
    // pg-boss refused (its schema not made, say): its connections are not left open.
    await this.boss.start().catch(async (error: unknown) => {
      await this.pool.end().catch(() => undefined);
      throw error;
    });
    for (const name of [RUN_QUEUE, DEADLINE_QUEUE]) await this.boss.createQueue(name).catch(() => undefined);
    const concurrency = this.options.concurrency ?? 8;
    if (concurrency > 0) {
      const runs = new QueueConsumer<{ run_id: string }>(this.boss, {
        queue: RUN_QUEUE,
        slots: concurrency,
        safetyPollMs: SAFETY_POLL_MS,
        handle: (job, started) => this.onRun(job.run_id, started),
      });
      const deadlines = new QueueConsumer<Question>(this.boss, {
        queue: DEADLINE_QUEUE,
        slots: DEADLINE_SLOTS,
        safetyPollMs: SAFETY_POLL_MS,
        handle: (job) => fireDeadline(this.ctx, job.thread_id, job.interrupt_id),
      });
      this.runs = runs;
      this.deadlines = deadlines;
      this.alarm = new DeadlineAlarm(this.ctx, async () => {
        deadlines.wake();
        // pg-boss releases the job by the database's clock: if it is a little behind this one, look again shortly.
        setTimeout(() => deadlines.wake(), CLOCK_MARGIN_MS).unref();
      });
    }
    this.unsubscribe = this.ctx.bus.subscribe((event) => {
      if (event.type === "run.dispatch" && event.owner === this.ctx.processId) void this.runHere(event.run_id);
      else if (event.type === "run.queued") this.runs?.wake();
      else if (event.type === "deadline.scheduled") this.alarm?.schedule(Date.parse(event.at));
      else if (event.type === "bus.reconnected") {
        // Notifications lost while LISTEN reconnected: runs queued meanwhile are looked for now,
        // not at the queue's next safety poll, and the alarm is set again from the questions.
        this.runs?.wake();
        void this.alarm?.start().catch(logError("setting the deadline alarm"));
      }
    });
    // Runs queued and deadlines due while no process was there to take them.
    this.runs?.wake();
    await this.alarm?.start();
  }

  workers(): { max: number; active: number } | undefined {
    return this.runs?.usage();
  }

  private async runHere(runId: string): Promise<void> {
    const run = await this.ctx.store.getRun(runId);
    if (run?.status === "pending")
      await executeRun(this.ctx, run).catch((error) => console.error(`[interlude] run ${runId}:`, error));
  }

  /**
   * A run job: execute the run if it is still queued and first in its thread's line. Its job
   * completes once the run is claimed: from there the run's lease covers it (a run whose process
   * died is put back in the queue by the lease sweep, runs/lease.ts), so the job's expiry need
   * only cover the moments before.
   */
  private async onRun(runId: string, started: () => void): Promise<void> {
    const run = await this.ctx.store.getRun(runId);
    if (run?.status !== "pending") return; // running or ended: someone else's
    const first = (await this.ctx.store.activeRuns(run.thread_id))[0];
    if (first?.run_id !== runId) return; // not its turn: the run before it dispatches it when done
    await executeRun(this.ctx, run, { onClaimed: started });
  }

  /**
   * After pg-boss's maintenance (in the one process that ran it): runs left without a job, and
   * questions whose deadline job gave up, get one, and every process is told of the jobs expired
   * or failed, so that they are taken again now rather than at each process's safety poll
   * (runs/stranded-runs.ts).
   */
  private async recoverLosses(): Promise<void> {
    const { stranded, retrying, unfired } = await queueLosses(
      this.ctx.store.db,
      this.options.schema,
      { runs: RUN_QUEUE, deadlines: DEADLINE_QUEUE },
      this.ctx.runLeaseMs,
    );
    for (const run of stranded) {
      console.warn(
        `[interlude] run ${run.run_id} of thread ${run.thread_id} was queued with no job to start it: queued again`,
      );
      await this.dispatch(run);
    }
    for (const question of unfired) {
      console.warn(
        `[interlude] the deadline of question ${question.interrupt_id} of thread ${question.thread_id} did not fire: tried again`,
      );
      await this.boss.send(DEADLINE_QUEUE, question, this.deadlineJob(question, new Date()));
    }
    if (unfired.length) await this.ctx.bus.publish({ type: "deadline.scheduled", at: new Date().toISOString() });
    if (!retrying.length) return;
    const retryAt = new Date(Date.now() + RETRY_DELAY_S * 1000 + CLOCK_MARGIN_MS);
    setTimeout(() => {
      if (retrying.includes(RUN_QUEUE))
        void this.ctx.bus.publish({ type: "run.queued" }).catch(logError("announcing retried runs"));
      if (retrying.includes(DEADLINE_QUEUE))
        void this.ctx.bus
          .publish({ type: "deadline.scheduled", at: retryAt.toISOString() })
          .catch(logError("announcing retried deadlines"));
    }, RETRY_DELAY_S * 1000).unref();
  }

  async dispatch(run: RunRecord): Promise<void> {
    if (run.owner === this.ctx.processId) {
      setImmediate(
        () => void executeRun(this.ctx, run).catch((error) => console.error(`[interlude] run ${run.run_id}:`, error)),
      );
    } else if (run.owner) {
      await this.ctx.bus.publish({ type: "run.dispatch", run_id: run.run_id, owner: run.owner });
    } else {
      await this.boss.send(RUN_QUEUE, { run_id: run.run_id }, this.runJob());
      // Every process with a free slot (this one too, through the bus) fetches it now.
      await this.ctx.bus.publish({ type: "run.queued" });
    }
  }

  async dispatchIn(db: Db, run: RunRecord): Promise<void> {
    await this.boss.send(RUN_QUEUE, { run_id: run.run_id }, { ...this.runJob(), db: inTransaction(db) });
    await this.ctx.bus.publishIn?.(db, [{ type: "run.queued" }]);
  }

  private runJob() {
    return { retryLimit: 5, retryDelay: RETRY_DELAY_S, expireInSeconds: this.jobExpiry() };
  }

  /** One job per question (its key is what stranded-runs.ts looks for); one that fails every try is sent again by the maintenance. */
  private deadlineJob(question: Question, at: Date) {
    return {
      startAfter: at,
      singletonKey: `${question.thread_id}:${question.interrupt_id}`,
      retryLimit: 3,
      retryDelay: RETRY_DELAY_S,
      expireInSeconds: this.jobExpiry(),
    };
  }

  takeHere(): (() => void) | undefined {
    return this.runs?.reserve();
  }

  async scheduleDeadlineIn(db: Db, threadId: string, interruptId: string, at: Date): Promise<void> {
    const question = { thread_id: threadId, interrupt_id: interruptId };
    await this.boss.send(DEADLINE_QUEUE, question, { ...this.deadlineJob(question, at), db: inTransaction(db) });
    // Every process taking deadline jobs (this one too) sets its alarm for it, once this commits.
    await this.ctx.bus.publishIn?.(db, [{ type: "deadline.scheduled", at: at.toISOString() }]);
  }

  stopTaking(): void {
    this.unsubscribe?.();
    this.alarm?.close();
    this.runs?.pause();
    this.deadlines?.pause();
  }

  async close(): Promise<void> {
    this.stopTaking();
    await Promise.all([this.runs?.stop(), this.deadlines?.stop()]);
    await this.boss.stop({ graceful: true, timeout: 5_000, wait: true }).catch(() => undefined);
    await this.pool.end().catch(() => undefined);
  }
}

/** pg-boss's statements on a transaction's connection ($n parameters: the store numbers only `?`). */
function inTransaction(db: Db): { executeSql: (text: string, values: unknown[]) => Promise<{ rows: unknown[] }> } {
  return { executeSql: async (text, values) => ({ rows: await db.all(text, values) }) };
}

function logError(doing: string): (error: unknown) => void {
  return (error) => console.error(`[interlude] ${doing}:`, error instanceof Error ? error.message : error);
}
