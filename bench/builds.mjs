/**
 * Workload 3's round trip on Interlude alone, two or more builds (checkouts) in this one
 * process, in alternating blocks of 50 round trips, so that they see the same machine load:
 * the way to tell a change's effect on a shared machine, where `bench/run.mjs`'s ratios move
 * with LangGraph.js's own time.
 *
 *   node bench/builds.mjs [samples=2000] [file|memory|memsaver] /path/to/main /path/to/branch
 *
 * Per build: median wall time of a round trip (invoke until paused + resume), its p10 and mean,
 * the median CPU time of a round trip with its getState, and the median getState.
 */
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";

const [samples = "2000", kind = "file", ...roots] = process.argv.slice(2);
if (roots.length === 0) throw new Error("usage: node bench/builds.mjs [samples] [file|memory|memsaver] ROOT...");
const files = [];
const builds = [];
for (const root of roots) {
  const IL = await import(`${root}/packages/interlude/dist/index.js`);
  const { SqliteSaver } = await import(`${root}/packages/checkpoint-sqlite/dist/index.js`);
  const { approval } = await import(`${root}/bench/lib/graphs.mjs`);
  const file = join(tmpdir(), `interlude-builds-${process.pid}-${builds.length}.sqlite`);
  files.push(file);
  const saver =
    kind === "memsaver" ? new IL.MemorySaver() : SqliteSaver.fromConnString(kind === "file" ? file : ":memory:");
  builds.push({ root, IL, graph: approval(IL, saver), saver, wall: [], cpu: [], getState: [] });
}

let thread = 0;
async function sample(build, record) {
  const config = { configurable: { thread_id: `t${thread++}` } };
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await build.graph.invoke({ request: { customer: "ACME", amount: 120 } }, config);
  const t1 = performance.now();
  await build.graph.getState(config);
  const t2 = performance.now();
  const done = await build.graph.invoke(new build.IL.Command({ resume: "yes" }), config);
  const t3 = performance.now();
  const cpu = process.cpuUsage(cpu0);
  if (done.result !== "sent") throw new Error(`${build.root}: unexpected round trip`);
  if (!record) return;
  build.wall.push(t1 - t0 + (t3 - t2));
  build.getState.push(t2 - t1);
  build.cpu.push((cpu.user + cpu.system) / 1000);
}

for (let i = 0; i < 100; i++) for (const build of builds) await sample(build, false);
for (let done = 0; done < Number(samples); done += 50) {
  const order = (done / 50) % 2 ? [...builds].reverse() : builds;
  for (const build of order) for (let i = 0; i < 50; i++) await sample(build, true);
}

const quantile = (values, q) => [...values].sort((a, b) => a - b)[Math.floor(q * (values.length - 1))];
const us = (ms) => `${(ms * 1000).toFixed(0)} µs`;
for (const { root, wall, cpu, getState } of builds) {
  const mean = wall.reduce((sum, x) => sum + x, 0) / wall.length;
  console.log(
    `${root} (${kind}): round trip median ${us(quantile(wall, 0.5))}, p10 ${us(quantile(wall, 0.1))}, mean ${us(mean)}; ` +
      `CPU with getState ${us(quantile(cpu, 0.5))}; getState ${us(quantile(getState, 0.5))}`,
  );
}
for (const { saver } of builds) await saver.close?.();
for (const file of files) for (const suffix of ["", "-wal", "-shm"]) rmSync(file + suffix, { force: true });
