import { describeStoreConformance } from "@interlude/checkpoint-conformance";
import { PostgresStore } from "@interlude/checkpoint-postgres";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { testPostgresUrl } from "../../../test/setup/urls.js";

const url = testPostgresUrl();

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
      // Stopped again, or closed after: nothing more to do, and no pg error for a pool ended twice.
      await expect(store.stop()).resolves.toBeUndefined();
      await expect(store.close()).resolves.toBeUndefined();
    }
  });

  it("refuses LangGraph options it does not implement, naming what to do instead", () => {
    expect(() => new PostgresStore({ connectionOptions: url, ttl: { defaultTtl: 5 } } as never)).toThrow(
      expect.objectContaining({ code: "UNSUPPORTED_STORE_OPTION", message: expect.stringContaining("ttl") }),
    );
    expect(() => new PostgresStore({ connectionOptions: url, index: {} } as never)).toThrow(/index/);
  });

  it("refuses an option it does not know instead of opening a pool on the default server", () => {
    // A pool's config given at the top: ignored, the pool would connect to PGHOST or localhost.
    expect(() => new PostgresStore({ connectionString: url } as never)).toThrow(
      expect.objectContaining({
        code: "UNSUPPORTED_STORE_OPTION",
        message: expect.stringContaining("connectionOptions:"),
      }),
    );
    expect(() => PostgresStore.fromConnString(url, { ensureTable: false } as never)).toThrow(
      /ensureTable .*PostgresStore takes connectionOptions, ensureTables/,
    );
  });
});

describe("PostgresStore's LangGraph maintenance calls, side by side with LangGraph's", () => {
  it("getStats counts items and namespaces as LangGraph's does; sweepExpiredItems removes none, items never expiring", async () => {
    const { PostgresStore: LangGraphStore } = await import("@langchain/langgraph-checkpoint-postgres/store");
    const stores = { langgraph: new LangGraphStore({ connectionOptions: url }), interlude: new PostgresStore(url) };
    const seen: Record<string, unknown> = {};
    for (const [name, store] of Object.entries(stores)) {
      await store.start();
      const before = await store.getStats();
      const started = Date.now();
      const run = `${name}-${started}`;
      await store.put(["stats", run, "a"], "k1", { n: 1 });
      await store.put(["stats", run, "a"], "k2", { n: 2 });
      await store.put(["stats", run, "b"], "k1", { n: 3 });
      const after = await store.getStats();
      seen[name] = {
        added: after.totalItems - before.totalItems,
        newNamespaces: after.namespaceCount - before.namespaceCount,
        expired: after.expiredItems,
        newestIsDate: after.newestItem instanceof Date,
        newestIsRecent: (after.newestItem?.getTime() ?? 0) >= started - 1000,
        oldestNoLater: (after.oldestItem?.getTime() ?? 0) <= (after.newestItem?.getTime() ?? 0),
        swept: await store.sweepExpiredItems(),
        keptAfterSweep: (await store.getStats()).totalItems - before.totalItems,
      };
      for (const [namespace, key] of [
        ["a", "k1"],
        ["a", "k2"],
        ["b", "k1"],
      ] as const)
        await store.delete(["stats", run, namespace], key);
      await store.stop();
    }
    const expected = {
      added: 3,
      newNamespaces: 2,
      expired: 0,
      newestIsDate: true,
      newestIsRecent: true,
      oldestNoLater: true,
      swept: 0,
      keptAfterSweep: 3,
    };
    expect(seen).toEqual({ langgraph: expected, interlude: expected });
  });
});
