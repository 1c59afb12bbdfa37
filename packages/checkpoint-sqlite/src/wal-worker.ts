/**
 * The worker of wal-checkpointer.ts: PASSIVE checkpoints of one file, on a timer. They never
 * block the writer, but under continuous writes they never catch up with the log's tail, and
 * SQLite rewinds the log only once a checkpoint has caught up: the WAL grew without bound (420 MB
 * after 6,000 server round trips). So once the log passes `truncateAfterPages`, the worker asks
 * the main thread to hold its writes (it answers "truncate" when no transaction is open), empties
 * the log with a TRUNCATE checkpoint, and says "truncated" (or "truncate failed": writes resume either way).
 *
 * An idle server should cost nothing: when no other connection has committed since the last
 * tick (`PRAGMA data_version` is unchanged), the worker skips the checkpoint and waits twice as
 * long, up to `IDLE_MAX_MS`; the first tick that sees a commit goes back to `intervalMs`. The log
 * is then at most one long wait late in being copied (the backstop still bounds it).
 */

import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";

const { path, intervalMs, truncateAfterPages } = workerData as {
  path: string;
  intervalMs: number;
  truncateAfterPages: number;
};
const db = new Database(path);
db.pragma("busy_timeout = 5000");
let asked = false;
/** Longest wait between ticks while nothing is written. */
const IDLE_MAX_MS = 2_000;
let wait = intervalMs;
let seen: unknown;
let timer: ReturnType<typeof setTimeout> | undefined;

function tick(): void {
  const version = db.pragma("data_version", { simple: true });
  if (version === seen) {
    wait = Math.min(wait * 2, Math.max(intervalMs, IDLE_MAX_MS));
  } else {
    seen = version;
    wait = intervalMs;
    passive();
  }
  timer = setTimeout(tick, wait);
}

function passive(): void {
  try {
    const [result] = db.pragma("wal_checkpoint(PASSIVE)") as Array<{ log: number }>;
    if (!asked && result && result.log >= truncateAfterPages) {
      asked = true;
      parentPort!.postMessage("hold writes");
    }
  } catch {
    // A busy or failing checkpoint is retried on the next tick; the WAL keeps every commit meanwhile.
  }
}

function truncate(): void {
  let done = false;
  try {
    const [result] = db.pragma("wal_checkpoint(TRUNCATE)") as Array<{ busy: number }>;
    done = result?.busy === 0;
  } catch {
    // Retried when the log is next found too long.
  } finally {
    asked = false;
    parentPort!.postMessage(done ? "truncated" : "truncate failed");
  }
}

timer = setTimeout(tick, intervalMs);
parentPort!.on("message", (message) => {
  if (message === "truncate") return truncate();
  if (message !== "stop") return;
  clearTimeout(timer);
  passive();
  db.close();
  parentPort!.close();
});
