import { describeStoreConformance } from "@interlude/checkpoint-conformance";
import { PostgresStore } from "@interlude/checkpoint-postgres";
import pg from "pg";
import { describe, expect, inject, it } from "vitest";

const url = inject("postgresUrl") ?? process.env.INTERLUDE_TEST_POSTGRES_URL;
if (!url) throw new Error("No test PostgreSQL: run `npm test` (scripts/test.sh), which installs and starts one.");

describeStoreConformance(
  "PostgresStore",
  async () => {
    const pools = [new pg.Pool({ connectionString: url, max: 3 })];
    const store = new PostgresStore(pools[0]!);
    await store.setup();
    return {
      store,
      reopen: async () => {
        const pool = new pg.Pool({ connectionString: url, max: 2 });
        pools.push(pool);
        return new PostgresStore(pool);
      },
      close: async () => {
        for (const pool of pools) await pool.end();
      },
    };
  },
  { durable: true },
);

describe("PostgresStore as LangGraph builds it", () => {
  it("opens from a connection string or LangGraph's config object, at the /store specifier too", async () => {
    const { PostgresStore: FromSubpath } = await import("@interlude/checkpoint-postgres/store");
    const stores = [PostgresStore.fromConnString(url), new FromSubpath({ connectionOptions: url })];
    for (const [i, store] of stores.entries()) {
      await store.put(["specifiers", `s${i}`], "k", { i });
      expect((await store.get(["specifiers", `s${i}`], "k"))?.value).toEqual({ i });
      await store.delete(["specifiers", `s${i}`], "k");
      await store.stop();
    }
  });

  it("refuses LangGraph options it does not implement, naming what to do instead", () => {
    expect(() => new PostgresStore({ connectionOptions: url, ttl: { defaultTtl: 5 } } as never)).toThrow(
      expect.objectContaining({ code: "UNSUPPORTED_STORE_OPTION", message: expect.stringContaining("ttl") }),
    );
    expect(() => new PostgresStore({ connectionOptions: url, index: {} } as never)).toThrow(/index/);
  });
});
