/**
 * A job whose handling failed while the database was away is failed once it is back, so that
 * pg-boss retries it now: were its failure not stored, the job would stay taken, and a queued
 * run pending, until pg-boss expires it (runs/queue-consumer.ts).
 */

import pg from "pg";
import PgBoss from "pg-boss";
import { afterAll, beforeAll, expect, it } from "vitest";
import { testPostgresUrl } from "../../../test/setup/urls.js";
import { QueueConsumer } from "../dist/runs/queue-consumer.js";
import { until } from "./helpers.js";
import { testDatabase } from "./processes.js";

let database: string;
let boss: PgBoss;
let admin: pg.Client;
const name = () => new URL(database).pathname.slice(1);

beforeAll(async () => {
  database = await testDatabase("interlude_queue_consumer");
  boss = new PgBoss({ connectionString: database, schema: "consumer_test", schedule: false, max: 2 });
  boss.on("error", () => undefined);
  await boss.start();
  await boss.createQueue("work");
  // On the server's own database: it stays connected while the test's database refuses connections.
  admin = new pg.Client({ connectionString: testPostgresUrl() });
  await admin.connect();
}, 60_000);
afterAll(async () => {
  await admin?.query(`ALTER DATABASE ${name()} ALLOW_CONNECTIONS true`).catch(() => undefined);
  await admin?.end();
  await boss?.stop({ graceful: false, wait: true }).catch(() => undefined);
});

it("a job whose handler failed while the database refused connections is retried once it takes them again", async () => {
  const tries: number[] = [];
  const consumer = new QueueConsumer<{ n: number }>(boss, {
    queue: "work",
    slots: 1,
    safetyPollMs: 200,
    handle: async () => {
      tries.push(Date.now());
      if (tries.length > 1) return;
      // The database goes away under the handler: its failure cannot be stored now.
      await admin.query(`ALTER DATABASE ${name()} ALLOW_CONNECTIONS false`);
      await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", [name()]);
      throw new Error("the first try fails");
    },
  });
  try {
    await boss.send("work", { n: 1 }, { retryLimit: 3, retryDelay: 0, expireInSeconds: 900 });
    consumer.wake();
    await until(async () => tries.length >= 1);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await admin.query(`ALTER DATABASE ${name()} ALLOW_CONNECTIONS true`);
    // Retried within seconds, not once pg-boss expires the job (900 s here).
    await until(async () => tries.length >= 2, 10_000);
    expect(tries.length).toBe(2);
  } finally {
    await consumer.stop();
  }
}, 30_000);
