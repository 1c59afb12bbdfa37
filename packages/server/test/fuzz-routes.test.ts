/**
 * Generated bodies, ids and query strings thrown at every route (fast-check): no 5xx, every
 * request ends within its timeout, no thread is left busy, and no answer is applied without a
 * 2xx to the request that carried it.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, type TestServer, testServer, until } from "./helpers.js";

let server: TestServer;
const threads: string[] = [];
const interrupts: string[] = [];
beforeAll(async () => {
  server = await testServer({ abortGraceMs: 50 });
  for (const graph of ["loop", "pair", "two_questions", "nested"]) {
    const threadId = (await json(`${server.url}/threads`, { method: "POST", body: "{}" })).body.thread_id;
    threads.push(threadId);
    const input = graph === "loop" ? { rounds: 3 } : graph === "nested" ? { topic: "t" } : {};
    const paused = await json(`${server.url}/threads/${threadId}/runs/wait`, {
      method: "POST",
      body: JSON.stringify({ assistant_id: graph, input }),
    });
    for (const i of paused.body.__interrupt__ ?? []) interrupts.push(i.id);
  }
});
afterAll(() => server?.dispose());

const REQUEST_TIMEOUT_MS = 15_000;
/** Answers sent, by marker, with the status they got. */
const sent = new Map<string, number>();
let markers = 0;

const weirdString = fc.oneof(
  fc.string(),
  fc.string({ unit: "grapheme" }),
  fc.constantFrom("", "%", "%zz", "..", "../..", "__proto__", "constructor", "注文-1", "🧾", "a b", "1e21"),
);
/** One of the newest threads (paused at questions in beforeAll, then any seen in responses), or anything. */
const threadId = fc.oneof(
  { arbitrary: fc.nat(5).map((n) => threads[n] ?? "x"), weight: 5 },
  { arbitrary: weirdString, weight: 1 },
);
/** Run ids seen in responses, so that joins, cancels and streams find real runs. */
const runIds: string[] = [];
const valid = <T, U>(good: fc.Arbitrary<T>, bad: fc.Arbitrary<U>) =>
  fc.oneof({ arbitrary: good, weight: 6 }, { arbitrary: bad, weight: 1 });
const someId = fc.oneof(
  { arbitrary: fc.nat().map((n) => runIds[n % Math.max(runIds.length, 1)] ?? "none"), weight: 4 },
  { arbitrary: fc.uuid(), weight: 1 },
  { arbitrary: weirdString, weight: 1 },
);
const number = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.constantFrom("1e21", "1e400", "-1", "NaN", "Infinity", "0x10", "", " "),
);
const queryString = fc
  .dictionary(
    fc.constantFrom(
      "limit",
      "offset",
      "status",
      "wait",
      "action",
      "q",
      "min_age_seconds",
      "subgraphs",
      "stream_mode",
      "cancel_on_disconnect",
      "graph_id",
      "thread_id",
      "format",
    ),
    fc.oneof(number.map(String), weirdString, fc.constantFrom("true", "1", "rollback", "interrupt", "running", "json")),
    { maxKeys: 4 },
  )
  .map((q) => new URLSearchParams(q).toString());
/** A resume answer carrying a fresh marker, plain or by interrupt id. */
const resume = fc.oneof(
  fc.constant(null).map(() => `mk-${++markers}`),
  fc.constantFrom(0, 1, 2, 3).map((n) => ({ [interrupts[n] ?? "f".repeat(32)]: `mk-${++markers}` })),
);
const runBody = fc.record(
  {
    assistant_id: valid(fc.constantFrom("loop", "pair", "two_questions", "nested", "broken"), weirdString),
    input: fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.constant({ rounds: 2 })),
    command: fc.record({ resume }, { requiredKeys: [] }),
    multitask_strategy: valid(fc.constantFrom("reject", "enqueue", "interrupt", "rollback"), weirdString),
    stream_mode: valid(fc.constantFrom("values", "updates", "debug"), fc.array(weirdString, { maxLength: 2 })),
    config: valid(fc.constant({}), fc.jsonValue({ maxDepth: 2 })),
    metadata: valid(fc.constant({ k: "v" }), fc.jsonValue({ maxDepth: 2 })),
    checkpoint_id: someId,
    timeout_seconds: valid(fc.constantFrom(5, 30), number),
    on_completion: fc.constantFrom("delete", "keep"),
    if_not_exists: fc.constantFrom("create", "reject"),
  },
  { requiredKeys: ["assistant_id"] },
);
const body = fc.oneof(
  { arbitrary: runBody.map((b) => JSON.stringify(b)), weight: 5 },
  fc
    .record(
      {
        thread_id: fc.oneof(threadId, weirdString),
        interrupt_id: fc.oneof(
          fc.constantFrom(...[0, 1, 2, 3]).map((n) => interrupts[n] ?? "0".repeat(32)),
          weirdString,
        ),
        answer: fc.constant(null).map(() => `mk-${++markers}`),
        metadata: fc.jsonValue({ maxDepth: 2 }),
        values: fc.jsonValue({ maxDepth: 2 }),
        as_node: fc.oneof(fc.constantFrom("ask", "left", "__start__", "__end__"), weirdString),
        limit: number,
        offset: number,
        supersteps: fc.jsonValue({ maxDepth: 3 }),
        graph_id: fc.oneof(fc.constantFrom("loop", "pair"), weirdString),
      },
      { requiredKeys: [] },
    )
    .map((b) => JSON.stringify(b)),
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
  fc.string(),
  fc.nat(600).map((n) => "[".repeat(n) + "]".repeat(n)),
);

type Route = [method: string, path: (t: string, id: string) => string];
const enc = encodeURIComponent;
const ROUTES: Route[] = [
  ["POST", () => "/threads"],
  ["POST", () => "/threads/search"],
  ["POST", () => "/threads/count"],
  ["GET", (t) => `/threads/${enc(t)}`],
  ["PATCH", (t) => `/threads/${enc(t)}`],
  ["DELETE", (t) => `/threads/${enc(t)}`],
  ["POST", (t) => `/threads/${enc(t)}/copy`],
  ["GET", (t) => `/threads/${enc(t)}/state`],
  ["GET", (t, id) => `/threads/${enc(t)}/state/${enc(id)}`],
  ["POST", (t) => `/threads/${enc(t)}/state/checkpoint`],
  ["POST", (t) => `/threads/${enc(t)}/state`],
  ["POST", (t) => `/threads/${enc(t)}/history`],
  ["GET", (t) => `/threads/${enc(t)}/history`],
  ["POST", (t) => `/threads/${enc(t)}/runs`],
  ["POST", (t) => `/threads/${enc(t)}/runs/stream`],
  ["POST", (t) => `/threads/${enc(t)}/runs/wait`],
  ["POST", () => "/runs"],
  ["POST", () => "/runs/stream"],
  ["POST", () => "/runs/wait"],
  ["GET", (t) => `/threads/${enc(t)}/runs`],
  ["GET", (t, id) => `/threads/${enc(t)}/runs/${enc(id)}`],
  ["DELETE", (t, id) => `/threads/${enc(t)}/runs/${enc(id)}`],
  ["POST", (t, id) => `/threads/${enc(t)}/runs/${enc(id)}/cancel`],
  ["GET", (t, id) => `/threads/${enc(t)}/runs/${enc(id)}/join`],
  ["GET", (t, id) => `/threads/${enc(t)}/runs/${enc(id)}/stream`],
  ["GET", (t) => `/threads/${enc(t)}/stream`],
  ["POST", () => "/assistants/search"],
  ["POST", () => "/assistants/count"],
  ["GET", (_t, id) => `/assistants/${enc(id)}`],
  ["GET", (_t, id) => `/assistants/${enc(id)}/graph`],
  ["GET", (_t, id) => `/assistants/${enc(id)}/schemas`],
  ["GET", (_t, id) => `/assistants/${enc(id)}/subgraphs`],
  ["GET", () => "/inbox/interrupts"],
  ["POST", () => "/inbox/answer"],
  ["GET", (_t, id) => `/inbox/${id}`], // raw: bad escapes on purpose
  ["GET", () => "/ok"],
  ["GET", () => "/info"],
  ["GET", () => "/metrics"],
];

/** Sends the request and reads the whole response; fails on a 5xx or when it takes too long. */
async function send(method: string, path: string, payload: string | undefined): Promise<number> {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: payload === undefined ? {} : { "content-type": "application/json" },
    body: payload,
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const text = await response.text();
  for (const m of text.matchAll(/"run_id":"([0-9a-f-]{36})"/g)) if (!runIds.includes(m[1]!)) runIds.push(m[1]!);
  for (const m of text.matchAll(/"thread_id":"((?:[^"\\]|\\.)*)"/g)) {
    const id = JSON.parse(`"${m[1]}"`) as string;
    if (!threads.includes(id)) threads.unshift(id);
  }
  // Questions asked since: answers by id aim at them (the four slots rotate through the newest).
  for (const m of text.matchAll(/"id":"([0-9a-f]{32})"/g)) if (!interrupts.includes(m[1]!)) interrupts.unshift(m[1]!);
  return response.status;
}

describe("every route under generated input", () => {
  it("answers below 500, in time, and applies answers only with a 2xx", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ROUTES),
        threadId,
        someId,
        queryString,
        body,
        async ([method, path], t, id, query, payload) => {
          const url = `${path(t, id)}${query ? `?${query}` : ""}`;
          const withBody = method === "POST" || method === "PATCH" ? payload : undefined;
          let status: number;
          try {
            status = await send(method, url, withBody);
          } catch (error) {
            throw new Error(`${method} ${url} did not end: ${error}`);
          }
          if (withBody) for (const m of withBody.match(/mk-\d+/g) ?? []) sent.set(m, status);
          expect(status, `${method} ${url} ${withBody?.slice(0, 300)}`).toBeLessThan(500);
        },
      ),
      { numRuns: 800 },
    );

    // The generators reach past validation: some answers were taken.
    expect([...sent.values()].filter((s) => s < 300).length).toBeGreaterThan(0);
    // No thread left busy once the runs have had their chance to finish.
    await until(async () => {
      const busy = (
        await json(`${server.url}/threads/search`, { method: "POST", body: '{"status":"busy","limit":10000}' })
      ).body;
      return busy.length === 0;
    }, 20_000);

    // Every answer found in a thread's state was sent with a request that got a 2xx.
    const all = (await json(`${server.url}/threads/search`, { method: "POST", body: '{"limit":10000}' })).body;
    for (const thread of all) {
      for (const m of JSON.stringify(thread.values ?? {}).match(/mk-\d+/g) ?? []) {
        const status = sent.get(m);
        expect(status, `answer ${m} is in thread ${thread.thread_id}`).toBeGreaterThanOrEqual(200);
        expect(status, `answer ${m} is in thread ${thread.thread_id}`).toBeLessThan(300);
      }
    }
  }, 300_000);
});
