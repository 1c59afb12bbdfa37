/**
 * `GET /metrics`, on SQLite and on PostgreSQL: the run queue and the interrupts waiting for a
 * human, as Prometheus's text and as JSON, counted from what the deployment actually holds; a
 * run waiting behind another of its thread is not "unblocked"; waits are read against the
 * server's clock; PostgreSQL adds this process's queue workers and connection pools.
 */
import type { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openGate } from "./fixtures/gates.mjs";
import { FIXTURE_CONFIG, json, type TestServer, testServer, until } from "./helpers.js";
import { startCli, storages, testDatabase } from "./processes.js";

/** Prometheus's text as `name{labels}` -> value, after checking each series has its HELP and TYPE. */
function parseExposition(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  const typed = new Set<string>();
  for (const line of text.split("\n")) {
    if (!line) continue;
    const type = line.match(/^# TYPE (\S+) (gauge|counter)$/);
    if (type) typed.add(type[1]!);
    if (line.startsWith("#")) continue;
    const sample = line.match(/^([a-z_]+)(\{[^}]*\})? (\S+)$/);
    if (!sample) throw new Error(`not a sample line: ${line}`);
    if (!typed.has(sample[1]!)) throw new Error(`${sample[1]} has no TYPE before its samples`);
    samples.set(`${sample[1]}${sample[2] ?? ""}`, Number(sample[3]));
  }
  return samples;
}

describe.each(storages("interlude_metrics"))("GET /metrics on %s", (name, storage) => {
  let server: TestServer;
  let client: Client;
  /** How far the server's clock is ahead of the real one. */
  let ahead = 0;
  beforeAll(async () => {
    server = await testServer({ ...(await storage()), now: () => Date.now() + ahead });
    client = server.client();
  }, 60_000);
  afterAll(() => server?.dispose());

  const metrics = async () => {
    const response = await fetch(`${server.url}/metrics`);
    expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    return parseExposition(await response.text());
  };

  it("counts a running run, a run queued behind it and an interrupt waiting for its answer", async () => {
    const paused = await client.threads.create();
    await client.runs.wait(paused.thread_id, "loop", { input: { rounds: 1 } });
    const busy = await client.threads.create();
    const gate = `metrics-${name}`;
    const first = await client.runs.create(busy.thread_id, "slow", { input: { tag: "a", hold: gate } });
    await until(async () => (await client.runs.get(busy.thread_id, first.run_id)).status === "running");
    const second = await client.runs.create(busy.thread_id, "slow", {
      input: { tag: "b", delay: 1, secondDelay: 1 },
      multitaskStrategy: "enqueue",
    });

    ahead = 90_000;
    const { status, body } = await json(`${server.url}/metrics?format=json`);
    expect(status).toBe(200);
    expect(body.queue).toMatchObject({ n_pending: 1, n_running: 1, pending_unblocked_runs_wait_time_max_secs: null });
    // Created a moment ago by the real clock: ~90 s by the server's.
    for (const wait of [body.queue.pending_runs_wait_time_max_secs, body.queue.pending_runs_wait_time_med_secs])
      expect(wait).toBeGreaterThanOrEqual(90);
    expect(body.queue.pending_runs_wait_time_max_secs).toBeLessThan(120);
    expect(body.interrupts).toMatchObject({ n_pending: 1, by_graph: { loop: 1 } });
    expect(body.interrupts.wait_time_max_secs).toBeGreaterThanOrEqual(90);
    expect(body.runs_executing).toBe(1);
    if (name === "SQLite") {
      expect(body.workers).toBeUndefined();
      expect(body.postgres).toBeUndefined();
    } else {
      expect(body.workers).toEqual({ max: 8, active: 1, available: 7 });
      expect(body.postgres.pool_max).toBe(20);
      expect(body.postgres.pool_size).toBeGreaterThan(0);
      expect(body.postgres.requests_waiting).toBe(0);
    }

    const text = await metrics();
    expect(text.get("lg_api_num_pending_runs")).toBe(1);
    expect(text.get("lg_api_num_running_runs")).toBe(1);
    expect(text.get("lg_api_pending_runs_wait_time_max")).toBeGreaterThanOrEqual(90);
    expect(text.get("lg_api_pending_unblocked_runs_wait_time_max")).toBe(0);
    expect(text.get('interlude_pending_interrupts{graph_id="loop"}')).toBe(1);
    // A served graph with nothing waiting keeps its series.
    expect(text.get('interlude_pending_interrupts{graph_id="approval"}')).toBe(0);
    expect(text.get("interlude_runs_executing")).toBe(1);
    expect(text.has("lg_api_workers_max")).toBe(name === "PostgreSQL");
    expect(text.has("lg_api_pg_pool_size")).toBe(name === "PostgreSQL");
    ahead = 0;

    openGate(gate);
    await client.runs.join(busy.thread_id, first.run_id);
    await client.runs.join(busy.thread_id, second.run_id);
    await client.runs.wait(paused.thread_id, "loop", { command: { resume: "yes" } });
    const idle = await json(`${server.url}/metrics?format=json`);
    expect(idle.body.queue).toEqual({
      n_pending: 0,
      n_running: 0,
      pending_runs_wait_time_max_secs: null,
      pending_runs_wait_time_med_secs: null,
      pending_unblocked_runs_wait_time_max_secs: null,
    });
    expect(idle.body.interrupts).toEqual({ n_pending: 0, by_graph: {}, wait_time_max_secs: null });
    // Four runs ended well here (a run that pauses for a human ends so too), and one fails.
    const failed = await client.threads.create();
    await client.runs.wait(failed.thread_id, "broken", { input: { x: 1 }, raiseError: false });
    expect((await json(`${server.url}/metrics?format=json`)).body.runs_ended).toEqual({ success: 4, error: 1 });
    const after = await metrics();
    expect(after.get('interlude_pending_interrupts{graph_id="loop"}')).toBe(0);
    expect(after.get("lg_api_pending_runs_wait_time_max")).toBe(0);
    expect(after.get('interlude_runs_ended_total{status="success"}')).toBe(4);
    expect(after.get('interlude_runs_ended_total{status="error"}')).toBe(1);
    expect(after.get('interlude_runs_ended_total{status="timeout"}')).toBe(0);
  });

  it("reads each wait from the queue's rows: the oldest, the median, and the oldest first in its thread's line", async () => {
    const db = server.backend.ctx.store.db;
    // [thread, run, status, seconds waited]; a thread's line is by creation.
    const rows = [
      ["mx", "mx-1", "running", 100], // X runs r1...
      ["mx", "mx-2", "pending", 50], // ...so r2 waits behind it
      ["my", "my-1", "pending", 40], // first in Y's line: unblocked
      ["my", "my-2", "pending", 30], // behind it
      ["mw", "mw-a", "pending", 20], // W: two created at once
      ["mw", "mw-b", "pending", 20],
      ["mz", "mz-1", "pending", 10], // first in Z's line
    ] as const;
    const now = Date.now();
    const at = (seconds: number) => new Date(now - seconds * 1000).toISOString();
    for (const [thread, run, status, waited] of rows)
      await db.run(
        `INSERT INTO interlude_server_runs (run_id, thread_id, assistant_id, created_at, updated_at, status, metadata,
           multitask_strategy, kwargs, identity, owner, attempt, error) VALUES (?, ?, 'loop', ?, ?, ?, '{}', 'enqueue', '{}', 'test', NULL, 1, NULL)`,
        [`metrics-${run}`, `metrics-${thread}`, at(waited), new Date(now).toISOString(), status],
      );
    try {
      const { body } = await json(`${server.url}/metrics?format=json`);
      expect(body.queue).toMatchObject({ n_pending: 6, n_running: 1 });
      // Waits {50, 40, 30, 20, 20, 10}: the median is between 30 and 20.
      expect(body.queue.pending_runs_wait_time_max_secs).toBeCloseTo(50, 0);
      expect(body.queue.pending_runs_wait_time_med_secs).toBeCloseTo(25, 0);
      expect(body.queue.pending_unblocked_runs_wait_time_max_secs).toBeCloseTo(40, 0);
      await db.run("DELETE FROM interlude_server_runs WHERE run_id IN ('metrics-my-1', 'metrics-mw-a')");
      const { body: later } = await json(`${server.url}/metrics?format=json`);
      // Waits {50, 30, 20, 10}; Y's second run is now first in its line.
      expect(later.queue.pending_runs_wait_time_med_secs).toBeCloseTo(25, 0);
      expect(later.queue.pending_unblocked_runs_wait_time_max_secs).toBeCloseTo(30, 0);
    } finally {
      await db.run("DELETE FROM interlude_server_runs WHERE run_id LIKE 'metrics-m%'");
    }
  });

  it("refuses an unknown format", async () => {
    const { status, body } = await json(`${server.url}/metrics?format=xml`);
    expect(status).toBe(422);
    expect(body.message).toMatch(/prometheus|json/);
  });
});

describe("GET /metrics behind API keys", () => {
  it("answers 401 without a key and the figures with one", async () => {
    const server = await testServer({ apiKeys: { "metrics-key": "prometheus" } });
    try {
      expect((await fetch(`${server.url}/metrics`)).status).toBe(401);
      const response = await fetch(`${server.url}/metrics`, { headers: { "x-api-key": "metrics-key" } });
      expect(response.status).toBe(200);
      expect(parseExposition(await response.text()).get("lg_api_num_pending_runs")).toBe(0);
    } finally {
      await server.dispose();
    }
  });
});

describe("interlude worker --port", () => {
  it("serves /ok and /metrics with the worker's own queue workers, and none of the API", async () => {
    const database = await testDatabase("interlude_metrics_worker");
    const worker = await startCli(
      ["worker", "--config", FIXTURE_CONFIG, "--postgres", database, "--concurrency", "3", "--port", "0"],
      /\/metrics on (http:\/\/\S+)/,
    );
    try {
      const url = worker.match[1]!;
      expect((await json(`${url}/ok`)).body).toEqual({ ok: true });
      const { body } = await json(`${url}/metrics?format=json`);
      expect(body.workers).toEqual({ max: 3, active: 0, available: 3 });
      expect(body.queue).toMatchObject({ n_pending: 0, n_running: 0 });
      expect((await json(`${url}/threads`, { method: "POST", body: "{}" })).status).toBe(404);
    } finally {
      await worker.stop();
    }
  }, 60_000);
});
