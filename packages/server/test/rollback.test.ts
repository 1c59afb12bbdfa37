/** Rolling back a run puts its thread back as it was before the run, whichever run it was. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, type TestServer, testServer, until } from "./helpers.js";

let server: TestServer;
beforeAll(async () => {
  server = await testServer({ abortGraceMs: 50 });
});
afterAll(() => server?.dispose());

const post = (path: string, body: unknown) =>
  json(`${server.url}${path}`, { method: "POST", body: JSON.stringify(body) });

describe("cancel?action=rollback", () => {
  it("undoes the steps of a second run: the next run continues from before it", async () => {
    const threadId = (await post("/threads", {})).body.thread_id;
    await post(`/threads/${threadId}/runs/wait`, { assistant_id: "slow", input: { tag: "a", delay: 1 } });
    const before = (await json(`${server.url}/threads/${threadId}/state`)).body;
    expect(before.values.log).toEqual(["first:a", "second:a"]);
    const run = (await post(`/threads/${threadId}/runs`, { assistant_id: "slow", input: { tag: "b", delay: 200 } }))
      .body;
    // Its first step is saved; its second is running.
    await until(async () =>
      (await json(`${server.url}/threads/${threadId}/state`)).body.values.log.includes("first:b"),
    );
    const cancelled = await fetch(
      `${server.url}/threads/${threadId}/runs/${run.run_id}/cancel?action=rollback&wait=1`,
      {
        method: "POST",
      },
    );
    expect(cancelled.status).toBe(204);
    const after = (await json(`${server.url}/threads/${threadId}/state`)).body;
    expect(after.values.log).toEqual(["first:a", "second:a"]);
    expect(after.checkpoint_id).toBe(before.checkpoint_id);
    expect((await json(`${server.url}/threads/${threadId}/runs/${run.run_id}`)).status).toBe(404);
    const next = await post(`/threads/${threadId}/runs/wait`, { assistant_id: "slow", input: { tag: "c", delay: 1 } });
    expect(next.body.log).toEqual(["first:a", "second:a", "first:c", "second:c"]);
  });
});
