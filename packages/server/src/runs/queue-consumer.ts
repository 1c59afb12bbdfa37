/**
 * Takes the jobs of one pg-boss queue in this process, as many at a time as it has free slots,
 * when told there may be some (a bus event, a timer) instead of by polling. pg-boss's own
 * workers each poll on their own: a process's eight run workers and its deadline worker (every
 * 0.5 s) were ~4 statements/s per process with nothing to do, and eight workers woken together
 * fetched eight times for one queued run. Here one fetch asks for every free slot; a slow poll
 * remains as a safety net for a wake-up lost while LISTEN reconnected.
 */
import type PgBoss from "pg-boss";
import { retryUntilStored } from "../store/retry-until-stored.js";

export interface QueueConsumerOptions<T> {
  queue: string;
  /** Jobs handled at once. */
  slots: number;
  /** Fetches this often even when not woken (ms). */
  safetyPollMs: number;
  /**
   * Handles one job. The job completes when `started` is called (work that goes on past that
   * holds its slot until this resolves) or else when this resolves, and fails (pg-boss retries
   * it) when this rejects before either.
   */
  handle: (data: T, started: () => void) => Promise<void>;
}

export class QueueConsumer<T extends object> {
  private busy = 0;
  private fetching = false;
  /** Woken while fetching or with every slot taken: fetch again as soon as possible. */
  private again = false;
  private stopped = false;
  private readonly poll: NodeJS.Timeout;
  private readonly handling = new Set<Promise<void>>();

  constructor(
    private readonly boss: PgBoss,
    private readonly options: QueueConsumerOptions<T>,
  ) {
    this.poll = setInterval(() => this.wake(), options.safetyPollMs);
    this.poll.unref();
  }

  /** Jobs handled at once at most, and those being handled now. */
  usage(): { max: number; active: number } {
    return { max: this.options.slots, active: this.busy };
  }

  /** There may be jobs to take: fetch now, or once a fetch under way or a slot frees up. */
  wake(): void {
    if (this.stopped) return;
    if (this.fetching || this.busy >= this.options.slots) {
      this.again = true;
      return;
    }
    this.again = false;
    this.fetching = true;
    void this.fetch().finally(() => {
      this.fetching = false;
      if (this.again) this.wake();
    });
  }

  private async fetch(): Promise<void> {
    const free = this.options.slots - this.busy;
    try {
      const jobs = await this.boss.fetch<T>(this.options.queue, { batchSize: free });
      // A full batch: more may be waiting.
      if (jobs.length === free) this.again = true;
      for (const job of jobs) this.start(job);
    } catch (error) {
      console.error(`[interlude] fetching from ${this.options.queue}:`, error instanceof Error ? error.message : error);
    }
  }

  private start(job: PgBoss.Job<T>): void {
    this.busy++;
    const { queue, handle } = this.options;
    let settling: Promise<void> | undefined;
    const settle = (failure?: { message: string }) => (settling ??= this.settle(job, failure));
    const handled: Promise<void> = handle(job.data, () => void settle())
      .then(
        () => settle(),
        (error: unknown) => {
          const message = error instanceof Error ? error.message : String(error);
          if (settling) console.error(`[interlude] job ${job.id} of ${queue}, after it completed:`, message);
          return settle({ message });
        },
      )
      .finally(() => {
        this.busy--;
        this.handling.delete(handled);
        if (this.again) this.wake();
      });
    this.handling.add(handled);
  }

  /** Completes or fails a job; never rejects. */
  private async settle(job: PgBoss.Job<T>, failure: { message: string } | undefined): Promise<void> {
    const { queue } = this.options;
    const store = async () => {
      if (failure) await this.boss.fail(queue, job.id, failure);
      else await this.boss.complete(queue, job.id);
    };
    await store().catch((error: unknown) => {
      console.error(`[interlude] job ${job.id} of ${queue}:`, error instanceof Error ? error.message : error);
      // Not settled (the database away): the job would stay taken, and its run pending, until
      // pg-boss expires it. Settled once the database is back; the slot is free meanwhile.
      // A process that stopped taking jobs leaves it to that expiry.
      retryUntilStored(async () => void (this.stopped || (await store())));
    });
  }

  /**
   * A slot for work this process takes without the queue (a run it queued itself and executes
   * at once); undefined when every slot is taken or a fetch, which counted the free ones, is under way.
   */
  reserve(): (() => void) | undefined {
    if (this.stopped || this.fetching || this.busy >= this.options.slots) return undefined;
    this.busy++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.busy--;
      if (this.again) this.wake();
    };
  }

  /** Takes no more jobs. */
  pause(): void {
    this.stopped = true;
    clearInterval(this.poll);
  }

  /** Takes no more jobs; resolves once those taken are handled (and completed or failed). */
  async stop(): Promise<void> {
    this.pause();
    await Promise.all(this.handling);
  }
}
