/**
 * Many paused threads (issue 15): `interlude serve` with N threads of the `loop` fixture graph,
 * each paused at its first question, on a SQLite file and on PostgreSQL. Prints, at 20 threads,
 * at 10,000 and at N (default 100,000), each measured once the finished runs' logs are gone
 * (they are kept a minute for late joiners, runs/broker.ts):
 * - the server's resident memory (flat: nothing per thread is kept in memory), or with
 *   PAUSED_HEAP=1 its live JavaScript heap instead (what a heap snapshot holds, after the full GC
 *   the snapshot makes; RSS moves with what V8 and the allocator keep after peaks, and a
 *   snapshot is such a peak, so the RSS figures of that run are not comparable);
 * - listing the 50 oldest pending interrupts in the inbox (`GET /inbox/interrupts?limit=50`),
 *   median of 20 requests on loopback (an upper bound of the server time);
 * - `GET /metrics` (the run queue and the pending interrupts, which must count what the inbox
 *   does), median of 20 requests;
 * - resuming one of them (`runs/wait` with its answer), median of 10 threads created through
 *   the API and, separately, of 10 seeded ones.
 *
 *   PAUSED_THREADS=100000 node packages/server/bench/paused.mjs [--sqlite-only | --postgres-only]
 *
 * Seeding: the first 20 threads, a template and PAUSED_HTTP (default 300) more, spread over the
 * steps, are paused through the HTTP API as reviewers' threads would be; the rest are copies of
 * the template written into the database by seed-paused.mjs (minutes instead of hours).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { throwawayDatabase } from "./postgres-stats.mjs";
import { startServerProcess } from "./processes.mjs";
import { seedPostgres, seedSqlite } from "./seed-paused.mjs";

const COUNT = Number(process.env.PAUSED_THREADS ?? 100_000);
const THROUGH_HTTP = Number(process.env.PAUSED_HTTP ?? 300);
const STEPS = [...new Set([20, Math.min(10_000, COUNT), COUNT])].filter((n) => n >= 20);
const CREATORS = 20;
const SETTLE_MS = Number(process.env.PAUSED_SETTLE_MS ?? 65_000);
const HEAP = process.env.PAUSED_HEAP === "1";

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
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function timed(fn) {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

/** `count` threads paused through the API; returns them with their question. */
async function pauseThreads(api, count) {
  const made = [];
  let left = count;
  await Promise.all(
    Array.from({ length: Math.min(CREATORS, count) }, async () => {
      while (left-- > 0) {
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

async function resumeMs(api, threads) {
  const times = [];
  for (const { id, question } of threads) {
    let state;
    times.push(
      await timed(async () => {
        state = await api.request("POST", `/threads/${id}/runs/wait`, {
          assistant_id: "loop",
          command: { resume: { [question]: "ok" } },
        });
      }),
    );
    // The answer reached this thread's own state: a seeded copy is a real paused thread.
    if (JSON.stringify(state.answers) !== '["ok"]') throw new Error(`thread ${id}: ${JSON.stringify(state)}`);
  }
  return median(times);
}

/** The live JS heap of process `pid` (MB): a heap snapshot (SIGUSR2) written to `dir`, summed. */
async function heapMb(api, pid, dir) {
  const before = new Set(readdirSync(dir));
  process.kill(pid, "SIGUSR2");
  let file;
  while (!(file = readdirSync(dir).find((f) => f.endsWith(".heapsnapshot") && !before.has(f)))) await sleep(100);
  // The snapshot is written on the server's main thread: once it answers, the file is complete.
  await api.request("GET", "/ok");
  const snapshot = JSON.parse(readFileSync(join(dir, file), "utf8"));
  rmSync(join(dir, file));
  const fields = snapshot.snapshot.meta.node_fields;
  const size = fields.indexOf("self_size");
  let bytes = 0;
  for (let i = size; i < snapshot.nodes.length; i += fields.length) bytes += snapshot.nodes[i];
  return bytes / 2 ** 20;
}

/** The same request `times` times: the median time, and the last answer checked by `check`. */
async function medianMs(times, send, check) {
  const took = [];
  let answer;
  for (let i = 0; i < times; i++) took.push(await timed(async () => (answer = await send())));
  check(answer);
  return median(took);
}

function expect(what, actual, wanted) {
  if (actual !== wanted) throw new Error(`${what}: ${actual}, expected ${wanted}`);
}

/**
 * The inbox's text search (`q`): the first one after seeding, then a text one interrupt holds, a text every loop question
 * holds (its count reads them all) and an absent one; and the thread search (`POST
 * /threads/search`): the newest 10, a metadata filter one thread matches, a page deep into the
 * paused ones, and the 10 last updated (an order with no index).
 */
async function searches(api, total) {
  const inbox = (q) => api.request("GET", `/inbox/interrupts?limit=50&q=${encodeURIComponent(q)}`);
  const search = (body) => api.request("POST", "/threads/search", body);
  return {
    // On SQLite the first search indexes the interrupts pended since the last one (the seeded ones).
    textFirstMs: await timed(() => inbox(NEEDLE.service)),
    textRareMs: await medianMs(
      10,
      () => inbox(NEEDLE.service),
      (r) => expect("q rare", r.total, 1),
    ),
    textAllMs: await medianMs(
      5,
      () => inbox("next?"),
      (r) => expect("q every loop question", r.total, total - 1),
    ),
    textNoneMs: await medianMs(
      10,
      () => inbox("no such text"),
      (r) => expect("q absent", r.total, 0),
    ),
    newestMs: await medianMs(
      10,
      () => search({ limit: 10 }),
      (r) => expect("newest", r.length, 10),
    ),
    metadataMs: await medianMs(
      10,
      () => search({ metadata: { ticket: NEEDLE.ticket }, limit: 10 }),
      (r) => expect("metadata", r.length, 1),
    ),
    deepMs: await medianMs(
      10,
      () => search({ status: "interrupted", limit: 10, offset: Math.floor(total / 2) }),
      (r) => expect("deep page", r.length, 10),
    ),
    updatedMs: await medianMs(
      5,
      () => search({ sort_by: "updated_at", limit: 10 }),
      (r) => expect("by update", r.length, 10),
    ),
  };
}

/** One thread of the approval graph among the loop's: what the rare searches find. */
const NEEDLE = { ticket: "needle-ticket-7", service: "needle-svc-7" };

async function pauseNeedle(api) {
  const thread = await api.request("POST", "/threads", { metadata: { ticket: NEEDLE.ticket } });
  await api.request("POST", `/threads/${thread.thread_id}/runs/wait`, {
    assistant_id: "approval",
    input: { request: { service: NEEDLE.service } },
  });
}

async function measure(api, rssKb, heap, { viaHttp, seeded }) {
  const listing = [];
  let total;
  for (let i = 0; i < 20; i++) {
    listing.push(await timed(async () => (total = (await api.request("GET", "/inbox/interrupts?limit=50")).total)));
  }
  // The backlog an autoscaler or an alert scrapes (GET /metrics): its interrupts are the inbox's.
  const scrapes = [];
  let counted;
  for (let i = 0; i < 20; i++)
    scrapes.push(
      await timed(async () => (counted = (await api.request("GET", "/metrics?format=json")).interrupts.n_pending)),
    );
  if (counted !== total) throw new Error(`GET /metrics counts ${counted} pending interrupts, the inbox ${total}`);
  const rssMb = rssKb() / 1024;
  return {
    metricsMs: median(scrapes),
    ...(await searches(api, total)),
    rssMb,
    heapMb: HEAP ? await heap() : undefined,
    total,
    listMs: median(listing),
    resumeHttpMs: await resumeMs(api, viaHttp),
    resumeSeededMs: await resumeMs(api, seeded),
  };
}

async function scenario(label, storage) {
  const snapshots = mkdtempSync(join(tmpdir(), "interlude-paused-heap-"));
  const server = await startServerProcess({
    ...storage.server,
    nodeArgs: HEAP ? ["--heapsnapshot-signal=SIGUSR2", `--diagnostic-dir=${snapshots}`] : [],
  });
  const rssKb = () => Number(readFileSync(`/proc/${server.pid}/status`, "utf8").match(/VmRSS:\s+(\d+)/)[1]);
  const api = client(server.url);
  const lines = [];
  try {
    const [template] = await pauseThreads(api, 1);
    await pauseNeedle(api);
    let seededSeconds = 0;
    const perStep = Math.floor(THROUGH_HTTP / Math.max(1, STEPS.length - 1));
    for (const [step, target] of STEPS.entries()) {
      const viaHttp = await pauseThreads(api, step === 0 ? target - 1 : perStep);
      // Resuming asks the loop's next question: the threads measured stay paused.
      const { total } = await api.request("GET", "/inbox/interrupts?limit=1");
      // 10 copies at least, so that resuming a seeded thread is measured at every step.
      const started = performance.now();
      const copies = await storage.seed(template.id, Math.max(10, target + 10 - total));
      seededSeconds += (performance.now() - started) / 1000;
      const seeded = copies.slice(-10).map((id) => ({ id, question: template.question }));
      await sleep(SETTLE_MS);
      const m = await measure(api, rssKb, () => heapMb(api, server.pid, snapshots), {
        viaHttp: viaHttp.slice(-10),
        seeded,
      });
      lines.push(
        `  ${String(m.total).padStart(7)} paused: server RSS ${m.rssMb.toFixed(0)} MB${HEAP ? ` (JS heap ${m.heapMb.toFixed(1)} MB)` : ""}, inbox 50 oldest ${m.listMs.toFixed(1)} ms, /metrics ${m.metricsMs.toFixed(1)} ms, ` +
          `resume one ${m.resumeHttpMs.toFixed(1)} ms (a seeded one ${m.resumeSeededMs.toFixed(1)} ms)`,
      );
      console.log(lines.at(-1));
      lines.push(
        `          inbox q= first ${m.textFirstMs.toFixed(0)} ms, rare ${m.textRareMs.toFixed(1)} ms, every loop question ${m.textAllMs.toFixed(1)} ms, absent ${m.textNoneMs.toFixed(1)} ms; ` +
          `thread search newest ${m.newestMs.toFixed(1)} ms, by metadata ${m.metadataMs.toFixed(1)} ms, ` +
          `interrupted at offset ${Math.floor(m.total / 2)} ${m.deepMs.toFixed(1)} ms, by updated_at ${m.updatedMs.toFixed(1)} ms`,
      );
      console.log(lines.at(-1));
    }
    console.log(`[paused] ${label}: ${COUNT} paused threads, ${seededSeconds.toFixed(0)} s of seeding`);
    for (const line of lines) console.log(line);
  } finally {
    api.close();
    await server.stop();
    storage.stop?.();
    rmSync(snapshots, { recursive: true, force: true });
  }
}

async function main() {
  const args = process.argv.slice(2);
  if (!args.includes("--postgres-only")) {
    const dir = mkdtempSync(join(tmpdir(), "interlude-paused-"));
    const db = join(dir, "db.sqlite");
    await scenario("SQLite file", {
      server: { db },
      seed: (template, count) => seedSqlite(db, template, count),
      stop: () => rmSync(dir, { recursive: true, force: true }),
    });
  }
  if (!args.includes("--sqlite-only")) {
    const database = await throwawayDatabase("interlude_paused");
    await scenario("PostgreSQL", {
      server: { postgres: database.url },
      seed: (template, count) => seedPostgres(database.url, template, count),
      stop: () => database.stop(),
    });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
