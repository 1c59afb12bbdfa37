/**
 * A run that finds its thread claimed by another writer (a state edit, a process not known to be
 * gone yet) goes back to the queue and is tried again shortly (runs/executor.ts). Nothing of it
 * executed: if the other writer moved the thread on meanwhile, the retry starts it afresh from
 * there. It used to take the moved head for its own progress, continue without sending its
 * answer, end `success` and record the answer as applied: an acknowledged answer never applied.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, runEnded, type TestServer, testServer, until } from "./helpers.js";
import { storages } from "./processes.js";

describe.each(storages("interlude_busy_answer"))("on %s", (_name, storage) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await testServer(await storage());
  }, 60_000);
  afterAll(() => server?.dispose());
  const post = (path: string, body: unknown) =>
    json(`${server.url}${path}`, { method: "POST", body: JSON.stringify(body) });

  it("an answer whose run met the thread busy, and the question gone by its retry, is refused, not taken as applied", async () => {
    const { saver, graphs } = server.backend.ctx;
    const threadId = (await post("/threads", {})).body.thread_id;
    const asked = await post(`/threads/${threadId}/runs/wait`, { assistant_id: "loop", input: { rounds: 3 } });
    const question = asked.body.__interrupt__[0].id;
    // Another writer holds the thread when the answer's run first tries it.
    const other = "another-writer/1/edit";
    await saver.claimThread(threadId, { owner: other, ttlMs: 60_000 });
    // Its creation is answered once the run has started (accepted): not until the other writer lets go.
    const created = post(`/threads/${threadId}/runs`, {
      assistant_id: "loop",
      command: { resume: { [question]: "a" } },
    });
    const run = await until(async () => {
      const [found] = (await json(`${server.url}/threads/${threadId}/runs?limit=1`)).body;
      // Tried and queued again (each try touches it).
      return found?.status === "pending" && found.updated_at !== found.created_at && found;
    });
    const runUrl = `${server.url}/threads/${threadId}/runs/${run.run_id}`;
    // It lets go, and the thread has moved on (an edit made as the asking node: the question is gone).
    await saver.releaseThread(threadId, other);
    await graphs.get("loop")!.updateState({ configurable: { thread_id: threadId } }, { rounds: 4 });
    await created;
    const ended = await runEnded(runUrl);
    const state = (await json(`${server.url}/threads/${threadId}/state`)).body;
    expect(state.values.answers).toEqual([]);
    expect(ended.status).toBe("error");
    expect((await json(`${runUrl}/join`)).body.__error__).toMatchObject({ code: "UNKNOWN_INTERRUPT" });
    // Not recorded as given: the reviewer may answer the question asked now.
    const next = state.tasks[0].interrupts[0].id;
    const answered = await post(`/threads/${threadId}/runs/wait`, {
      assistant_id: "loop",
      command: { resume: { [next]: "b" } },
    });
    expect(answered.body.answers).toEqual(["b"]);
  });
});
