/** Rolling back a run puts its thread back as it was before the run, whichever run it was. */
import { Annotation, interrupt, START, StateGraph } from "@interlude/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json, type TestServer, testServer, until } from "./helpers.js";
import { storages } from "./processes.js";

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

/** Asks, then works (without touching the answers): the list keeps its version across the work's checkpoint. */
let working: Promise<void> = Promise.resolve();
const askThenWork = new StateGraph(
  Annotation.Root({
    answers: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
    worked: Annotation<number>(),
  }),
)
  .addNode("ask", (s) => ({ answers: [interrupt<unknown, string>({ n: s.answers.length })] }))
  .addNode("work", async (s) => (await working, { worked: s.answers.length }))
  .addEdge(START, "ask")
  .addEdge("ask", "work")
  .addEdge("work", "ask");

/** The same, asked inside a subgraph: its checkpoints (in its own namespace) are saved after its parent's. */
const askInside = new StateGraph(Annotation.Root({ last: Annotation<string>(), n: Annotation<number>() }))
  .addNode("ask", (s) => ({ last: interrupt<unknown, string>({ n: s.n }) }))
  .addEdge(START, "ask")
  .compile();
const askInSubgraphThenWork = new StateGraph(
  Annotation.Root({
    answers: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
    worked: Annotation<number>(),
    last: Annotation<string>(),
    n: Annotation<number>(),
  }),
)
  .addNode("prep", (s) => ({ n: s.answers.length }))
  .addNode("inner", askInside)
  .addNode("record", (s) => ({ answers: [s.last] }))
  .addNode("work", async (s) => (await working, { worked: s.answers.length }))
  .addEdge(START, "prep")
  .addEdge("prep", "inner")
  .addEdge("inner", "record")
  .addEdge("record", "work")
  .addEdge("work", "prep");

describe.each(storages("interlude_rollback"))(
  "on %s, a thread whose list kept its version across checkpoints",
  (_name, storage) => {
    let own: TestServer;
    const call = (path: string, body?: unknown) =>
      json(`${own.url}${path}`, body === undefined ? {} : { method: "POST", body: JSON.stringify(body) });
    /** A thread answered `rounds` times, paused at its next question. */
    async function answered(rounds: number, graph = "ask_then_work") {
      const threadId = (await call("/threads", {})).body.thread_id as string;
      let state = (await call(`/threads/${threadId}/runs/wait`, { assistant_id: graph, input: {} })).body;
      for (let n = 0; n < rounds; n++) {
        const resume = { [state.__interrupt__[0].id]: `a${n}` };
        state = (await call(`/threads/${threadId}/runs/wait`, { assistant_id: graph, command: { resume } })).body;
      }
      return { threadId, question: state.__interrupt__[0].id as string };
    }
    beforeAll(async () => {
      own = await testServer({
        ...(await storage()),
        abortGraceMs: 50,
        graphs: { ask_then_work: askThenWork, ask_in_subgraph_then_work: askInSubgraphThenWork },
      });
    });
    afterAll(() => own?.dispose());

    it.each(["ask_then_work", "ask_in_subgraph_then_work"])(
      "(%s) is rolled back to where the run started, and answers again from there",
      async (graph) => {
        const { threadId, question } = await answered(3, graph);
        let proceed!: () => void;
        working = new Promise((resolve) => (proceed = resolve));
        const run = (
          await call(`/threads/${threadId}/runs`, {
            assistant_id: graph,
            command: { resume: { [question]: "undone" } },
          })
        ).body;
        await until(async () => (await call(`/threads/${threadId}/state`)).body.values.answers.includes("undone"));
        // "work" ignores the cancel's signal: it is abandoned after the abort's grace, then let go.
        const cancelled = await fetch(
          `${own.url}/threads/${threadId}/runs/${run.run_id}/cancel?action=rollback&wait=1`,
          {
            method: "POST",
          },
        );
        proceed();
        expect(cancelled.status).toBe(204);
        expect((await call(`/threads/${threadId}/runs/${run.run_id}`)).status).toBe(404);
        const thread = (await call(`/threads/${threadId}`)).body;
        expect(thread).toMatchObject({ status: "interrupted", values: { answers: ["a0", "a1", "a2"] } });
        const again = await call(`/threads/${threadId}/runs/wait`, {
          assistant_id: graph,
          command: { resume: { [question]: "again" } },
        });
        expect(again.body.answers).toEqual(["a0", "a1", "a2", "again"]);
      },
    );

    it("is copied whole: every checkpoint of the copy reads as the original's", async () => {
      const { threadId } = await answered(3);
      const copy = (await call(`/threads/${threadId}/copy`, {})).body.thread_id;
      const history = async (id: string) =>
        ((await call(`/threads/${id}/history`, { limit: 50 })).body as any[]).map((s) => s.values);
      expect(await history(copy)).toEqual(await history(threadId));
      expect((await history(copy))[0].answers).toEqual(["a0", "a1", "a2"]);
    });
  },
);
