/** Graphs written in the low-level API (`Pregel`, the non-state `Graph`) served over HTTP. */
import { fileURLToPath } from "node:url";
import { loadConfig } from "@interlude/server";
import { afterAll, beforeAll, expect, it } from "vitest";
import { json, type TestServer, testServer } from "./helpers.js";

let server: TestServer;
beforeAll(async () => {
  server = await testServer({
    config: loadConfig(fileURLToPath(new URL("./fixtures/low-level.json", import.meta.url))),
  });
});
afterAll(() => server?.dispose());

const post = (path: string, body: unknown) =>
  json(`${server.url}${path}`, { method: "POST", body: JSON.stringify(body) });

it("a Pregel pauses at its question, and the answer finishes it", async () => {
  const threadId = (await post("/threads", {})).body.thread_id as string;
  const asked = await post(`/threads/${threadId}/runs/wait`, { assistant_id: "adder", input: 21 });
  expect(asked.body.__interrupt__.map((i: { value: unknown }) => i.value)).toEqual([
    { question: "how much to add?", to: 42 },
  ]);
  const state = await json(`${server.url}/threads/${threadId}/state`);
  expect([state.body.next, state.body.values]).toEqual([["review"], { input: 21, doubled: 42 }]);
  const done = await post(`/threads/${threadId}/runs/wait`, { assistant_id: "adder", command: { resume: 8 } });
  expect(done.status).toBe(200);
  // The state's values, as for any graph (a low-level graph's are its stream channels: here all of them).
  expect(done.body).toEqual({ input: 21, doubled: 42, output: 50 });
});

it("a Graph stops before its breakpoint and goes on when run again; its schemas are served", async () => {
  const threadId = (await post("/threads", {})).body.thread_id as string;
  const held = await post(`/threads/${threadId}/runs/wait`, { assistant_id: "publisher", input: "owls" });
  expect(held.body).toEqual({ draft: "a draft about owls" });
  const state = await json(`${server.url}/threads/${threadId}/state`);
  expect([state.body.next, state.body.values]).toEqual([["publish"], { draft: "a draft about owls" }]);
  const done = await post(`/threads/${threadId}/runs/wait`, { assistant_id: "publisher", input: null });
  expect(done.body).toEqual({ publish: "A DRAFT ABOUT OWLS" });
  const schemas = await json(`${server.url}/assistants/publisher/schemas`);
  expect(schemas.status).toBe(200);
  expect(schemas.body.graph_id).toBe("publisher");
});
