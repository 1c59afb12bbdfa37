/** Plain answers (`command.resume` without ids) racing each other: each answers the question its sender saw. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, type TestServer, testServer } from "./helpers.js";

let server: TestServer;
beforeAll(async () => {
  server = await testServer();
});
afterAll(() => server?.dispose());

/** A request whose headers go out now and whose body is sent when `send` is called. */
function heldRequest(url: string) {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  // A first byte (JSON allows leading blanks) so the client sends the headers at once.
  const body = new ReadableStream<Uint8Array>({
    start: (c) => {
      controller = c;
      c.enqueue(new TextEncoder().encode(" "));
    },
  });
  const response = fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
    duplex: "half",
  } as RequestInit);
  return {
    async send(value: unknown) {
      controller.enqueue(new TextEncoder().encode(JSON.stringify(value)));
      controller.close();
      const res = await response;
      return { status: res.status, body: await res.json() };
    },
  };
}

describe("two reviewers answer question 1 of a node that asks two questions", () => {
  for (const path of ["runs/wait", "runs"]) {
    it(`the second plain answer (${path}) gets 409 naming the first, and question 2 stays open`, async () => {
      const thread = (await json(`${server.url}/threads`, { method: "POST", body: "{}" })).body;
      const base = `${server.url}/threads/${thread.thread_id}`;
      const asked = await json(`${base}/runs/wait`, {
        method: "POST",
        body: JSON.stringify({ assistant_id: "two_questions", input: {} }),
      });
      const first = asked.body.__interrupt__[0].id;
      // Bob's request arrives while question 1 is pending; Alice's answer is taken before his body is read.
      const bob = heldRequest(`${base}/${path}`);
      const alice = await json(`${base}/runs/wait`, {
        method: "POST",
        body: JSON.stringify({ assistant_id: "two_questions", command: { resume: "alice" } }),
      });
      expect(alice.body.__interrupt__[0].value).toEqual({ question: 2 });
      const lost = await bob.send({ assistant_id: "two_questions", command: { resume: "bob" } });
      expect(lost.status).toBe(409);
      expect(lost.body).toMatchObject({ code: "ALREADY_ANSWERED", interrupt_id: first, answer: "alice" });
      const state = (await json(`${base}/state`)).body;
      expect(state.interrupts.map((i: { value: unknown }) => i.value)).toEqual([{ question: 2 }]);
      // Answered in turn, a plain answer goes to the question now pending.
      const done = await json(`${base}/runs/wait`, {
        method: "POST",
        body: JSON.stringify({ assistant_id: "two_questions", command: { resume: "carol" } }),
      });
      expect(done.body).toEqual({ first: "alice", second: "carol" });
    });
  }
});
