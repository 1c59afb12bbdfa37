/**
 * WAL checkpoints off the main thread. SQLite copies the write-ahead log back into the database
 * file inside whichever COMMIT crosses `wal_autocheckpoint` (1000 pages by default): that commit
 * then copies ~4 MB and fsyncs, blocking the event loop for milliseconds (measured in the
 * server: 1% of commits took 54% of all commit time, the slowest 11 ms). A worker thread with
 * its own connection runs PASSIVE checkpoints instead, which never block writers.
 *
 * The worker is only as prompt as the scheduler lets it be: on a loaded machine it can go without
 * CPU for seconds while this thread keeps committing, and the log grew with every commit. So the
 * connection keeps an automatic checkpoint as a backstop, at a multiple of `truncateAfterPages`
 * that the worker normally never lets the log reach: the log stays bounded however late the
 * worker runs, and the commit that crosses the backstop pays for the copy only when the worker is
 * starved.
 */

import { Worker } from "node:worker_threads";
import type Database from "better-sqlite3";
import { GroupCommit } from "./group-commit.js";

export interface WalCheckpointerOptions {
  /** How often the worker checkpoints (default 100 ms). */
  intervalMs?: number;
  /** Log size (pages) past which a checkpoint also empties the WAL file (default 4096, 16 MB of 4 KB pages). */
  truncateAfterPages?: number;
  /** Called after each TRUNCATE checkpoint, with writes still held (the WAL file is empty then). */
  onTruncate?: () => void;
}

/** The backstop automatic checkpoint, in multiples of `truncateAfterPages`. */
const BACKSTOP_FACTOR = 4;

export interface WalCheckpointer {
  /** Stops the worker after a last checkpoint. */
  stop(): Promise<void>;
}

/** Whether `db` is a file in WAL mode open for writing: the only kind a checkpointer works on. */
export function walCheckpointable(db: Database.Database): boolean {
  return !db.memory && !db.readonly && String(db.pragma("journal_mode", { simple: true })).toLowerCase() === "wal";
}

/**
 * Checkpoints the file of `db` from a worker thread, leaving `db` only the backstop automatic checkpoint.
 * Only for a file in WAL mode; an in-memory or read-only database is left alone (returns undefined).
 */
export function startWalCheckpointer(
  db: Database.Database,
  options: WalCheckpointerOptions = {},
): WalCheckpointer | undefined {
  if (!walCheckpointable(db)) return undefined;
  const truncateAfterPages = options.truncateAfterPages ?? 4096;
  const worker = new Worker(new URL("./wal-worker.js", import.meta.url), {
    workerData: {
      path: db.name,
      intervalMs: options.intervalMs ?? 100,
      truncateAfterPages,
    },
  });
  const group = GroupCommit.of(db);
  // The backstop holds from now on, the worker being up or not; if it fails, the setting is restored.
  const previous = Number(db.pragma("wal_autocheckpoint", { simple: true }));
  db.pragma(`wal_autocheckpoint = ${truncateAfterPages * BACKSTOP_FACTOR}`);
  let restored = false;
  let truncated: (() => void) | undefined;
  worker.on("message", (message) => {
    if (message === "hold writes") {
      // Writes queue (asynchronously) until the log is emptied: a few ms, the log being kept short.
      // The worker is referenced while writes wait for its answer: a script whose only work left
      // is those writes would otherwise exit with its run unsettled (exit code 13).
      void group.exclusive(
        () =>
          new Promise<void>((resolve) => {
            worker.ref();
            truncated = () => {
              worker.unref();
              resolve();
            };
            worker.postMessage("truncate");
          }),
      );
    } else if (message === "truncated" || message === "truncate failed") {
      if (message === "truncated") options.onTruncate?.();
      truncated?.();
      truncated = undefined;
    }
  });
  const restore = () => {
    truncated?.();
    truncated = undefined;
    if (!restored && db.open) db.pragma(`wal_autocheckpoint = ${previous}`);
    restored = true;
  };
  worker.once("error", restore);
  worker.once("exit", restore);
  // Last: a "message" listener added after unref() refs the worker's port again, and a script
  // that never closes its saver would then never exit.
  worker.unref();
  return {
    async stop() {
      restore();
      await new Promise<void>((resolve) => {
        if (worker.threadId === -1) return resolve();
        worker.once("exit", () => resolve());
        // Held open until the worker's last checkpoint is done.
        worker.ref();
        worker.postMessage("stop");
      });
    },
  };
}
