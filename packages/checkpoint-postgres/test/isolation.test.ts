/**
 * The saver's statements are written for read committed transactions. Connections it makes set
 * that for their sessions whatever the database's default; a pool passed in keeps its owner's
 * settings, so one whose transactions default to another level is refused at setup instead of
 * failing at random under load.
 */
import { ThreadWriter } from "@interlude/checkpoint-conformance";
import { PostgresSaver } from "@interlude/checkpoint-postgres";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { testPostgresUrl } from "../../../test/setup/urls.js";

/** The test server's URL with its sessions' transactions defaulting to `level`. */
function defaulting(level = "serializable"): string {
  const url = new URL(testPostgresUrl());
  url.searchParams.set("options", `-c default_transaction_isolation=${level.replace(" ", "\\ ")}`);
  return url.toString();
}
const serializable = () => defaulting();

describe("PostgresSaver on a database defaulting to serializable transactions", () => {
  it("a saver making its own connections: concurrent writes on many threads all land", async () => {
    const saver = PostgresSaver.fromConnString(serializable());
    try {
      const threads = Array.from({ length: 16 }, () => new ThreadWriter(saver));
      for (let step = 0; step < 5; step++) await Promise.all(threads.map((t) => t.write({ step })));
      for (const thread of threads) {
        const read = await saver.getTuple(thread.config);
        expect(read?.checkpoint.id).toBe(thread.head);
        expect(read?.checkpoint.channel_values).toEqual({ step: 4 });
      }
    } finally {
      await saver.end();
    }
  }, 60_000);

  it("savers of four processes racing for the claims of the same threads (repeatable read by default): one takes each, the others are told no", async () => {
    const savers = Array.from({ length: 4 }, () => PostgresSaver.fromConnString(defaulting("repeatable read")));
    try {
      for (let round = 0; round < 10; round++) {
        const threadId = `race-${process.pid}-${Date.now()}-${round}`;
        const taken = await Promise.all(
          savers.map((saver, i) => saver.claimThread(threadId, { owner: `run-${i}`, ttlMs: 60_000 })),
        );
        expect(taken.filter(Boolean)).toHaveLength(1);
      }
    } finally {
      await Promise.all(savers.map((saver) => saver.end()));
    }
  });

  it("a pool passed in, its owner's sessions serializable: refused at setup, saying what to do", async () => {
    const pool = new pg.Pool({ connectionString: serializable(), max: 2 });
    const saver = new PostgresSaver(pool);
    try {
      const refused = await saver.setup().catch((error: Error) => error);
      expect(refused).toMatchObject({ code: "INVALID_SAVER_OPTION" });
      expect((refused as Error).message).toMatch(
        /The pool's default_transaction_isolation is serializable; it must be read committed.*pass a connection string/,
      );
      // Its owner's connections are left as they were.
      expect((await pool.query("SHOW default_transaction_isolation")).rows[0].default_transaction_isolation).toBe(
        "serializable",
      );
    } finally {
      await saver.end();
    }
  });
});
