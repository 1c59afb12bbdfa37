/**
 * LangGraph.js's RemoteGraph (`@langchain/langgraph/remote`), the way a LangGraph program calls
 * a graph deployed on a server, pointed at an Interlude server: run to a question, read the
 * thread, answer, stream, read the history.
 */
import { Command, GraphInterrupt } from "@langchain/langgraph";
import { RemoteGraph } from "@langchain/langgraph/remote";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type TestServer, testServer } from "./helpers.js";

let server: TestServer;
let remote: RemoteGraph;
beforeAll(async () => {
  server = await testServer();
  remote = new RemoteGraph({ graphId: "loop", url: server.url });
});
afterAll(() => server?.dispose());

it("runs to a question, shows it in the thread's state, and takes the answer", async () => {
  const thread = await server.client().threads.create();
  const config = { configurable: { thread_id: thread.thread_id } };
  // RemoteGraph's invoke raises a remote run's question, as it does against LangGraph's server.
  const paused = await remote.invoke({ rounds: 2 }, config).catch((e: unknown) => e);
  expect(paused).toBeInstanceOf(GraphInterrupt);
  expect((paused as GraphInterrupt).interrupts).toMatchObject([{ value: { question: "next?", n: 0 } }]);
  const state = await remote.getState(config);
  expect(state.next).toEqual(["ask"]);
  expect(state.values).toEqual({ rounds: 2, answers: [] });
  expect(state.tasks[0]?.interrupts[0]?.value).toEqual({ question: "next?", n: 0 });
  // Its stream yields what the run streamed, then raises the next question.
  const values: unknown[] = [];
  const asked = await (async () => {
    for await (const chunk of await remote.stream(new Command({ resume: "first" }), {
      ...config,
      streamMode: "values",
    }))
      values.push(chunk);
  })().catch((e: unknown) => e);
  expect(values.at(-1)).toEqual({ rounds: 2, answers: ["first"] });
  expect((asked as GraphInterrupt).interrupts).toMatchObject([{ value: { question: "next?", n: 1 } }]);
  const done = await remote.invoke(new Command({ resume: "second" }), config);
  expect(done).toEqual({ rounds: 2, answers: ["first", "second"] });
  expect((await remote.getState(config)).next).toEqual([]);
  const history = [];
  for await (const snapshot of remote.getStateHistory(config)) history.push(snapshot.values);
  expect(history[0]).toEqual({ rounds: 2, answers: ["first", "second"] });
  expect(history.length).toBeGreaterThan(3);
});
