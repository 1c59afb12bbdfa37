/**
 * Agents over HTTP, driven by the SDK: tokens of a streaming chat model reach the client as the
 * model produces them (messages-tuple, messages), messages cross the wire in LangGraph Server's
 * shape both ways, getSchemas / getSubgraphs describe real graphs, unsupported options are refused.
 */
import { fileURLToPath } from "node:url";
import { loadConfig } from "@interlude/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeGate, gate } from "./fixtures/agents.mjs";
import { collect, json, type TestServer, testServer } from "./helpers.js";

const ANSWER = "Tokens arrive one by one";
const AGENTS_CONFIG = fileURLToPath(new URL("./fixtures/agents.json", import.meta.url));
const hello = { messages: [{ role: "user", content: "hello" }] };

let server: TestServer;
beforeAll(async () => {
  server = await testServer({ config: loadConfig(AGENTS_CONFIG) });
});
afterAll(() => server.dispose());

type Event = { event: string; data: any; id?: string };

describe("agents over the server", () => {
  it("messages-tuple: each token is a `messages` event [chunk, metadata], in order, in several chunks", async () => {
    const client = server.client();
    const thread = await client.threads.create();
    const events = (await collect(
      client.runs.stream(thread.thread_id, "chat", {
        input: hello,
        streamMode: "messages-tuple",
        context: { user: "ann" },
      }),
    )) as Event[];
    const tokens = events.filter((e) => e.event === "messages");
    expect(tokens.length).toBeGreaterThan(5);
    for (const { data } of tokens) {
      const [chunk, metadata] = data;
      expect(chunk).toMatchObject({ type: "ai", id: tokens[0]!.data[0].id });
      expect(chunk).not.toHaveProperty("lc");
      expect(metadata).toMatchObject({ langgraph_node: "model" });
    }
    expect(tokens.map((e) => e.data[0].content).join("")).toBe(ANSWER);
  });

  it("a token reaches the client while the model is still producing the rest", async () => {
    const client = server.client();
    const thread = await client.threads.create();
    closeGate();
    const stream = client.runs.stream(thread.thread_id, "gated", { input: hello, streamMode: "messages-tuple" });
    const seen: Event[] = [];
    for await (const event of stream as AsyncIterable<Event>) {
      seen.push(event);
      if (event.event === "messages") break;
    }
    // The model waits at the gate for its second token: the first one came before the node ended.
    expect(seen.at(-1)!.data[0].content).toBe("first");
    const runId = (seen[0]!.data as { run_id: string }).run_id;
    expect((await client.runs.get(thread.thread_id, runId)).status).toBe("running");
    gate.open();
    await client.runs.join(thread.thread_id, runId);
    const state = await client.threads.getState(thread.thread_id);
    expect((state.values as any).messages.at(-1).content).toBe("first second");
  });

  it("messages: metadata once, then partials that grow to the whole answer", async () => {
    const client = server.client();
    const thread = await client.threads.create();
    const events = (await collect(
      client.runs.stream(thread.thread_id, "chat", { input: hello, streamMode: "messages", context: { user: "ann" } }),
    )) as Event[];
    const metadata = events.filter((e) => e.event === "messages/metadata");
    const partials = events.filter((e) => e.event === "messages/partial").map((e) => e.data[0].content);
    expect(metadata).toHaveLength(1);
    expect(Object.values(metadata[0]!.data)[0]).toMatchObject({ metadata: { langgraph_node: "model" } });
    expect(partials.length).toBeGreaterThan(5);
    for (let i = 1; i < partials.length; i++) expect(partials[i].startsWith(partials[i - 1])).toBe(true);
    expect(partials.at(-1)).toBe(ANSWER);
  });

  it("events: LangChain's v2 events, the model's tokens as on_chat_model_stream, beside the graph's own modes", async () => {
    const client = server.client();
    const thread = await client.threads.create();
    const events = (await collect(
      client.runs.stream(thread.thread_id, "chat", {
        input: hello,
        streamMode: ["events", "values"],
        context: { user: "ann" },
      }),
    )) as Event[];
    const lc = events.filter((e) => e.event === "events").map((e) => e.data);
    expect(lc[0]).toMatchObject({ event: "on_chain_start", data: { input: hello } });
    expect(lc.map((e) => e.event)).toContain("on_chat_model_end");
    const tokens = lc.filter((e) => e.event === "on_chat_model_stream");
    expect(tokens.length).toBeGreaterThan(5);
    for (const t of tokens)
      expect(t).toMatchObject({ metadata: { langgraph_node: "model" }, data: { chunk: { type: "ai" } } });
    expect(tokens.map((t) => t.data.chunk.content).join("")).toBe(ANSWER);
    const values = events.filter((e) => e.event === "values").at(-1)!.data;
    expect(values.messages.map((m: any) => m.content)).toEqual(["hello", ANSWER]);
    // The graph's stream chunks are sent as their modes, not again as events.
    const root = lc[0].run_id;
    expect(lc.filter((e) => e.event === "on_chain_stream" && e.run_id === root)).toEqual([]);
    expect(lc.filter((e) => e.run_id === root).map((e) => e.event)).toEqual(["on_chain_start", "on_chain_end"]);
  });

  it("a subgraph's tokens come with its namespace when streamSubgraphs is on, and not otherwise", async () => {
    const client = server.client();
    const thread = await client.threads.create();
    const nested = (await collect(
      client.runs.stream(thread.thread_id, "nested_chat", {
        input: hello,
        streamMode: "messages-tuple",
        streamSubgraphs: true,
        context: { user: "ann" },
      }),
    )) as Event[];
    const tokens = nested.filter((e) => e.event.startsWith("messages|inner:"));
    expect(tokens.length).toBeGreaterThan(5);
    expect(tokens.map((e) => e.data[0].content).join("")).toBe(ANSWER);
    const flat = (await collect(
      client.runs.stream(thread.thread_id, "nested_chat", {
        input: hello,
        streamMode: "messages-tuple",
        context: { user: "ann" },
      }),
    )) as Event[];
    expect(flat.filter((e) => e.event.startsWith("messages"))).toEqual([]);
  });

  it("joinStream with lastEventId replays the tokens after that event", async () => {
    const client = server.client();
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "chat", {
      input: hello,
      streamMode: ["messages-tuple"],
      streamResumable: true,
      context: { user: "ann" },
    });
    await client.runs.join(thread.thread_id, run.run_id);
    const all = (await collect(client.runs.joinStream(thread.thread_id, run.run_id))) as Event[];
    const tokens = all.filter((e) => e.event === "messages");
    expect(tokens.map((e) => e.data[0].content).join("")).toBe(ANSWER);
    const cut = tokens[4]!;
    const rest = (await collect(
      client.runs.joinStream(thread.thread_id, run.run_id, { lastEventId: cut.id }),
    )) as Event[];
    expect(
      rest
        .filter((e) => e.event === "messages")
        .map((e) => e.data[0].content)
        .join(""),
    ).toBe(ANSWER.slice(5));
  });

  it("messages round-trip: dicts sent in come back as typed messages with ids, in state and in values", async () => {
    const client = server.client();
    const thread = await client.threads.create();
    const values = await client.runs.wait(thread.thread_id, "chat", {
      input: { messages: [{ type: "human", content: "hello" }] },
      context: { user: "ann" },
    });
    const state = await client.threads.getState(thread.thread_id);
    for (const messages of [(values as any).messages, (state.values as any).messages]) {
      expect(messages).toMatchObject([
        { type: "human", content: "hello" },
        { type: "ai", content: ANSWER, tool_calls: [] },
      ]);
      expect(messages[0].id).toEqual(expect.any(String));
      expect(messages[0]).not.toHaveProperty("lc");
    }
    // A message sent back as the server gave it is the same message (same id): replaced, not added.
    await client.threads.updateState(thread.thread_id, {
      values: { messages: [{ ...(state.values as any).messages[1], content: "edited" }] },
    });
    const edited = await client.threads.getState(thread.thread_id);
    expect((edited.values as any).messages.map((m: any) => m.content)).toEqual(["hello", "edited"]);
  });

  it("the prebuilt ReAct agent: a tool call and its result in LangGraph Server's shape, the answer streamed", async () => {
    const client = server.client();
    const thread = await client.threads.create();
    const events = (await collect(
      client.runs.stream(thread.thread_id, "react", { input: hello, streamMode: ["messages-tuple", "values"] }),
    )) as Event[];
    const last = events.filter((e) => e.event === "values").at(-1)!.data;
    expect(last.messages.map((m: any) => m.type)).toEqual(["human", "ai", "tool", "ai"]);
    expect(last.messages[1].tool_calls).toMatchObject([{ name: "weather", args: { city: "Paris" }, id: "call_1" }]);
    expect(last.messages[2]).toMatchObject({ type: "tool", tool_call_id: "call_1", content: "sunny in Paris" });
    const words = events.filter((e) => e.event === "messages" && e.data[0].type === "ai" && e.data[0].content);
    expect(words.map((e) => e.data[0].content)).toEqual(["It", " is", " sunny", " in", " Paris"]);
  });

  it("tools: each tool call's start and end with its tool call id, alone, with events or with tokens", async () => {
    const client = server.client();
    for (const streamMode of [["tools"], ["tools", "events"], ["tools", "messages-tuple"]] as const) {
      const thread = await client.threads.create();
      const events = (await collect(
        client.runs.stream(thread.thread_id, "react", { input: hello, streamMode: [...streamMode] }),
      )) as Event[];
      const tools = events.filter((e) => e.event === "tools").map((e) => e.data);
      expect(tools).toMatchObject([
        { event: "on_tool_start", toolCallId: "call_1", name: "weather" },
        {
          event: "on_tool_end",
          toolCallId: "call_1",
          name: "weather",
          output: { type: "tool", content: "sunny in Paris", tool_call_id: "call_1" },
        },
      ]);
    }
  });

  it("getSchemas gives JSON Schema types from zod and StateSchema; getSubgraphs lists the real subgraphs", async () => {
    const client = server.client();
    const chat = await client.assistants.getSchemas("chat");
    expect(chat.state_schema).toMatchObject({
      type: "object",
      properties: { messages: { type: "array" }, topic: { type: "string" } },
    });
    expect(chat.context_schema).toMatchObject({ type: "object", properties: { user: { type: "string" } } });
    const nested = await client.assistants.getSchemas("nested_chat");
    expect(nested.state_schema).toMatchObject({
      properties: { turns: { type: "number" }, messages: { type: "array" } },
    });
    expect(nested.context_schema).toBeNull();
    const subgraphs = await client.assistants.getSubgraphs("nested_chat");
    expect(Object.keys(subgraphs)).toEqual(["inner"]);
    expect(subgraphs.inner!.state_schema).toMatchObject({ properties: { topic: { type: "string" } } });
    expect(await client.assistants.getSubgraphs("chat")).toEqual({});
  });

  it("refuses what it does not do with 422 naming it: an unknown stream mode, webhook, after_seconds, strict_resume false, feedback_keys, langsmith_tracer", async () => {
    const thread = await server.client().threads.create();
    const post = (body: object) =>
      json(`${server.url}/threads/${thread.thread_id}/runs`, {
        method: "POST",
        body: JSON.stringify({ assistant_id: "chat", input: hello, ...body }),
      });
    const refused = await post({ stream_mode: ["messages-tuple", "telepathy"] });
    expect(refused).toMatchObject({ status: 422, body: { field: expect.stringMatching(/^stream_mode/) } });
    expect(refused.body.message).toContain(`"telepathy"`);
    expect(await post({ webhook: "http://example.com/hook" })).toMatchObject({
      status: 422,
      body: { field: "webhook" },
    });
    expect(await post({ after_seconds: 5 })).toMatchObject({ status: 422, body: { field: "after_seconds" } });
    expect(await post({ strict_resume: false })).toMatchObject({ status: 422, body: { field: "strict_resume" } });
    expect(await post({ feedback_keys: ["score"] })).toMatchObject({ status: 422, body: { field: "feedback_keys" } });
    const tracer = { langsmith_tracer: { project_name: "p" } };
    expect(await post(tracer)).toMatchObject({ status: 422, body: { field: "langsmith_tracer" } });
    expect((await server.client().runs.list(thread.thread_id)).length).toBe(0);
    // What it does anyway is accepted.
    expect((await post({ strict_resume: true })).status).toBe(200);
  });
});
