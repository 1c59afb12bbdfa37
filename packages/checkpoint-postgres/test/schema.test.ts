/**
 * LangGraph's `schema` option: the saver's and the store's tables in a schema of their own,
 * created at setup if missing, whichever way LangGraph's users give it (`fromConnString(url, {
 * schema })`, `new PostgresSaver(pool, undefined, { schema })`, `new PostgresStore({
 * connectionOptions, schema })`). A pool passed in keeps its connections' search_path.
 */
import { ThreadWriter } from "@interlude/checkpoint-conformance";
import { PostgresSaver, PostgresStore } from "@interlude/checkpoint-postgres";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { testPostgresUrl } from "../../../test/setup/urls.js";

const url = testPostgresUrl();
const admin = new pg.Pool({ connectionString: url, max: 2 });
const made: string[] = [];
afterAll(async () => {
  for (const schema of made) await admin.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(schema)} CASCADE`);
  await admin.end();
});

/** A schema name no other test uses (not created: the saver's setup makes it). */
function freshSchema(label: string): string {
  const schema = `${label} ${process.pid} ${made.length}`;
  made.push(schema);
  return schema;
}

const tablesIn = async (schema: string) =>
  (
    await admin.query<{ tablename: string }>(
      "SELECT tablename FROM pg_tables WHERE schemaname = $1 ORDER BY tablename",
      [schema],
    )
  ).rows.map((r) => r.tablename);

describe("PostgresSaver in a schema of its own", () => {
  it("fromConnString with { schema } creates the schema and its tables there; a pool given the same way reads them, its own search_path untouched", async () => {
    // Capitals and a space: quoted wherever it is used.
    const schema = freshSchema("LangGraph Memory");
    const first = PostgresSaver.fromConnString(url, { schema });
    await first.setup();
    expect(await tablesIn(schema)).toEqual(expect.arrayContaining(["interlude_heads", "interlude_schema_version"]));
    const thread = new ThreadWriter(first);
    await thread.write({ draft: "Refund 120 EUR?" });
    await thread.write({ verdict: "approved" });

    const pool = new pg.Pool({ connectionString: url, max: 2 });
    const second = new PostgresSaver(pool, undefined, { schema });
    const elsewhere = new PostgresSaver(url);
    try {
      const read = await second.getTuple({ configurable: { thread_id: thread.threadId } });
      expect(read?.checkpoint.channel_values).toEqual({ draft: "Refund 120 EUR?", verdict: "approved" });
      expect(read?.checkpoint.id).toBe(thread.head);
      // A saver on the connection's search_path does not see the schema's thread.
      expect(await elsewhere.getTuple({ configurable: { thread_id: thread.threadId } })).toBeUndefined();
      // The pool given is the owner's: its connections still resolve names by their own search_path.
      expect(second.pool).not.toBe(pool);
      expect((await pool.query("SELECT current_schema() AS s")).rows[0].s).toBe("public");
      // close() leaves the given pool to its owner; end() ends it too, as LangGraph's end() does.
      await second.close();
      expect(pool.ended).toBe(false);
      await second.end();
      expect(pool.ended).toBe(true);
    } finally {
      await Promise.all([first.end(), second.end(), elsewhere.end()]);
    }
  });

  it("several savers setting the same new schema up at once all get it", async () => {
    const schema = freshSchema("burst");
    const savers = Array.from({ length: 4 }, () => PostgresSaver.fromConnString(url, { schema }));
    try {
      await Promise.all(savers.map((saver) => saver.setup()));
      expect(await tablesIn(schema)).toContain("interlude_heads");
    } finally {
      await Promise.all(savers.map((saver) => saver.end()));
    }
  });

  it("a search_path naming no schema that exists: setup says to give a schema, and with one it works", async () => {
    const url = new URL(testPostgresUrl());
    url.searchParams.set("options", "-c search_path=");
    const lost = PostgresSaver.fromConnString(url.toString());
    const found = PostgresSaver.fromConnString(url.toString(), { schema: freshSchema("hardened") });
    try {
      const failure = await lost.setup().catch((error: Error) => error);
      expect(failure).toMatchObject({ code: "STORAGE_FAILED" });
      expect((failure as Error).message).toMatch(
        /no schema has been selected to create in\. Nothing was written\. .*Give the saver or store a schema/,
      );
      await found.setup();
      const thread = new ThreadWriter(found);
      await thread.write({ ok: true });
      expect((await found.getTuple(thread.config))?.checkpoint.channel_values).toEqual({ ok: true });
    } finally {
      await Promise.all([lost.end(), found.end()]);
    }
  });

  it("refuses a schema that is not a name, and options given both second and third", () => {
    for (const schema of ["", 5, "x".repeat(64)])
      expect(() => PostgresSaver.fromConnString(url, { schema } as never)).toThrow(
        expect.objectContaining({ code: "INVALID_SAVER_OPTION", message: expect.stringContaining("schema") }),
      );
    expect(() => new PostgresSaver(url, { groupCommit: true }, { schema: "x" })).toThrow(
      /third argument .* left out when options are given second/,
    );
    // LangGraph's (pool, serde, options): the serializer goes in the options.
    const serde = { dumpsTyped: () => ["json", new Uint8Array()], loadsTyped: () => null };
    expect(() => new PostgresSaver(url, serde as never, { schema: "x" })).toThrow(
      /a serializer goes in it as \{ serde \}/,
    );
  });
});

describe("PostgresStore in a schema of its own", () => {
  it("LangGraph's { connectionOptions, schema } keeps its items there, apart from a store on the search_path", async () => {
    const schema = freshSchema("memories");
    const store = new PostgresStore({ connectionOptions: url, schema });
    const elsewhere = new PostgresStore(url);
    try {
      await store.put(["users", "u1"], "prefs", { tone: "brief" });
      expect(await tablesIn(schema)).toContain("interlude_store_items");
      expect((await store.get(["users", "u1"], "prefs"))?.value).toEqual({ tone: "brief" });
      expect(await elsewhere.get(["users", "u1"], "prefs")).toBeNull();
    } finally {
      await Promise.all([store.stop(), elsewhere.stop()]);
    }
  });

  it("refuses a schema that is not a name", () => {
    expect(() => new PostgresStore({ connectionOptions: url, schema: "" })).toThrow(
      expect.objectContaining({
        code: "INVALID_SAVER_OPTION",
        message: expect.stringContaining("PostgresStore's schema"),
      }),
    );
  });
});
