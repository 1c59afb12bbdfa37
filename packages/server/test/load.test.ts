/**
 * Bounded load on loopback against `interlude serve` in its own process (bench/load.mjs): 20
 * clients each pause and resume their own thread, first as fast as they can, then paced at 500
 * round trips/s in all. Asserts that no answer was lost, reordered or applied twice and that
 * every thread ends idle; prints throughput and latency (issue 5's targets: >= 500 round trips/s
 * with 20 clients, p50 < 20 ms). `npm run bench:server` runs the longer version.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
// @ts-expect-error: a plain ESM script without types, shared with `npm run bench:server`.
import { describeLoad, runLoad } from "../bench/http-load.mjs";
// @ts-expect-error: a plain ESM script without types, shared with `npm run bench:server`.
import { startServerProcess } from "../bench/processes.mjs";
import { json } from "./helpers.js";

const CLIENTS = 20;
const ROUNDS = 50;

type Server = { url: string; cpuMs(): number; stop(): Promise<void> };
let server: Server;
beforeAll(async () => {
  server = await startServerProcess();
});
afterAll(() => server?.stop());

async function expectEveryAnswerOnce(result: { threads: Array<{ threadId: string; final: any }> }) {
  expect(result.threads).toHaveLength(CLIENTS);
  for (const [c, { threadId, final }] of result.threads.entries()) {
    expect(final.__interrupt__).toBeUndefined();
    expect(final.answers).toEqual(Array.from({ length: ROUNDS }, (_, n) => `c${c}-${n}`));
    const thread = (await json(`${server.url}/threads/${threadId}`)).body;
    expect(thread.status).toBe("idle");
    expect(thread.values.answers).toEqual(final.answers);
  }
}

it(`${CLIENTS} clients x ${ROUNDS} round trips, unpaced then paced: nothing lost or duplicated`, async () => {
  const saturated = await runLoad({ url: server.url, clients: CLIENTS, rounds: ROUNDS, cpuMs: server.cpuMs });
  console.log(describeLoad(`${CLIENTS} clients, saturation`, saturated));
  await expectEveryAnswerOnce(saturated);
  const paced = await runLoad({ url: server.url, clients: CLIENTS, rounds: ROUNDS, paceMs: 40, cpuMs: server.cpuMs });
  console.log(describeLoad(`${CLIENTS} clients, one answer each per 40 ms (500/s offered)`, paced));
  await expectEveryAnswerOnce(paced);
}, 240_000);
