/**
 * `AsyncBatchedStore`: a store whose operations, made in the same turn of the event loop (a
 * step's nodes writing memory at once), reach the wrapped store as one `batch()`. Unlike
 * LangGraph's, it needs no `start()` to work (an operation made before it never hangs), and
 * `batch()` itself is batched rather than refused.
 */
import { BaseStore } from "./base.js";
import type { Operation, OperationResults } from "./types.js";

interface Queued {
  operations: Operation[];
  resolve(results: unknown[]): void;
  reject(error: unknown): void;
}

export class AsyncBatchedStore extends BaseStore {
  readonly lg_name = "AsyncBatchedStore";
  /** The store the batches go to (an AsyncBatchedStore given here is unwrapped). */
  readonly store: BaseStore;
  private queue: Queued[] = [];
  /** The flush that will take the queue, once this turn ends. */
  private scheduled?: Promise<void>;
  /** Flushes not yet answered. */
  private readonly inFlight = new Set<Promise<void>>();
  private running = false;

  constructor(store: BaseStore) {
    super();
    this.store = store instanceof AsyncBatchedStore ? store.store : store;
  }

  /** Between `start()` and `stop()` (batching does not depend on it). */
  get isRunning(): boolean {
    return this.running;
  }

  batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    return new Promise((resolve, reject) => {
      this.queue.push({ operations, resolve: resolve as Queued["resolve"], reject });
      if (this.scheduled) return;
      const flushing = this.flush();
      this.scheduled = flushing;
      this.inFlight.add(flushing);
      void flushing.finally(() => this.inFlight.delete(flushing));
    });
  }

  private async flush(): Promise<void> {
    // One turn: whatever else this turn asks for joins the batch.
    await new Promise((resolve) => setImmediate(resolve));
    const queued = this.queue;
    this.queue = [];
    this.scheduled = undefined;
    try {
      const results = await this.store.batch(queued.flatMap((q) => q.operations));
      let at = 0;
      for (const q of queued) q.resolve(results.slice(at, (at += q.operations.length)));
    } catch (error) {
      for (const q of queued) q.reject(error);
    }
  }

  override start(): void {
    this.running = true;
  }

  /** Waits until every operation asked for so far has been answered. */
  override async stop(): Promise<void> {
    this.running = false;
    while (this.inFlight.size) await Promise.all(this.inFlight);
  }

  override toJSON(): Record<string, unknown> {
    return { queue: this.queue.length, running: this.running, store: "[LangGraphStore]" };
  }
}
