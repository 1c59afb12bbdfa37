/**
 * The SQLite floor of workload 3's round trip (invoke until paused, getState, resume) at
 * Interlude's default durability, on Interlude alone:
 * `node bench/sqlite-floor.mjs [--memory] [--round-trips=3000]`.
 *
 * Records the statements one round trip sends through the SqliteSaver (its WAL worker on, as by
 * default), then replays exactly them, each prepared once and the thread id swapped for a new
 * one, on new threads: SQLite's own time, without the runtime's or the saver's JavaScript. Then
 * the same statements with their commits merged into one per 100 round trips: what the commits
 * cost. Each measure three times, alternated; medians, in µs per round trip.
 * On a file, last, the pages those commits write: a round trip's WAL frames by table and kind of
 * page (a leaf, or an interior page a split changed), read from the log of a second file whose
 * log is never copied back, so that every frame stays in it.
 */
import { readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { SqliteSaver } from "@interlude/checkpoint-sqlite";
import { approval } from "./lib/graphs.mjs";
import { summary } from "./lib/harness.mjs";
import { interlude } from "./lib/libs.mjs";

const { values: args } = parseArgs({
  options: { memory: { type: "boolean", default: false }, "round-trips": { type: "string", default: "3000" } },
});
const roundTrips = Number(args["round-trips"]);
const file = join(tmpdir(), `interlude-sqlite-floor-${process.pid}.sqlite`);
const saver = SqliteSaver.fromConnString(args.memory ? ":memory:" : file);
const graph = approval(interlude, saver);
const db = saver.db;

// Every statement the saver runs goes through these three methods of better-sqlite3's Statement.
const RECORDED = "recorded-thread";
let recording;
const statementMethods = Object.getPrototypeOf(db.prepare("SELECT 1"));
for (const method of ["run", "get", "all"]) {
  const original = statementMethods[method];
  statementMethods[method] = function (...params) {
    recording?.push({ source: this.source, method, params });
    return original.apply(this, params);
  };
}

let threads = 0;
async function roundTrip(threadId = `t${threads++}`, on = graph) {
  const config = { configurable: { thread_id: threadId } };
  await on.invoke({ request: { customer: "ACME", amount: 1 } }, config);
  await on.getState(config);
  const done = await on.invoke(new interlude.Command({ resume: "yes" }), config);
  if (done.result !== "sent") throw new Error("the round trip did not finish");
}

for (let i = 0; i < 300; i++) await roundTrip();
recording = [];
await roundTrip(RECORDED);
const recorded = recording;
recording = undefined;

const prepared = new Map();
const statementOf = (source) => {
  if (!prepared.has(source)) prepared.set(source, db.prepare(source));
  return prepared.get(source);
};
const plan = recorded.map(({ source, method, params }) => ({ statement: statementOf(source), method, params }));
const TRANSACTION = new Set(["BEGIN IMMEDIATE", "COMMIT"]);
const withoutCommits = plan.filter(({ statement }) => !TRANSACTION.has(statement.source));
const begin = db.prepare("BEGIN IMMEDIATE");
const commit = db.prepare("COMMIT");

let replays = 0;
function replay(steps) {
  const threadId = `r${replays++}`;
  for (const { statement, method, params } of steps)
    statement[method](...params.map((param) => (param === RECORDED ? threadId : param)));
}

const measures = {
  "the whole round trip": async () => {
    for (let i = 0; i < roundTrips; i++) await roundTrip();
  },
  "its statements alone": () => {
    for (let i = 0; i < roundTrips; i++) replay(plan);
  },
  "its statements, one commit per 100 round trips": () => {
    for (let i = 0; i < roundTrips; i++) {
      if (i % 100 === 0) begin.run();
      replay(withoutCommits);
      if (i % 100 === 99 || i === roundTrips - 1) commit.run();
    }
  },
};
const samples = Object.fromEntries(Object.keys(measures).map((name) => [name, []]));
for (let pass = 0; pass < 3; pass++) {
  for (const [name, measure] of Object.entries(measures)) {
    const start = performance.now();
    await measure();
    samples[name].push(((performance.now() - start) / roundTrips) * 1000);
  }
}

const commits = recorded.filter(({ source }) => source === "COMMIT").length;
console.log(
  `SQLite ${args.memory ? ":memory:" : "file"}: ${recorded.length} statements and ${commits} commits per round trip (${roundTrips} round trips per measure)`,
);
for (const [name, values] of Object.entries(samples)) {
  console.log(`  ${name}: ${summary(values).median.toFixed(0)} µs (${values.map((v) => v.toFixed(0)).join(", ")})`);
}
await saver.close();
rmSync(file, { force: true });
if (!args.memory) await walFrames();

/** WAL frames per round trip by table and page kind, on a file of its own. */
async function walFrames(warmup = 300, measured = 200) {
  const path = join(tmpdir(), `interlude-sqlite-floor-frames-${process.pid}.sqlite`);
  const census = SqliteSaver.fromConnString(path, { walCheckpointer: false });
  census.db.pragma("wal_autocheckpoint = 0");
  const counted = approval(interlude, census);
  // Thread ids as workload 3's: where a new thread's rows land in the tables decides the splits.
  for (let i = 0; i < warmup; i++) await roundTrip(`rt-${i}`, counted);
  census.db.pragma("wal_checkpoint(TRUNCATE)");
  for (let i = warmup; i < warmup + measured; i++) await roundTrip(`rt-${i}`, counted);
  // The log's format: a 32-byte header, then frames of a 24-byte header (page number first) and a page.
  const log = readFileSync(`${path}-wal`);
  const pageSize = log.readUInt32BE(8);
  const pageOf = new Map(
    census.db
      .prepare("SELECT pageno, name, pagetype FROM dbstat")
      .all()
      .map((page) => [page.pageno, `${page.name} ${page.pagetype}`]),
  );
  const frames = new Map();
  for (let at = 32; at + 24 + pageSize <= log.length; at += 24 + pageSize) {
    const page = log.readUInt32BE(at);
    // Page 1 holds the file's header too (page count, free list): a split that adds a page writes it.
    const kind = page === 1 ? "page 1" : (pageOf.get(page) ?? "freed");
    frames.set(kind, (frames.get(kind) ?? 0) + 1);
  }
  const total = [...frames.values()].reduce((sum, count) => sum + count, 0);
  const parts = [...frames]
    .sort((a, b) => b[1] - a[1])
    .map(([kind, count]) => `${kind} ${(count / measured).toFixed(2)}`);
  console.log(`  WAL frames per round trip: ${(total / measured).toFixed(1)} (${parts.join(", ")})`);
  await census.close();
  for (const suffix of ["", "-wal", "-shm"]) rmSync(`${path}${suffix}`, { force: true });
}
