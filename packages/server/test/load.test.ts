/**
 * Bounded load on loopback: 20 clients, each pausing and resuming its own thread 100 times
 * through the HTTP API (2,000 round trips, SQLite storage). Asserts that no answer was lost or
 * applied twice; prints throughput and latency (targets: p50 < 20 ms, >= 500 round trips/s).
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { testServer, type TestServer } from "./helpers.js";

const CLIENTS = 20;
const ROUNDS = 100;

let server: TestServer;
beforeAll(async () => {
  server = await testServer();
});
afterAll(() => server?.dispose());

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

it(`${CLIENTS} clients x ${ROUNDS} pause-and-resume round trips: nothing lost or duplicated`, async () => {
  const latencies: number[] = [];
  const worker = async (c: number) => {
    const client = server.client();
    const thread = await client.threads.create({ metadata: { load: true } });
    let state = (await client.runs.wait(thread.thread_id, "loop", { input: { rounds: ROUNDS } })) as any;
    for (let n = 0; n < ROUNDS; n++) {
      const id = state.__interrupt__[0].id;
      expect(state.__interrupt__[0].value.n).toBe(n);
      const started = performance.now();
      state = await client.runs.wait(thread.thread_id, "loop", { command: { resume: { [id]: `c${c}-${n}` } } });
      latencies.push(performance.now() - started);
    }
    return { thread: thread.thread_id, final: state };
  };
  const started = performance.now();
  const results = await Promise.all(Array.from({ length: CLIENTS }, (_, c) => worker(c)));
  const seconds = (performance.now() - started) / 1000;

  results.forEach(({ final }, c) => {
    expect(final.__interrupt__).toBeUndefined();
    expect(final.answers).toEqual(Array.from({ length: ROUNDS }, (_, n) => `c${c}-${n}`));
  });
  const client = server.client();
  for (const { thread } of results) expect((await client.threads.get(thread)).status).toBe("idle");

  const sorted = [...latencies].sort((a, b) => a - b);
  const total = CLIENTS * ROUNDS;
  const line = `[load] ${total} round trips, ${CLIENTS} clients, SQLite: ${(total / seconds).toFixed(0)} round trips/s, p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms, max ${sorted.at(-1)!.toFixed(1)} ms (${seconds.toFixed(1)} s)`;
  console.log(line);
  expect(latencies).toHaveLength(total);
}, 240_000);
