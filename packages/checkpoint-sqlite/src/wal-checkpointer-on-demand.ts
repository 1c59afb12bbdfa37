/**
 * The saver's own WAL checkpointer (wal-checkpointer.ts), started only once the saver has
 * written enough for SQLite's automatic checkpoint to come near. Until then nothing is copied
 * back anyway (the automatic one runs at 1000 pages of log, a few hundred commits), so a script
 * that saves a few checkpoints and exits never pays for a worker thread, while a long-running
 * process gets one before its first commit would stall on copying the log (1-10 ms, once every
 * ~60 round trips of a small graph; with the worker the file's p99 round trip fell from ~6.5 to
 * ~2.4 ms in bench/workloads/3-roundtrip.mjs's graph).
 */
import type Database from "better-sqlite3";
import { startWalCheckpointer, type WalCheckpointer, type WalCheckpointerOptions } from "./wal-checkpointer.js";

/** Writes (transactions committed or joined) before the worker starts. */
const WRITES_BEFORE_WORKER = 64;

export class WalCheckpointerOnDemand {
  private writesLeft = WRITES_BEFORE_WORKER;
  private running: WalCheckpointer | undefined;

  constructor(
    private readonly db: Database.Database,
    private readonly options: WalCheckpointerOptions,
  ) {}

  /** Counts a write; the one that reaches the threshold starts the worker. */
  wrote(): void {
    if (--this.writesLeft !== 0) return;
    try {
      this.running = startWalCheckpointer(this.db, this.options);
    } catch (error) {
      // SQLite's automatic checkpoint still copies the log back: slower commits, nothing lost.
      process.emitWarning(
        `@interlude/checkpoint-sqlite: the WAL checkpointer did not start (${error instanceof Error ? error.message : String(error)}); commits copy the log back themselves`,
        { code: "INTERLUDE_WAL_CHECKPOINTER" },
      );
    }
  }

  /** Stops the worker, if it started, after its last checkpoint. */
  async stop(): Promise<void> {
    this.writesLeft = Number.POSITIVE_INFINITY;
    await this.running?.stop();
    this.running = undefined;
  }
}
