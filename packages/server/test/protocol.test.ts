// The thread-centric streaming protocol (what @langchain/react's useStream speaks) over HTTP:
// commands to a thread, and the thread's event stream, replayed then live.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sseEvents } from "../dist/cli/sse.js";
import { openGate } from "./fixtures/gates.mjs";
import { json, type TestServer, testServer } from "./helpers.js";

let server: TestServer;
beforeAll(async () => {
  server = await testServer();
});
afterAll(async () => server?.dispose());

interface Event {
  seq: number;
  method: string;
  params: { namespace: string[]; data: any };
}

let commandId = 0;
const command = (threadId: string, method: string, params?: Record<string, unknown>) =>
  json(`${server.url}/threads/${threadId}/commands`, {
    method: "POST",
    body: JSON.stringify({ id: ++commandId, method, params }),
  });

const TERMINAL = new Set(["completed", "interrupted", "failed"]);

/** Opens the thread's event stream (from `since`); the function reads it up to the run's end (its terminal lifecycle event). */
async function openEvents(threadId: string, since?: number): Promise<() => Promise<Event[]>> {
  const abort = new AbortController();
  const response = await fetch(`${server.url}/threads/${threadId}/stream/events`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify({ channels: ["lifecycle", "values", "input", "messages"], since }),
    signal: abort.signal,
  });
  expect(response.headers.get("content-type")).toContain("text/event-stream");
  return async () => {
    const out: Event[] = [];
    for await (const { event, data } of sseEvents(response)) {
      expect(event).toBe(data.method);
      out.push(data);
      if (data.method === "lifecycle" && TERMINAL.has(data.params.data.event)) break;
    }
    abort.abort();
    return out;
  };
}

const eventsUntilEnd = async (threadId: string, since?: number) => (await openEvents(threadId, since))();

const lifecycle = (events: Event[]) =>
  events.filter((e) => e.method === "lifecycle").map((e) => e.params.data.event as string);

describe("the streaming protocol", () => {
  it("run.start creates the thread; its stream tells the run, the question asked, and the pause", async () => {
    const threadId = randomUUID();
    const started = await command(threadId, "run.start", { assistant_id: "loop", input: { rounds: 1 } });
    expect(started.body).toMatchObject({ type: "success", id: commandId, result: { run_id: expect.any(String) } });
    const events = await eventsUntilEnd(threadId);
    expect(lifecycle(events)).toEqual(["running", "interrupted"]);
    const asked = events.filter((e) => e.method === "input.requested");
    expect(asked).toHaveLength(1);
    expect(asked[0]!.params.data).toEqual({ interrupt_id: expect.any(String), payload: { question: "next?", n: 0 } });
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    for (const e of events.filter((e) => e.method === "values"))
      expect(e.params.data).not.toHaveProperty("__interrupt__");
    expect((await json(`${server.url}/threads/${threadId}`)).body.metadata.graph_id).toBe("loop");
  });

  it("input.respond answers the question by id and the run completes; the same answer again is refused", async () => {
    const threadId = randomUUID();
    await command(threadId, "run.start", { assistant_id: "loop", input: { rounds: 1 } });
    const first = await eventsUntilEnd(threadId);
    const interruptId = first.find((e) => e.method === "input.requested")!.params.data.interrupt_id;
    const answered = await command(threadId, "input.respond", {
      namespace: [],
      interrupt_id: interruptId,
      response: "yes",
    });
    expect(answered.body).toMatchObject({ type: "success" });
    const second = await eventsUntilEnd(threadId, first.at(-1)!.seq);
    expect(second[0]!.seq).toBe(first.at(-1)!.seq + 1);
    expect(lifecycle(second)).toEqual(["running", "completed"]);
    // Every client on the thread is told at once which questions this run answers.
    expect(second[1]).toMatchObject({ method: "input.answered", params: { data: { interrupt_ids: [interruptId] } } });
    expect(second.filter((e) => e.method === "values").at(-1)!.params.data.answers).toEqual(["yes"]);
    const again = await command(threadId, "input.respond", {
      namespace: [],
      interrupt_id: interruptId,
      response: "no",
    });
    expect(again.body).toMatchObject({ type: "error", id: commandId, error: "invalid_argument" });
    expect((await json(`${server.url}/threads/${threadId}/state`)).body.values.answers).toEqual(["yes"]);
  });

  it("strict_resume: an answer to a question that is not waiting fails the run's lifecycle with the SDK's refusal; nothing runs", async () => {
    const threadId = randomUUID();
    await command(threadId, "run.start", { assistant_id: "loop", input: { rounds: 2 } });
    const first = await eventsUntilEnd(threadId);
    const waiting = first.find((e) => e.method === "input.requested")!.params.data.interrupt_id;
    const stale = "0".repeat(32);
    const refused = await command(threadId, "input.respond", {
      namespace: [],
      interrupt_id: stale,
      response: "yes",
      strict_resume: true,
    });
    expect(refused.body).toMatchObject({ type: "success" });
    const events = await eventsUntilEnd(threadId, first.at(-1)!.seq);
    expect(events.find((e) => e.method === "input.answered")!.params.data).toEqual({ interrupt_ids: [stale] });
    expect(events.at(-1)!.params.data).toMatchObject({
      event: "failed",
      reason: "not_pending",
      interrupt_ids: [stale],
      pending_ids: [waiting],
    });
    // The question still waits, and takes its answer.
    const state = (await json(`${server.url}/threads/${threadId}/state`)).body;
    expect(state.tasks.flatMap((t: any) => t.interrupts.map((i: any) => i.id))).toEqual([waiting]);
    const answered = await command(threadId, "input.respond", {
      interrupt_id: waiting,
      response: "ok",
      strict_resume: true,
    });
    expect(answered.body).toMatchObject({ type: "success" });
    expect(lifecycle(await eventsUntilEnd(threadId, events.at(-1)!.seq))).toEqual(["running", "interrupted"]);
  });

  it("a stream opened later replays the latest run; since skips what the client has", async () => {
    const threadId = randomUUID();
    await command(threadId, "run.start", { assistant_id: "loop", input: { rounds: 1 } });
    const all = await eventsUntilEnd(threadId);
    const rest = await eventsUntilEnd(threadId, 1);
    expect(rest.map((e) => e.seq)).toEqual(all.slice(1).map((e) => e.seq));
  });

  it("a stream opened on a run started through the runs API joins it", async () => {
    const threadId = randomUUID();
    const hold = `protocol-join-${threadId}`;
    await json(`${server.url}/threads`, { method: "POST", body: JSON.stringify({ thread_id: threadId }) });
    await json(`${server.url}/threads/${threadId}/runs`, {
      method: "POST",
      body: JSON.stringify({ assistant_id: "slow", input: { tag: "a", hold, delay: 1 }, stream_mode: ["values"] }),
    });
    // Connected (the response has begun) before the run may go on.
    const read = await openEvents(threadId);
    openGate(hold);
    const seen = await read();
    expect(lifecycle(seen)).toEqual(["running", "completed"]);
    expect(seen.filter((e) => e.method === "values").at(-1)!.params.data.log).toEqual(["first:a", "second:a"]);
  });

  it("a failing run ends with lifecycle failed and the error", async () => {
    const threadId = randomUUID();
    await command(threadId, "run.start", { assistant_id: "broken", input: {} });
    const events = await eventsUntilEnd(threadId);
    expect(lifecycle(events)).toEqual(["running", "failed"]);
    expect(events.at(-1)!.params.data.error).toContain("kaboom");
  });

  it.each([
    ["an unknown method", "agent.getTree", {}, "unknown_command"],
    ["run.start without an assistant", "run.start", { input: {} }, "invalid_argument"],
    ["input.respond without an interrupt id", "input.respond", { response: "yes" }, "invalid_argument"],
    ["run.start of an unknown graph", "run.start", { assistant_id: "nope", input: {} }, "invalid_argument"],
  ])("%s is an error record naming what is wrong", async (_name, method, params, error) => {
    const { status, body } = await command(randomUUID(), method, params);
    expect(status).toBe(200);
    expect(body).toMatchObject({ type: "error", id: commandId, error, message: expect.any(String) });
  });

  it("a body that is not a command is refused like any invalid request body (422)", async () => {
    const { status } = await json(`${server.url}/threads/${randomUUID()}/commands`, {
      method: "POST",
      body: JSON.stringify({ method: "run.start" }),
    });
    expect(status).toBe(422);
  });
});
