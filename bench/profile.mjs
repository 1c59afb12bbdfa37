/**
 * Interlude alone on one workload's graph, for `node --cpu-prof bench/profile.mjs <1|2|3|4|4i|3s|9|9l>`.
 * Then `node bench/lib/top.mjs <file.cpuprofile>` lists the hottest functions.
 * A third argument picks the saver: `memory` (MemorySaver, the default), `sqlite-memory`,
 * `sqlite-file` or `postgres` (a throwaway PostgreSQL with fsync on, as workload 7's).
 * `3s` is workload 3's getState alone: threads paused 50 at a time, then one getState each (the
 * first after the run, as workload 3 times it), CPU counted over those calls only; profile it
 * with `node bench/lib/top.mjs <file> 40 "getState|thread/snapshot"`.
 */
import { approval, chain, fanout, loop, pregelChain, pregelLoop } from "./lib/graphs.mjs";

// IL_ROOT=/path/to/another/checkout compares against another build of the core (MemorySaver only).
const dist = (file, specifier) =>
  process.env.IL_ROOT ? `${process.env.IL_ROOT}/packages/interlude/dist/${file}` : specifier;
const IL = await import(dist("index.js", "@interlude/core"));
const sqlite = async (path) => (await import("@interlude/checkpoint-sqlite")).SqliteSaver.fromConnString(path);
const lib = {
  ...IL,
  sqlite,
  // The low-level API, as bench/lib/libs.mjs puts it together.
  low: {
    ...(await import(dist("channels/index.js", "@interlude/core/channels"))),
    ...(await import(dist("pregel/index.js", "@interlude/core/pregel"))),
  },
};

const which = process.argv[2] ?? "1";
const seconds = Number(process.argv[3] ?? 5);
const saverKind = process.argv[4] ?? "memory";
// `postgres`: a throwaway PostgreSQL (fsync on, as workload 7's), one pool of 20 for the saver.
const postgres = saverKind === "postgres" ? await startPostgresSaver() : undefined;
const saver = () =>
  saverKind === "memory"
    ? new lib.MemorySaver()
    : postgres
      ? postgres.saver
      : lib.sqlite(
          saverKind === "sqlite-memory" ? ":memory:" : `/tmp/interlude-profile-${process.pid}-${Math.random()}.sqlite`,
        );
let thread = 0;
const config = () => ({ configurable: { thread_id: `p${thread++}` }, recursionLimit: 2000 });
const items = Array.from({ length: 100 }, (_, i) => i);
const graphs = {
  1: [chain(lib, 100, await saver()), () => ({ count: 0 })],
  2: [loop(lib, 1000, await saver()), () => ({ count: 0 })],
  3: [approval(lib, await saver()), () => ({ request: { customer: "ACME", amount: 1 } })],
  4: [fanout(lib, 100, await saver()), () => ({ items })],
  "4i": [fanout(lib, 100, await saver(), 10), () => ({ items })],
  9: [pregelChain(lib, 100, await saver()), () => 0],
  "9l": [pregelLoop(lib, 1000, await saver()), () => 0],
};
graphs["3s"] = graphs[3];
const [graph, input] = graphs[which];
if (which === "3s") await readPausedThreads();
const end = Date.now() + seconds * 1000;
const cpu0 = process.cpuUsage();
let runs = 0;
while (Date.now() < end) {
  const c = config();
  const out = await graph.invoke(input(), c);
  if (out.__interrupt__) {
    const resume = which === "4i" ? Object.fromEntries(out.__interrupt__.map((i) => [i.id, "ok"])) : "yes";
    if (!process.env.NO_GETSTATE) await graph.getState(c);
    await graph.invoke(new lib.Command({ resume }), c);
  }
  runs++;
}
const cpu = process.cpuUsage(cpu0);
// CPU time, not wall time: other processes on the machine barely move it.
console.log(
  `${which}: ${runs} runs, ${((cpu.user + cpu.system) / 1000 / runs).toFixed(3)} ms CPU per run (${(cpu.system / 1000 / runs).toFixed(3)} ms of it in the kernel)`,
);
if (postgres) await postgres.stop();

/** Workload 3's getState on a freshly paused thread, CPU per call (GC included). */
async function readPausedThreads() {
  const end = Date.now() + seconds * 1000;
  let calls = 0;
  let used = 0;
  while (Date.now() < end) {
    const configs = Array.from({ length: 50 }, config);
    for (const c of configs) await graph.invoke(input(), c);
    const cpu0 = process.cpuUsage();
    for (const c of configs) await graph.getState(c);
    const cpu = process.cpuUsage(cpu0);
    used += cpu.user + cpu.system;
    calls += configs.length;
    for (const c of configs) await graph.invoke(new lib.Command({ resume: "yes" }), c);
  }
  console.log(`3s: ${calls} getState calls, ${(used / calls).toFixed(1)} µs CPU per call`);
  process.exit(0);
}

async function startPostgresSaver() {
  const { startPostgres } = await import("./lib/postgres.mjs");
  const cluster = await startPostgres();
  if (cluster.skip) throw new Error(cluster.skip);
  const { default: pg } = await import("pg");
  const pool = new pg.Pool({ connectionString: cluster.url, max: 20 });
  const { PostgresSaver } = await import("@interlude/checkpoint-postgres");
  const saver = new PostgresSaver(pool);
  await saver.setup();
  return {
    saver,
    async stop() {
      await pool.end();
      cluster.stop();
    },
  };
}
