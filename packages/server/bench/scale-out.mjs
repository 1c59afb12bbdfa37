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
 * `node packages/server/bench/scale-out.mjs [--clients 20] [--rounds 60] [--warmup 250] [--samples 6] [--sticky] [--no-fsync]`
 * (`--sticky`: each client sends all its answers to one of the two servers, as a balancer routing by
 * thread would)
 */
import { summary } from "../../../bench/lib/harness.mjs";
import { arg, describeLoad, postgresDurability, runLoad, startProcesses, throwawayDatabase } from "./load.mjs";

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
    samples: [],
    stop: async () => {
      for (const p of processes) await p.stop();
    },
  };
}

const first = await throwawayDatabase("interlude_one");
const second = await throwawayDatabase("interlude_two", { on: first });
const deployments = [await deploy(first, 1), await deploy(second, 2)];
try {
  for (const d of deployments) await runLoad({ urls: d.urls, clients, rounds: Number(arg("warmup", 250)), sticky });
  for (let i = 0; i < samples; i++) {
    const order = i % 2 === 0 ? deployments : [...deployments].reverse();
    for (const d of order) {
      const idle = deployments.find((other) => other !== d);
      const idleBefore = idle.cpuMs();
      const result = await runLoad({ urls: d.urls, clients, rounds, cpuMs: d.cpuMs, sticky });
      d.samples.push(result.perSecond);
      const idleCpu = (idle.cpuMs() - idleBefore) / result.roundTrips;
      console.log(
        `${describeLoad(`${d.label}, ${clients} clients, saturation`, result)}; the idle deployment's CPU ${idleCpu.toFixed(2)} ms per round trip`,
      );
    }
  }
  const [one, two] = deployments.map((d) => summary(d.samples).median);
  console.log(
    `[scale-out] PostgreSQL (${postgresDurability()}), medians of ${samples} alternated samples: 1 server ${one.toFixed(0)}/s, ` +
      `2 servers + a worker ${two.toFixed(0)}/s, ratio ${(two / one).toFixed(2)}; ` +
      `target (two at least as fast as one): ${two >= one ? "met" : "NOT met"}`,
  );
} finally {
  for (const d of deployments) await d.stop();
  first.stop();
}
