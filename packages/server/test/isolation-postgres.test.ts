/**
 * A database whose transactions default to another isolation level than read committed (some
 * hardening guides set serializable): every statement of the server is written for read
 * committed, and under load answers failed at random ("could not serialize access"). Each
 * connection the server keeps now sets its own sessions' level (session-settings.ts).
 */
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain ESM script without types, shared with `npm run bench:server`.
import { runLoad } from "../bench/http-load.mjs";
import { testServer } from "./helpers.js";
import { testDatabase } from "./processes.js";

describe.each(["serializable", "repeatable read"])("a database defaulting to %s transactions", (level) => {
  it("20 clients answering at once: every answer applied once, in order", async () => {
    const url = await testDatabase("interlude_isolation", { default_transaction_isolation: level });
    const server = await testServer({ postgresUrl: url });
    try {
      const clients = 20;
      const rounds = 8;
      const result = await runLoad({ urls: [server.url], clients, rounds });
      for (const [c, { final }] of (result.threads as Array<{ final: { answers: string[] } }>).entries())
        expect(final.answers).toEqual(Array.from({ length: rounds }, (_, n) => `c${c}-${n}`));
    } finally {
      await server.dispose();
    }
  }, 120_000);
});
