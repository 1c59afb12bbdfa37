/** Tokens across processes: a run streamed through one server is rejoined, tokens and all, through another (PostgreSQL). */
import { fileURLToPath } from "node:url";
import type { Client } from "@langchain/langgraph-sdk";
import pg from "pg";
import { beforeAll, describe, expect, it } from "vitest";
import { clientOf, collect } from "./helpers.js";
import { deploymentOnPostgres } from "./processes.js";

const AGENTS_CONFIG = fileURLToPath(new URL("./fixtures/agents.json", import.meta.url));
const ANSWER = "Tokens arrive one by one";
const deployment = deploymentOnPostgres("interlude_agents");
let urlA: string;
let urlB: string;

beforeAll(async () => {
  urlA = (await deployment.serve(AGENTS_CONFIG)).url;
  urlB = (await deployment.serve(AGENTS_CONFIG)).url;
}, 60_000);
type Event = { event: string; data: any; id?: string };

/** A run streamed through `client`: its events, and its id (from the metadata event). */
async function streamThrough(
  client: Client,
  threadId: string,
  graph: string,
  payload: Parameters<Client["runs"]["stream"]>[2],
): Promise<{ events: Event[]; runId: string }> {
  const events = (await collect(client.runs.stream(threadId, graph, payload))) as Event[];
  return { events, runId: (events[0]!.data as { run_id: string }).run_id };
}
/** The chat graph's answer, streamed as tokens through `client`. */
const streamChat = (client: Client, threadId: string) =>
  streamThrough(client, threadId, "chat", {
    input: { messages: [{ role: "user", content: "hello" }] },
    streamMode: ["messages-tuple"],
    context: { user: "ann" },
  });
const text = (events: Event[], name: string) =>
  events
    .filter((e) => e.event === name)
    .map((e) => e.data[0].content)
    .join("");

describe("agents on two servers sharing PostgreSQL", () => {
  it("the other server replays a run's tokens (messages-tuple and messages), and resumes after lastEventId", async () => {
    const a = clientOf(urlA);
    const b = clientOf(urlB);
    const thread = await a.threads.create();
    const { events: streamed, runId } = await streamThrough(a, thread.thread_id, "chat", {
      input: { messages: [{ role: "user", content: "hello" }] },
      streamMode: ["messages-tuple", "messages", "values"],
      context: { user: "ann" },
    });
    expect(text(streamed, "messages")).toBe(ANSWER);

    const joined = (await collect(b.runs.joinStream(thread.thread_id, runId))) as Event[];
    const tokens = joined.filter((e) => e.event === "messages");
    expect(tokens.length).toBeGreaterThan(5);
    expect(text(joined, "messages")).toBe(ANSWER);
    expect(tokens[0]!.data[0]).toMatchObject({ type: "ai" });
    expect(tokens[0]!.data[0]).not.toHaveProperty("lc");
    expect(joined.filter((e) => e.event === "messages/partial").at(-1)!.data[0].content).toBe(ANSWER);
    // The state's messages, stored in the wire's shape, read back as the running server sent them.
    const values = (events: Event[]) => events.filter((e) => e.event === "values").map((e) => e.data);
    expect(values(joined)).toEqual(values(streamed));
    expect(
      values(joined)
        .at(-1)
        .messages.map((m: any) => m.type),
    ).toEqual(["human", "ai"]);

    const rest = (await collect(b.runs.joinStream(thread.thread_id, runId, { lastEventId: tokens[4]!.id }))) as Event[];
    expect(text(rest, "messages")).toBe(ANSWER.slice(5));
    const state = await b.threads.getState(thread.thread_id);
    expect((state.values as any).messages.map((m: any) => m.type)).toEqual(["human", "ai"]);
  });

  it("the other server replays a run's tools and events modes", async () => {
    const a = clientOf(urlA);
    const b = clientOf(urlB);
    const thread = await a.threads.create();
    const { events: streamed, runId } = await streamThrough(a, thread.thread_id, "react", {
      input: { messages: [{ role: "user", content: "weather?" }] },
      streamMode: ["tools", "events"],
    });
    const joined = (await collect(b.runs.joinStream(thread.thread_id, runId))) as Event[];
    expect(joined.filter((e) => e.event === "tools").map((e) => [e.data.event, e.data.toolCallId])).toEqual([
      ["on_tool_start", "call_1"],
      ["on_tool_end", "call_1"],
    ]);
    const tokens = joined.filter((e) => e.event === "events" && e.data.event === "on_chat_model_stream");
    expect(tokens.map((e) => e.data.data.chunk.content).join("")).toBe("It is sunny in Paris");
    expect(joined.map((e) => e.event)).toEqual(streamed.map((e) => e.event));
  });

  it("a finished run is joined whole through the other server even while its server is slow to store the events", async () => {
    const a = clientOf(urlA);
    const b = clientOf(urlB);
    const thread = await a.threads.create();
    const { events: streamed, runId } = await streamChat(a, thread.thread_id);
    expect(text(streamed, "messages")).toBe(ANSWER);
    // Server A cannot store the run's events (B asks for them) until the table is unlocked.
    const locker = new pg.Client({ connectionString: deployment.database });
    const listener = new pg.Client({ connectionString: deployment.database });
    await Promise.all([locker.connect(), listener.connect()]);
    try {
      await locker.query("BEGIN");
      await locker.query("LOCK TABLE interlude_server_run_events IN EXCLUSIVE MODE");
      // B asks A for the run's events; unlocked once B has asked three times (still waiting for them).
      let asks = 0;
      const askedThrice = new Promise<"asked">((resolve) =>
        listener.on("notification", (message) => {
          for (const event of [JSON.parse(message.payload!)].flat())
            if (event.type === "run.follow" && event.run_id === runId && ++asks === 3) resolve("asked");
        }),
      );
      await listener.query("LISTEN interlude_server_events");
      const joining = collect(b.runs.joinStream(thread.thread_id, runId)) as Promise<Event[]>;
      const first = await Promise.race([askedThrice, joining.then(() => "joined" as const)]);
      await locker.query("COMMIT");
      expect(await joining).toEqual(streamed);
      expect(first).toBe("asked");
    } finally {
      await Promise.all([locker.end(), listener.end()]);
    }
  });

  it("a streamed run whose server has stopped is joined through the other server as its outcome", async () => {
    const c = await deployment.serve(AGENTS_CONFIG);
    const b = clientOf(urlB);
    const thread = await b.threads.create();
    const { runId } = await streamChat(clientOf(c.url), thread.thread_id);
    await c.stop();
    // Its events went with its process: B tells how the run ended.
    const joined = (await collect(b.runs.joinStream(thread.thread_id, runId))) as Event[];
    expect(joined.map((e) => e.event)).toEqual(["metadata", "values", "end"]);
    expect(joined[1]!.data.messages.at(-1).content).toBe(ANSWER);
  });

  it.each([
    [
      "chatty",
      ["values", "updates", "messages-tuple", "messages", "events", "custom", "debug", "checkpoints", "tasks"],
    ],
    ["react", ["tools", "messages-tuple"]],
    ["lifecycle", ["lifecycle", "updates"]],
  ] as const)(
    "every mode crosses servers: %s's run created on one is joined on the other, whole and after lastEventId",
    async (graph, modes) => {
      const a = clientOf(urlA);
      const b = clientOf(urlB);
      const thread = await a.threads.create();
      const { events: streamed, runId } = await streamThrough(a, thread.thread_id, graph, {
        input: { messages: [{ role: "user", content: "hello" }] },
        streamMode: [...modes],
        context: { user: "ann" },
      });
      const names = new Set(streamed.map((e) => e.event.split("|")[0]!));
      for (const mode of modes)
        expect(names).toContain(
          mode === "messages-tuple" ? "messages" : mode === "messages" ? "messages/partial" : mode,
        );
      const joined = (await collect(b.runs.joinStream(thread.thread_id, runId))) as Event[];
      expect(joined).toEqual(streamed);
      const cut = streamed[Math.floor(streamed.length / 2)]!;
      const rest = (await collect(b.runs.joinStream(thread.thread_id, runId, { lastEventId: cut.id }))) as Event[];
      expect(rest).toEqual(streamed.slice(streamed.indexOf(cut) + 1));
    },
  );

  it("an entrypoint() workflow paused through one server is joined and resumed through the other", async () => {
    const a = clientOf(urlA);
    const b = clientOf(urlB);
    const thread = await a.threads.create();
    const { events: streamed, runId } = await streamThrough(a, thread.thread_id, "functional", {
      input: { topic: "cats" },
      streamMode: ["values", "updates", "messages-tuple"],
    });
    expect(text(streamed, "messages")).toBe(ANSWER);
    expect(await collect(b.runs.joinStream(thread.thread_id, runId))).toEqual(streamed);
    const output = await b.runs.wait(thread.thread_id, "functional", { command: { resume: "yes" } });
    expect(output).toEqual({ text: ANSWER, verdict: "yes" });
    expect((await a.threads.getState(thread.thread_id)).values).toEqual(output);
  });
});
