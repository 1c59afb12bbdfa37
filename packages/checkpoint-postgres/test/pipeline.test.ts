/**
 * The one-exchange statements (src/pipeline.ts) and the saver's statements sent through them
 * honour what `pool.query` honoured: a connection's `query_timeout`, and a connection cut while
 * a statement is under way failing that statement alone.
 */
import { ThreadWriter } from "@interlude/checkpoint-conformance";
import { PostgresSaver } from "@interlude/checkpoint-postgres";
import { pipelined } from "@interlude/checkpoint-postgres/pipeline";
import { StorageError } from "@interlude/core";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { testPostgresUrl } from "../../../test/setup/urls.js";
import { wrapStatements } from "./fixtures/statements.js";

const url = testPostgresUrl();

const closing: Array<{ end(): Promise<void> }> = [];
afterAll(async () => {
  await Promise.all(closing.map((c) => c.end()));
});

const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === "Timeout").length;

describe("statements in one exchange", () => {
  it("fail with the connection's query_timeout when they run longer, and leave no timer when they do not", async () => {
    const client = new pg.Client({ connectionString: url, query_timeout: 200 });
    closing.push(client);
    await client.connect();
    const before = timers();
    expect(await pipelined(client, [{ text: "SELECT 1 AS one", values: [] }])).toEqual([
      { rows: [{ one: 1 }], rowCount: 1 },
    ]);
    // The timer set for the exchange is cleared with its answer, not left to fire later.
    expect(timers()).toBe(before);
    const started = Date.now();
    await expect(pipelined(client, [{ text: "SELECT pg_sleep(5)", values: [] }])).rejects.toThrow("Query read timeout");
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("a saver's statement whose connection is cut fails alone, and the saver works on", async () => {
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    pool.on("error", () => {});
    closing.push(pool);
    const saver = new PostgresSaver(pool);
    const thread = new ThreadWriter(saver);
    await thread.write({ topic: "a" });
    // The backend ends itself in the middle of the saver's next statement.
    const undo = wrapStatements(saver, (statement, send) =>
      send({ text: "SELECT pg_terminate_backend(pg_backend_pid())", values: [] }).then(() => send(statement)),
    );
    await expect(saver.getTuple(thread.config)).rejects.toBeInstanceOf(StorageError);
    undo();
    expect((await saver.getTuple(thread.config))?.checkpoint.channel_values).toEqual({ topic: "a" });
  });
});
