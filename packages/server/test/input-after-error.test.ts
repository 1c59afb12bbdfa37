/** Issue 14, item 4: new input after a node failed is applied and the graph runs from there, as in LangGraph. */
import { afterAll, beforeAll, expect, it } from "vitest";
import { json, type TestServer, testServer } from "./helpers.js";

let server: TestServer;
beforeAll(async () => {
  server = await testServer();
});
afterAll(() => server?.dispose());

const post = (path: string, body: unknown) =>
  json(`${server.url}${path}`, { method: "POST", body: JSON.stringify(body) });

it("new input after a node error runs the graph from the new input, not the failed step again", async () => {
  const threadId = (await post("/threads", {})).body.thread_id as string;
  const failed = await post(`/threads/${threadId}/runs/wait`, { assistant_id: "picky", input: { fail: true } });
  expect(JSON.stringify(failed.body)).toContain("told to fail");
  expect((await json(`${server.url}/threads/${threadId}`)).body.status).toBe("error");

  const fixed = await post(`/threads/${threadId}/runs/wait`, { assistant_id: "picky", input: { fail: false } });
  expect(fixed.status).toBe(200);
  expect(fixed.body).toEqual({ fail: false, done: true });
  const thread = (await json(`${server.url}/threads/${threadId}`)).body;
  expect(thread.status).toBe("idle");
  const state = (await json(`${server.url}/threads/${threadId}/state`)).body;
  expect(state.next).toEqual([]);
  expect(state.values).toEqual({ fail: false, done: true });
});

it("an answer refused on a thread stopped by an error leaves it in error, with its error", async () => {
  const threadId = (await post("/threads", {})).body.thread_id as string;
  await post(`/threads/${threadId}/runs/wait`, { assistant_id: "picky", input: { fail: true } });
  const before = (await json(`${server.url}/threads/${threadId}`)).body;
  expect(before).toMatchObject({ status: "error", interrupts: {} });

  // Nothing asks: the run carrying the answer is refused, and changed nothing.
  const refused = await post(`/threads/${threadId}/runs/wait`, { assistant_id: "picky", command: { resume: "yes" } });
  expect(refused).toMatchObject({ status: 409, body: { code: "NOTHING_TO_RESUME" } });
  const after = (await json(`${server.url}/threads/${threadId}`)).body;
  expect({ status: after.status, error: after.error }).toEqual({ status: "error", error: before.error });
});
