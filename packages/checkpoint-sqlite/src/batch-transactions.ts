/**
 * The SQL side of group commit on one better-sqlite3 connection: opening a batch transaction
 * (taking the file's write lock), the savepoint of each logical transaction in it, commit and
 * rollback. When to open, nest and commit is group-commit.ts's business.
 */
import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import type Database from "better-sqlite3";
import { Batch } from "./batch.js";

/**
 * File (real path) -> batches open on it in this process: while there are any, opening another
 * never blocks. Keyed by the real path: connections that spell one file differently
 * ("./db.sqlite", an absolute path, a symbolic link) must meet here, or one would block in the busy handler on
 * the other's batch, which cannot commit while the event loop is blocked.
 */
const openBatches = new Map<string, number>();

export class BatchTransactions {
  /** The open batch, if any. */
  batch: Batch | undefined;
  /** Batches opened so far on this connection. */
  private opened = 0;
  private readonly statements: Record<
    "begin" | "commit" | "rollback" | "savepoint" | "release" | "rollbackTo" | "busyTimeout",
    Database.Statement
  >;
  private readonly busyTimeouts = new Map<number, Database.Statement>();
  /** Key in `openBatches`; undefined for a database private to the connection (in memory, or temporary). */
  private readonly file: string | undefined;

  constructor(private readonly db: Database.Database) {
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

  /** The number the open batch has, or the next one will have. */
  get current(): number {
    return this.batch?.number ?? this.opened + 1;
  }

  /**
   * Opens a batch. The write lock is awaited here, not in SQLite's busy handler: that handler
   * sleeps on the event loop, and the holder may be another connection of this very process,
   * whose batch commits only once the event loop turns (waiting there would wait for ourselves).
   */
  async begin(): Promise<Batch> {
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
  tryBegin(last = false, mayBlock = false): boolean {
    if (mayBlock && (this.file === undefined || !openBatches.get(this.file))) {
      this.statements.begin.run();
      this.open();
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
    this.open();
    return true;
  }

  /** Starts a logical transaction that shares the batch with earlier ones. */
  savepoint(): void {
    this.statements.savepoint.run();
  }

  /** Ends that logical transaction, keeping its writes in the batch. */
  release(): void {
    this.statements.release.run();
  }

  /**
   * Undoes one logical transaction: its savepoint when `nested` and the batch is still open,
   * else the whole batch (which SQLite may have rolled back already). True when the batch ended.
   */
  undo(batch: Batch, nested: boolean): boolean {
    if (nested && this.db.inTransaction) {
      this.statements.rollbackTo.run();
      this.statements.release.run();
      return false;
    }
    if (this.db.inTransaction) this.statements.rollback.run();
    this.close(batch);
    return true;
  }

  /** Commits the open batch, rolling it back if that fails; returns the batch and the error, if any. */
  commit(): { batch: Batch; error?: unknown } | undefined {
    const batch = this.batch;
    if (!batch) return undefined;
    this.close(batch);
    try {
      this.statements.commit.run();
      return { batch };
    } catch (error) {
      if (this.db.inTransaction) this.statements.rollback.run();
      return { batch, error };
    }
  }

  private open(): void {
    this.batch = new Batch(++this.opened);
    if (this.file !== undefined) openBatches.set(this.file, (openBatches.get(this.file) ?? 0) + 1);
  }

  /** The open batch is over (committed or undone). */
  private close(batch: Batch): void {
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
}

/** The file's path with links resolved; as given (made absolute) if that fails. */
function realPath(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return resolve(file);
  }
}
