/** Input that should be refused (4xx), not crash a handler (500). */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, type TestServer, testServer } from "./helpers.js";

let server: TestServer;
let threadId: string;
beforeAll(async () => {
  server = await testServer({ apiKeys: { k: "alice" } });
  threadId = (await json(`${server.url}/threads`, { method: "POST", body: "{}", apiKey: "k" })).body.thread_id;
});
afterAll(() => server?.dispose());

const deep = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`;
const deepObject = (n: number) => `{"assistant_id":"loop","input":${'{"a":'.repeat(n)}1${"}".repeat(n)}}`;

async function status(path: string, init: RequestInit = {}): Promise<number> {
  const headers = new Headers(init.headers);
  if (!headers.has("x-api-key")) headers.set("x-api-key", "k");
  if (init.body) headers.set("content-type", "application/json");
  const response = await fetch(`${server.url}${path}`, { ...init, headers });
  await response.arrayBuffer();
  return response.status;
}

describe("hostile input is refused with a 4xx", () => {
  it("JSON nested 100,000 deep, on every endpoint that takes a body", async () => {
    const bodies = [deep(100_000), deepObject(100_000)];
    const paths = [
      "/threads",
      "/threads/search",
      `/threads/${threadId}/runs`,
      `/threads/${threadId}/runs/wait`,
      `/threads/${threadId}/runs/stream`,
      "/runs/wait",
      `/threads/${threadId}/state`,
      "/inbox/answer",
      "/assistants",
    ];
    for (const path of paths)
      for (const body of bodies) {
        const code = await status(path, { method: "POST", body });
        expect(code, `${path}`).toBeGreaterThanOrEqual(400);
        expect(code, `${path}`).toBeLessThan(500);
      }
    const patched = await status(`/threads/${threadId}`, {
      method: "PATCH",
      body: `{"metadata":${deepObject(100_000)}}`,
    });
    expect(patched).toBe(400);
  });

  it("numbers out of range in query strings", async () => {
    for (const query of ["limit=1e21", "limit=1e400", "offset=1e21", "limit=-1", "limit=abc", "status=nope"])
      expect(await status(`/threads/${threadId}/runs?${query}`), query).toBe(422);
    for (const query of ["min_age_seconds=1e20", "offset=1e21", "limit=1e400"])
      expect(await status(`/inbox/interrupts?${query}`), query).toBe(422);
    expect(await status(`/threads/${threadId}/history?limit=1e400`)).toBe(422);
  });

  it("bad URI escapes, with or without a key", async () => {
    for (const path of ["/inbox/%", "/inbox/%zz", "/threads/%zz", `/threads/${threadId}/runs/%E0%A4%A`])
      for (const key of ["k", ""]) {
        const code = await status(path, { headers: { "x-api-key": key } });
        expect(code, `${path} ${key}`).toBeGreaterThanOrEqual(400);
        expect(code, `${path} ${key}`).toBeLessThan(500);
      }
  });

  it("POST /threads whose supersteps fail creates no thread (a retry is not a 409)", async () => {
    const body = JSON.stringify({
      thread_id: "superstep-fail",
      metadata: { graph_id: "loop" },
      supersteps: [{ updates: [{ values: {}, as_node: "no-such-node" }] }],
    });
    const first = await status("/threads", { method: "POST", body });
    expect(first).toBeGreaterThanOrEqual(400);
    expect(first).toBeLessThan(500);
    expect(await status("/threads/superstep-fail")).toBe(404);
    expect(await status("/threads", { method: "POST", body })).toBe(first);
  });
});
