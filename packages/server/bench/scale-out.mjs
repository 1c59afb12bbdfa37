/**
 * Scale-out side by side: one `interlude serve --postgres`, and two servers plus an `interlude
 * worker`, each deployment on its own database of one throwaway PostgreSQL (fsync on, as
 * load.mjs), both started at once and measured in turn at saturation (20 clients answering
 * interrupts through `POST /threads/{id}/runs/wait`, the two-server clients sending each answer to
 * the next server). Issue 15 asks the two-server total to be at least the one server's. On a
 * 2-core machine each figure drifts by tens of percent within the hour, so a ratio of figures
 * measured in different runs says little: here the two alternate (who goes first alternates
 * too) and the ratio is of their medians.
 *
 * Each sample also prints what the deployment and PostgreSQL spent in CPU per round trip, and
 * the share of the machine left idle, and the last line their medians: the second server can
 * only add throughput with CPU the first leaves idle, so where one server already leaves little
 * (a 2-core machine running PostgreSQL and the clients too), what two servers cost more per
 * round trip is what the ratio shows. The servers' main threads' CPU and how often they were
 * preempted (involuntary context switches) per round trip say where that extra cost lands: a
 * server preempted more often finds its caches taken by whoever ran meanwhile.
 *
 * `node packages/server/bench/scale-out.mjs [--clients 20] [--rounds 60] [--warmup 250] [--samples 6] [--sticky] [--no-fsync]`
 * (`--sticky`: each client sends all its answers to one of the two servers, as a balancer routing by
 * thread would)
 */
import { summary } from "../../../bench/lib/harness.mjs";
import { arg } from "./args.mjs";
import { describeLoad, runLoad } from "./http-load.mjs";
import { postgresDurability, throwawayDatabase } from "./postgres-stats.mjs";
import { idleShare, machineTicks, postgresCpuOf } from "./proc.mjs";
import { serversCpu, startProcesses } from "./processes.mjs";

const clients = Number(arg("clients", 20));
const rounds = Number(arg("rounds", 60));
const samples = Number(arg("samples", 6));
const sticky = process.argv.includes("--sticky");

/** `servers` server processes, plus a worker when there are several, on `database`. */
async function deploy(database, servers) {
  const processes = await startProcesses({ postgres: database.url, servers });
  const label = servers > 1 ? `${servers} servers + a worker` : "1 server";
  return {
    label,
    urls: processes.filter((p) => p.url).map((p) => p.url),
    cpuMs: () => processes.reduce((sum, p) => sum + p.cpuMs(), 0),
    /** The servers' CPU so far, split, with their main threads' share and their preemptions (processes.mjs). */
    cpuSplit: () => serversCpu(processes),
    samples: [],
    /**
     * Per sample, per round trip: the deployment's, PostgreSQL's and the clients' CPU (ms), the
     * servers' main threads' CPU (ms) and preemptions; and the idle share.
     */
    costs: [],
    stop: async () => {
      for (const p of processes) await p.stop();
    },
  };
}

/** The medians of a deployment's CPU and preemptions per round trip and of the machine's idle share. */
function describeCosts(d) {
  const median = (key) => summary(d.costs.map((c) => c[key]).filter((v) => v !== undefined)).median;
  const postgres = d.costs.some((c) => c.postgres !== undefined)
    ? `, PostgreSQL ${median("postgres").toFixed(2)} ms`
    : "";
  return (
    `${d.label}: its CPU ${median("servers").toFixed(2)} ms (servers' main threads ${median("mainThreads").toFixed(2)} ms, ` +
    `preempted ${median("preempted").toFixed(1)} times)${postgres}, the clients' ${median("clients").toFixed(2)} ms, ` +
    `machine idle ${(100 * median("machineIdle")).toFixed(0)}%`
  );
}

const first = await throwawayDatabase("interlude_one");
const second = await throwawayDatabase("interlude_two", { on: first });
const deployments = [await deploy(first, 1), await deploy(second, 2)];
// One PostgreSQL holds both databases; the deployment not measured is idle meanwhile.
const postgresCpuMs = await postgresCpuOf(first.server);
try {
  for (const d of deployments) await runLoad({ urls: d.urls, clients, rounds: Number(arg("warmup", 250)), sticky });
  for (let i = 0; i < samples; i++) {
    const order = i % 2 === 0 ? deployments : [...deployments].reverse();
    for (const d of order) {
      const idle = deployments.find((other) => other !== d);
      const idleBefore = idle.cpuMs();
      const postgresBefore = postgresCpuMs?.();
      const machineBefore = machineTicks();
      const result = await runLoad({ urls: d.urls, clients, rounds, cpuMs: d.cpuMs, cpuSplit: d.cpuSplit, sticky });
      const machineIdle = idleShare(machineBefore, machineTicks());
      const mainThreads = result.serverMainMsPerRoundTrip;
      const preempted = result.serverPreemptionsPerRoundTrip;
      const postgresCpu = postgresCpuMs && (postgresCpuMs() - postgresBefore) / result.roundTrips;
      d.samples.push(result.perSecond);
      d.costs.push({
        servers: result.serverCpuMsPerRoundTrip,
        postgres: postgresCpu,
        clients: result.clientsCpuMsPerRoundTrip,
        mainThreads,
        preempted,
        machineIdle,
      });
      const idleCpu = (idle.cpuMs() - idleBefore) / result.roundTrips;
      console.log(
        `${describeLoad(`${d.label}, ${clients} clients, saturation`, result)}; the idle deployment's CPU ${idleCpu.toFixed(2)} ms per round trip` +
          (postgresCpu === undefined ? "" : `; PostgreSQL CPU ${postgresCpu.toFixed(2)} ms per round trip`) +
          `; the servers' main threads ${mainThreads.toFixed(2)} ms, preempted ${preempted.toFixed(1)} times per round trip` +
          `; machine idle ${(100 * machineIdle).toFixed(0)}%`,
      );
    }
  }
  const [one, two] = deployments.map((d) => summary(d.samples).median);
  console.log(
    `[scale-out] PostgreSQL (${postgresDurability()}), medians of ${samples} alternated samples: 1 server ${one.toFixed(0)}/s, ` +
      `2 servers + a worker ${two.toFixed(0)}/s, ratio ${(two / one).toFixed(2)}; ` +
      `target (two at least as fast as one): ${two >= one ? "met" : "NOT met"}`,
  );
  console.log(`[scale-out] medians per round trip: ${deployments.map(describeCosts).join("; ")}`);
} finally {
  for (const d of deployments) await d.stop();
  first.stop();
}
