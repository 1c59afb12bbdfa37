/**
 * Every stream mode the SDK can ask `runs.stream` for, against graphs calling a fake streaming
 * chat model (SQLite); `lifecycle` (subgraphs starting, ending, pausing, failing, started by a tool
 * call); and `entrypoint()` workflows served like graphs: input, streaming, interrupt and resume, state.
 */
import { fileURLToPath } from "node:url";
import { loadConfig } from "@interlude/server";
import type { StreamMode } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collect, json, type TestServer, testServer } from "./helpers.js";

const ANSWER = "Tokens arrive one by one";
const AGENTS_CONFIG = fileURLToPath(new URL("./fixtures/agents.json", import.meta.url));
const hello = { messages: [{ role: "user", content: "hello" }] };
const context = { user: "ann" };

type Event = { event: string; data: any; id?: string };

let server: TestServer;
beforeAll(async () => {
  server = await testServer({ config: loadConfig(AGENTS_CONFIG) });
});
afterAll(() => server.dispose());

async function streamed(
  graph: string,
  streamMode: StreamMode[],
  input: Record<string, unknown> = hello,
  subgraphs = false,
) {
  const client = server.client();
  const thread = await client.threads.create();
  const events = (await collect(
    client.runs.stream(thread.thread_id, graph, { input, streamMode, streamSubgraphs: subgraphs, context }),
  )) as Event[];
  return { client, thread, events };
}

const ofMode = (events: Event[], name: string) => events.filter((e) => e.event === name).map((e) => e.data);
const kept = (events: Event[]) => events.filter((e) => e.event !== "metadata" && e.event !== "end");

/** What each mode sends for one turn of the `chatty` graph (one node calling the model, writing progress). */
const EXPECTED: Array<[StreamMode, string, (events: Event[]) => void]> = [
  [
    "values",
    "chatty",
    (events) => {
      const values = ofMode(events, "values");
      expect(values.map((v) => v.messages.map((m: any) => [m.type, m.content]))).toEqual([
        [["human", "hello"]],
        [
          ["human", "hello"],
          ["ai", ANSWER],
        ],
      ]);
    },
  ],
  [
    "updates",
    "chatty",
    (events) =>
      expect(ofMode(events, "updates")).toMatchObject([{ model: { messages: [{ type: "ai", content: ANSWER }] } }]),
  ],
  [
    "messages-tuple",
    "chatty",
    (events) => {
      const tokens = ofMode(events, "messages");
      expect(tokens.length).toBe(ANSWER.length);
      expect(tokens.map(([chunk]) => chunk.content).join("")).toBe(ANSWER);
      expect(tokens[0][1]).toMatchObject({ langgraph_node: "model" });
    },
  ],
  [
    "messages",
    "chatty",
    (events) => {
      expect(ofMode(events, "messages/metadata")).toHaveLength(1);
      expect(ofMode(events, "messages/partial").at(-1)[0]).toMatchObject({ type: "ai", content: ANSWER });
    },
  ],
  [
    "events",
    "chatty",
    (events) => {
      const tokens = ofMode(events, "events").filter((e) => e.event === "on_chat_model_stream");
      expect(tokens.map((e) => e.data.chunk.content).join("")).toBe(ANSWER);
    },
  ],
  [
    "tools",
    "react",
    (events) =>
      expect(ofMode(events, "tools").map((t) => [t.event, t.name, t.toolCallId])).toEqual([
        ["on_tool_start", "weather", "call_1"],
        ["on_tool_end", "weather", "call_1"],
      ]),
  ],
  [
    "custom",
    "chatty",
    (events) =>
      expect(ofMode(events, "custom")).toEqual([{ progress: "thinking" }, { progress: "done", length: ANSWER.length }]),
  ],
  [
    "debug",
    "chatty",
    (events) => {
      const debug = ofMode(events, "debug");
      expect(debug.map((d) => d.type)).toEqual(["checkpoint", "checkpoint", "task", "task_result", "checkpoint"]);
      expect(debug[3].payload).toMatchObject({
        name: "model",
        result: { messages: [{ type: "ai", content: ANSWER }] },
      });
      expect(debug.at(-1).payload).toMatchObject({
        next: [],
        values: { messages: [{ type: "human" }, { type: "ai" }] },
      });
    },
  ],
  [
    "checkpoints",
    "chatty",
    (events) => {
      const checkpoints = ofMode(events, "checkpoints");
      expect(checkpoints.map((c) => [c.metadata.step, c.next])).toEqual([
        [-1, ["__start__"]],
        [0, ["model"]],
        [1, []],
      ]);
      for (const c of checkpoints) expect(c.config.configurable.checkpoint_id).toEqual(expect.any(String));
      expect(checkpoints[2].values.messages.map((m: any) => m.content)).toEqual(["hello", ANSWER]);
    },
  ],
  [
    "tasks",
    "chatty",
    (events) => {
      const [start, result] = ofMode(events, "tasks");
      expect(start).toMatchObject({ name: "model", input: { messages: [{ type: "human", content: "hello" }] } });
      expect(result).toMatchObject({ id: start.id, name: "model", error: null, interrupts: [] });
      expect(result.result.messages[0]).toMatchObject({ type: "ai", content: ANSWER });
    },
  ],
];

describe("every stream mode, through the SDK", () => {
  it.each(EXPECTED)("%s (graph %s) sends its events and nothing else", async (mode, graph, check) => {
    const { events } = await streamed(graph, [mode]);
    expect(events[0]).toMatchObject({ event: "metadata", data: { run_id: expect.any(String) } });
    expect(events.at(-1)).toMatchObject({ event: "end" });
    const names = new Set(kept(events).map((e) => e.event));
    const own = mode === "messages-tuple" ? ["messages"] : mode === "messages" ? [...names] : [mode];
    expect([...names].every((n) => own.includes(n) && (mode !== "messages" || n.startsWith("messages/")))).toBe(true);
    check(events);
  });

  it("all modes at once: each mode's events as when asked alone", async () => {
    const { events } = await streamed(
      "chatty",
      EXPECTED.filter(([, graph]) => graph === "chatty").map(([mode]) => mode),
    );
    for (const [, graph, check] of EXPECTED) if (graph === "chatty") check(events);
  });
});

describe("stream mode lifecycle", () => {
  const lifecycleOf = (events: Event[]) =>
    events
      .filter((e) => e.event.startsWith("lifecycle|"))
      .map((e) => [
        e.event.split("|")[1]!.split(":")[0],
        e.data.event,
        e.event === `lifecycle|${e.data.namespace.join("|")}`,
      ]);

  it.each([false, true])(
    "each subgraph's start and end (completed, interrupted), then on resume (streamSubgraphs %s)",
    async (subgraphs) => {
      const { client, thread, events } = await streamed("lifecycle", ["lifecycle"], hello, subgraphs);
      expect(lifecycleOf(events)).toEqual([
        ["inner", "started", true],
        ["inner", "completed", true],
        ["review", "started", true],
        ["review", "interrupted", true],
      ]);
      // Only the lifecycle mode was asked: the subgraphs' own events are not sent.
      expect(kept(events).every((e) => e.event.startsWith("lifecycle|"))).toBe(true);
      const resumed = (await collect(
        client.runs.stream(thread.thread_id, "lifecycle", {
          command: { resume: "yes" },
          streamMode: ["lifecycle"],
          context,
        }),
      )) as Event[];
      expect(lifecycleOf(resumed)).toEqual([
        ["review", "started", true],
        ["review", "completed", true],
      ]);
      const state = await client.threads.getState(thread.thread_id);
      expect((state.values as any).messages.at(-1).content).toBe("verdict: yes");
    },
  );

  it("a subgraph that throws ends failed, with the error, before the run's error", async () => {
    const { events } = await streamed("lifecycle", ["lifecycle", "updates"], {
      messages: [{ role: "user", content: "boom" }],
    });
    const failed = events.findIndex((e) => e.event.startsWith("lifecycle|review") && e.data.event === "failed");
    expect(events[failed]!.data.error).toEqual({ error: "Error", message: "review failed" });
    expect(events[failed + 1]).toMatchObject({ event: "error", data: { message: "review failed" } });
  });

  it("a subgraph run by a tool carries the tool call's id; joinStream replays lifecycle events", async () => {
    const client = server.client();
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "subagent", {
      input: hello,
      streamMode: ["lifecycle", "tools"],
      streamResumable: true,
      context,
    });
    await client.runs.join(thread.thread_id, run.run_id);
    const events = (await collect(client.runs.joinStream(thread.thread_id, run.run_id))) as Event[];
    const life = events.filter((e) => e.event.startsWith("lifecycle|tools:")).map((e) => e.data);
    expect(life).toMatchObject([
      { event: "started", tool_call_id: "call_1" },
      { event: "completed", namespace: life[0].namespace },
    ]);
    const filtered = (await collect(
      client.runs.joinStream(thread.thread_id, run.run_id, { streamMode: ["lifecycle"] }),
    )) as Event[];
    expect(kept(filtered).map((e) => e.data.event)).toEqual(["started", "completed"]);
  });
});

describe("entrypoint() workflows", () => {
  it("input, streamed tokens and task updates, interrupt, resume, state and history", async () => {
    const { client, thread, events } = await streamed("functional", ["values", "updates", "messages-tuple"], {
      topic: "cats",
    });
    expect(
      ofMode(events, "messages")
        .map(([chunk]) => chunk.content)
        .join(""),
    ).toBe(ANSWER);
    const question = { question: "publish?", text: ANSWER };
    expect(ofMode(events, "updates")).toMatchObject([{ draft: ANSWER }, { __interrupt__: [{ value: question }] }]);
    expect(ofMode(events, "values")).toMatchObject([{ __interrupt__: [{ value: question }] }]);
    const paused = await client.threads.getState(thread.thread_id);
    expect(paused).toMatchObject({ values: {}, next: ["functional"], interrupts: [{ value: question }] });
    expect((await client.threads.get(thread.thread_id)).status).toBe("interrupted");

    const resumed = (await collect(
      client.runs.stream(thread.thread_id, "functional", {
        command: { resume: "yes" },
        streamMode: ["values", "updates"],
      }),
    )) as Event[];
    const output = { text: ANSWER, verdict: "yes" };
    expect(ofMode(resumed, "values")).toEqual([output]);
    expect(ofMode(resumed, "updates")).toEqual([{ functional: output }]);
    expect((await client.threads.getState(thread.thread_id)).values).toEqual(output);
    expect((await client.threads.get(thread.thread_id)).status).toBe("idle");
    const history = await client.threads.getHistory(thread.thread_id);
    expect(history[0]!.values).toEqual(output);
  });

  it("runs.wait returns the output; updateState sets the thread's values", async () => {
    const client = server.client();
    const thread = await client.threads.create();
    expect(await client.runs.wait(thread.thread_id, "functional", { input: { topic: "dogs" } })).toMatchObject({
      __interrupt__: [{ value: { question: "publish?" } }],
    });
    expect(await client.runs.wait(thread.thread_id, "functional", { command: { resume: "no" } })).toEqual({
      text: ANSWER,
      verdict: "no",
    });
    await client.threads.updateState(thread.thread_id, { values: { text: "edited", verdict: "yes" } });
    expect((await client.threads.getState(thread.thread_id)).values).toEqual({ text: "edited", verdict: "yes" });
  });

  it("a workflow returning a string: wait, the thread's state and values give the string", async () => {
    const client = server.client();
    const thread = await client.threads.create();
    // Over HTTP: the SDK's runs.wait looks for `__error__` in the result with `in`, which a string fails.
    const waited = await json(`${server.url}/threads/${thread.thread_id}/runs/wait`, {
      method: "POST",
      body: JSON.stringify({ assistant_id: "echo", input: { text: "hi" } }),
    });
    expect(waited).toEqual({ status: 200, body: "echo: hi" });
    expect((await client.threads.getState(thread.thread_id)).values).toBe("echo: hi");
    const events = (await collect(
      client.runs.stream(thread.thread_id, "echo", { input: { text: "again" }, streamMode: ["values"] }),
    )) as Event[];
    expect(ofMode(events, "values")).toEqual(["echo: again"]);
  });
});
