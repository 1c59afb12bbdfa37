/**
 * WAL checkpoints off the main thread. SQLite copies the write-ahead log back into the database
 * file inside whichever COMMIT crosses `wal_autocheckpoint` (1000 pages by default): that commit
 * then copies ~4 MB and fsyncs, blocking the event loop for milliseconds (measured in the
 * server: 1% of commits took 54% of all commit time, the slowest 11 ms). A worker thread with
 * its own connection runs PASSIVE checkpoints instead, which never block writers.
 */

import { Worker } from "node:worker_threads";
import type Database from "better-sqlite3";
import { GroupCommit } from "./group-commit.js";

export interface WalCheckpointerOptions {
  /** How often the worker checkpoints (default 100 ms). */
  intervalMs?: number;
  /** Log size (pages) past which a checkpoint also empties the WAL file (default 4096, 16 MB of 4 KB pages). */
  truncateAfterPages?: number;
}

export interface WalCheckpointer {
  /** Stops the worker after a last checkpoint. */
  stop(): Promise<void>;
}

/**
 * Turns off automatic checkpoints on `db` and checkpoints its file from a worker thread.
 * Only for a file in WAL mode; an in-memory or read-only database is left alone (returns undefined).
 */
export function startWalCheckpointer(
  db: Database.Database,
  options: WalCheckpointerOptions = {},
): WalCheckpointer | undefined {
  if (db.memory || db.readonly || String(db.pragma("journal_mode", { simple: true })).toLowerCase() !== "wal")
    return undefined;
  const worker = new Worker(new URL("./wal-worker.js", import.meta.url), {
    workerData: {
      path: db.name,
      intervalMs: options.intervalMs ?? 100,
      truncateAfterPages: options.truncateAfterPages ?? 4096,
    },
  });
  worker.unref();
  const group = GroupCommit.of(db);
  // Until the worker is up, and if it ever fails, the connection checkpoints by itself as before.
  let handedOver = false;
  let truncated: (() => void) | undefined;
  worker.on("message", (message) => {
    if (message === "ready") {
      handedOver = true;
      if (db.open) db.pragma("wal_autocheckpoint = 0");
    } else if (message === "hold writes") {
      // Writes queue (asynchronously) until the log is emptied: a few ms, the log being kept short.
      void group.exclusive(
        () =>
          new Promise<void>((resolve) => {
            truncated = resolve;
            worker.postMessage("truncate");
          }),
      );
    } else if (message === "truncated") {
      truncated?.();
      truncated = undefined;
    }
  });
  const restore = () => {
    truncated?.();
    truncated = undefined;
    if (handedOver && db.open) db.pragma("wal_autocheckpoint = 1000");
    handedOver = false;
  };
  worker.once("error", restore);
  worker.once("exit", restore);
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
