/**
 * Many paused threads (issue 15): `interlude serve` with N threads of the `loop` fixture graph,
 * each paused at its first question, on a SQLite file and on PostgreSQL. Prints, at 10 threads
 * and at 20 + N:
 * - the server's resident memory (flat: nothing per thread is kept in memory);
 * - listing the 50 oldest pending interrupts in the inbox (`GET /inbox/interrupts?limit=50`),
 *   median of 20 requests on loopback (an upper bound of the server time);
 * - resuming one of them (`runs/wait` with its answer), median of 10 threads;
 * and all three again a minute later (PAUSED_SETTLE_MS), once the finished runs' logs are gone.
 *
 *   PAUSED_THREADS=100000 node packages/server/bench/paused.mjs [--sqlite-only | --postgres-only]
 *
 * Threads are created through the HTTP API, 20 at a time, as reviewers' threads would be.
 */
import { readFileSync } from "node:fs";
import http from "node:http";
import { fileURLToPath } from "node:url";
import { startServerProcess, throwawayDatabase } from "./load.mjs";

const COUNT = Number(process.env.PAUSED_THREADS ?? 100_000);
const CREATORS = 20;
const SETTLE_MS = Number(process.env.PAUSED_SETTLE_MS ?? 65_000);

function client(url) {
  const { hostname, port } = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: CREATORS });
  const request = (method, path, body) =>
    new Promise((resolve, reject) => {
      const data = body === undefined ? undefined : JSON.stringify(body);
      const headers = data === undefined ? {} : { "content-type": "application/json" };
      const req = http.request({ host: hostname, port, path, method, agent, headers }, (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => (text += chunk));
        res.on("end", () =>
          res.statusCode < 300 ? resolve(JSON.parse(text)) : reject(new Error(`${method} ${path}: ${res.statusCode}`)),
        );
      });
      req.on("error", reject);
      req.end(data);
    });
  return { request, close: () => agent.destroy() };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function timed(fn) {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

/** Paused threads up to `total`; returns the new ones with their question. */
async function pauseThreads(api, from, total) {
  const made = [];
  let next = from;
  await Promise.all(
    Array.from({ length: CREATORS }, async () => {
      while (next < total) {
        next++;
        const thread = await api.request("POST", "/threads", {});
        const state = await api.request("POST", `/threads/${thread.thread_id}/runs/wait`, {
          assistant_id: "loop",
          input: { rounds: 2 },
        });
        made.push({ id: thread.thread_id, question: state.__interrupt__[0].id });
      }
    }),
  );
  return made;
}

async function measure(api, rssKb, threads) {
  const listing = [];
  for (let i = 0; i < 20; i++) {
    listing.push(await timed(() => api.request("GET", "/inbox/interrupts?limit=50")));
  }
  const resume = [];
  for (const { id, question } of threads.splice(0, 10)) {
    resume.push(
      await timed(() =>
        api.request("POST", `/threads/${id}/runs/wait`, {
          assistant_id: "loop",
          command: { resume: { [question]: "ok" } },
        }),
      ),
    );
  }
  return { rssMb: rssKb() / 1024, listMs: median(listing), resumeMs: median(resume) };
}

async function scenario(label, options) {
  const server = await startServerProcess(options);
  const pid = server.pid;
  const rssKb = () => Number(readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+)/)[1]);
  const api = client(server.url);
  try {
    const few = await pauseThreads(api, 0, 20);
    const small = await measure(api, rssKb, few);
    const started = performance.now();
    const many = await pauseThreads(api, 20, COUNT + 20);
    const seconds = (performance.now() - started) / 1000;
    const large = await measure(api, rssKb, many);
    // Logs of finished runs stay in memory for a minute (late joiners, runs/broker.ts): what
    // stays after that is what the paused threads themselves cost.
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const settled = await measure(api, rssKb, many);
    const line = (n, m) =>
      `  ${String(n).padStart(7)} paused: server RSS ${m.rssMb.toFixed(0)} MB, inbox 50 oldest ${m.listMs.toFixed(1)} ms, resume one ${m.resumeMs.toFixed(1)} ms`;
    console.log(`[paused] ${label} (${COUNT} threads paused in ${seconds.toFixed(0)} s)`);
    console.log(line(20, small));
    console.log(line(COUNT + 20, large));
    console.log(`${line(COUNT + 10, settled)} (${SETTLE_MS / 1000} s later)`);
  } finally {
    api.close();
    await server.stop();
  }
}

async function main() {
  const args = process.argv.slice(2);
  if (!args.includes("--postgres-only")) await scenario("SQLite file", {});
  if (!args.includes("--sqlite-only")) {
    const database = await throwawayDatabase("interlude_paused");
    try {
      await scenario("PostgreSQL", { postgres: database.url });
    } finally {
      database.stop();
    }
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
