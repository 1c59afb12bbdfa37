/**
 * The chaos soak: clients answer questions through every way a reviewer can (runs/wait, a
 * background run joined through another server, the inbox) while the deployment's processes are
 * killed (SIGKILL), stopped (SIGTERM, then started again) and, on PostgreSQL, cut off from the
 * database or refused connections for a while. It checks what API.md promises a client that gives
 * an answer refused 503 (or lost with its connection) again, as it was, until it is taken:
 * - every answer acknowledged (200, or 409 ALREADY_ANSWERED naming it) is applied once, in order,
 *   and the next question asked is the one after it;
 * - no request is answered other than as API.md says it may be under failure (no 500, no timeout);
 * - once the faults stop, every client ends, and nothing is left queued or running.
 * Behaviour, not speed, but too long and too random for `npm test`: the tests pin each bug it
 * found to a deterministic scenario. Exits 1 on any violation, naming where each client was.
 *
 * `node packages/server/bench/soak.mjs [--postgres] [--seconds 120] [--clients 8] [--graph
 * soak_flat|soak_nested|soak_agent] [--faults kill,term,cut,refuse] [--every 2500] [--delay 20] [--deadline 1
 * --think 1500] [--multitask enqueue|interrupt|rollback] [--impatient 200]`
 * (`npm run soak -- ...`). On SQLite one server on a file, killed and started again on it; on
 * PostgreSQL (a throwaway server, or BENCH_POSTGRES_URL's) two servers and a worker. `--delay`:
 * each answer's run then sleeps that long in a second step, where kills find it mid-run.
 * `soak_agent`: a LangChain agent (messages state, a chat model's tool call edited by the
 * reviewer, a ToolNode; `--delay` and `--deadline` do not apply). `--deadline S`: every question is answered "timeout" after S seconds if no one did, while
 * clients think up to `--think` ms before answering (a reviewer racing the deadline).
 * `--multitask`: the `multitask_strategy` of every run the clients send. An answer given again
 * while its first try's run is still queued or running waits for that run, whatever the strategy
 * (API.md, "Multitask strategies"): the strategy acts on the runs that carry no answer (one
 * continuing a thread stopped between steps); "runs at the end" shows the runs it stopped.
 * `--impatient MS`: clients give up waiting on one answer in three after up to MS and give it
 * again at once, while its run goes on (a reviewer who clicks twice).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { arg } from "./args.mjs";
import { throwawayDatabase } from "./postgres-stats.mjs";
import { startServerProcess } from "./processes.mjs";
import { answeringClient } from "./soak-client.mjs";

const POSTGRES = process.argv.includes("--postgres");
const SECONDS = Number(arg("seconds", 120));
const CLIENTS = Number(arg("clients", 8));
const GRAPH = arg("graph", "soak_flat");
const FAULTS = arg("faults", POSTGRES ? "kill,term,cut,refuse" : "kill,term").split(",");
const EVERY_MS = Number(arg("every", 2500));
const DELAY_MS = Number(arg("delay", 20));
const DEADLINE_S = arg("deadline") === undefined ? undefined : Number(arg("deadline"));
const THINK_MS = Number(arg("think", 0));
const MULTITASK = arg("multitask");
const IMPATIENT_MS = Number(arg("impatient", 0));
// Short leases and claims: a killed process's runs are found lost within a second or two.
const env = { INTERLUDE_RUN_LEASE_MS: "1000", INTERLUDE_CLAIM_TTL_MS: "1000", INTERLUDE_DRAIN_GRACE_MS: "2000" };

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const pick = (list) => list[Math.floor(Math.random() * list.length)];
const started = Date.now();
const at = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;

/** The deployment: slots of processes, each started again after a fault; `urls()` those serving now. */
async function deploy() {
  if (!POSTGRES) {
    const dir = mkdtempSync(join(tmpdir(), "interlude-soak-"));
    const db = join(dir, "db.sqlite");
    const slots = [{ start: () => startServerProcess({ db, env }) }];
    return {
      slots,
      admin: undefined,
      runsByStatus: () => runsIn({ sqlite: db }),
      cleanup: () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const { default: pg } = await import("pg");
  const database = await throwawayDatabase("interlude_soak");
  const name = new URL(database.url).pathname.slice(1);
  const admin = new pg.Client({ connectionString: database.server });
  await admin.connect();
  const start = (worker) => () => startServerProcess({ postgres: database.url, env, worker });
  const slots = [{ start: start(false) }, { start: start(false) }, { start: start(true) }];
  return {
    slots,
    admin: { client: admin, name, url: database.url },
    runsByStatus: () => runsIn({ postgres: database.url }),
    cleanup: async () => {
      await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`).catch(() => undefined);
      await admin.end();
      database.stop();
    },
  };
}

const RUNS_BY_STATUS = "SELECT status, COUNT(*) AS n FROM interlude_server_runs GROUP BY status ORDER BY status";

/**
 * The runs the database holds at the end, by status: with `--multitask interrupt`, those
 * `interrupted` are the runs an answer given again stopped (rolled-back runs are deleted).
 */
async function runsIn({ sqlite, postgres }) {
  if (sqlite) {
    const { default: Database } = await import("better-sqlite3");
    const file = new Database(sqlite, { readonly: true });
    try {
      return Object.fromEntries(
        file
          .prepare(RUNS_BY_STATUS)
          .all()
          .map((row) => [row.status, row.n]),
      );
    } finally {
      file.close();
    }
  }
  const { default: pg } = await import("pg");
  const db = new pg.Client({ connectionString: postgres });
  await db.connect();
  try {
    return Object.fromEntries((await db.query(RUNS_BY_STATUS)).rows.map((row) => [row.status, Number(row.n)]));
  } finally {
    await db.end();
  }
}

const deployment = await deploy();
const { slots, admin } = deployment;
for (const slot of slots) slot.process = await slot.start();
const urls = () => slots.filter((slot) => slot.process?.url && !slot.stopping).map((slot) => slot.process.url);
const faults = new Map();
/** When each fault began, to set against the runs' and checkpoints' times when a client fails. */
const timeline = [];
const count = (map, key) => map.set(key, (map.get(key) ?? 0) + 1);

/**
 * On PostgreSQL, what the database holds for a thread a client is stuck on, below what the API
 * shows: its claim, its runs with their errors, its answers, and its newest checkpoints' writes
 * in every namespace (a question the API shows or hides is read from these).
 */
async function storedRows(threadId) {
  if (!admin) return [];
  const { default: pg } = await import("pg");
  const db = new pg.Client({ connectionString: `${admin.url}` });
  await db.connect();
  const rows = async (label, sql) => `${label}: ${JSON.stringify((await db.query(sql, [threadId])).rows)}`;
  try {
    return [
      await rows("claim", "SELECT owner, expires_at FROM interlude_claims WHERE thread_id = $1"),
      await rows(
        "runs' errors",
        "SELECT run_id, status, attempt, owner, left(error, 300) AS error FROM interlude_server_runs WHERE thread_id = $1 ORDER BY created_at DESC LIMIT 4",
      ),
      await rows(
        "answers",
        "SELECT interrupt_id, answer, by, state, run_id FROM interlude_server_answers WHERE thread_id = $1 ORDER BY at DESC LIMIT 3",
      ),
      await rows(
        "heads",
        "SELECT checkpoint_ns, head_id, updated_at FROM interlude_heads WHERE thread_id = $1 ORDER BY updated_at DESC LIMIT 3",
      ),
      await rows(
        "newest checkpoints' writes",
        `SELECT w.checkpoint_ns AS ns, w.checkpoint_id, w.task_id, w.idx, w.channel, left(encode(w.data, 'escape'), 160) AS data
         FROM interlude_writes w JOIN (SELECT checkpoint_ns, checkpoint_id FROM interlude_checkpoints WHERE thread_id = $1
           ORDER BY created_at DESC LIMIT 4) c USING (checkpoint_ns, checkpoint_id)
         WHERE w.thread_id = $1 ORDER BY w.seq`,
      ),
    ];
  } catch (error) {
    return [`rows not read: ${error}`];
  } finally {
    await db.end();
  }
}

async function cut() {
  await admin.client.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", [admin.name]);
}

/** One fault, chosen among `--faults`; a stopped process is started again before the next. */
async function fault() {
  const kind = pick(FAULTS);
  count(faults, kind);
  timeline.push(`${new Date().toISOString()} ${kind}`);
  if (kind === "cut") return cut();
  if (kind === "refuse") {
    await admin.client.query(`ALTER DATABASE ${admin.name} ALLOW_CONNECTIONS false`);
    await cut();
    await sleep(1500);
    return admin.client.query(`ALTER DATABASE ${admin.name} ALLOW_CONNECTIONS true`);
  }
  const slot = pick(slots);
  slot.stopping = true;
  const code = await slot.process.stop(kind === "kill" ? "SIGKILL" : "SIGTERM");
  if (kind === "term" && code !== 0) {
    throw new Error(`a server stopped with SIGTERM exited ${code}:\n${slot.process.output().slice(-3000)}`);
  }
  slot.process = await slot.start();
  slot.stopping = false;
}

const input =
  GRAPH === "soak_agent"
    ? { messages: [{ role: "user", content: "go" }] }
    : { rounds: 1e9, delay: DELAY_MS, deadline: DEADLINE_S };
const client = answeringClient({
  urls,
  graph: GRAPH,
  input,
  deadline: DEADLINE_S,
  think: THINK_MS,
  multitask: MULTITASK,
  impatient: IMPATIENT_MS,
});
const clients = Array.from({ length: CLIENTS }, (_, c) => client.run(c));
const failed = Promise.race(clients.map((running) => running.then(() => new Promise(() => undefined))));
const faulting = (async () => {
  await sleep(EVERY_MS);
  while (Date.now() - started < SECONDS * 1000 && !client.stopped()) {
    await fault();
    await sleep(EVERY_MS * (0.5 + Math.random()));
  }
  client.stop();
})();

let verdict;
try {
  await Promise.race([faulting, failed]);
  client.stop();
  // Every client ends its answer in flight, then stops; one that does not says where it is.
  const ended = await Promise.race([Promise.all(clients).then(() => true), sleep(90_000).then(() => false)]);
  if (!ended)
    throw new Error(`clients not ended 90 s after the faults stopped:\n${await client.whereClientsAre(storedRows)}`);
  verdict = await client.verify();
} catch (error) {
  client.stop();
  verdict = { ok: false, lines: [String(error?.stack ?? error), await client.whereClientsAre(storedRows)] };
}
const answered = client.acknowledged();
console.log(
  `soak ${POSTGRES ? "PostgreSQL (two servers and a worker)" : "SQLite (one server)"}, ${GRAPH}, ${CLIENTS} clients${MULTITASK ? `, multitask ${MULTITASK}` : ""}${IMPATIENT_MS ? `, impatient ${IMPATIENT_MS} ms` : ""}, ${at()}`,
);
console.log(`faults: ${JSON.stringify(Object.fromEntries(faults))}`);
const timedOut = DEADLINE_S === undefined ? "" : `, ${client.timedOut()} of them by deadlines`;
console.log(
  `answers acknowledged: ${answered} (${(answered / ((Date.now() - started) / 1000)).toFixed(0)}/s)${timedOut}`,
);
console.log(`refusals and losses met (allowed under faults): ${JSON.stringify(client.refusals())}`);
console.log(`runs at the end, by status: ${JSON.stringify(await deployment.runsByStatus().catch(String))}`);
for (const line of verdict.lines) console.log(line);
if (!verdict.ok) {
  console.log(`faults as they came: ${timeline.join(", ")}`);
  for (const slot of slots) console.log(`process printed, last:\n${slot.process?.output().slice(-2000)}`);
}
for (const slot of slots) await slot.process?.stop();
await deployment.cleanup();
console.log(verdict.ok ? "soak passed" : "soak FAILED");
process.exit(verdict.ok ? 0 : 1);
