/**
 * What a PostgreSQL deployment asks of the database when nobody uses it: `node
 * packages/server/bench/idle.mjs [--servers 2] [--seconds 30]` starts the servers (and, with
 * two, a worker) on a throwaway database, waits a few seconds for their start-up, then prints
 * the statements per second the database executed while they sat idle (pg_stat_statements),
 * most frequent first. Polling shows here as a steady rate; `BENCH_CLI` runs another build.
 */
import { arg } from "./args.mjs";
import { throwawayDatabase } from "./postgres-stats.mjs";
import { startProcesses } from "./processes.mjs";

const servers = Number(arg("servers", 1));
const seconds = Number(arg("seconds", 30));
const cluster = await throwawayDatabase("interlude_idle", { statements: true });
const processes = [];
try {
  await startProcesses({ postgres: cluster.url, servers, processes });
  const { default: pg } = await import("pg");
  const stats = new pg.Client({ connectionString: cluster.url });
  await stats.connect();
  await new Promise((resolve) => setTimeout(resolve, 3000));
  await stats.query("SELECT pg_stat_statements_reset()");
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const { rows } = await stats.query(
    `SELECT calls::bigint AS calls, query FROM pg_stat_statements
      WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND query NOT LIKE '%pg_stat_statements%'
      ORDER BY calls DESC`,
  );
  await stats.end();
  const total = rows.reduce((sum, r) => sum + Number(r.calls), 0);
  console.log(
    `[idle] ${servers} server(s)${servers > 1 ? " + a worker" : ""}, ${seconds} s idle: ${(total / seconds).toFixed(2)} statements/s`,
  );
  for (const r of rows)
    console.log(
      `  ${(Number(r.calls) / seconds).toFixed(2).padStart(6)}/s  ${r.query.replace(/\s+/g, " ").slice(0, 120)}`,
    );
} finally {
  for (const p of processes) await p.stop();
  cluster.stop();
}
