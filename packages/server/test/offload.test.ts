/**
 * Graphs off the HTTP event loop: a PostgreSQL server started with `--concurrency 0` executes no
 * run, stream and wait runs included; a worker process does. A CPU-bound node then leaves the
 * server answering.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { FIXTURE_CONFIG, json, until } from "./helpers.js";
import { type Child, serve, startCli, testDatabase } from "./processes.js";

const children: Child[] = [];
let url: string;

beforeAll(async () => {
  const database = await testDatabase("interlude_offload");
  const server = await serve(["--config", FIXTURE_CONFIG, "--postgres", database, "--concurrency", "0"]);
  children.push(server);
  url = server.url;
  children.push(await startCli(["worker", "--config", FIXTURE_CONFIG, "--postgres", database], /worker ready/));
}, 60_000);
afterAll(async () => {
  for (const child of children) await child.stop();
});

const post = (path: string, body: unknown) => json(`${url}${path}`, { method: "POST", body: JSON.stringify(body) });

it("a CPU-bound node in a waited run runs in the worker: the server answers meanwhile", async () => {
  const threadId = (await post("/threads", {})).body.thread_id;
  const waited = post(`/threads/${threadId}/runs/wait`, { assistant_id: "spin", input: { ms: 3_000 } });
  const run = await until(async () => {
    const [r] = (await json(`${url}/threads/${threadId}/runs`)).body;
    return r?.status === "running" && r;
  }, 20_000);
  expect((await json(`${url}/ok`)).status).toBe(200);
  // Answered while the node still spins: it is not spinning on the server's event loop.
  expect((await json(`${url}/threads/${threadId}/runs/${run.run_id}`)).body.status).toBe("running");
  expect((await waited).body).toEqual({ ms: 3_000, spun: true });
});

it("stream runs and inbox answers are executed by the worker and followed by the server", async () => {
  const threadId = (await post("/threads", {})).body.thread_id;
  const streamed = await fetch(`${url}/threads/${threadId}/runs/stream`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ assistant_id: "loop", input: { rounds: 1 } }),
  });
  const text = await streamed.text();
  expect(text).toMatch(/event: values/);
  expect(text).toMatch(/event: end/);
  const state = (await json(`${url}/threads/${threadId}/state`)).body;
  const interruptId = state.interrupts[0].id;
  const answered = await post("/inbox/answer", { thread_id: threadId, interrupt_id: interruptId, answer: "yes" });
  expect(answered.status).toBe(200);
  await until(async () => (await json(`${url}/threads/${threadId}`)).body.values.answers?.[0] === "yes", 20_000);
});
