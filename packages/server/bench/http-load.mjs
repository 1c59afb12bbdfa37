/**
 * The load: clients that each own a thread of the `loop` fixture graph and answer its interrupts
 * one after another through `POST /threads/{id}/runs/wait`, over one keep-alive `node:http`
 * agent (the SDK's fetch-based client costs ~2 ms of CPU per request, as much as the server's
 * whole round trip, and on a 2-core machine would measure itself).
 */
import http from "node:http";

/**
 * JSON requests over one keep-alive agent: `{ request(method, path, body), text(method, path,
 * body), close() }`; `text` resolves with the response's text (an SSE stream's, once it ended).
 */
export function httpClient(url, sockets) {
  const { hostname, port } = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: sockets });
  const send = (method, path, body, read, retried = false) =>
    new Promise((resolve, reject) => {
      const data = body === undefined ? undefined : JSON.stringify(body);
      const headers =
        data === undefined ? {} : { "content-type": "application/json", "content-length": Buffer.byteLength(data) };
      const req = http.request({ host: hostname, port, path, method, agent, headers }, (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => (text += chunk));
        res.on("end", () =>
          res.statusCode < 300
            ? resolve(read(text))
            : reject(new Error(`${method} ${path}: ${res.statusCode} ${text}`)),
        );
      });
      // A kept-alive socket the server closed as the request went out (its keep-alive timeout, with
      // the bench's event loop late on a loaded machine): the request was not received; send it again.
      req.on("error", (error) =>
        req.reusedSocket && error.code === "ECONNRESET" && !retried
          ? send(method, path, body, read, true).then(resolve, reject)
          : reject(error),
      );
      req.end(data);
    });
  return {
    request: (method, path, body) => send(method, path, body, JSON.parse),
    text: (method, path, body) => send(method, path, body, (text) => text),
    close: () => agent.destroy(),
  };
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

const SYLLABLES = [
  "ra",
  "fun",
  "de",
  "cus",
  "to",
  "mer",
  "ac",
  "count",
  "in",
  "voi",
  "ce",
  "pay",
  "ment",
  "or",
  "der",
  "ship",
  "ping",
  "re",
  "view",
  "ap",
  "pro",
  "val",
];

/**
 * About `bytes` of prose-like text, different for each `seed`: words made of syllables, so that
 * it holds as many distinct trigrams as a reviewer's context would (a repeated character holds one).
 */
export function reviewText(bytes, seed) {
  // A 32-bit linear congruential generator; its high bits, as its low ones repeat with short periods.
  let state = Math.imul(seed + 1, 2654435761) >>> 0;
  const next = (n) => ((state = (Math.imul(state, 1103515245) + 12345) >>> 0), (state >>> 16) % n);
  let text = "";
  while (text.length < bytes) {
    let word = "";
    for (let i = 1 + next(3); i > 0; i--) word += SYLLABLES[next(SYLLABLES.length)];
    text += `${word}${next(8) === 0 ? `-${next(1000)}. ` : " "}`;
  }
  return text.slice(0, bytes);
}

/**
 * `clients` threads, each paused and resumed `rounds` times. `payload`: bytes of text carried
 * in every question (the loop graph's `detail`), as a reviewer's context would be. Returns the figures and, per
 * client, its thread and final values (answers `c<client>-<round>` in order when nothing was
 * lost or applied twice).
 */
export async function runLoad({
  url,
  urls = [url],
  clients = 20,
  rounds = 100,
  paceMs = 0,
  cpuMs,
  cpuSplit,
  durability,
  sticky = false,
  payload = 0,
}) {
  const extra = durability ? { durability } : {};
  // Several servers on one database: each answer goes to the next server in turn, so a thread
  // paused through one is resumed through another; `sticky`: each client's answers all go to one
  // server (a balancer routing by thread), so its saver finds the thread's head it wrote.
  const https = urls.map((u) => httpClient(u, clients));
  const http = { request: (method, path, body, turn = 0) => https[turn % https.length].request(method, path, body) };
  const latencies = [];
  const client = async (c) => {
    const thread = await http.request("POST", "/threads", { metadata: { load: true } });
    const path = `/threads/${thread.thread_id}/runs/wait`;
    let state = await http.request("POST", path, {
      assistant_id: "loop",
      input: { rounds, ...(payload ? { detail: reviewText(payload, c) } : {}) },
      ...extra,
    });
    // Paced clients are spread over the period, as independent reviewers would be, not all due at once.
    if (paceMs) await sleep((c * paceMs) / clients);
    let due = performance.now();
    for (let n = 0; n < rounds; n++) {
      const question = state.__interrupt__?.[0];
      if (!question || question.value.n !== n)
        throw new Error(
          `thread ${thread.thread_id}: expected question ${n}, got ${JSON.stringify(state.__interrupt__)}`,
        );
      if (paceMs) {
        due += paceMs;
        const wait = due - performance.now();
        if (wait > 0) await sleep(wait);
      }
      const started = performance.now();
      state = await http.request(
        "POST",
        path,
        { assistant_id: "loop", command: { resume: { [question.id]: `c${c}-${n}` } }, ...extra },
        sticky ? c : c + n + 1,
      );
      latencies.push(performance.now() - started);
    }
    return { threadId: thread.thread_id, final: state };
  };
  const cpuBefore = cpuMs?.();
  const splitBefore = cpuSplit?.();
  const clientsBefore = process.cpuUsage();
  const started = performance.now();
  try {
    const threads = await Promise.all(Array.from({ length: clients }, (_, c) => client(c)));
    const seconds = (performance.now() - started) / 1000;
    const clientsCpu = process.cpuUsage(clientsBefore);
    const sorted = latencies.sort((a, b) => a - b);
    const roundTrips = clients * rounds;
    const split = splitBefore && cpuSplit();
    // What a field of the split (processes.mjs, serversCpu; proc.mjs, cpuOf) grew by per round trip, if it has it.
    const splitPerRoundTrip = (key) =>
      split?.[key] === undefined ? undefined : (split[key] - splitBefore[key]) / roundTrips;
    return {
      threads,
      roundTrips,
      seconds,
      perSecond: roundTrips / seconds,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      max: sorted.at(-1),
      serverCpuMsPerRoundTrip: cpuBefore === undefined ? undefined : (cpuMs() - cpuBefore) / roundTrips,
      serverSystemMsPerRoundTrip: splitPerRoundTrip("system"),
      serverHelperMsPerRoundTrip: splitPerRoundTrip("helpers"),
      // The servers' main threads: their CPU, and how often they were preempted.
      serverMainMsPerRoundTrip: splitPerRoundTrip("main"),
      serverPreemptionsPerRoundTrip: splitPerRoundTrip("preempted"),
      // The load's own share of the machine: the clients run on the same cores as the servers.
      clientsCpuMsPerRoundTrip: (clientsCpu.user + clientsCpu.system) / 1000 / roundTrips,
    };
  } finally {
    for (const client of https) client.close();
  }
}

export function describeLoad(label, r) {
  const cpu =
    r.serverCpuMsPerRoundTrip === undefined
      ? ""
      : `, server CPU ${r.serverCpuMsPerRoundTrip.toFixed(2)} ms per round trip` +
        (r.serverSystemMsPerRoundTrip === undefined
          ? ""
          : ` (${r.serverSystemMsPerRoundTrip.toFixed(2)} ms of it in the kernel` +
            (r.serverHelperMsPerRoundTrip === undefined
              ? ")"
              : `, ${r.serverHelperMsPerRoundTrip.toFixed(2)} ms in other threads: JIT, GC, WAL)`)) +
        `, the clients' CPU ${r.clientsCpuMsPerRoundTrip.toFixed(2)} ms`;
  return `[load] ${label}: ${r.roundTrips} round trips in ${r.seconds.toFixed(1)} s = ${r.perSecond.toFixed(0)}/s, p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, max ${r.max.toFixed(1)} ms${cpu}`;
}
