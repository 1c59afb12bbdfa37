/**
 * A process that cannot use its PostgreSQL at start says where it tried, why, and what to check,
 * without the connection string's password; a value that is not a connection string is refused
 * before anything is tried (node-postgres would read it as a URL relative to a made-up host).
 */
import { openBackend } from "@interlude/server";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { freePort } from "../../../test/setup/postgres.mjs";
import { testPostgresUrl } from "../../../test/setup/urls.js";
import { serveUntilExit, testDatabase } from "./processes.js";

const CONFIG = new URL("./fixtures/langgraph.json", import.meta.url).pathname;

/** What opening a backend on `postgresUrl` fails with. */
async function failureOn(postgresUrl: string): Promise<Error & { code: string }> {
  const backend = await openBackend({ postgresUrl }).catch((error: unknown) => error);
  if (!(backend instanceof Error)) throw new Error("the backend opened");
  return backend as Error & { code: string };
}

describe("a process starting on a PostgreSQL it cannot use", () => {
  it("nobody listening: STORAGE_FAILED naming the host, port and database, not the password", async () => {
    const port = await freePort();
    const failure = await failureOn(`postgres://ann:s3cret@127.0.0.1:${port}/orders`);
    expect(failure.code).toBe("STORAGE_FAILED");
    expect(failure.message).toContain(`startup on PostgreSQL at 127.0.0.1:${port}/orders: connect ECONNREFUSED`);
    expect(failure.message).toMatch(/Check the connection string \(--postgres or DATABASE_URL\)/);
    expect(failure.message).not.toMatch(/s3cret|thread is unchanged/);
  });

  it("a database that does not exist: the server's own words, and the CLI exits 1 with them", async () => {
    const url = new URL(testPostgresUrl());
    url.pathname = "/no_such_database";
    const { code, stderr } = await serveUntilExit(CONFIG, url.toString());
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /^interlude: Checkpoint storage failed during startup on PostgreSQL at 127\.0\.0\.1:\d+\/no_such_database: database "no_such_database" does not exist\. Check/,
    );
  });

  it("a value that is not a connection string: CONFIG_INVALID, the value not repeated", async () => {
    for (const postgresUrl of ["localhost", "host=db password=s3cret"]) {
      const failure = await failureOn(postgresUrl);
      expect(failure.code).toBe("CONFIG_INVALID");
      expect(failure.message).toMatch(/give it as postgres:\/\/user:password@host:5432\/database/);
      expect(failure.message).not.toContain("s3cret");
    }
  });

  it("a database user without the rights setup needs: each named with the GRANT that gives it; with both it starts", async () => {
    const owner = await testDatabase("interlude_rights");
    const database = new URL(owner).pathname.slice(1);
    const user = `interlude_limited_${process.pid}`;
    const admin = new pg.Client({ connectionString: owner });
    await admin.connect();
    const asUser = new URL(owner);
    asUser.username = user;
    try {
      // As PostgreSQL 15 and later have it, whatever this server's version.
      await admin.query(`CREATE ROLE ${user} LOGIN; REVOKE CREATE ON SCHEMA public FROM PUBLIC`);
      const noTables = await failureOn(asUser.toString());
      expect(noTables.code).toBe("STORAGE_FAILED");
      expect(noTables.message).toMatch(
        /permission denied for schema public\. The database user may not create tables in schema public .*GRANT CREATE ON SCHEMA public TO <user>/,
      );
      await admin.query(`GRANT CREATE ON SCHEMA public TO ${user}`);
      // The tables made, pg-boss's schema is refused: said as the saver's refusal is, no stack.
      const noSchemas = await failureOn(asUser.toString());
      expect(noSchemas.code).toBe("STORAGE_FAILED");
      expect(noSchemas.message).toMatch(
        new RegExp(`permission denied for database ${database}\\. .*GRANT CREATE ON DATABASE ${database} TO <user>`),
      );
      await admin.query(`GRANT CREATE ON DATABASE ${database} TO ${user}`);
      const backend = await openBackend({ postgresUrl: asUser.toString() });
      await backend.close();
    } finally {
      await admin.query(`DROP OWNED BY ${user}; DROP ROLE IF EXISTS ${user}`).catch(() => undefined);
      await admin.end();
    }
  }, 60_000);

  it("a database that takes no writes (a standby, or default_transaction_read_only): says to connect to the primary", async () => {
    const url = await testDatabase("interlude_read_only", { default_transaction_read_only: "on" });
    const failure = await failureOn(url);
    expect(failure.code).toBe("STORAGE_FAILED");
    expect(failure.message).toMatch(
      /read-only transaction\. The PostgreSQL this connects to takes no writes.*Connect to the primary/,
    );
  });
});
