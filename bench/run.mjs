/**
 * `npm run bench`: every workload on Interlude and LangGraph.js 1.7.3 in this one process
 * (workload 6 in child processes), then one table of medians, p99s and ratios.
 *
 *   node bench/run.mjs [--only=1,3] [--update-doc]
 *   BENCH_SCALE=0.2 node bench/run.mjs     # fewer iterations, for a quick look
 *   BENCH_POSTGRES_URL=postgres://...      # use this server for workload 7
 *
 * It reports; it never fails for being slow (exit code 1 only when a workload breaks).
 */

import { execFileSync } from "node:child_process";
import { EventEmitter } from "node:events";
import { readFileSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { fileURLToPath } from "node:url";
import { log, markdownTable } from "./lib/harness.mjs";

const WORKLOADS = [
  "1-chain",
  "2-loop",
  "3-roundtrip",
  "4-fanout",
  "5-storage",
  "6-memory",
  "7-postgres",
  "8-stream-events",
  "9-pregel",
];

const args = process.argv.slice(2);
const only = args
  .find((a) => a.startsWith("--only="))
  ?.slice(7)
  .split(",")
  .map(Number);
const updateDoc = args.includes("--update-doc");

// LangGraph.js adds one abort listener per task to a shared signal; 100 Sends trip Node's
// default warning threshold of 10, which would only clutter the output.
EventEmitter.defaultMaxListeners = 1000;

const rows = [];
const skipped = [];
const started = Date.now();
for (const name of WORKLOADS) {
  const number = Number(name.split("-")[0]);
  if (only && !only.includes(number)) continue;
  const workload = await import(`./workloads/${name}.mjs`);
  log(`${number}. ${workload.title}...`);
  const t0 = Date.now();
  const result = await workload.run();
  if (result.skip) {
    skipped.push(`${number}. ${workload.title}: SKIPPED (${result.skip})`);
    log(`   skipped: ${result.skip}`);
    continue;
  }
  rows.push(...result);
  log(`   done in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

const machine = `${cpus().length} × ${cpus()[0]?.model ?? "unknown CPU"}, Node ${process.version}, ${process.platform}/${process.arch}`;
const table = markdownTable(rows);
const footer = [
  ...skipped,
  `Machine: ${machine}. Total ${((Date.now() - started) / 1000).toFixed(0)} s. Ratio = LangGraph.js / Interlude for times and bytes, Interlude / LangGraph.js for rates.`,
];
process.stdout.write(`\n${table}\n\n${footer.join("\n")}\n`);

if (updateDoc) {
  const doc = fileURLToPath(new URL("../BENCHMARKS.md", import.meta.url));
  const text = readFileSync(doc, "utf8");
  const start = "<!-- bench:table:start -->";
  const end = "<!-- bench:table:end -->";
  const at = text.indexOf(start);
  const to = text.indexOf(end);
  if (at < 0 || to < 0) throw new Error(`BENCHMARKS.md has no ${start} ... ${end} markers`);
  writeFileSync(doc, `${text.slice(0, at + start.length)}\n${table}\n\n${footer.join("\n\n")}\n${text.slice(to)}`);
  // Aligned as the linter wants it (CI's \`biome ci\` fails on an unaligned table).
  execFileSync(
    process.execPath,
    [fileURLToPath(import.meta.resolve("@biomejs/biome/bin/biome")), "format", "--write", doc],
    {
      stdio: "ignore",
    },
  );
  log("BENCHMARKS.md updated");
}
