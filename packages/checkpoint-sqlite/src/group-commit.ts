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
import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import type Database from "better-sqlite3";

/**
 * One batch transaction. Its promise and its end-of-turn commit are made only when a write
 * waits for it or leaves it open: a saver without group commit commits most batches at once.
 */
class Batch {
  /** Logical transactions done in it so far: the first one needs no savepoint (it is the whole batch). */
  writes = 0;
  /** The end-of-turn commit is scheduled. */
  flushing = false;
  private outcome: { error?: unknown } | undefined;
  private waiters: { promise: Promise<void>; resolve(): void; reject(error: unknown): void } | undefined;

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

/**
 * File (real path) -> batches open on it in this process: while there are any, opening another
 * never blocks. Keyed by the real path: connections that spell one file differently
 * ("./db.sqlite", an absolute path, a symbolic link) must meet here, or one would block in the busy handler on
 * the other's batch, which cannot commit while the event loop is blocked.
 */
const openBatches = new Map<string, number>();

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
  private batch: Batch | undefined;
  private readonly statements: Record<
    "begin" | "commit" | "rollback" | "savepoint" | "release" | "rollbackTo" | "busyTimeout",
    Database.Statement
  >;
  private readonly busyTimeouts = new Map<number, Database.Statement>();
  /** Key in `openBatches`; undefined for a database private to the connection (in memory, or temporary). */
  private readonly file: string | undefined;

  private constructor(private readonly db: Database.Database) {
    this.file = db.memory || db.name === "" ? undefined : realPath(db.name);
    this.statements = {
      begin: db.prepare("BEGIN IMMEDIATE"),
      commit: db.prepare("COMMIT"),
      rollback: db.prepare("ROLLBACK"),
      savepoint: db.prepare("SAVEPOINT interlude_write"),
      release: db.prepare("RELEASE interlude_write"),
      rollbackTo: db.prepare("ROLLBACK TO interlude_write"),
      busyTimeout: db.prepare("PRAGMA busy_timeout").pluck(),
    };
  }

  /**
   * Runs `body` as one logical transaction; resolves with its result once it is committed.
   * `body` may await (the server's store is asynchronous so that it also runs on PostgreSQL):
   * other logical transactions wait until it has finished, so none of them nests into its
   * savepoint and is rolled back with it.
   * With `{ durable: false }` it resolves as soon as `body` has run: for writes nothing outside
   * this process acts on before a later durable write commits (batches commit in order, so that
   * one commits them too), such as a thread claim, which the open batch's write lock already
   * enforces against other processes. If that batch fails, such a write is lost silently.
   */
  async write<T>(body: () => T | Promise<T>, options?: WriteOptions): Promise<T> {
    await this.lock();
    let batch: Batch;
    let result: T;
    try {
      batch = this.batch ?? (await this.begin());
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
    if (this.busy || (!this.batch && !this.tryBegin(false, options?.unbatched))) return this.write(body, options);
    this.busy = true;
    const batch = this.batch!;
    let result: T;
    try {
      result = this.within(batch, body, options) as T;
    } finally {
      this.unlock();
    }
    if (options?.durable === false || this.batch !== batch) return result;
    return batch.committed.then(() => result);
  }

  /**
   * Runs `body` as one logical transaction of `batch` (a promise it returns is awaited before
   * the transaction ends): in a savepoint when earlier ones share the batch, undone if it fails.
   */
  private within<T>(batch: Batch, body: () => T | Promise<T>, options: WriteOptions | undefined): T | Promise<T> {
    const nested = batch.writes > 0;
    if (nested) this.statements.savepoint.run();
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
    if (nested) this.statements.release.run();
    batch.writes++;
    if (options?.unbatched && options.durable !== false) {
      const failure = this.commitBatch();
      if (failure !== undefined) throw failure;
    } else if (!batch.flushing) {
      batch.flushing = true;
      setImmediate(() => void this.flush().catch(() => undefined));
    }
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

  /**
   * Resolves once the open batch (if any) has committed, without cutting it short: for writes
   * made with `durable: false` that must now be durable (all are in that batch or an earlier one).
   */
  async settled(): Promise<void> {
    await this.batch?.committed;
  }

  /** Undoes one logical transaction; if SQLite rolled back the whole batch, its writers are told. */
  private undo(batch: Batch, nested: boolean, error: unknown): void {
    if (nested && this.db.inTransaction) {
      this.statements.rollbackTo.run();
      this.statements.release.run();
      return;
    }
    // The batch held only this transaction (or SQLite rolled it back whole): it ends here.
    if (this.db.inTransaction) this.statements.rollback.run();
    this.closed(batch);
    if (nested) this.fail(batch, error);
    else batch.reject(error);
  }

  /**
   * Opens a batch. The write lock is awaited here, not in SQLite's busy handler: that handler
   * sleeps on the event loop, and the holder may be another connection of this very process,
   * whose batch commits only once the event loop turns (waiting there would wait for ourselves).
   */
  private async begin(): Promise<Batch> {
    const deadline = Date.now() + Number(this.statements.busyTimeout.get());
    for (let pause = 1; !this.tryBegin(Date.now() >= deadline); pause = Math.min(pause * 2, 20))
      await new Promise((resolve) => setTimeout(resolve, pause));
    return this.batch!;
  }

  /**
   * One attempt at the write lock, without SQLite's busy handler unless `mayBlock` and no other
   * batch is open on the file in this process: false when another connection holds it
   * (`SQLITE_BUSY`, thrown instead when `last`), else the batch is open.
   */
  private tryBegin(last = false, mayBlock = false): boolean {
    if (mayBlock && (this.file === undefined || !openBatches.get(this.file))) {
      this.statements.begin.run();
      this.opened();
      return true;
    }
    const timeoutMs = Number(this.statements.busyTimeout.get());
    this.setBusyTimeout(0);
    try {
      this.statements.begin.run();
    } catch (error) {
      if ((error as { code?: string }).code !== "SQLITE_BUSY" || last) throw error;
      return false;
    } finally {
      this.setBusyTimeout(timeoutMs);
    }
    this.opened();
    return true;
  }

  private opened(): void {
    this.batch = new Batch();
    if (this.file !== undefined) openBatches.set(this.file, (openBatches.get(this.file) ?? 0) + 1);
  }

  /** The open batch is over (committed or undone). */
  private closed(batch: Batch): void {
    if (this.batch !== batch) return;
    this.batch = undefined;
    if (this.file === undefined) return;
    const open = openBatches.get(this.file)! - 1;
    if (open > 0) openBatches.set(this.file, open);
    else openBatches.delete(this.file);
  }

  /** PRAGMA statements prepared once per value (db.pragma() prepares one per call: ~1.5% of a server's CPU). */
  private setBusyTimeout(ms: number): void {
    let statement = this.busyTimeouts.get(ms);
    if (!statement) this.busyTimeouts.set(ms, (statement = this.db.prepare(`PRAGMA busy_timeout = ${ms}`)));
    statement.get();
  }

  /** Commits the open batch; returns the error when that failed (its writers are told through the batch). */
  private commitBatch(): unknown {
    const batch = this.batch;
    if (!batch) return undefined;
    this.closed(batch);
    try {
      this.statements.commit.run();
      batch.resolve();
      return undefined;
    } catch (error) {
      if (this.db.inTransaction) this.statements.rollback.run();
      this.fail(batch, error);
      return error;
    }
  }

  private fail(batch: Batch, error: unknown): void {
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

/** The file's path with links resolved; as given (made absolute) if that fails. */
function realPath(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return resolve(file);
  }
}
