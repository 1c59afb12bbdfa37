/**
 * A streamed run over Node's HTTP server, where the SSE text goes straight to Node's response
 * (http/sse-response.ts): the route's headers go out with the stream's, the events come framed
 * as the SDK reads them, and a client that goes away is noticed (`on_disconnect: "cancel"`).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, type TestServer, testServer } from "./helpers.js";

let server: TestServer;
beforeAll(async () => {
  server = await testServer();
});
afterAll(() => server.dispose());

const post = (path: string, body: unknown, signal?: AbortSignal) =>
  fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    signal,
  });

describe("SSE responses on Node's server", () => {
  it("carry the route's Content-Location and the stream's headers, then the events in order", async () => {
    const thread = (await json(`${server.url}/threads`, { method: "POST", body: "{}" })).body;
    const response = await post(`/threads/${thread.thread_id}/runs/stream`, {
      assistant_id: "slow",
      input: { tag: "a", delay: 1 },
      stream_mode: ["values"],
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(response.headers.get("cache-control")).toBe("no-cache");
    const runId = (await response.clone().text()).match(/"run_id":"([^"]+)"/)?.[1];
    expect(response.headers.get("content-location")).toBe(`/threads/${thread.thread_id}/runs/${runId}`);
    const text = await response.text();
    expect([...text.matchAll(/^event: (.+)$/gm)].map((m) => m[1])).toEqual([
      "metadata",
      "values",
      "values",
      "values",
      "end",
    ]);
    expect(text).toContain('data: {"tag":"a","delay":1,"log":["first:a","second:a"]}\n');
  });

  it("a client that goes away cancels its run when it asked for that", async () => {
    const thread = (await json(`${server.url}/threads`, { method: "POST", body: "{}" })).body;
    const controller = new AbortController();
    const response = await post(
      `/threads/${thread.thread_id}/runs/stream`,
      {
        assistant_id: "slow",
        input: { tag: "b", delay: 60_000, abortable: true },
        stream_mode: ["values"],
        on_disconnect: "cancel",
      },
      controller.signal,
    );
    const reader = response.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    const runId = first.match(/"run_id":"([^"]+)"/)![1]!;
    controller.abort();
    const joined = await json(`${server.url}/threads/${thread.thread_id}/runs/${runId}/join`);
    expect(joined.status).toBe(200);
    const run = (await json(`${server.url}/threads/${thread.thread_id}/runs/${runId}`)).body;
    expect(run.status).toBe("interrupted");
  });
});
