/**
 * `GET /metrics`: what an autoscaler or an alert reads, as LangGraph's server names it where it
 * has the figure (`lg_api_*`: the run queue, this process's queue workers and PostgreSQL pools),
 * and what a deployment that waits for humans adds (`interlude_*`: the interrupts waiting for an
 * answer, per graph, and how long the oldest has waited). Prometheus's text by default,
 * `?format=json` for the same figures as one document. The backlog is the deployment's (read
 * from the shared tables); workers, pools and executing runs are this process's.
 */
import { Hono } from "hono";
import type { ConnectionPool, RunEnd, ServerContext } from "../../context.js";
import { DatabaseUnansweredError } from "../../errors.js";
import { type Backlog, readBacklog } from "../../store/backlog.js";
import type { AppEnv } from "../env.js";
import { exposition, type Metric, PROMETHEUS_CONTENT_TYPE } from "../prometheus.js";
import { MetricsQuery } from "../schemas.js";
import { query } from "../validate.js";

/** `GET /metrics?format=json`: LangGraph's `queue`, `workers` and `postgres`, then Interlude's own. */
export interface MetricsDocument extends Backlog {
  /** Only for a process that takes queued runs, up to a number at once (PostgreSQL). */
  workers?: { max: number; active: number; available: number };
  /** This process's connection pools, summed (PostgreSQL). */
  postgres?: { pool_max: number; pool_size: number; pool_available: number; requests_waiting: number };
  /** Runs executing in this process: queued ones, and stream and wait runs of its clients. */
  runs_executing: number;
  /** Runs whose end this process recorded since it started, by how they ended. */
  runs_ended: Partial<Record<RunEnd, number>>;
}

async function readMetrics(ctx: ServerContext): Promise<MetricsDocument> {
  let backlog: Backlog;
  try {
    backlog = await readBacklog(ctx.store.db, ctx.now());
  } catch (error) {
    throw new DatabaseUnansweredError("the metrics' backlog query", error);
  }
  const document: MetricsDocument = {
    ...backlog,
    runs_executing: ctx.executing.size,
    runs_ended: Object.fromEntries(ctx.runsEnded),
  };
  const workers = ctx.dispatcher.workers?.();
  if (workers) document.workers = { ...workers, available: Math.max(0, workers.max - workers.active) };
  const pools = ctx.pools;
  if (pools?.length) {
    const sum = (of: (pool: ConnectionPool) => number) => pools.reduce((n, pool) => n + of(pool), 0);
    document.postgres = {
      pool_max: sum((pool) => pool.options.max ?? 10),
      pool_size: sum((pool) => pool.totalCount),
      pool_available: sum((pool) => pool.idleCount),
      requests_waiting: sum((pool) => pool.waitingCount),
    };
  }
  return document;
}

const gauge = (name: string, help: string, value: number | null): Metric => ({
  name,
  type: "gauge",
  help,
  samples: [{ value: value ?? 0 }],
});

/** Every way a run ends has a series, at 0 until one ends so, as a counter's rate needs. */
const RUN_ENDS: readonly RunEnd[] = ["success", "error", "timeout", "interrupted", "rolled_back", "lost"];

/** The document as metrics; a wait with nothing waiting reads 0, as LangGraph's do. */
function metricsOf(metrics: MetricsDocument, graphs: readonly string[]): Metric[] {
  const { queue, interrupts, workers, postgres } = metrics;
  const out: Metric[] = [
    gauge("lg_api_num_pending_runs", "The number of runs currently pending.", queue.n_pending),
    gauge("lg_api_num_running_runs", "The number of runs currently running.", queue.n_running),
    gauge(
      "lg_api_pending_runs_wait_time_max",
      "The maximum time a run has been pending, in seconds.",
      queue.pending_runs_wait_time_max_secs,
    ),
    gauge(
      "lg_api_pending_runs_wait_time_med",
      "The median pending wait time across runs, in seconds.",
      queue.pending_runs_wait_time_med_secs,
    ),
    gauge(
      "lg_api_pending_unblocked_runs_wait_time_max",
      "The maximum time a run has been pending excluding runs blocked by another run on the same thread, in seconds.",
      queue.pending_unblocked_runs_wait_time_max_secs,
    ),
  ];
  if (workers)
    out.push(
      gauge("lg_api_workers_max", "The maximum number of queued runs this process executes at once.", workers.max),
      gauge("lg_api_workers_active", "The number of queued runs this process executes now.", workers.active),
      gauge("lg_api_workers_available", "The number of queued runs this process could take now.", workers.available),
    );
  if (postgres)
    out.push(
      gauge("lg_api_pg_pool_max", "The maximum size of this process's PostgreSQL connection pools.", postgres.pool_max),
      gauge("lg_api_pg_pool_size", "Connections this process's pools hold, idle or in use.", postgres.pool_size),
      gauge("lg_api_pg_pool_available", "Idle connections in this process's pools.", postgres.pool_available),
      gauge(
        "interlude_pg_pool_waiting",
        "Requests of this process waiting for a pooled PostgreSQL connection now.",
        postgres.requests_waiting,
      ),
    );
  // Every served graph has a series, at 0 when nothing waits, so that it does not vanish from a dashboard.
  const byGraph = { ...Object.fromEntries(graphs.map((id) => [id, 0])), ...interrupts.by_graph };
  out.push(
    {
      name: "interlude_pending_interrupts",
      type: "gauge",
      help: "Interrupts waiting for an answer, by graph (graph_id empty: threads without one).",
      samples: Object.entries(byGraph).map(([graph_id, value]) => ({ labels: { graph_id }, value })),
    },
    gauge(
      "interlude_pending_interrupt_wait_time_max",
      "The longest an interrupt has waited for its answer, in seconds.",
      interrupts.wait_time_max_secs,
    ),
    gauge("interlude_runs_executing", "Runs executing in this process.", metrics.runs_executing),
    {
      name: "interlude_runs_ended_total",
      type: "counter",
      help: "Runs whose end this process recorded since it started, by how they ended (rolled_back: cancelled and deleted; lost: their process stopped first).",
      samples: RUN_ENDS.map((status) => ({ labels: { status }, value: metrics.runs_ended[status] ?? 0 })),
    },
  );
  return out;
}

export function metricsRoutes(ctx: ServerContext) {
  const app = new Hono<AppEnv>();
  app.get("/metrics", async (c) => {
    const { format } = query(c, MetricsQuery);
    const metrics = await readMetrics(ctx);
    if (format === "json") return c.json(metrics);
    return c.body(exposition(metricsOf(metrics, ctx.graphs.ids())), 200, { "content-type": PROMETHEUS_CONTENT_TYPE });
  });
  return app;
}
