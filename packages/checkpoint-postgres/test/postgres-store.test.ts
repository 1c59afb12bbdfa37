import { describeStoreConformance } from "@interlude/checkpoint-conformance";
import { PostgresStore } from "@interlude/checkpoint-postgres";
import pg from "pg";
import { inject } from "vitest";

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
