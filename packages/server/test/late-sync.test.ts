/**
 * A thread's record is brought in line with its checkpoints by whoever changed them; a sync
 * that comes late must not undo a later one, and one that fails must not be forgotten.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { readSnapshot, syncThread } from "../dist/threads/sync.js";
import { hooks } from "./fixtures/graphs.mjs";
import { json, type TestServer, testServer, until, whileRefusing } from "./helpers.js";
import { storages } from "./processes.js";

describe.each(storages("interlude_late_sync"))("on %s", (_name, storage) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await testServer(await storage());
  });
  afterAll(() => server?.dispose());
  afterEach(() => {
    hooks.during = () => undefined;
  });
  const post = (path: string, body: unknown) =>
    json(`${server.url}${path}`, { method: "POST", body: JSON.stringify(body) });
  const thread = async (threadId: string) => (await json(`${server.url}/threads/${threadId}`)).body;

  it("a sync from a snapshot read before another run moved the thread leaves that run's state", async () => {
    const threadId = (await post("/threads", {})).body.thread_id as string;
    const first = await post(`/threads/${threadId}/runs/wait`, { assistant_id: "loop", input: { rounds: 5 } });
    const ctx = server.backend.ctx;
    // What a run that stopped read of the thread (runs/failure.ts, syncStopped) before another ran.
    const before = await readSnapshot(ctx, threadId);
    const resume = { assistant_id: "loop", command: { resume: { [first.body.__interrupt__[0].id]: "a0" } } };
    const answered = await post(`/threads/${threadId}/runs/wait`, resume);
    expect(answered.body.answers).toEqual(["a0"]);
    await syncThread(ctx, threadId, { error: { code: "STORAGE_FAILED", message: "late" } }, before);
    const after = await thread(threadId);
    expect({ status: after.status, answers: after.values.answers, error: after.error }).toEqual({
      status: "interrupted",
      answers: ["a0"],
      error: null,
    });
    expect(Object.values(after.interrupts).flat()).toEqual([answered.body.__interrupt__[0]]);
    // The answer stays taken: given again, it is refused, not applied a second time.
    const again = await post(`/threads/${threadId}/runs/wait`, resume);
    expect(again).toMatchObject({ status: 409, body: { code: "ALREADY_ANSWERED" } });
  });

  it("a queued run cancelled is dropped with its thread's sync, or not at all", async () => {
    const threadId = (await post("/threads", {})).body.thread_id as string;
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    hooks.during = () => held;
    const first = (await post(`/threads/${threadId}/runs`, { assistant_id: "hooked", input: {} })).body;
    await until(async () => (await thread(threadId)).status === "busy");
    const queued = { assistant_id: "hooked", input: {}, multitask_strategy: "enqueue" };
    const second = (await post(`/threads/${threadId}/runs`, queued)).body;
    const db = server.backend.ctx.store.db;
    const status = async (runId: string) =>
      (await db.all("SELECT status FROM interlude_server_runs WHERE run_id = ?", [runId]))[0]?.status;
    const cancel = () => post(`/threads/${threadId}/runs/${second.run_id}/cancel`, {});
    await whileRefusing(db, { event: "UPDATE", table: "interlude_server_threads" }, async () => {
      expect((await cancel()).status).not.toBe(202);
      expect(await status(second.run_id)).toBe("pending");
    });
    expect((await cancel()).status).toBe(202);
    expect(await status(second.run_id)).toBe("interrupted");
    release();
    await until(async () => (await status(first.run_id)) === "success");
    expect((await thread(threadId)).status).toBe("idle");
  });

  it("a failed run's end is recorded with its thread's sync, once storage takes both", async () => {
    const threadId = (await post("/threads", {})).body.thread_id as string;
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    hooks.during = async () => {
      await held;
      throw new Error("the node failed");
    };
    const db = server.backend.ctx.store.db;
    const running = post(`/threads/${threadId}/runs/wait`, { assistant_id: "hooked", input: {} });
    await until(async () => (await thread(threadId)).status === "busy");
    const runsEnding = { event: "UPDATE", table: "interlude_server_runs", when: "NEW.status = 'error'" } as const;
    const threadsSynced = { event: "UPDATE", table: "interlude_server_threads" } as const;
    const runStatus = async () =>
      (await db.all("SELECT status FROM interlude_server_runs WHERE thread_id = ?", [threadId]))[0]?.status;
    await whileRefusing(db, threadsSynced, async () => {
      await whileRefusing(db, runsEnding, async () => {
        release();
        // Its own end cannot be recorded: failRun's retry records it once storage takes it.
        expect((await running).body.__error__.message).toBe("refused by the test");
      });
      // The runs take its end now, but not without its thread's sync, which is refused: a
      // process that died here would leave the run to the lease sweep, not the thread busy for good.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(await runStatus()).toBe("running");
    });
    await until(async () => (await runStatus()) === "error", 10_000);
    expect((await thread(threadId)).status).toBe("error");
  });
});
