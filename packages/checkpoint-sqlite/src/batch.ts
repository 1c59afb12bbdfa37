/**
 * One batch transaction of a connection's group commit, as its writers see it: a number (batches
 * open in order) and a promise of its commit. The promise is made only when a write waits for
 * it: a saver without group commit commits most batches at once, and nobody asks.
 */
export class Batch {
  /** Logical transactions done in it so far: the first one needs no savepoint (it is the whole batch). */
  writes = 0;
  /** The end-of-turn commit is scheduled. */
  flushing = false;
  private outcome: { error?: unknown } | undefined;
  private waiters: { promise: Promise<void>; resolve(): void; reject(error: unknown): void } | undefined;

  /** @param number this batch's place among the connection's batches (1, 2, ...) */
  constructor(readonly number: number) {}

  /** Settles once the batch has committed (or failed). */
  get committed(): Promise<void> {
    if (this.outcome) return "error" in this.outcome ? Promise.reject(this.outcome.error) : Promise.resolve();
    if (!this.waiters) {
      let resolve!: () => void;
      let reject!: (error: unknown) => void;
      const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
      // Every writer awaits it; this keeps a batch without writers left from being an unhandled rejection.
      promise.catch(() => undefined);
      this.waiters = { promise, resolve, reject };
    }
    return this.waiters.promise;
  }

  resolve(): void {
    this.outcome = {};
    this.waiters?.resolve();
  }

  reject(error: unknown): void {
    this.outcome = { error };
    this.waiters?.reject(error);
  }
}
