/**
 * Answers are settled early only when someone waits for them (runs/settle-on-request.ts): on
 * PostgreSQL the waiter may be another process, which asks over the bus.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { hooks } from "./fixtures/graphs.mjs";
import { json, type TestServer, testServer, until } from "./helpers.js";
import { testDatabase } from "./processes.js";

let a: TestServer;
let b: TestServer;
beforeAll(async () => {
  const postgresUrl = await testDatabase("interlude_settle");
  // Two servers in this process, so that both run the test's hooked graph.
  a = await testServer({ postgresUrl });
  b = await testServer({ postgresUrl });
});
afterAll(async () => {
  await a?.dispose();
  await b?.dispose();
});

const post = (server: TestServer, path: string, body: unknown) =>
  json(`${server.url}${path}`, { method: "POST", body: JSON.stringify(body) });

it("a losing answer through the other server gets its 409 while the winner's run still executes, its answer applied", async () => {
  const threadId = (await post(a, "/threads", {})).body.thread_id as string;
  const asked = await post(a, `/threads/${threadId}/runs/wait`, { assistant_id: "hooked", input: { ask: true } });
  const interruptId = asked.body.__interrupt__[0].id as string;
  // The winner's run takes the answer (node "work" finishes), then node "after" waits until released.
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let calls = 0;
  hooks.after = () => (calls++ === 0 ? held : undefined);
  try {
    const winner = post(a, `/threads/${threadId}/runs/wait`, {
      assistant_id: "hooked",
      command: { resume: { [interruptId]: "first" } },
    });
    await until(async () => calls > 0);
    const loser = await post(b, "/inbox/answer", { thread_id: threadId, interrupt_id: interruptId, answer: "second" });
    expect(loser).toMatchObject({ status: 409, body: { code: "ALREADY_ANSWERED", answer: "first" } });
    // Settled on the loser's request, not at the end of the run (which is still held).
    const running = (await json(`${a.url}/threads/${threadId}/runs`)).body as Array<{ run_id: string; status: string }>;
    const run = running.find((r) => r.status === "running");
    expect(run).toBeDefined();
    expect(await a.backend.ctx.store.answerStates(run!.run_id)).toEqual(["applied"]);
    release();
    expect((await winner).body).toMatchObject({ answer: "first", done: true });
  } finally {
    hooks.after = () => undefined;
    release();
  }
});
