/**
 * `interlude serve --postgres` behind PgBouncer. In transaction mode a pooler lends each
 * transaction whichever server connection is free: the server's prepared statements failed at
 * random once several requests ran at once ("prepared statement ... already exists") and its
 * LISTEN heard nothing. It now refuses to start, saying why and what to connect to instead. In
 * session mode each connection keeps its session, and a deployment works as on PostgreSQL itself.
 */
import { fileURLToPath } from "node:url";
import { openBackend } from "@interlude/server";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startPgBouncer } from "../../../test/setup/pgbouncer.js";
// @ts-expect-error: a plain ESM script without types, shared with `npm run bench:server`.
import { runLoad } from "../bench/http-load.mjs";
import { type Child, serve, serveUntilExit, testDatabase } from "./processes.js";

const CONFIG = fileURLToPath(new URL("./fixtures/langgraph.json", import.meta.url));
let pooler: Awaited<ReturnType<typeof startPgBouncer>>;
let database: string;
const started: Child[] = [];

beforeAll(async () => {
  database = await testDatabase("interlude_pooler");
  pooler = await startPgBouncer(database);
});
afterAll(async () => {
  await Promise.all(started.map((child) => child.stop()));
  pooler?.stop();
});

it("behind a pooler in transaction mode, the server refuses to start and says what to connect to", async () => {
  const { code, stderr } = await serveUntilExit(CONFIG, pooler.urls.transaction);
  expect(code).toBe(1);
  expect(stderr).toMatch(
    /^interlude: The PostgreSQL connection string leads to a pooler that does not keep a connection's session/,
  );
  expect(stderr).toMatch(/pool_mode = session/);
});

it("behind a pooler in session mode, answers at once from many clients are each applied once, in order", async () => {
  // Sessions held for good: the server's connections (12) within the pooler's (20).
  const server = await serve(["--config", CONFIG, "--postgres", pooler.urls.session], {
    INTERLUDE_POSTGRES_CONNECTIONS: "12",
  });
  started.push(server);
  const clients = 10;
  const rounds = 10;
  const result = await runLoad({ urls: [server.url], clients, rounds });
  for (const [c, { final }] of (result.threads as Array<{ final: { answers: string[] } }>).entries())
    expect(final.answers).toEqual(Array.from({ length: rounds }, (_, n) => `c${c}-${n}`));
}, 120_000);

it("a schema asked for in the options parameter, which PgBouncer refuses: the advice is the database user's setting, which works", async () => {
  const inOptions = new URL(pooler.urls.session);
  inOptions.searchParams.set("options", "-c search_path=staging");
  const { code, stderr } = await serveUntilExit(CONFIG, inOptions.toString());
  expect(code).toBe(1);
  expect(stderr).toMatch(
    /unsupported startup parameter: options\. A pooler in front of PostgreSQL \(PgBouncer\) refuses/,
  );
  expect(stderr).toMatch(/ALTER ROLE <user> IN DATABASE <database> SET search_path = <schema>/);
  // Done as advised, for this database only: the deployment works in the schema, through the pooler.
  // (A session starts with the setting: the server connections the pooler opens from here on; the
  // session-mode server above still holds the ones it opened before.)
  const admin = new pg.Client({ connectionString: database });
  await admin.connect();
  const name = new URL(database).pathname.slice(1);
  try {
    await admin.query(`CREATE SCHEMA staging; ALTER ROLE postgres IN DATABASE ${name} SET search_path = staging`);
    const backend = await openBackend({ postgresUrl: pooler.urls.session, postgresConnections: 7 });
    try {
      expect(backend.storage).toMatch(/, schema staging$/);
      const { rows } = await admin.query(
        "SELECT 1 FROM pg_tables WHERE schemaname = 'staging' AND tablename = 'interlude_server_runs'",
      );
      expect(rows).toHaveLength(1);
    } finally {
      await backend.close();
    }
  } finally {
    await admin.query(`ALTER ROLE postgres IN DATABASE ${name} RESET search_path`);
    await admin.end();
  }
}, 60_000);
