/** The smaller defects of issue 14 (item 8), one behaviour each. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hooks } from "./fixtures/graphs.mjs";
import { json, type TestServer, testServer, until } from "./helpers.js";

let server: TestServer;
beforeAll(async () => {
  server = await testServer();
});
afterAll(() => server?.dispose());

const post = (path: string, body: unknown) =>
  json(`${server.url}${path}`, { method: "POST", body: typeof body === "string" ? body : JSON.stringify(body) });

async function paused(graph: string, input: unknown = {}) {
  const threadId = (await post("/threads", {})).body.thread_id as string;
  const asked = await post(`/threads/${threadId}/runs/wait`, { assistant_id: graph, input });
  return { threadId, interruptId: asked.body.__interrupt__[0].id as string };
}

describe("issue 14, item 8", () => {
  it("a __proto__ metadata key is kept on create and filters like any other key", async () => {
    const created = await post("/threads", '{"metadata":{"__proto__":{"team":"x"},"kind":"proto-test"}}');
    expect(created.status).toBe(200);
    expect(Object.hasOwn(created.body.metadata, "__proto__")).toBe(true);
    const other = await post("/threads", { metadata: { kind: "proto-test" } });
    const found = await post("/threads/search", '{"metadata":{"__proto__":{"team":"x"}},"limit":100}');
    const ids = found.body.map((t: { thread_id: string }) => t.thread_id);
    expect(ids).toContain(created.body.thread_id);
    expect(ids).not.toContain(other.body.thread_id);
  });

  it("the inbox search treats % and _ literally", async () => {
    const { threadId } = await paused("loop", { rounds: 1 });
    const q = (text: string) =>
      json(`${server.url}/inbox/interrupts?thread_id=${threadId}&q=${encodeURIComponent(text)}`);
    expect((await q("next?")).body.total).toBe(1);
    expect((await q("%")).body.total).toBe(0);
    expect((await q("n_xt")).body.total).toBe(0);
  });

  it("an unknown checkpoint id is 404", async () => {
    const { threadId } = await paused("loop", { rounds: 1 });
    const missing = "1f0c0000-0000-6000-8000-000000000000";
    expect((await json(`${server.url}/threads/${threadId}/state/${missing}`)).status).toBe(404);
    const body = { checkpoint: { checkpoint_id: missing } };
    expect((await post(`/threads/${threadId}/state/checkpoint`, body)).status).toBe(404);
  });

  it("a state edit as_node that skips a pending question records who did it", async () => {
    const { threadId, interruptId } = await paused("loop", { rounds: 1 });
    const resolved: unknown[] = [];
    const unsubscribe = server.backend.ctx.bus.subscribe((e) => {
      if (e.type === "interrupt.resolved" && e.interrupt_id === interruptId) resolved.push(e);
    });
    try {
      const edited = await post(`/threads/${threadId}/state`, { values: { answers: ["skipped"] }, as_node: "ask" });
      expect(edited.status).toBe(200);
      const history = (await post(`/threads/${threadId}/history`, { limit: 1 })).body;
      expect(history[0].metadata).toMatchObject({ source: "update", by: "anonymous" });
      await until(async () => resolved.length > 0);
      expect(resolved[0]).toMatchObject({ by: "anonymous" });
    } finally {
      unsubscribe();
    }
  });

  it("an input shaped like a serialised Command is refused with 422, not run", async () => {
    const threadId = (await post("/threads", {})).body.thread_id;
    const refused = await post(`/threads/${threadId}/runs/wait`, {
      assistant_id: "loop",
      input: { lg_name: "Command", resume: "x" },
    });
    expect(refused).toMatchObject({ status: 422, body: { code: "INVALID_REQUEST", field: "input" } });
    expect((await json(`${server.url}/threads/${threadId}/runs`)).body).toEqual([]);
  });

  it("a losing answer gets its 409 as soon as the winner's run has taken the answer, not when it ends", async () => {
    const { threadId, interruptId } = await paused("hooked", { ask: true });
    // The winner's run takes the answer (its node "work" finishes), then node "after" hangs until released.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let calls = 0;
    hooks.after = () => (calls++ === 0 ? held : undefined);
    try {
      const winner = post(`/threads/${threadId}/runs/wait`, {
        assistant_id: "hooked",
        command: { resume: { [interruptId]: "first" } },
      });
      await until(async () => calls > 0);
      const loser = await post("/inbox/answer", { thread_id: threadId, interrupt_id: interruptId, answer: "second" });
      expect(loser).toMatchObject({ status: 409, body: { code: "ALREADY_ANSWERED", answer: "first" } });
      release();
      expect((await winner).body).toMatchObject({ answer: "first", done: true });
    } finally {
      hooks.after = () => undefined;
      release();
    }
  });
});

describe("threads.patchState", () => {
  it("is refused with 501 UNSUPPORTED_FEATURE naming what to use instead, not ignored; an unknown thread is 404", async () => {
    const threadId = (await post("/threads", {})).body.thread_id as string;
    const patched = await json(`${server.url}/threads/${threadId}/state`, {
      method: "PATCH",
      body: JSON.stringify({ metadata: { label: "reviewed" } }),
    });
    expect(patched.status).toBe(501);
    expect(patched.body).toMatchObject({ code: "UNSUPPORTED_FEATURE", thread_id: threadId });
    expect(patched.body.message).toMatch(/PATCH \/threads\/:id\b/);
    const unknown = await json(`${server.url}/threads/nope/state`, { method: "PATCH", body: "{}" });
    expect(unknown.status).toBe(404);
  });
});
