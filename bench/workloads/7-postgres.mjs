/**
 * 7. Postgres on loopback, many concurrent threads. A server from BENCH_POSTGRES_URL, or a
 * throwaway cluster started here with PostgreSQL's default durability (fsync on; both runtimes
 * get the same). Each runtime gets its own pg pool of 20 connections.
 *  - Round trips: 32 concurrent workers, each running approval round trips (invoke until
 *    paused + resume) on new threads. Samples: latency of each round trip; and round trips
 *    per second of each batch.
 *  - Steps per second: 32 threads at once, each looping 20 super-steps. Sample: super-steps
 *    per second of each batch.
 *  - Both rates again with Interlude at durability "async", LangGraph.js's default: each
 *    runtime's default is the comparison users see; this one is like for like (Interlude's
 *    default, "sync", commits every step's checkpoint before the next step runs).
 *  - Storage: one chat thread appending a 200-byte message per step, 100 and then 500 steps;
 *    bytes its tables grew by (pg_total_relation_size of each runtime's own tables: tables,
 *    TOAST and indexes, so page-granular), and bytes per step between the two points. Then a
 *    thread of 200 messages, each the answer to an interrupt, resumed by turns through two
 *    savers on their own pools: two servers behind a balancer without thread affinity. Each
 *    runtime's storage rows are measured in a new database of their own.
 *  - Work per round trip: WAL records, WAL flushes to disk, rows inserted, and shared buffers
 *    of the runtime's own tables touched by the round trips of one batch (pg_stat_wal,
 *    pg_stat_database, pg_statio_user_tables), each runtime alone on the server. Counted, not
 *    timed: unlike the rates, they barely move with the machine's noise (WAL bytes would, with
 *    the full-page images each checkpoint of the server brings).
 *    Flushes are what durable commits wait for; concurrent commits share one, so their count
 *    moves a little with timing.
 * Batches alternate between the runtimes.
 */

import { reportCounters } from "../../test/setup/postgres-counters.mjs";
import { approval, askEachTurn, chat, loop } from "../lib/graphs.mjs";
import { alternate, now, row, scaled, summary } from "../lib/harness.mjs";
import { interlude, langgraph } from "../lib/libs.mjs";
import { startPostgres } from "../lib/postgres.mjs";

export const title = "Postgres on loopback, concurrent threads";

const CONCURRENCY = 32;
/** LangGraph.js's default durability, given to Interlude for the like-for-like rows. */
const ASYNC = { durability: "async" };
const LOOP_STEPS = 20;
/**
 * Batches before the measured ones, and measured ones, per runtime and rate. With one warm-up
 * batch the measured rates were still climbing (both runtimes' JIT, PostgreSQL's caches:
 * Interlude's round trips went 234, 286, 327/s in batches 2 to 4 and settled near 400/s from the
 * fifth on), so the figure was a warm-up's, not a running service's.
 */
const RATES = { warmup: 4, iterations: 5, block: 1 };

async function concurrently(count, worker) {
  let next = 0;
  const latencies = [];
  const start = now();
  await Promise.all(
    Array.from({ length: Math.min(CONCURRENCY, count) }, async () => {
      while (next < count) {
        const i = next++;
        const t0 = now();
        await worker(i);
        latencies.push(now() - t0);
      }
    }),
  );
  return { latencies, seconds: (now() - start) / 1000 };
}

export async function run() {
  const external = process.env.BENCH_POSTGRES_URL;
  const server = external ? { url: external, stop() {} } : await startPostgres();
  if (server.skip) return { skip: server.skip };
  const { default: pg } = await import("pg");
  const pools = [];
  try {
    const graphs = {};
    for (const lib of [interlude, langgraph]) {
      const pool = benchPool(pg, server.url, 20);
      pools.push(pool);
      const saver = await lib.postgres(pool);
      graphs[lib.name] = { approval: approval(lib, saver), loop: loop(lib, LOOP_STEPS, saver) };
    }
    const tag = `${Date.now().toString(36)}`;
    let batch = 0;
    const latencies = { il: [], lg: [], work: [], ilAsync: [], lgAsync: [] };
    const roundTrips =
      (lib, key, count, options = {}) =>
      async (sample) => {
        const b = batch++;
        const graph = graphs[lib.name].approval;
        const { latencies: l, seconds } = await concurrently(count, async (i) => {
          const config = { configurable: { thread_id: `pg-rt-${tag}-${b}-${i}` }, ...options };
          await graph.invoke({ request: { customer: "ACME", amount: i } }, config);
          const done = await graph.invoke(new lib.Command({ resume: "yes" }), config);
          if (done.result !== "sent") throw new Error(`${lib.name}: round trip did not finish`);
        });
        if (sample >= 0) latencies[key].push(...l);
        return count / seconds;
      };
    const perBatch = scaled(160, 32);
    const rt = await alternate({
      ...RATES,
      il: roundTrips(interlude, "il", perBatch),
      lg: roundTrips(langgraph, "lg", perBatch),
    });
    const steps =
      (lib, options = {}) =>
      async () => {
        const b = batch++;
        const graph = graphs[lib.name].loop;
        const threads = scaled(64, 32);
        const { seconds } = await concurrently(threads, async (i) => {
          const config = { configurable: { thread_id: `pg-loop-${tag}-${b}-${i}` }, ...options };
          const result = await graph.invoke({ count: 0 }, config);
          if (result.count !== LOOP_STEPS) throw new Error(`${lib.name}: loop did not finish`);
        });
        return (threads * LOOP_STEPS) / seconds;
      };
    const sps = await alternate({ ...RATES, il: steps(interlude), lg: steps(langgraph) });
    const like = {
      rt: await alternate({
        ...RATES,
        il: roundTrips(interlude, "ilAsync", perBatch, ASYNC),
        lg: roundTrips(langgraph, "lgAsync", perBatch),
      }),
      sps: await alternate({ ...RATES, il: steps(interlude, ASYNC), lg: steps(langgraph) }),
    };
    const storage = [...(await storageGrowth(pg, server.url)), ...(await storageByTurns(pg, server.url))];
    const work = {
      il: await workPerRoundTrip(pools, roundTrips(interlude, "work", perBatch), perBatch, TABLES.Interlude),
    };
    work.lg = await workPerRoundTrip(pools, roundTrips(langgraph, "work", perBatch), perBatch, TABLES["LangGraph.js"]);
    return [
      ...storage,
      ...WORK.map(([key, metric]) =>
        row({ workload: 7, metric, unit: "1/rt", il: once(work.il[key]), lg: once(work.lg[key]) }),
      ),
      row({
        workload: 7,
        metric: `round trip, ${CONCURRENCY} concurrent threads`,
        unit: "ms",
        il: summary(latencies.il),
        lg: summary(latencies.lg),
      }),
      row({ workload: 7, metric: "round trips per second", unit: "1/s", better: "higher", target: 5, ...rt }),
      row({
        workload: 7,
        metric: `super-steps per second, ${CONCURRENCY} concurrent threads`,
        unit: "1/s",
        better: "higher",
        target: 5,
        ...sps,
      }),
      row({
        workload: 7,
        metric: 'round trips per second, both at durability "async"',
        unit: "1/s",
        better: "higher",
        ...like.rt,
      }),
      row({
        workload: 7,
        metric: 'super-steps per second, both at durability "async"',
        unit: "1/s",
        better: "higher",
        ...like.sps,
      }),
    ];
  } finally {
    for (const pool of pools) await pool.end().catch(() => {});
    server.stop();
  }
}

/** What workPerRoundTrip counts: its key, and the metric's name. */
const WORK = [
  ["walRecords", "Postgres: WAL records per round trip"],
  ["walFlushes", "Postgres: WAL flushes to disk per round trip"],
  ["inserted", "Postgres: rows inserted per round trip (indexes not counted)"],
  ["touched", "Postgres: shared buffers of its own tables touched per round trip"],
];

const once = (v) => ({ n: 1, median: v, p99: undefined });

/**
 * The database's counters around one batch of `count` round trips (`batch`) of the runtime
 * whose tables match `tables`, per round trip. Buffers are counted on those tables only
 * (pg_statio_user_tables), so that one runtime's count does not take in autovacuum's passes over
 * the other's tables, which the batches before have just filled. A backend reports its counters
 * when idle, but at most once a second, else up to ten seconds later: every connection of both
 * pools is made to report first (reportCounters).
 */
async function workPerRoundTrip(pools, batch, count, tables) {
  const read = async () => {
    for (const pool of pools) await reportCounters(pool);
    const { rows } = await pools[0].query(
      `SELECT w.wal_records::float8 AS "walRecords", w.wal_sync::float8 AS "walFlushes", d.tup_inserted::float8 AS inserted,
         (SELECT coalesce(sum(heap_blks_hit + heap_blks_read + coalesce(idx_blks_hit + idx_blks_read, 0)
                   + coalesce(toast_blks_hit + toast_blks_read, 0) + coalesce(tidx_blks_hit + tidx_blks_read, 0)), 0)
            FROM pg_statio_user_tables WHERE schemaname = current_schema() AND relname LIKE $1)::float8 AS touched
       FROM pg_stat_wal w, pg_stat_database d WHERE d.datname = current_database()`,
      [tables],
    );
    return rows[0];
  };
  const before = await read();
  await batch();
  const after = await read();
  return Object.fromEntries(WORK.map(([key]) => [key, (after[key] - before[key]) / count]));
}

/** Each runtime's own tables: Interlude's are prefixed `interlude_`, LangGraph.js's `checkpoint`. */
const TABLES = { Interlude: "interlude\\_%", "LangGraph.js": "checkpoint%" };

/** Steps of the thread written before a storage row's measurement, in its new database. */
const WARM_UP = 4;

/** Messages of the thread answered by turns through two savers (two processes). */
const TURNS = 200;

/** Bytes a chat thread adds when its answers alternate between two savers, each on its own pool. */
async function storageByTurns(pg, url) {
  const grown = {};
  for (const lib of [interlude, langgraph])
    grown[lib.name] = await inDatabaseOfItsOwn(pg, url, lib, async (pool, otherPool) => {
      const [first, second] = [
        askEachTurn(lib, await lib.postgres(pool)),
        askEachTurn(lib, await lib.postgres(otherPool)),
      ];
      const byTurns = async (thread_id, turns) => {
        const config = { configurable: { thread_id } };
        await first.invoke({ messages: [] }, config);
        let state;
        for (let i = 0; i < turns; i++)
          state = await (i % 2 ? second : first).invoke(new lib.Command({ resume: `answer ${i}` }), config);
        if (state.messages.length !== turns)
          throw new Error(`${lib.name}: the thread answered by turns did not finish`);
      };
      await byTurns("pg-turns-first", WARM_UP);
      const before = await tableBytes(pool, TABLES[lib.name]);
      await byTurns("pg-turns", TURNS);
      return (await tableBytes(pool, TABLES[lib.name])) - before;
    });
  return [
    row({
      workload: 7,
      metric: `Postgres: bytes a ${TURNS}-message thread adds, answered by turns through two processes`,
      unit: "B",
      il: once(grown[interlude.name]),
      lg: once(grown[langgraph.name]),
    }),
  ];
}

/**
 * `measure(pool, otherPool)` in a new database of the server, dropped after: a storage row
 * counts relation pages, so it must not take in what the rate phases left in the shared
 * database (pages that concurrent inserts added ahead of need, dead rows, autovacuum's timing).
 * The 500-step thread's growth read 278 to 549 kB across runs of one build there. Each
 * measurement first writes a short thread of WARM_UP steps, so that the first pages of every
 * table and index (which a new database creates with its first row) are not counted either.
 */
async function inDatabaseOfItsOwn(pg, url, lib, measure) {
  const name = `bench_storage_${lib.name === interlude.name ? "interlude" : "langgraph"}_${process.pid}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
    const own = new URL(url);
    own.pathname = `/${name}`;
    const pools = [1, 2].map(() => benchPool(pg, own.toString(), 2));
    try {
      return await measure(...pools);
    } finally {
      for (const pool of pools) await pool.end().catch(() => {});
      await admin.query(`DROP DATABASE ${name}`);
    }
  } finally {
    await admin.end();
  }
}

/** A pool of `max` connections to `url`; an idle connection that dies fails its next use instead of the benchmark. */
function benchPool(pg, url, max) {
  const pool = new pg.Pool({ connectionString: url, max });
  pool.on("error", () => {});
  return pool;
}

async function tableBytes(pool, pattern) {
  const { rows } = await pool.query(
    `select coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint as bytes
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where c.relkind = 'r' and n.nspname = current_schema() and c.relname like $1`,
    [pattern],
  );
  return Number(rows[0].bytes);
}

async function storageGrowth(pg, url) {
  const grown = { il: {}, lg: {} };
  for (const [key, lib] of [
    ["il", interlude],
    ["lg", langgraph],
  ])
    await inDatabaseOfItsOwn(pg, url, lib, async (pool) => {
      const saver = await lib.postgres(pool);
      await chat(lib, WARM_UP, saver).invoke({ messages: [] }, { configurable: { thread_id: "pg-chat-first" } });
      for (const steps of [100, 500]) {
        const before = await tableBytes(pool, TABLES[lib.name]);
        const result = await chat(lib, steps, saver).invoke(
          { messages: [] },
          { configurable: { thread_id: `pg-chat-${steps}` }, recursionLimit: steps + 10 },
        );
        if (result.messages.length !== steps) throw new Error(`${lib.name}: chat did not finish`);
        grown[key][steps] = (await tableBytes(pool, TABLES[lib.name])) - before;
      }
    });
  return [
    row({
      workload: 7,
      metric: "Postgres: bytes a 100-step chat thread adds",
      unit: "B",
      il: once(grown.il[100]),
      lg: once(grown.lg[100]),
    }),
    row({
      workload: 7,
      metric: "Postgres: bytes a 500-step chat thread adds",
      unit: "B",
      il: once(grown.il[500]),
      lg: once(grown.lg[500]),
    }),
    row({
      workload: 7,
      metric: "Postgres: bytes per step (500-step thread)",
      unit: "B/step",
      il: once(grown.il[500] / 500),
      lg: once(grown.lg[500] / 500),
    }),
  ];
}
