/**
 * Several deployments in one PostgreSQL database, a schema each (their search_path): the bus's
 * channels, its watch lock and pg-boss's schema are named after the deployment's schema
 * (store/deployment-names.ts), so that neither hears the other's events nor takes its queued runs.
 */
import { expect, it } from "vitest";
import { deploymentNames } from "../dist/store/deployment-names.js";
import { followSse, type TestServer, testServer, until } from "./helpers.js";
import { databaseForFile } from "./processes.js";

const database = databaseForFile("interlude_schemas");

/** The database's URL with `schema` first in the search_path. */
function inSchema(schema: string): string {
  const url = new URL(database.url);
  url.searchParams.set("options", `-c search_path=${schema}`);
  return url.toString();
}

it("names are per schema: public keeps the names it had, others are valid identifiers of their own", () => {
  expect(deploymentNames("public")).toEqual({
    schema: "public",
    busChannel: "interlude_server_events",
    watchChannel: "interlude_server_watched",
    watchLock: 7_163_524_011,
    queueSchema: "interlude_pgboss",
  });
  expect(deploymentNames("staging")).toMatchObject({
    busChannel: "interlude_server_events_staging",
    queueSchema: "interlude_pgboss_staging",
  });
  const schemas = ["public", "staging", "production", "Prod-EU", "é", "x".repeat(63), "x".repeat(62)];
  const names = schemas.map(deploymentNames);
  for (const field of ["busChannel", "watchChannel", "watchLock", "queueSchema"] as const)
    expect(new Set(names.map((n) => n[field])).size).toBe(schemas.length);
  for (const n of names) {
    // pg-boss's rule for its schema; PostgreSQL's for an unquoted identifier (channels).
    expect(n.queueSchema).toMatch(/^[a-z_][a-z0-9_]{0,49}$/);
    for (const channel of [n.busChannel, n.watchChannel]) expect(channel).toMatch(/^[a-z_][a-z0-9_]{0,62}$/);
    expect(Number.isSafeInteger(n.watchLock)).toBe(true);
  }
  // Other schemas' locks stay clear of the 32-bit keys (the store's thread locks).
  for (const n of names.slice(1)) expect(n.watchLock).toBeGreaterThan(2 ** 32);
});

it("a search_path that names no schema which exists is refused, saying what to do", async () => {
  const { openBackend } = await import("@interlude/server");
  const refused = await openBackend({ postgresUrl: inSchema("nowhere") }).then(
    (backend) => backend.close().then(() => undefined),
    (error: unknown) => error as Error & { code: string },
  );
  expect(refused?.code).toBe("CONFIG_INVALID");
  expect(refused?.message).toMatch(/No schema of the connection's search_path exists.*CREATE SCHEMA/);
});

it("two deployments in two schemas of one database run their own queued runs and hear only their own events", async () => {
  await database.sql.query("CREATE SCHEMA staging; CREATE SCHEMA production");
  const servers: TestServer[] = [];
  const streams: Array<{ close(): void }> = [];
  try {
    // In each deployment, one server only enqueues (its runs go through pg-boss), one executes.
    const start = async (schema: string) => {
      const enqueues = await testServer({ postgresUrl: inSchema(schema), concurrency: 0 });
      servers.push(enqueues);
      const executes = await testServer({ postgresUrl: inSchema(schema) });
      servers.push(executes);
      return [enqueues, executes] as const;
    };
    const [staging, s2] = await start("staging");
    const [p1, p2] = await start("production");
    // Each says where it keeps everything (the CLI's banner), its schema included, no credentials.
    expect(staging.backend.storage).toMatch(/^PostgreSQL at 127\.0\.0\.1:\d+\/interlude_schemas_\w+, schema staging$/);
    expect(p1.backend.storage).toMatch(/, schema production$/);

    // Queued runs: a run whose job the other deployment took would not be found there, and
    // would wait a lease for the stranded-run look.
    const queued = async (server: TestServer, tag: string) => {
      const thread = await server.client().threads.create();
      const run = await server.client().runs.create(thread.thread_id, "slow", { input: { tag, delay: 1 } });
      return { server, threadId: thread.thread_id, runId: run.run_id, tag };
    };
    const runs = await Promise.all(
      Array.from({ length: 8 }, (_, i) => queued(i % 2 ? staging : p1, `${i % 2 ? "s" : "p"}${i}`)),
    );
    const joined = Promise.all(
      runs.map(async ({ server, threadId, runId, tag }) => {
        const values = (await server.client().runs.join(threadId, runId)) as { log: string[] };
        expect(values.log).toEqual([`first:${tag}`, `second:${tag}`]);
        return (await server.client().runs.get(threadId, runId)).status;
      }),
    );
    const inTime = new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error("queued runs not done in 15 s")), 15_000).unref(),
    );
    expect(await Promise.race([joined, inTime])).toEqual(Array(8).fill("success"));
    // Each run's job went to its own deployment's queue.
    for (const { server, runId } of runs) {
      const schema = server === staging ? "interlude_pgboss_staging" : "interlude_pgboss_production";
      const { rowCount } = await database.sql.query(
        `SELECT 1 FROM ${schema}.job WHERE data->>'run_id' = $1 UNION ALL SELECT 1 FROM ${schema}.archive WHERE data->>'run_id' = $1`,
        [runId],
      );
      expect(rowCount).toBe(1);
    }

    // Inbox streams: staging's hears its own question and none of production's; production's
    // hears the questions asked through its other server.
    const stagingInbox = await followSse(`${s2.url}/inbox/events`);
    const productionInbox = await followSse(`${p2.url}/inbox/events`);
    streams.push(stagingInbox, productionInbox);
    const ask = async (server: TestServer) => {
      const thread = await server.client().threads.create();
      await server.client().runs.wait(thread.thread_id, "loop", { input: { rounds: 1 } });
      return thread.thread_id;
    };
    // Notifications arrive in commit order: a question the stream did not have when a later
    // one came was not sent to it.
    const earlier = await ask(p1);
    const askedInStaging = await ask(staging);
    const later = await ask(p1);
    const created = (events: typeof stagingInbox.events, threadId: string) =>
      events.some((e) => e.event === "interrupt.created" && e.data.thread_id === threadId);
    await until(async () => created(stagingInbox.events, askedInStaging));
    expect(created(stagingInbox.events, earlier)).toBe(false);
    await until(async () => created(productionInbox.events, later));
    expect(created(productionInbox.events, earlier)).toBe(true);
    expect(created(productionInbox.events, askedInStaging)).toBe(false);
  } finally {
    for (const stream of streams) stream.close();
    await Promise.all(servers.map((server) => server.dispose()));
  }
}, 90_000);
