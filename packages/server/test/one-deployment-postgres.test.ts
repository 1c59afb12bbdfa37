/**
 * One deployment per PostgreSQL database: its processes share the database's LISTEN channels and
 * pg-boss's schema besides their tables, so a second deployment with its tables in another schema
 * of the same database (its search_path) would take the first's queued runs and hear its events.
 * It refuses to start instead; one deployment alone in a schema of its own starts.
 */
import { type Backend, openBackend } from "@interlude/server";
import { afterAll, expect, it } from "vitest";
import { databaseForFile } from "./processes.js";

const database = databaseForFile("interlude_one_deployment");
const opened: Backend[] = [];
afterAll(async () => {
  await Promise.all(opened.map((backend) => backend.close()));
});

/** The database's URL with `schema` first in the search_path. */
function inSchema(schema: string): string {
  const url = new URL(database.url);
  url.searchParams.set("options", `-c search_path=${schema}`);
  return url.toString();
}

it("a deployment alone in a schema of its own starts; a second one in another schema of the database is refused", async () => {
  await database.sql.query("CREATE SCHEMA staging; CREATE SCHEMA production");
  opened.push(await openBackend({ postgresUrl: inSchema("staging") }));
  const tables = await database.sql.query(
    "SELECT 1 FROM pg_tables WHERE schemaname = 'staging' AND tablename = 'interlude_server_runs'",
  );
  expect(tables.rowCount).toBe(1);
  const refused = await openBackend({ postgresUrl: inSchema("production") }).then(
    (backend) => (opened.push(backend), undefined),
    (error: unknown) => error as Error & { code: string },
  );
  expect(refused?.code).toBe("CONFIG_INVALID");
  expect(refused?.message).toMatch(/another Interlude deployment's tables, in schema "staging".*schema "production"/);
  expect(refused?.message).toMatch(/Give each deployment a database of its own/);
  // Refused before it set anything up there.
  const created = await database.sql.query("SELECT 1 FROM pg_tables WHERE schemaname = 'production'");
  expect(created.rowCount).toBe(0);
}, 60_000);
