/**
 * A PostgreSQL offering SSL with a certificate its own CA signed, as managed databases do:
 * node-postgres checks the certificate for `sslmode=require` as for `verify-full`, where psql
 * only encrypts. A process refused so says what to change (the CA's file, or libpq's meaning),
 * and starts with either; asking for SSL from a server without it says that.
 */
import { PostgresSaver } from "@interlude/checkpoint-postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPostgres } from "../../../test/setup/postgres.mjs";
import { testPostgresUrl } from "../../../test/setup/urls.js";
import { serve, serveUntilExit } from "./processes.js";

const CONFIG = new URL("./fixtures/langgraph.json", import.meta.url).pathname;
let server: Awaited<ReturnType<typeof startPostgres>>;

beforeAll(async () => {
  server = await startPostgres({ ssl: true });
}, 60_000);
afterAll(() => server?.stop());

const withQuery = (url: string, query: string) => `${url}?${query}`;

describe("PostgreSQL over SSL, its certificate signed by a CA Node does not know", () => {
  it("sslmode=require: interlude serve exits 1 saying to give the CA or libpq's meaning; the saver says the same", async () => {
    const url = withQuery(server.url, "sslmode=require");
    const { code, stderr } = await serveUntilExit(CONFIG, url);
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /interlude: Checkpoint storage failed during startup on PostgreSQL at 127\.0\.0\.1:\d+\/postgres: /,
    );
    expect(stderr).toMatch(/Give the CA that signed it with sslrootcert=<file> .* or add uselibpqcompat=true/);
    const saver = PostgresSaver.fromConnString(url);
    try {
      const failure = await saver.getTuple({ configurable: { thread_id: "t" } }).catch((error: Error) => error);
      expect(failure).toMatchObject({ code: "STORAGE_FAILED" });
      expect((failure as Error).message).toMatch(
        /Nothing was written\. node-postgres verifies the server's certificate/,
      );
    } finally {
      await saver.end();
    }
  });

  it("starts with the CA given (verify-full), or with libpq's meaning of sslmode=require", async () => {
    for (const query of [
      `sslmode=verify-full&sslrootcert=${encodeURIComponent(server.caFile!)}`,
      "uselibpqcompat=true&sslmode=require",
    ]) {
      const child = await serve(["--config", CONFIG, "--postgres", withQuery(server.url, query)]);
      try {
        const ok = await fetch(`${child.url}/ok`);
        expect(ok.status).toBe(200);
      } finally {
        await child.stop();
      }
    }
  });
});

it("SSL asked of a server that does not offer it: says so", async () => {
  const url = withQuery(testPostgresUrl(), "uselibpqcompat=true&sslmode=require");
  const { code, stderr } = await serveUntilExit(CONFIG, url);
  expect(code).toBe(1);
  expect(stderr).toMatch(/The server does not support SSL connections\. The connection string asks for SSL/);
});
