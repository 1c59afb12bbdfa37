/**
 * 5. Storage growth on a SQLite file: one node appends a 200-byte message per super-step
 * (a chat thread). Bytes on disk (database file, WAL merged on close) after 100, 200 and 500
 * steps, each from a fresh file; bytes per step between those points (constant = storage that
 * grows with what changed); and time per step around step 50 and step 450 (median of the
 * gaps between consecutive node calls at steps 45-55 and 445-455, over three 500-step runs).
 */
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chat } from "../lib/graphs.mjs";
import { alternate, now, row, scaled, summary } from "../lib/harness.mjs";
import { interlude, langgraph } from "../lib/libs.mjs";

export const title = "Storage growth, 500 appended 200-byte messages, SQLite file";

const POINTS = [100, 200, 500];

async function close(lib, saver) {
  if (lib === interlude) await saver.close();
  else saver.db.close();
}

function bytesOnDisk(path) {
  let total = 0;
  for (const suffix of ["", "-wal", "-shm"]) if (existsSync(path + suffix)) total += statSync(path + suffix).size;
  return total;
}

async function runThread(lib, dir, steps, onStep) {
  const path = join(dir, `${lib.name}-${steps}-${Math.random().toString(36).slice(2)}.sqlite`);
  const saver = lib.sqlite(path);
  const graph = chat(lib, steps, saver, onStep);
  const result = await graph.invoke(
    { messages: [] },
    { configurable: { thread_id: "chat" }, recursionLimit: steps + 10 },
  );
  if (result.messages.length !== steps) throw new Error(`${lib.name}: ${result.messages.length} messages`);
  await close(lib, saver);
  const bytes = bytesOnDisk(path);
  rmSync(path, { force: true });
  return bytes;
}

export async function run() {
  const dir = mkdtempSync(join(tmpdir(), "interlude-bench-storage-"));
  try {
    const bytes = { il: {}, lg: {} };
    for (const steps of POINTS) {
      bytes.il[steps] = await runThread(interlude, dir, steps);
      bytes.lg[steps] = await runThread(langgraph, dir, steps);
    }
    const gaps = { il: { early: [], late: [] }, lg: { early: [], late: [] } };
    const timing = (lib, key) => async () => {
      const at = [];
      await runThread(lib, dir, 500, (n) => (at[n] = now()));
      for (let n = 45; n < 55; n++) gaps[key].early.push(at[n + 1] - at[n]);
      for (let n = 445; n < 455; n++) gaps[key].late.push(at[n + 1] - at[n]);
      return 0;
    };
    await alternate({
      iterations: scaled(3, 1),
      warmup: 0,
      block: 1,
      il: timing(interlude, "il"),
      lg: timing(langgraph, "lg"),
    });
    const one = (v) => ({ n: 1, median: v, p99: undefined });
    const rows = POINTS.map((steps) =>
      row({
        workload: 5,
        metric: `bytes on disk after ${steps} steps`,
        unit: "B",
        il: one(bytes.il[steps]),
        lg: one(bytes.lg[steps]),
        target: steps === 500 ? 20 : undefined,
      }),
    );
    const perStep = (from, to) => (key) => one((bytes[key][to] - bytes[key][from]) / (to - from));
    for (const [from, to] of [
      [100, 200],
      [200, 500],
    ]) {
      rows.push(
        row({
          workload: 5,
          metric: `bytes per step, steps ${from}-${to}`,
          unit: "B/step",
          il: perStep(from, to)("il"),
          lg: perStep(from, to)("lg"),
        }),
      );
    }
    rows.push(
      row({
        workload: 5,
        metric: "time per step at step 50",
        unit: "ms",
        il: summary(gaps.il.early),
        lg: summary(gaps.lg.early),
      }),
    );
    rows.push(
      row({
        workload: 5,
        metric: "time per step at step 450",
        unit: "ms",
        il: summary(gaps.il.late),
        lg: summary(gaps.lg.late),
      }),
    );
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
