/**
 * How fast a thread TTL sweep works off a backlog (threads/ttl-sweeper.ts): N threads, each paused
 * at a question with a TTL of one minute, all past it at once, swept by one process. Prints, on a
 * SQLite file and on PostgreSQL, the threads deleted per second and, on PostgreSQL, the
 * statements and transactions per thread.
 *
 *   TTL_THREADS=10000 node packages/server/bench/ttl-sweep.mjs [--sqlite-only | --postgres-only]
 *
 * The threads are copies of one paused through the API (seed-paused.mjs, which copies its TTL
 * too); the sweep runs in this process, against a backend opened here, with its clock moved past
 * the TTL instead of waited for.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadConfig, startServer } from "../dist/index.js";
import { sweep } from "../dist/threads/ttl-sweeper.js";
import { postgresDurability, throwawayDatabase } from "./postgres-stats.mjs";
import { seedPostgres, seedSqlite } from "./seed-paused.mjs";

const COUNT = Number(process.env.TTL_THREADS ?? 10_000);
const CONFIG = fileURLToPath(new URL("../test/fixtures/langgraph.json", import.meta.url));
const MINUTE = 60_000;

async function post(url, path, body) {
  const response = await fetch(`${url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** Opens a server on `storage`, pauses a template thread with a TTL, copies it, sweeps; returns the figures. */
async function measure(storage) {
  let ahead = 0;
  const server = await startServer({
    config: loadConfig(CONFIG),
    host: "127.0.0.1",
    port: 0,
    ...storage.options,
    now: () => Date.now() + ahead,
    threadTtl: { sweepMs: 60 * MINUTE },
  });
  try {
    const template = await post(server.url, "/threads", { ttl: { ttl: 1 } });
    await post(server.url, `/threads/${template.thread_id}/runs/wait`, { assistant_id: "loop", input: { rounds: 1 } });
    await storage.seed(template.thread_id, COUNT - 1);
    await storage.beforeSweep?.();
    ahead = 2 * MINUTE;
    const started = performance.now();
    const cpu = process.cpuUsage();
    await sweep(server.backend.ctx);
    const seconds = (performance.now() - started) / 1000;
    const { user, system } = process.cpuUsage(cpu);
    const left = await post(server.url, "/threads/count", {});
    if (left !== 0) throw new Error(`${left} threads left after the sweep`);
    return { seconds, cpuMsPerThread: (user + system) / 1000 / COUNT, database: await storage.afterSweep?.() };
  } finally {
    await server.close();
  }
}

function report(label, { seconds, cpuMsPerThread, database }) {
  const extra = database
    ? `, ${(database.statements / COUNT).toFixed(1)} statements and ${(database.commits / COUNT).toFixed(1)} transactions per thread`
    : "";
  console.log(
    `[ttl-sweep] ${label}: ${COUNT} threads past their TTL deleted in ${seconds.toFixed(1)} s = ${(COUNT / seconds).toFixed(0)} threads/s, this process's CPU ${cpuMsPerThread.toFixed(2)} ms per thread${extra}`,
  );
}

if (!process.argv.includes("--postgres-only")) {
  const dir = mkdtempSync(join(tmpdir(), "interlude-ttl-"));
  const db = join(dir, "db.sqlite");
  try {
    report(
      "SQLite file",
      await measure({ options: { sqlitePath: db }, seed: (template, n) => seedSqlite(db, template, n) }),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (!process.argv.includes("--sqlite-only")) {
  const { default: pg } = await import("pg");
  const database = await throwawayDatabase("interlude_ttl", { statements: true });
  const stats = new pg.Client({ connectionString: database.url });
  await stats.connect();
  const counters = async () => {
    const { rows } = await stats.query(
      `SELECT (SELECT COALESCE(sum(calls), 0) FROM pg_stat_statements
                WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
                  AND query !~* '^\\s*(BEGIN|COMMIT|ROLLBACK)') AS statements,
              (SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()) AS commits`,
    );
    return { statements: Number(rows[0].statements), commits: Number(rows[0].commits) };
  };
  let before;
  try {
    report(
      `PostgreSQL (${postgresDurability()})`,
      await measure({
        options: { postgresUrl: database.url },
        seed: (template, n) => seedPostgres(database.url, template, n),
        beforeSweep: async () => {
          await stats.query("SELECT pg_stat_statements_reset()");
          await stats.query("SELECT pg_stat_reset()");
          before = await counters();
        },
        afterSweep: async () => {
          await stats.query("SELECT pg_stat_force_next_flush()");
          const after = await counters();
          return { statements: after.statements - before.statements, commits: after.commits - before.commits };
        },
      }),
    );
  } finally {
    await stats.end();
    database.stop();
  }
}
