/**
 * `interlude serve` and `interlude worker` started as their own processes (as deployed), for the
 * benchmarks and the tests that load a server: each with its CPU time and context switches.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { cpuOf, switchesOf } from "./proc.mjs";

// BENCH_CLI=path: another build's CLI (an A/B of two builds on the same machine at the same time).
const CLI = process.env.BENCH_CLI ?? fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));
const CONFIG = fileURLToPath(new URL("../test/fixtures/langgraph.json", import.meta.url));
// BENCH_PROFILE=dir: each server process writes a CPU profile (`--cpu-prof`) there when it stops.
const PROFILE = process.env.BENCH_PROFILE ? ["--cpu-prof", "--cpu-prof-dir", process.env.BENCH_PROFILE] : [];

/**
 * Starts `interlude serve` on a free loopback port, on `postgres` (a database URL) or on the
 * SQLite file `db` (default: a fresh one, removed by `stop()`), serving the graphs of `config`
 * (default: the tests' langgraph.json). `worker: true` starts `interlude worker` instead
 * (PostgreSQL only; it has no URL). `cli`: the build's CLI to run (default BENCH_CLI, else this checkout's).
 * `nodeArgs`: Node's options (default: BENCH_PROFILE's).
 */
export async function startServerProcess({
  nodeArgs = PROFILE,
  db,
  postgres,
  worker = false,
  env = {},
  config = CONFIG,
  cli = CLI,
} = {}) {
  const dir = db || postgres ? undefined : mkdtempSync(join(tmpdir(), "interlude-load-"));
  const storage = postgres ? ["--postgres", postgres] : ["--db", db ?? join(dir, "db.sqlite")];
  const args = worker
    ? [...nodeArgs, cli, "worker", "--config", config, ...storage]
    : [...nodeArgs, cli, "serve", "--config", config, ...storage, "--host", "127.0.0.1", "--port", "0"];
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
  let output = "";
  const url = await new Promise((resolve, reject) => {
    const onData = (chunk) => {
      output += chunk;
      const match = output.match(worker ? /worker ready/ : /http:\/\/127\.0\.0\.1:\d+/);
      if (match) resolve(worker ? undefined : match[0]);
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("exit", (code) => reject(new Error(`interlude serve exited (${code}):\n${output}`)));
  });
  return {
    url,
    pid: child.pid,
    /** What it has printed so far (stdout and stderr): said when a test fails. */
    output: () => output,
    /** CPU time (user + system, all threads) the server process has used, in ms. */
    cpuMs() {
      const { user, system } = cpuOf(child.pid);
      return user + system;
    },
    /** The same, split: `{ user, system, helpers }` (ms; proc.mjs, cpuOf). */
    cpuSplit: () => cpuOf(child.pid),
    /** Context switches of all its threads so far (voluntary: it waited; involuntary: it was preempted). */
    switches: () => switchesOf(child.pid),
    /** Resolves with the exit code (null when killed by a signal). */
    async stop(signal = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) {
        await new Promise((resolve) => {
          child.once("exit", resolve);
          child.kill(signal);
        });
      }
      if (dir) rmSync(dir, { recursive: true, force: true });
      return child.exitCode;
    },
  };
}

/**
 * A PostgreSQL deployment's processes on the database `postgres`: `servers` servers and, when
 * there are several, an `interlude worker` after them (last in the array). Each is pushed to
 * `processes` as it starts, so that a caller can stop those started when a later one fails.
 */
export async function startProcesses({ postgres, servers, nodeArgs = PROFILE, processes = [] }) {
  for (let i = 0; i < servers; i++) processes.push(await startServerProcess({ postgres, nodeArgs }));
  if (servers > 1) processes.push(await startServerProcess({ postgres, worker: true, nodeArgs }));
  return processes;
}

/**
 * The server processes' (those with a URL) CPU so far, split as `cpuSplit` gives it (ms), summed,
 * with their main threads' share (`main`) and how often they were preempted so far.
 */
export function serversCpu(processes) {
  return processes
    .filter((p) => p.url)
    .reduce(
      (sum, p) => {
        const { user, system, helpers } = p.cpuSplit();
        return {
          user: sum.user + user,
          system: sum.system + system,
          helpers: sum.helpers + helpers,
          main: sum.main + user + system - helpers,
          preempted: sum.preempted + p.switches().involuntary,
        };
      },
      { user: 0, system: 0, helpers: 0, main: 0, preempted: 0 },
    );
}
