/**
 * Group commit on one better-sqlite3 connection. A COMMIT writes every page the transaction
 * dirtied to the WAL; a server answering many threads at once commits ~8 small transactions per
 * pause-and-resume round trip, most of them touching the same few pages. Here logical
 * transactions run one at a time, each in its own savepoint of a batch transaction (the first
 * needs none), and the batch commits once per event-loop turn, or at once after a durable
 * `unbatched` write (a SqliteSaver without group commit: its claims and releases ride in the
 * run's next save). A logical transaction's promise settles only when the batch holding its
 * writes has committed (or failed), so callers keep the usual guarantee: a resolved write is
 * durable.
 *
 * Reads outside a logical transaction see the open batch's writes, which are committed within
 * the same turn unless the disk fails, in which case every writer of the batch is told so.
 */
import type Database from "better-sqlite3";
import type { Batch } from "./batch.js";
import { BatchTransactions } from "./batch-transactions.js";

export interface WriteOptions {
  /** Wait for the commit before resolving (default true). */
  durable?: boolean;
  /**
   * From a writer that does not batch across threads (a SqliteSaver without `groupCommit`): a
   * durable write commits the batch as soon as it is done, with whatever non-durable writes (a
   * thread claim) went into it before, instead of at the end of the event-loop turn. Opening a
   * batch may then wait for the write lock in SQLite's busy handler, as a plain transaction
   * does, when no other connection of this process has a batch open on the file (so the holder
   * is another process, which does not need this event loop to commit).
   */
  unbatched?: boolean;
}

const groups = new WeakMap<Database.Database, GroupCommit>();

/** The batching policy: which batch a logical transaction joins, and when that batch commits. */
export class GroupCommit {
  /** The one group of a connection: the saver and the server's store share it, so they share batches. */
  static of(db: Database.Database): GroupCommit {
    let group = groups.get(db);
    if (!group) groups.set(db, (group = new GroupCommit(db)));
    return group;
  }

  private busy = false;
  /** Told when a batch is rolled back as a whole: what its writers did is gone from the file. */
  private readonly failureListeners = new Set<() => void>();
  private readonly waiting: Array<() => void> = [];
  private readonly tx: BatchTransactions;
  /** The newest batch that failed as a whole, for `settled`. */
  private lastFailure: { batch: number; error: unknown } | undefined;

  private constructor(db: Database.Database) {
    this.tx = new BatchTransactions(db);
  }

  /**
   * Runs `body` as one logical transaction; resolves with its result once it is committed.
   * `body` may await (the server's store is asynchronous so that it also runs on PostgreSQL):
   * other logical transactions wait until it has finished, so none of them nests into its
   * savepoint and is rolled back with it.
   * With `{ durable: false }` it resolves as soon as `body` has run: for writes nothing outside
   * this process acts on before a later durable write commits (batches commit in order, so that
   * one commits them too), such as a thread claim, which the open batch's write lock already
   * enforces against other processes. If that batch fails, `settled(mark)` with a `mark()` taken
   * before the write rejects.
   */
  async write<T>(body: () => T | Promise<T>, options?: WriteOptions): Promise<T> {
    await this.lock();
    let batch: Batch;
    let result: T;
    try {
      batch = this.tx.batch ?? (await this.tx.begin());
      result = await this.within(batch, body, options);
    } finally {
      this.unlock();
    }
    if (options?.durable !== false) await batch.committed;
    return result;
  }

  /**
   * `write` for a synchronous body, without its promise hops when no other write is under way
   * and the write lock is free: the body runs now, and the result comes back as is when the
   * write is not durable or has just been committed (`unbatched`).
   */
  run<T>(body: () => T, options?: WriteOptions): T | Promise<T> {
    if (this.busy || (!this.tx.batch && !this.tx.tryBegin(false, options?.unbatched))) return this.write(body, options);
    this.busy = true;
    const batch = this.tx.batch!;
    let result: T;
    try {
      result = this.within(batch, body, options) as T;
    } finally {
      this.unlock();
    }
    if (options?.durable === false || this.tx.batch !== batch) return result;
    return batch.committed.then(() => result);
  }

  /**
   * Runs `body` as one logical transaction of `batch` (a promise it returns is awaited before
   * the transaction ends): in a savepoint when earlier ones share the batch, undone if it fails.
   */
  private within<T>(batch: Batch, body: () => T | Promise<T>, options: WriteOptions | undefined): T | Promise<T> {
    const nested = batch.writes > 0;
    if (nested) this.tx.savepoint();
    const failed = (error: unknown): never => {
      this.undo(batch, nested, error);
      throw error;
    };
    let result: T | Promise<T>;
    try {
      result = body();
    } catch (error) {
      return failed(error);
    }
    if (!(result instanceof Promise)) {
      this.leave(batch, nested, options);
      return result;
    }
    return result.then((value) => {
      this.leave(batch, nested, options);
      return value;
    }, failed);
  }

  /** Ends a logical transaction that succeeded, committing the batch now when it asks to. */
  private leave(batch: Batch, nested: boolean, options: WriteOptions | undefined): void {
    if (nested) this.tx.release();
    batch.writes++;
    if (options?.unbatched && options.durable !== false) {
      const failure = this.commitBatch();
      if (failure !== undefined) throw failure;
    } else if (!batch.flushing) {
      batch.flushing = true;
      setImmediate(() => void this.flush().catch(() => undefined));
    }
  }

  /** Undoes one logical transaction; if that ended the batch, its other writers are told. */
  private undo(batch: Batch, nested: boolean, error: unknown): void {
    if (!this.tx.undo(batch, nested)) return;
    // Not nested: the batch held only this transaction, whose caller gets the error.
    if (nested) this.fail(batch, error);
    else batch.reject(error);
  }

  /** Commits the open batch, then runs `body` with no transaction open and writes held back. */
  async exclusive(body: () => Promise<void>): Promise<void> {
    await this.lock();
    try {
      this.commitBatch();
      await body();
    } finally {
      this.unlock();
    }
  }

  /** Calls `listener` whenever a batch fails as a whole (each distinct function once). */
  onFailure(listener: () => void): void {
    this.failureListeners.add(listener);
  }

  /** Commits the open batch now (before closing the connection). */
  flush(): Promise<void> {
    return this.exclusive(async () => undefined);
  }

  /** The number of the open batch, if any: while it is open no other connection can commit. */
  get openBatch(): number | undefined {
    return this.tx.batch?.number;
  }

  /** Where a write made now lands: the open batch or a later one. Pass it to `settled` afterwards. */
  mark(): number {
    return this.tx.current;
  }

  /**
   * `settled`, but the open batch commits now instead of at the end of the event-loop turn: for
   * a writer that does not batch across threads, whose caller has nothing to share the batch
   * with and would only wait for the turn (~40 µs, twice per pause-and-resume round trip with
   * durability "async"). A logical transaction under way (the store's, which may await) keeps
   * the batch open until the turn ends, as before.
   */
  commitNow(since?: number): Promise<void> {
    if (this.tx.batch && !this.busy) {
      this.busy = true;
      try {
        this.commitBatch();
      } finally {
        this.unlock();
      }
    }
    return this.settled(since);
  }

  /**
   * Resolves once the open batch (if any) has committed, without cutting it short; rejects if
   * it fails, or if any batch from `since` on (a `mark()` taken before the writes in question)
   * failed already: for writes made with `durable: false` that must now be durable. Without
   * `since`, only the open batch counts.
   */
  async settled(since = Number.POSITIVE_INFINITY): Promise<void> {
    await this.tx.batch?.committed;
    const failure = this.lastFailure;
    if (failure && failure.batch >= since) throw failure.error;
  }

  /** Commits the open batch; returns the error when that failed (its writers are told through the batch). */
  private commitBatch(): unknown {
    const done = this.tx.commit();
    if (!done) return undefined;
    if (done.error === undefined) {
      done.batch.resolve();
      return undefined;
    }
    this.fail(done.batch, done.error);
    return done.error;
  }

  private fail(batch: Batch, error: unknown): void {
    this.lastFailure = { batch: batch.number, error };
    for (const listener of this.failureListeners) listener();
    batch.reject(error);
  }

  private lock(): Promise<void> | void {
    if (!this.busy) {
      this.busy = true;
      return;
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Hands the lock to the next waiter in line, or frees it. */
  private unlock(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.busy = false;
  }
}
