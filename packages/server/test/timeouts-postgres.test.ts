/**
 * A database whose hardening sets timeouts for everyone (managed services and hardening guides
 * do): a transaction left idle is ended (`idle_in_transaction_session_timeout`), a statement or a
 * lock wait that runs long is cancelled. The server holds no transaction while a node runs (a
 * model call can take minutes) and no statement of its own waits long, so runs slower than every
 * timeout, queued runs, answers and 20 clients at once all go through.
 */
import pg from "pg";
import { expect, it } from "vitest";
// @ts-expect-error: a plain ESM script without types, shared with `npm run bench:server`.
import { runLoad } from "../bench/http-load.mjs";
import { testServer } from "./helpers.js";
import { testDatabase } from "./processes.js";

const TIMEOUTS = {
  idle_in_transaction_session_timeout: "1s",
  statement_timeout: "5s",
  lock_timeout: "2s",
};
// Each of the slow graph's two steps outlasts the idle-transaction timeout.
const STEP_MS = 1_300;

it("runs slower than the database's timeouts, queued runs, answers and 20 clients at once all go through", async () => {
  const url = await testDatabase("interlude_timeouts", TIMEOUTS);
  // What a connection holding a transaction across a step would meet: PostgreSQL ends it.
  const holder = new pg.Client({ connectionString: url });
  await holder.connect();
  const ended = new Promise<unknown>((resolve) => holder.on("error", resolve));
  await holder.query("BEGIN");
  expect(await ended).toMatchObject({ code: "25P03" });
  await holder.end().catch(() => undefined);
  const server = await testServer({ postgresUrl: url });
  try {
    const client = server.client();
    // One run waited for, one queued and joined: each step longer than a transaction may idle.
    const [waited, queued] = await Promise.all([client.threads.create(), client.threads.create()]);
    const background = await client.runs.create(queued.thread_id, "slow", { input: { tag: "q", delay: STEP_MS } });
    const done = (await client.runs.wait(waited.thread_id, "slow", { input: { tag: "w", delay: STEP_MS } })) as any;
    expect(done.log).toEqual(["first:w", "second:w"]);
    expect(((await client.runs.join(queued.thread_id, background.run_id)) as any).log).toEqual(["first:q", "second:q"]);
    expect((await client.runs.get(queued.thread_id, background.run_id)).status).toBe("success");

    const rounds = 6;
    const result = await runLoad({ urls: [server.url], clients: 20, rounds });
    for (const [c, { final }] of (result.threads as Array<{ final: { answers: string[] } }>).entries())
      expect(final.answers).toEqual(Array.from({ length: rounds }, (_, n) => `c${c}-${n}`));
  } finally {
    await server.dispose();
  }
}, 120_000);
