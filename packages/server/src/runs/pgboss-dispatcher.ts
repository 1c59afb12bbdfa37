/**
 * PostgreSQL (any number of server and worker processes): background and queued runs, and
 * interrupt deadlines, are pg-boss jobs on the shared database, so whichever process is free
 * takes them, and a job whose process died is retried by another (pg-boss expiry and retry,
 * plus the run leases in lease.ts). Stream and wait runs execute in the process their client
 * is connected to; when one becomes first in line elsewhere, that process is told via the bus.
 */
import PgBoss from "pg-boss";
import type { Dispatcher, ServerContext } from "../context.js";
import { fireDeadline } from "../inbox/deadlines.js";
import type { RunRecord } from "../store/records.js";
import { executeRun } from "./executor.js";

const RUN_QUEUE = "interlude-run";
/**
 * Workers are woken by the bus when a run is queued (run.queued), so polling is only the
 * fallback for a missed notification: each poll is a transaction, and nine pollers every
 * 0.5 s were 18 transactions/s per process with nothing to do.
 */
const POLL_SECONDS = 5;
const DEADLINE_QUEUE = "interlude-deadline";

export interface PgBossOptions {
  connectionString: string;
  /** Runs this process executes at once (pg-boss workers); 0 only enqueues. */
  concurrency?: number;
  /** A job not finished within this is retried elsewhere (its process is presumed dead). */
  expireInSeconds?: number;
}

export class PgBossDispatcher implements Dispatcher {
  readonly local = false;
  private readonly boss: PgBoss;
  private readonly workers: string[] = [];
  private unsubscribe?: () => void;

  constructor(
    private readonly ctx: ServerContext,
    private readonly options: PgBossOptions,
  ) {
    this.boss = new PgBoss({ connectionString: options.connectionString, max: 4, schema: "interlude_pgboss" });
    this.boss.on("error", (error) =>
      console.error("[interlude] pg-boss:", error instanceof Error ? error.message : error),
    );
  }

  async start(): Promise<void> {
    await this.boss.start();
    for (const name of [RUN_QUEUE, DEADLINE_QUEUE]) await this.boss.createQueue(name).catch(() => undefined);
    const concurrency = this.options.concurrency ?? 8;
    for (let i = 0; i < concurrency; i++) {
      this.workers.push(
        await this.boss.work<{ run_id: string }>(
          RUN_QUEUE,
          { batchSize: 1, pollingIntervalSeconds: POLL_SECONDS },
          async ([job]) => this.onRun(job!.data.run_id),
        ),
      );
    }
    if (concurrency > 0) {
      await this.boss.work<{ thread_id: string; interrupt_id: string }>(
        DEADLINE_QUEUE,
        { batchSize: 1, pollingIntervalSeconds: 0.5 },
        async ([job]) => fireDeadline(this.ctx, job!.data.thread_id, job!.data.interrupt_id),
      );
    }
    this.unsubscribe = this.ctx.bus.subscribe((event) => {
      if (event.type === "run.dispatch" && event.owner === this.ctx.processId) void this.runHere(event.run_id);
      else if (event.type === "run.queued") this.wakeWorkers();
    });
  }

  private async runHere(runId: string): Promise<void> {
    const run = await this.ctx.store.getRun(runId);
    if (run?.status === "pending")
      await executeRun(this.ctx, run).catch((error) => console.error(`[interlude] run ${runId}:`, error));
  }

  /** A run job: execute it if it is still queued and first in its thread's line. */
  private async onRun(runId: string): Promise<void> {
    const run = await this.ctx.store.getRun(runId);
    if (!run) return;
    if (run.status === "running") {
      const lapsed = Date.parse(run.updated_at) < Date.now() - this.ctx.runLeaseMs;
      // Alive elsewhere (the job only expired): nothing to do. Lapsed: its process died; take it over.
      if (!lapsed || this.ctx.executing.has(runId) || !(await this.ctx.store.moveRun(runId, ["running"], "pending")))
        return;
    } else if (run.status !== "pending") return;
    const first = (await this.ctx.store.activeRuns(run.thread_id))[0];
    if (first?.run_id !== runId) return; // not its turn: the run before it dispatches it when done
    await executeRun(this.ctx, { ...run, status: "pending" });
  }

  async dispatch(run: RunRecord): Promise<void> {
    if (run.owner === this.ctx.processId) {
      setImmediate(
        () => void executeRun(this.ctx, run).catch((error) => console.error(`[interlude] run ${run.run_id}:`, error)),
      );
    } else if (run.owner) {
      await this.ctx.bus.publish({ type: "run.dispatch", run_id: run.run_id, owner: run.owner });
    } else {
      await this.boss.send(
        RUN_QUEUE,
        { run_id: run.run_id },
        { retryLimit: 5, retryDelay: 1, expireInSeconds: this.options.expireInSeconds ?? 900 },
      );
      // Every process's workers (this one's too, through the bus) fetch it now.
      await this.ctx.bus.publish({ type: "run.queued" });
    }
  }

  private wakeWorkers(): void {
    for (const id of this.workers) this.boss.notifyWorker(id);
  }

  async scheduleDeadline(threadId: string, interruptId: string, at: Date): Promise<void> {
    await this.boss.send(
      DEADLINE_QUEUE,
      { thread_id: threadId, interrupt_id: interruptId },
      { startAfter: at, singletonKey: `${threadId}:${interruptId}`, retryLimit: 3 },
    );
  }

  async close(): Promise<void> {
    this.unsubscribe?.();
    await this.boss.stop({ graceful: true, timeout: 5_000, wait: true }).catch(() => undefined);
  }
}
