/**
 * Editing threads, assistants and crons (`PATCH`) on PostgreSQL, where each statement is a round trip
 * and other writers come in between: a run that ends while its thread's metadata is edited
 * keeps the status it recorded, and edits made at once all land (each merged into the others',
 * each assistant edit a version of its own, each cron edit kept beside the others').
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { json, type TestServer, testServer } from "./helpers.js";
import { testDatabase } from "./processes.js";

let server: TestServer;
beforeAll(async () => {
  server = await testServer({ postgresUrl: await testDatabase("interlude_concurrent_edits") });
}, 60_000);
afterAll(() => server?.dispose());

const call = (path: string, method: string, body: unknown) =>
  json(`${server.url}${path}`, { method, body: JSON.stringify(body) });

it("a run ending while its thread's metadata is edited leaves the thread as the run recorded it", async () => {
  const statuses: string[] = [];
  for (let round = 0; round < 40; round++) {
    const threadId = (await call("/threads", "POST", {})).body.thread_id;
    let ended = false;
    const run = call(`/threads/${threadId}/runs/wait`, "POST", { assistant_id: "slow", input: { tag: "e", delay: 5 } });
    void run.then(() => (ended = true));
    // Edited over and over until the run has ended (its end's sync falls between an edit's read and write).
    for (let n = 0; !ended; n++) await call(`/threads/${threadId}`, "PATCH", { metadata: { n } });
    expect((await run).status).toBe(200);
    statuses.push((await json(`${server.url}/threads/${threadId}`)).body.status);
  }
  expect(statuses.filter((status) => status !== "idle")).toEqual([]);
}, 60_000);

it("edits made at once are merged into one another: none is lost", async () => {
  const threadId = (await call("/threads", "POST", { metadata: { kept: true } })).body.thread_id;
  const keys = Array.from({ length: 20 }, (_, i) => `k${i}`);
  const edits = await Promise.all(keys.map((key) => call(`/threads/${threadId}`, "PATCH", { metadata: { [key]: 1 } })));
  expect(edits.map((edit) => edit.status)).toEqual(keys.map(() => 200));
  const { metadata } = (await json(`${server.url}/threads/${threadId}`)).body;
  expect(Object.keys(metadata).sort()).toEqual(["kept", ...keys].sort());
});

it("assistant edits made at once each make a version of their own, and none is lost", async () => {
  const assistant = (await call("/assistants", "POST", { graph_id: "slow", metadata: { kept: true } })).body;
  const keys = Array.from({ length: 10 }, (_, i) => `k${i}`);
  const path = `/assistants/${assistant.assistant_id}`;
  const edits = await Promise.all(keys.map((key) => call(path, "PATCH", { metadata: { [key]: 1 } })));
  expect(edits.map((edit) => edit.status)).toEqual(keys.map(() => 200));
  expect(edits.map((edit) => edit.body.version).sort((a, b) => a - b)).toEqual(keys.map((_, i) => i + 2));
  const { metadata, version } = (await json(`${server.url}${path}`)).body;
  expect(version).toBe(keys.length + 1);
  expect(Object.keys(metadata).sort()).toEqual(["kept", ...keys].sort());
});

it("cron edits made at once to different fields all land", async () => {
  const thread = (await call("/threads", "POST", {})).body.thread_id;
  const cron = (await call(`/threads/${thread}/runs/crons`, "POST", { assistant_id: "loop", schedule: "0 3 * * *" }))
    .body;
  const changes = [
    { enabled: false },
    { schedule: "0 4 * * *" },
    { timezone: "Europe/Paris" },
    { end_time: "2100-01-01T00:00:00.000Z" },
    { input: { rounds: 2 } },
    { config: { tags: ["nightly"] } },
    { context: { region: "eu" } },
    { metadata: { team: "ops" } },
    { interrupt_before: ["ask"] },
    { timeout_seconds: 60 },
  ];
  const edits = await Promise.all(changes.map((change) => call(`/runs/crons/${cron.cron_id}`, "PATCH", change)));
  expect(edits.map((edit) => edit.status)).toEqual(changes.map(() => 200));
  const [found] = (await call("/runs/crons/search", "POST", { thread_id: thread })).body;
  expect(found).toMatchObject({
    enabled: false,
    schedule: "0 4 * * *",
    timezone: "Europe/Paris",
    end_time: "2100-01-01T00:00:00.000Z",
    metadata: { team: "ops" },
    payload: {
      input: { rounds: 2 },
      config: { tags: ["nightly"] },
      context: { region: "eu" },
      interrupt_before: ["ask"],
      timeout_seconds: 60,
    },
  });
});
