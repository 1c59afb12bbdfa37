/**
 * A worker that dies mid-run: on PostgreSQL, a background run claimed by one `interlude worker`
 * process that is SIGKILLed between its steps is taken over and finished by another worker,
 * from the last checkpoint (the step that was done is not run again). The lease and the
 * thread claim are shortened through the environment so this takes seconds, not 30 s.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { FIXTURE_CONFIG, type TestServer, testServer, until } from "./helpers.js";
import { deploymentOnPostgres } from "./processes.js";

const SHORT = { INTERLUDE_RUN_LEASE_MS: "1500", INTERLUDE_CLAIM_TTL_MS: "1500" };
const deployment = deploymentOnPostgres("interlude_crash");
const worker = () => deployment.worker(FIXTURE_CONFIG, ["--concurrency", "1"], SHORT);
let server: TestServer;

beforeAll(async () => {
  // This server only takes requests and queues runs: the workers execute them.
  server = await testServer({ postgresUrl: deployment.database, concurrency: 0 });
}, 60_000);

afterAll(async () => {
  await server?.dispose();
});

it("a background run whose worker was SIGKILLed mid-run is finished by another worker, from its last checkpoint", async () => {
  const client = server.client();
  const first = await worker();
  const thread = await client.threads.create();
  const run = await client.runs.create(thread.thread_id, "slow", { input: { tag: "crash", delay: 1_500 } });

  // The first step is checkpointed and the second is under way in the first worker: kill it there.
  await until(
    async () => ((await client.threads.getState(thread.thread_id)).values as any)?.log?.includes("first:crash"),
    20_000,
  );
  expect((await client.runs.get(thread.thread_id, run.run_id)).status).toBe("running");
  first.process.kill("SIGKILL");
  await new Promise((resolve) => first.process.once("exit", resolve));

  await worker();
  // Joined through the server that queued it (it executes nothing itself).
  const joined = (await client.runs.join(thread.thread_id, run.run_id)) as any;
  expect(joined.log).toEqual(["first:crash", "second:crash"]);
  expect((await client.runs.get(thread.thread_id, run.run_id)).status).toBe("success");
  const state = await client.threads.getState(thread.thread_id);
  // Continued from the checkpoint: each step ran to completion once.
  expect((state.values as any).log).toEqual(["first:crash", "second:crash"]);
  expect((await client.threads.get(thread.thread_id)).status).toBe("idle");
}, 60_000);
