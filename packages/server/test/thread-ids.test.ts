/** Thread ids outside Latin-1 work in every endpoint (headers carry them percent-encoded). */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, type TestServer, testServer } from "./helpers.js";

let server: TestServer;
beforeAll(async () => {
  server = await testServer();
});
afterAll(() => server?.dispose());

describe("thread ids outside Latin-1", () => {
  for (const id of ["注文-1", "🧾 receipt", "a/b?c#d%e"]) {
    it(`"${id}": create, run, stream, answer, read, list, delete`, async () => {
      const base = `${server.url}/threads/${encodeURIComponent(id)}`;
      const post = (url: string, body: unknown) => json(url, { method: "POST", body: JSON.stringify(body) });
      expect((await post(`${server.url}/threads`, { thread_id: id })).status).toBe(200);
      const created = await fetch(`${base}/runs`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ assistant_id: "loop", input: { rounds: 2 } }),
      });
      expect(created.status).toBe(200);
      const run = (await created.json()) as { run_id: string };
      expect(created.headers.get("content-location")).toBe(`/threads/${encodeURIComponent(id)}/runs/${run.run_id}`);
      const joined = (await json(`${base}/runs/${run.run_id}/join`)).body;
      const interruptId = joined.__interrupt__[0].id;
      const answered = await post(`${server.url}/inbox/answer`, {
        thread_id: id,
        interrupt_id: interruptId,
        answer: 1,
      });
      expect(answered.status).toBe(200);
      await json(`${base}/runs/${answered.body.run_id}/join`);
      const waited = await fetch(`${base}/runs/wait`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ assistant_id: "loop", command: { resume: 2 } }),
      });
      expect(waited.status).toBe(200);
      expect(waited.headers.get("content-type")).toBe("application/json");
      const location = `/threads/${encodeURIComponent(id)}/runs/`;
      const waitedAt = waited.headers.get("content-location") ?? "";
      expect(waitedAt.slice(0, location.length)).toBe(location);
      expect(waitedAt.slice(location.length)).toMatch(/^[\w-]+$/);
      expect(await waited.json()).toMatchObject({ answers: [1, 2] });
      const streamed = await fetch(`${base}/runs/stream`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ assistant_id: "loop", input: { rounds: 1 } }),
      });
      expect(streamed.status).toBe(200);
      expect(streamed.headers.get("content-location")?.slice(0, location.length)).toBe(location);
      expect(await streamed.text()).toMatch(/event: end/);
      expect((await json(`${base}/state`)).body.values.answers).toEqual([1, 2]);
      expect((await json(`${base}/runs`)).body.length).toBe(4);
      expect((await json(base)).body.thread_id).toBe(id);
      expect((await fetch(base, { method: "DELETE" })).status).toBe(204);
    });
  }
});
