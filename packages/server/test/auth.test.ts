/** API keys, identities recorded as `by`, request validation and limits. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { followSse, json, type TestServer, testServer, until } from "./helpers.js";

let server: TestServer;
beforeAll(async () => {
  server = await testServer({
    apiKeys: { "key-alice": "alice@example.com", "key-bob": "bob" },
    maxBodyBytes: 64 * 1024,
  });
});
afterAll(() => server?.dispose());

describe("API keys", () => {
  it("refuses requests without a known key (401), except health checks", async () => {
    expect((await json(`${server.url}/threads/search`, { method: "POST", body: "{}" })).status).toBe(401);
    const wrong = await json(`${server.url}/threads/search`, { method: "POST", body: "{}", apiKey: "key-mallory" });
    expect(wrong).toMatchObject({ status: 401, body: { error: "unauthorized", code: "UNAUTHORIZED" } });
    expect((await json(`${server.url}/ok`)).status).toBe(200);
    expect(await json(`${server.url}/ok?check_db=1`)).toMatchObject({ status: 200, body: { ok: true } });
    expect(await json(`${server.url}/ok?check_db=yes`)).toMatchObject({
      status: 422,
      body: { code: "INVALID_REQUEST" },
    });
    await expect(server.client().threads.create()).rejects.toThrow(/401/);
    expect((await json(`${server.url}/inbox/interrupts`)).status).toBe(401);
  });

  it("records the key's identity as who answered", async () => {
    const alice = server.client("key-alice");
    const thread = await alice.threads.create();
    const paused = (await alice.runs.wait(thread.thread_id, "approval", { input: {} })) as any;
    await server.client("key-bob").runs.wait(thread.thread_id, "approval", {
      command: { resume: { [paused.__interrupt__[0].id]: { type: "accept" } } },
    });
    const history = await alice.threads.getHistory(thread.thread_id, { limit: 10 });
    expect(history.flatMap((s) => (s.metadata?.resume as any[]) ?? [])).toEqual([
      expect.objectContaining({ by: "bob" }),
    ]);
    const again = await json(`${server.url}/inbox/answer`, {
      method: "POST",
      apiKey: "key-alice",
      body: JSON.stringify({
        thread_id: thread.thread_id,
        interrupt_id: paused.__interrupt__[0].id,
        answer: { type: "ignore" },
      }),
    });
    expect(again.body).toMatchObject({ error: "already_answered", by: "bob" });
  });

  it("the inbox event stream takes the key as a query parameter (browsers' EventSource sends no headers)", async () => {
    expect((await followSse(`${server.url}/inbox/events`)).status).toBe(401);
    const stream = await followSse(`${server.url}/inbox/events?api_key=key-alice`);
    try {
      await until(async () => stream.events.some((e) => e.event === "ready"));
    } finally {
      stream.close();
    }
  });
});

describe("request validation", () => {
  const post = (path: string, body: string) =>
    json(`${server.url}${path}`, { method: "POST", body, apiKey: "key-alice" });

  it("names the bad field (422)", async () => {
    const thread = (await post("/threads", "{}")).body;
    const badMode = await post(
      `/threads/${thread.thread_id}/runs`,
      JSON.stringify({ assistant_id: "approval", stream_mode: ["values", "sideways"] }),
    );
    expect(badMode).toMatchObject({
      status: 422,
      body: { code: "INVALID_REQUEST", field: expect.stringMatching(/^stream_mode/) },
    });
    const noAssistant = await post(`/threads/${thread.thread_id}/runs/wait`, JSON.stringify({ input: {} }));
    expect(noAssistant).toMatchObject({ status: 422, body: { field: "assistant_id" } });
    const badStrategy = await post(
      `/threads/${thread.thread_id}/runs`,
      JSON.stringify({ assistant_id: "approval", multitask_strategy: "shout" }),
    );
    expect(badStrategy).toMatchObject({ status: 422, body: { field: "multitask_strategy" } });
    const badLimit = await post("/threads/search", JSON.stringify({ limit: -1 }));
    expect(badLimit).toMatchObject({ status: 422, body: { field: "limit" } });
  });

  it("rejects malformed JSON (400), large bodies (413) and unknown things (404), without stack traces", async () => {
    const malformed = await post("/threads", "{nope");
    expect(malformed).toMatchObject({ status: 400, body: { code: "INVALID_JSON" } });
    const big = await post("/threads", JSON.stringify({ metadata: { blob: "x".repeat(100 * 1024) } }));
    expect(big).toMatchObject({ status: 413, body: { code: "BODY_TOO_LARGE" } });
    const missing = await json(`${server.url}/threads/nope`, { apiKey: "key-alice" });
    expect(missing).toMatchObject({ status: 404, body: { code: "NOT_FOUND", thread_id: "nope" } });
    const noAssistant = await post(
      "/threads/x/runs/wait",
      JSON.stringify({ assistant_id: "ghost", if_not_exists: "create" }),
    );
    expect(noAssistant.status).toBe(404);
    for (const r of [malformed, big, missing]) expect(JSON.stringify(r.body)).not.toMatch(/\n\s+at /);
  });
});
