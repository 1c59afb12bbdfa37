/**
 * An answer to a question asked inside a subgraph, whose run the database fails after the
 * subgraph saved its step past the question and before the parent saved its own: the subgraph's
 * checkpoint holds the answer, the parent's still shows the question. Whether the run's end is
 * recorded at once or, when that record fails too, by the retry once storage is back, the thread
 * holds the answer as API.md ("Storage failures") says: given again it is refused
 * ALREADY_ANSWERED, the thread waits for no question (status error, next not empty), and a run
 * without input continues it with the answer applied once. The same when the subgraph's next
 * node fails instead of the database (the run ends in its own process, which saw the answer taken).
 */
import { Annotation, interrupt, START, StateGraph } from "@interlude/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, type TestServer, testServer, until, whileRefusing } from "./helpers.js";
import { storages } from "./processes.js";

/** Checks fail this many more times (the subgraph's node after its question). */
let failures = 0;
const checked = new StateGraph(Annotation.Root({ answer: Annotation<string>() }))
  .addNode("ask", () => ({ answer: interrupt({ question: "ok?" }) }))
  .addNode("check", () => {
    if (failures-- > 0) throw new Error("the check failed");
    return {};
  })
  .addEdge(START, "ask")
  .addEdge("ask", "check")
  .compile();
const askThenCheck = new StateGraph(Annotation.Root({ answer: Annotation<string>() }))
  .addNode("inner", checked)
  .addEdge(START, "inner");

describe.each(storages("interlude_nested_faults"))("on %s", (_name, storage) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await testServer({ ...(await storage()), graphs: { ask_then_check: askThenCheck } });
  });
  afterAll(() => server?.dispose());
  const post = (path: string, body: unknown) =>
    json(`${server.url}${path}`, { method: "POST", body: JSON.stringify(body) });
  const db = () => server.backend.ctx.store.db;
  /** The parent's step refused: its checkpoint cannot be saved, the subgraph's can. */
  const parentRefused = () =>
    ({
      event: "INSERT",
      table: db().dialect === "postgres" ? "interlude_checkpoints" : "checkpoints",
      when: "NEW.checkpoint_ns = ''",
    }) as const;

  /** A thread of the soak's nested graph at its first question. */
  async function asked() {
    const threadId = (await post("/threads", {})).body.thread_id as string;
    const first = await post(`/threads/${threadId}/runs/wait`, { assistant_id: "soak_nested", input: { rounds: 5 } });
    expect(first.body.__interrupt__[0].value).toEqual({ question: "next?", n: 0 });
    return { threadId, question: first.body.__interrupt__[0].id as string };
  }

  /** After the failure: the answer is held, no question is shown, and a run without input applies it once. */
  async function expectHeldThenContinued(threadId: string, question: string) {
    // The failure is answered at once; the run's end is recorded after (runs/failure.ts, failRun).
    await until(async () => (await json(`${server.url}/threads/${threadId}`)).body.status !== "busy", 5_000);
    const thread = (await json(`${server.url}/threads/${threadId}`)).body;
    expect({ status: thread.status, interrupts: thread.interrupts }).toEqual({ status: "error", interrupts: {} });
    const resume = { assistant_id: "soak_nested", command: { resume: { [question]: "a0" } } };
    const again = await post(`/threads/${threadId}/runs/wait`, resume);
    expect(again).toMatchObject({
      status: 409,
      body: { code: "ALREADY_ANSWERED", interrupt_id: question, answer: "a0" },
    });
    const continued = await post(`/threads/${threadId}/runs/wait`, { assistant_id: "soak_nested" });
    expect(continued.body.answers).toEqual(["a0"]);
    expect(continued.body.__interrupt__[0].value).toEqual({ question: "next?", n: 1 });
  }

  it("when the run's end is recorded at once", async () => {
    const { threadId, question } = await asked();
    const resume = { assistant_id: "soak_nested", command: { resume: { [question]: "a0" } } };
    const failed = await whileRefusing(db(), parentRefused(), () => post(`/threads/${threadId}/runs/wait`, resume));
    expect(failed).toMatchObject({ status: 503, body: { code: "STORAGE_FAILED" } });
    await expectHeldThenContinued(threadId, question);
  });

  it("when its end is recorded by the retry, once storage is back", async () => {
    const { threadId, question } = await asked();
    const resume = { assistant_id: "soak_nested", command: { resume: { [question]: "a0" } } };
    // The run's end cannot be recorded at first either: it is, later, by failRun's retry (runs/failure.ts).
    const ending = { event: "UPDATE", table: "interlude_server_runs", when: "NEW.status = 'error'" } as const;
    const failed = await whileRefusing(db(), ending, () =>
      whileRefusing(db(), parentRefused(), () => post(`/threads/${threadId}/runs/wait`, resume)),
    );
    expect(failed).toMatchObject({ status: 503, body: { code: "STORAGE_FAILED" } });
    await expectHeldThenContinued(threadId, question);
  });

  it("when the subgraph's node after the question fails", async () => {
    const threadId = (await post("/threads", {})).body.thread_id as string;
    const first = await post(`/threads/${threadId}/runs/wait`, { assistant_id: "ask_then_check", input: {} });
    const question = first.body.__interrupt__[0].id as string;
    const resume = { assistant_id: "ask_then_check", command: { resume: { [question]: "a0" } } };
    failures = 1;
    const failed = await post(`/threads/${threadId}/runs/wait`, resume);
    expect(failed.body.__error__.message).toBe("the check failed");
    const thread = (await json(`${server.url}/threads/${threadId}`)).body;
    expect({ status: thread.status, interrupts: thread.interrupts }).toEqual({ status: "error", interrupts: {} });
    const again = await post(`/threads/${threadId}/runs/wait`, resume);
    expect(again).toMatchObject({
      status: 409,
      body: { code: "ALREADY_ANSWERED", interrupt_id: question, answer: "a0" },
    });
    const continued = await post(`/threads/${threadId}/runs/wait`, { assistant_id: "ask_then_check" });
    expect(continued.body).toEqual({ answer: "a0" });
  });
});
