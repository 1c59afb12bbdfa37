/**
 * Behind a pooler that lends a server connection per transaction or per statement (PgBouncer's
 * `pool_mode = transaction` or `statement`), the saver's prepared statements and the server's
 * LISTEN would fail at random under load: the setup refuses such a connection string with
 * TransactionPoolerError. A pooler in session mode keeps each connection's session, and works.
 */
import { ThreadWriter } from "@interlude/checkpoint-conformance";
import { PostgresSaver, PostgresStore, TransactionPoolerError } from "@interlude/checkpoint-postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PoolMode, startPgBouncer } from "../../../test/setup/pgbouncer.js";
import { testPostgresUrl } from "../../../test/setup/urls.js";

let pooler: Awaited<ReturnType<typeof startPgBouncer>>;

beforeAll(async () => {
  // The tables exist already: a refusal is the check's, not a migration's.
  const direct = new PostgresSaver(testPostgresUrl());
  await direct.setup();
  await direct.close();
  pooler = await startPgBouncer(testPostgresUrl());
});
afterAll(() => pooler?.stop());

describe.each<PoolMode>(["transaction", "statement"])("behind a pooler in %s mode", (mode) => {
  it("the saver's and the store's setup refuse the connection string, saying what to connect to instead", async () => {
    const saver = new PostgresSaver(pooler.urls[mode]);
    const store = new PostgresStore(pooler.urls[mode]);
    try {
      const refused = await saver.setup().catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(TransactionPoolerError);
      expect(refused).toMatchObject({ code: "TRANSACTION_POOLER" });
      expect((refused as Error).message).toMatch(/pool_mode = session/);
      await expect(store.setup()).rejects.toBeInstanceOf(TransactionPoolerError);
      // A saver used without its setup checks on first use.
      await expect(saver.getTuple({ configurable: { thread_id: "t" } })).rejects.toBeInstanceOf(TransactionPoolerError);
    } finally {
      await saver.close();
      await store.stop();
    }
  });
});

describe("behind a pooler in session mode", () => {
  it("the saver sets up, writes and reads as on a direct connection", async () => {
    const saver = new PostgresSaver(pooler.urls.session);
    try {
      await saver.setup();
      const writer = new ThreadWriter(saver);
      expect(await saver.claimThread(writer.threadId, { owner: "run-a", ttlMs: 60_000 })).toBe(true);
      await writer.write({ step: "first" }, {}, { expectedHead: null });
      await writer.write({ step: "second" }, {}, { expectedHead: writer.head! });
      const tuple = await saver.getTuple({ configurable: { thread_id: writer.threadId } });
      expect(tuple?.checkpoint.channel_values).toEqual({ step: "second" });
    } finally {
      await saver.close();
    }
  });
});
