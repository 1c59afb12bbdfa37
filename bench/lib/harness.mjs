/**
 * The shared harness: warm-up, alternating blocks of Interlude and LangGraph.js runs in one
 * process, and median / p99 of the samples. A sample is whatever the workload measures
 * (milliseconds per step, per round trip...); the harness only orders and summarises them.
 */
import { performance } from "node:perf_hooks";

export const now = () => performance.now();

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))];
}

export function summary(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  return { n: sorted.length, median: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

/**
 * Runs `il(i)` and `lg(i)` (each returns one sample, or an array of samples) `iterations`
 * times, after `warmup` unmeasured calls of each, in alternating blocks of `block` calls so
 * that both see the same machine state (JIT, GC pressure, thermal).
 */
export async function alternate({ iterations, warmup = 3, block = 1, il, lg }) {
  const out = { il: [], lg: [] };
  for (let i = 0; i < warmup; i++) {
    await il(-1 - i);
    await lg(-1 - i);
  }
  let done = 0;
  let round = 0;
  while (done < iterations) {
    const count = Math.min(block, iterations - done);
    // Alternate who goes first too, so neither always runs right after the other's garbage.
    const order = round % 2 === 0 ? ["il", "lg"] : ["lg", "il"];
    for (const who of order) {
      const fn = who === "il" ? il : lg;
      for (let k = 0; k < count; k++) {
        const sample = await fn(done + k);
        if (Array.isArray(sample)) out[who].push(...sample);
        else out[who].push(sample);
      }
    }
    done += count;
    round++;
  }
  return { il: summary(out.il), lg: summary(out.lg) };
}

/** Times one async call, in milliseconds. */
export async function timed(fn) {
  const start = now();
  await fn();
  return now() - start;
}

/**
 * A result row. `better`: "lower" (times, bytes: ratio = LangGraph / Interlude) or "higher"
 * (throughput: ratio = Interlude / LangGraph). `target`: the ratio the issue asks for.
 */
export function row({ workload, metric, unit, il, lg, better = "lower", target, note }) {
  const ratio = better === "lower" ? lg.median / il.median : il.median / lg.median;
  return {
    workload,
    metric,
    unit,
    il,
    lg,
    ratio,
    target,
    met: target === undefined ? undefined : ratio >= target,
    note,
  };
}

function fmt(value, unit) {
  if (value === undefined || Number.isNaN(value)) return "–";
  if (unit === "B" || unit === "B/thread" || unit === "B/step") {
    if (Math.abs(value) >= 1e6) return `${(value / 1e6).toFixed(2)} MB`;
    if (Math.abs(value) >= 1e4) return `${(value / 1e3).toFixed(1)} kB`;
    return `${Math.round(value)} B`;
  }
  if (unit === "ms") {
    if (value < 0.001) return `${(value * 1e6).toFixed(0)} ns`;
    if (value < 1) return `${(value * 1e3).toFixed(1)} µs`;
    return `${value.toFixed(2)} ms`;
  }
  if (value >= 100) return value.toFixed(0);
  return value.toFixed(2);
}

function cell(stats, unit) {
  if (!stats) return "–";
  if (stats.p99 === undefined || stats.n <= 1) return fmt(stats.median, unit);
  return `${fmt(stats.median, unit)} / ${fmt(stats.p99, unit)}`;
}

export function markdownTable(rows) {
  const lines = [
    "| # | Metric | Interlude (median / p99) | LangGraph.js 1.7.3 (median / p99) | Ratio | Target | Met |",
    "|---|---|---|---|---|---|---|",
  ];
  for (const r of rows) {
    const unitLabel = r.unit === "ms" ? "" : ` (${r.unit})`;
    const ratio = Number.isFinite(r.ratio) ? `${r.ratio >= 100 ? r.ratio.toFixed(0) : r.ratio.toFixed(1)}x` : "–";
    const target = r.target === undefined ? "–" : `≥${r.target}x`;
    const met = r.met === undefined ? "" : r.met ? "yes" : "**no**";
    lines.push(
      `| ${r.workload} | ${r.metric}${unitLabel}${r.note ? ` — ${r.note}` : ""} | ${cell(r.il, r.unit)} | ${cell(r.lg, r.unit)} | ${ratio} | ${target} | ${met} |`,
    );
  }
  return lines.join("\n");
}

/** Scales an iteration count by BENCH_SCALE (e.g. 0.2 for a quick look), at least `min`. */
export function scaled(count, min = 1) {
  const scale = Number(process.env.BENCH_SCALE ?? 1);
  return Math.max(min, Math.round(count * scale));
}

export function log(message) {
  process.stderr.write(`[bench] ${message}\n`);
}
