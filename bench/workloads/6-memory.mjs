/**
 * 6. Memory per paused thread: 10,000 threads of the approval graph paused at their interrupt
 * in one MemorySaver. Each runtime runs in its own child process (`node --expose-gc`), so
 * neither sees the other's heap. Sample: (heapUsed + external after - before) / threads, after
 * forced full GCs; external counts the byte arrays LangGraph's MemorySaver keeps checkpoints in.
 */
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { row, scaled } from "../lib/harness.mjs";

export const title = "Memory per paused thread, 10,000 threads, MemorySaver";

const self = fileURLToPath(import.meta.url);

function measureIn(libName, threads) {
  const out = execFileSync(process.execPath, ["--expose-gc", self, "child", libName, String(threads)], {
    encoding: "utf8",
    maxBuffer: 1 << 20,
  });
  return JSON.parse(out.trim().split("\n").pop());
}

export async function run() {
  const threads = scaled(10_000, 500);
  const one = (v) => ({ n: 1, median: v, p99: undefined });
  const il = measureIn("interlude", threads);
  const lg = measureIn("langgraph", threads);
  return [
    row({
      workload: 6,
      metric: `memory per paused thread (${threads} threads)`,
      unit: "B/thread",
      il: one(il.perThread),
      lg: one(lg.perThread),
      target: 5,
    }),
  ];
}

async function child(libName, threads) {
  const libs = await import("../lib/libs.mjs");
  const { approval } = await import("../lib/graphs.mjs");
  const lib = libs[libName];
  const saver = new lib.MemorySaver();
  const graph = approval(lib, saver);
  // Warm up on a throwaway saver so compiled code and caches are not counted per thread.
  const warm = approval(lib, new lib.MemorySaver());
  for (let i = 0; i < 50; i++)
    await warm.invoke({ request: { customer: "ACME", amount: i } }, { configurable: { thread_id: `w${i}` } });
  const used = () => {
    for (let i = 0; i < 4; i++) globalThis.gc();
    const m = process.memoryUsage();
    return m.heapUsed + m.external;
  };
  const before = used();
  for (let i = 0; i < threads; i++) {
    const result = await graph.invoke(
      { request: { customer: `customer-${i}`, amount: i } },
      { configurable: { thread_id: `t${i}` } },
    );
    if (!result.__interrupt__) throw new Error("not paused");
  }
  const after = used();
  const state = await graph.getState({ configurable: { thread_id: "t0" } });
  if (state.next[0] !== "review") throw new Error("thread t0 is not paused");
  process.stdout.write(`${JSON.stringify({ perThread: (after - before) / threads, keep: saver ? 1 : 0 })}\n`);
}

if (process.argv[2] === "child") await child(process.argv[3], Number(process.argv[4]));
