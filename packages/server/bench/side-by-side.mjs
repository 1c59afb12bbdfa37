/**
 * Two builds' `interlude serve --postgres` measured at the same time, each on its own database of
 * one throwaway PostgreSQL, each under its own 20 clients: on a shared machine whose load moves
 * from minute to minute, both see the same contention, so their CPU per answer compares where
 * two runs one after the other do not. `BENCH_CLI_A` and `BENCH_CLI_B` name the builds' CLIs
 * (default B: this checkout's).
 *
 * `BENCH_CLI_A=/other/packages/server/dist/cli/main.js node packages/server/bench/side-by-side.mjs
 * [--clients 20] [--rounds 30] [--warmup 150] [--phases 3]` prints, per phase, each server's CPU
 * per answer (main thread and other threads) and answers per second.
 */
import { fileURLToPath } from "node:url";
import { arg } from "./args.mjs";
import { runLoad } from "./http-load.mjs";
import { throwawayDatabase } from "./postgres-stats.mjs";
import { startServerProcess } from "./processes.mjs";

const clients = Number(arg("clients", 20));
const rounds = Number(arg("rounds", 30));
const warmup = Number(arg("warmup", 150));
const phases = Number(arg("phases", 3));
const builds = {
  A: process.env.BENCH_CLI_A,
  B: process.env.BENCH_CLI_B ?? fileURLToPath(new URL("../dist/cli/main.js", import.meta.url)),
};
if (!builds.A) throw new Error("Set BENCH_CLI_A to the CLI of the build to compare with (its dist/cli/main.js).");

const first = await throwawayDatabase("interlude_a");
const second = await throwawayDatabase("interlude_b");
const servers = {
  A: await startServerProcess({ postgres: first.url, cli: builds.A }),
  B: await startServerProcess({ postgres: second.url, cli: builds.B }),
};
try {
  const both = (phaseRounds) =>
    Promise.all(
      Object.entries(servers).map(async ([name, s]) => {
        const r = await runLoad({ url: s.url, clients, rounds: phaseRounds, cpuMs: s.cpuMs, cpuSplit: s.cpuSplit });
        return [name, r];
      }),
    );
  await both(warmup);
  for (let phase = 1; phase <= phases; phase++) {
    const results = await both(rounds);
    const line = results
      .map(
        ([name, r]) =>
          `${name} ${r.serverCpuMsPerRoundTrip.toFixed(2)} ms (other threads ${r.serverHelperMsPerRoundTrip.toFixed(2)}) ${r.perSecond.toFixed(0)}/s`,
      )
      .join(" | ");
    console.log(`[side-by-side] phase ${phase}: ${line}`);
  }
} finally {
  for (const s of Object.values(servers)) await s.stop();
  first.stop();
  second.stop();
}
