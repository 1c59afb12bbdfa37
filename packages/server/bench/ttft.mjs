/**
 * Time to first token through the server: `clients` conversations at once, each sending its
 * next message as soon as the previous answer ended, through `POST /threads/{id}/runs/stream`
 * with `stream_mode: "messages-tuple"` (what `client.runs.stream` sends), against `interlude
 * serve` in its own process. The agent (bench/fixtures/ttft-agent.mjs) calls a chat model
 * whose first token comes FIRST_TOKEN_MS after it is called, then one every TOKEN_MS; the
 * server's overhead is the time to first token measured by the client less FIRST_TOKEN_MS: the
 * request, the run's record, its start, the checkpoint before the node, the token's way to the
 * socket.
 *
 *   npm run bench:ttft -- [--clients 20] [--turns 20] [--first-token 50] [--postgres]
 *
 * Clients speak HTTP through one keep-alive `node:http` agent and read the SSE bytes as they
 * come (the SDK's fetch client would add its own CPU on a 2-core machine).
 */
import http from "node:http";
import { fileURLToPath } from "node:url";
import { arg } from "./args.mjs";
import { httpClient, percentile } from "./http-load.mjs";
import { throwawayDatabase } from "./postgres-stats.mjs";
import { startServerProcess } from "./processes.mjs";

const CONFIG = fileURLToPath(new URL("./fixtures/ttft.json", import.meta.url));

/**
 * One streamed run: resolves with the ms from sending the request to the first `messages` event,
 * and to the `end` event. Rejects on an HTTP error or an `error` event.
 */
function streamRun(agent, url, threadId, body) {
  const { hostname, port } = new URL(url);
  const data = JSON.stringify(body);
  const headers = { "content-type": "application/json", "content-length": Buffer.byteLength(data) };
  const path = `/threads/${threadId}/runs/stream`;
  return new Promise((resolve, reject) => {
    const sent = performance.now();
    let first;
    let text = "";
    const req = http.request({ host: hostname, port, path, method: "POST", agent, headers }, (res) => {
      if (res.statusCode >= 300) {
        res.resume();
        return reject(new Error(`POST ${path}: ${res.statusCode}`));
      }
      res.setEncoding("utf8");
      let times;
      res.on("data", (chunk) => {
        if (first === undefined && chunk.includes("event: messages\n")) {
          first = performance.now() - sent;
          // The model's first token reads "w0@<called>@<produced>" (epoch ms, bench/fixtures/ttft-agent.mjs).
          const [, called, produced] = chunk.match(/w0@([\d.]+)@([\d.]+)/) ?? [];
          const epoch = (t) => Number(t) - performance.timeOrigin;
          if (called) times = { beforeModel: epoch(called) - sent, afterToken: first + sent - epoch(produced) };
        }
        text += chunk;
      });
      res.on("end", () => {
        if (text.includes("event: error\n")) return reject(new Error(`run failed: ${text.slice(-500)}`));
        if (first === undefined) return reject(new Error(`no token streamed: ${text.slice(0, 500)}`));
        resolve({ ttft: first, total: performance.now() - sent, ...times });
      });
    });
    req.on("error", reject);
    req.end(data);
  });
}

async function runTtft({ url, clients, turns, firstTokenMs, cpuMs }) {
  const cpuBefore = cpuMs?.();
  const json = httpClient(url, clients);
  const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
  const ttfts = [];
  const totals = [];
  const beforeModel = [];
  const afterToken = [];
  const conversation = async (c) => {
    const thread = await json.request("POST", "/threads", { metadata: { bench: "ttft" } });
    for (let turn = 0; turn < turns; turn++) {
      const { ttft, total, ...split } = await streamRun(agent, url, thread.thread_id, {
        assistant_id: "agent",
        input: { messages: [{ role: "user", content: `client ${c}, turn ${turn}` }] },
        stream_mode: "messages-tuple",
        ...(process.env.TTFT_DURABILITY ? { durability: process.env.TTFT_DURABILITY } : {}),
      });
      ttfts.push(ttft);
      totals.push(total);
      beforeModel.push(split.beforeModel);
      afterToken.push(split.afterToken);
    }
  };
  try {
    await Promise.all(Array.from({ length: clients }, (_, c) => conversation(c)));
  } finally {
    json.close();
    agent.destroy();
  }
  const sorted = ttfts.sort((a, b) => a - b);
  const p = (q) => percentile(sorted, q);
  return {
    runs: sorted.length,
    p50: p(50),
    p95: p(95),
    overheadP50: p(50) - firstTokenMs,
    overheadP95: p(95) - firstTokenMs,
    beforeModelP50: percentile(
      beforeModel.sort((a, b) => a - b),
      50,
    ),
    afterTokenP50: percentile(
      afterToken.sort((a, b) => a - b),
      50,
    ),
    serverCpuMsPerRun: cpuBefore === undefined ? undefined : (cpuMs() - cpuBefore) / sorted.length,
    totalP50: percentile(
      totals.sort((a, b) => a - b),
      50,
    ),
  };
}

const describe = (label, r) =>
  `[ttft] ${label}: ${r.runs} runs, time to first token p50 ${r.p50.toFixed(1)} ms, p95 ${r.p95.toFixed(1)} ms; server overhead p50 ${r.overheadP50.toFixed(1)} ms, p95 ${r.overheadP95.toFixed(1)} ms (p50 ${r.beforeModelP50.toFixed(1)} ms from request to model call, ${r.afterTokenP50.toFixed(1)} ms from token to client; whole answer p50 ${r.totalP50.toFixed(0)} ms${r.serverCpuMsPerRun === undefined ? "" : `, server CPU ${r.serverCpuMsPerRun.toFixed(1)} ms per run`})`;

async function main() {
  const clients = Number(arg("clients", 20));
  const turns = Number(arg("turns", 20));
  const firstTokenMs = Number(arg("first-token", 50));
  const postgres = process.argv.includes("--postgres");
  const env = { TTFT_FIRST_TOKEN_MS: String(firstTokenMs) };
  const database = postgres ? await throwawayDatabase("interlude_ttft") : undefined;
  // TTFT_PROFILE=dir: the server writes a CPU profile there when it stops.
  const nodeArgs = process.env.TTFT_PROFILE ? ["--cpu-prof", "--cpu-prof-dir", process.env.TTFT_PROFILE] : [];
  const server = await startServerProcess({ config: CONFIG, postgres: database?.url, env, nodeArgs });
  const where = postgres ? "PostgreSQL" : "SQLite file";
  try {
    await runTtft({ url: server.url, clients, turns: 3, firstTokenMs }); // warm-up (JIT, caches)
    const single = await runTtft({ url: server.url, clients: 1, turns: 20, firstTokenMs, cpuMs: server.cpuMs });
    console.log(describe(`${where}, 1 conversation`, single));
    const r = await runTtft({ url: server.url, clients, turns, firstTokenMs, cpuMs: server.cpuMs });
    console.log(describe(`${where}, ${clients} concurrent conversations`, r));
    console.log(`target: p50 server overhead < 20 ms: ${r.overheadP50 < 20 ? "met" : "NOT met"}`);
  } finally {
    await server.stop();
    database?.stop();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
