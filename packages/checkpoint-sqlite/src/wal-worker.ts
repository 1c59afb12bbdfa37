/** The worker of wal-checkpointer.ts: PASSIVE checkpoints of one file, on a timer. */
import Database from "better-sqlite3";
import { parentPort, workerData } from "node:worker_threads";

const { path, intervalMs } = workerData as { path: string; intervalMs: number };
const db = new Database(path);
db.pragma("busy_timeout = 5000");
const checkpoint = () => {
  try {
    db.pragma("wal_checkpoint(PASSIVE)");
  } catch {
    // A busy or failing checkpoint is retried on the next tick; the WAL keeps every commit meanwhile.
  }
};
const timer = setInterval(checkpoint, intervalMs);
parentPort!.on("message", (message) => {
  if (message !== "stop") return;
  clearInterval(timer);
  checkpoint();
  db.close();
  parentPort!.close();
});
parentPort!.postMessage("ready");
