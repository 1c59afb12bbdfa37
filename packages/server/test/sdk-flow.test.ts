/** The LangGraph SDK's Client, used as its users use it, against an Interlude server. */

import { defaultAssistantId } from "@interlude/server";
import type { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collect, json, type TestServer, testServer, until } from "./helpers.js";

let server: TestServer;
let client: Client;
beforeAll(async () => {
  server = await testServer();
  client = server.client();
});
afterAll(() => server?.dispose());

describe("assistants", () => {
  it("has one default assistant per graph, addressable by id or graph id", async () => {
    const all = await client.assistants.search({ limit: 100 });
    expect(all.map((a) => a.graph_id).sort()).toEqual([
      "approval",
      "bloat",
      "broken",
      "deadline",
      "hang",
      "hooked",
      "hooked_nested",
      "loop",
      "nested",
      "pair",
      "picky",
      "slow",
      "soak_agent",
      "soak_flat",
      "soak_nested",
      "spin",
      "two_questions",
    ]);
    const approval = await client.assistants.get(defaultAssistantId("approval"));
    expect(approval).toMatchObject({ graph_id: "approval", name: "approval" });
    expect((await client.assistants.get("approval")).assistant_id).toBe(approval.assistant_id);
  });

  it("draws the graph and describes its state", async () => {
    const drawing = await client.assistants.getGraph("approval");
    expect(drawing.nodes.map((n) => n.id)).toEqual(["__start__", "propose", "review", "apply", "__end__"]);
    expect(drawing.edges).toContainEqual(expect.objectContaining({ source: "propose", target: "review" }));
    const schemas = await client.assistants.getSchemas("approval");
    expect(Object.keys((schemas.state_schema as any).properties)).toEqual(["request", "plan", "review", "result"]);
  });

  it("creates assistants with their own config", async () => {
    const created = await client.assistants.create({
      graphId: "loop",
      name: "three rounds",
      metadata: { team: "ops" },
    });
    expect(created).toMatchObject({ graph_id: "loop", name: "three rounds" });
    expect((await client.assistants.search({ metadata: { team: "ops" } })).map((a) => a.assistant_id)).toEqual([
      created.assistant_id,
    ]);
  });
});

describe("assistant versions", () => {
  it("each update is a version; any may be made current again, and the next update numbers after the last", async () => {
    const created = await client.assistants.create({ graphId: "loop", config: { tags: ["v1"] }, name: "versioned" });
    await client.assistants.update(created.assistant_id, { config: { tags: ["v2"] }, metadata: { stage: "beta" } });
    const third = await client.assistants.update(created.assistant_id, { config: { tags: ["v3"] } });
    expect(third.version).toBe(3);
    const versions = await client.assistants.getVersions(created.assistant_id);
    expect(versions.map((v) => [v.version, v.config.tags])).toEqual([
      [3, ["v3"]],
      [2, ["v2"]],
      [1, ["v1"]],
    ]);
    const beta = await client.assistants.getVersions(created.assistant_id, { metadata: { stage: "beta" } });
    expect(beta.map((v) => v.version)).toEqual([3, 2]);
    const back = await client.assistants.setLatest(created.assistant_id, 1);
    expect(back).toMatchObject({ version: 1, config: { tags: ["v1"] }, name: "versioned" });
    expect((await client.assistants.get(created.assistant_id)).config.tags).toEqual(["v1"]);
    expect((await client.assistants.update(created.assistant_id, { name: "renamed" })).version).toBe(4);
    const missing = await json(`${server.url}/assistants/${created.assistant_id}/latest`, {
      method: "POST",
      body: JSON.stringify({ version: 99 }),
    });
    expect(missing).toMatchObject({ status: 404, body: { code: "NOT_FOUND", version: 99 } });
    await client.assistants.delete(created.assistant_id);
    const gone = await json(`${server.url}/assistants/${created.assistant_id}/versions`, {
      method: "POST",
      body: "{}",
    });
    expect(gone.status).toBe(404);
  });
});

describe("stateless runs", () => {
  it("createBatch starts each run on a thread of its own; one bad run refuses the batch before any starts", async () => {
    const before = await client.threads.count();
    const runs = await client.runs.createBatch([
      { assistantId: "loop", input: { rounds: 1 } },
      { assistantId: "slow", input: { tag: "batch", delay: 1 } },
    ]);
    expect(runs.map((r) => r.assistant_id)).toEqual([defaultAssistantId("loop"), defaultAssistantId("slow")]);
    expect(new Set(runs.map((r) => r.thread_id)).size).toBe(2);
    // Each ran, and its thread went with it.
    await until(async () => (await client.threads.count()) === before);
    const refused = await json(`${server.url}/runs/batch`, {
      method: "POST",
      body: JSON.stringify([{ assistant_id: "loop", input: {} }, { input: {} }]),
    });
    expect(refused).toMatchObject({ status: 422, body: { field: "1.assistant_id" } });
    expect(await client.threads.count()).toBe(before);
  });
});

describe("threads", () => {
  it("select cuts searches, run lists, states and histories to the fields named; values.<key> to one key", async () => {
    const thread = await client.threads.create({ metadata: { picked: "select" } });
    await client.runs.wait(thread.thread_id, "loop", { input: { rounds: 1 } });
    const found = await client.threads.search({ metadata: { picked: "select" }, select: ["thread_id", "status"] });
    expect(found).toEqual([{ thread_id: thread.thread_id, status: "interrupted" }]);
    const assistants = await client.assistants.search({ graphId: "loop", select: ["graph_id", "name"] });
    expect(assistants).toContainEqual({ graph_id: "loop", name: "loop" });
    for (const assistant of assistants) expect(Object.keys(assistant)).toEqual(["graph_id", "name"]);
    const runs = await client.runs.list(thread.thread_id, { select: ["status", "thread_id"] });
    expect(runs).toEqual([{ status: "success", thread_id: thread.thread_id }]);
    const state = await client.threads.getState(thread.thread_id, undefined, { select: ["values.answers", "next"] });
    expect(state).toEqual({ values: { answers: [] }, next: ["ask"] });
    const history = await client.threads.getHistory(thread.thread_id, { select: ["next"] });
    expect(history.length).toBeGreaterThan(1);
    for (const entry of history) expect(Object.keys(entry)).toEqual(["next"]);
    const refused = await json(`${server.url}/threads/${thread.thread_id}/state?select=next&select=nope`);
    expect(refused).toMatchObject({
      status: 422,
      body: { field: "select", message: expect.stringContaining('"nope"') },
    });
  });

  it("a search with extract, which this server does not do, is refused with 422 naming it", async () => {
    const refused = await json(`${server.url}/threads/search`, {
      method: "POST",
      body: JSON.stringify({ extract: { last: "values.messages" } }),
    });
    expect(refused).toMatchObject({ status: 422, body: { field: "extract" } });
  });
});

describe("a reviewer approves a plan", () => {
  it("streams to the interrupt, lists it as pending, resumes by id and streams to the end", async () => {
    const thread = await client.threads.create({ metadata: { ticket: "T-1" } });
    const events = await collect(
      client.runs.stream(thread.thread_id, "approval", {
        input: { request: { service: "api", version: "2.0.0" } },
        streamMode: ["values", "updates"],
      }),
    );
    expect(events[0]).toMatchObject({ event: "metadata", data: { run_id: expect.any(String) } });
    expect(events.map((e) => e.event)).toEqual(["metadata", "values", "updates", "values", "updates", "values", "end"]);
    const paused = events.find((e) => e.event === "updates" && (e.data as any).__interrupt__)!.data as any;
    const interrupt = paused.__interrupt__[0];
    expect(interrupt.value).toMatchObject({
      action_request: { action: "deploy", args: { service: "api", version: "2.0.0" } },
      config: { allow_edit: true },
    });
    expect(interrupt.response_schema).toMatchObject({ required: ["type"] });

    const waiting = await client.threads.get(thread.thread_id);
    expect(waiting.status).toBe("interrupted");
    expect(Object.values(waiting.interrupts).flat()).toEqual([expect.objectContaining({ id: interrupt.id })]);
    expect(
      (await client.threads.search({ status: "interrupted", metadata: { ticket: "T-1" } })).map((t) => t.thread_id),
    ).toEqual([thread.thread_id]);

    const inbox = await json(`${server.url}/inbox/interrupts?graph_id=approval`);
    expect(inbox.body.items.map((i: any) => i.interrupt_id)).toContain(interrupt.id);

    const edited = { action: "deploy", args: { service: "api", version: "2.0.1", replicas: 2 } };
    const rest = await collect(
      client.runs.stream(thread.thread_id, "approval", {
        command: { resume: { [interrupt.id]: { type: "edit", args: edited } } },
        streamMode: "updates",
      }),
    );
    expect(rest.filter((e) => e.event === "updates").map((e) => Object.keys(e.data as object)[0])).toEqual([
      "review",
      "apply",
    ]);
    const done = await client.threads.get(thread.thread_id);
    expect(done.status).toBe("idle");
    expect(done.values).toMatchObject({ result: "deployed api@2.0.1 x2" });
    expect(done.interrupts).toEqual({});
    const after = await json(`${server.url}/inbox/interrupts?graph_id=approval`);
    expect(after.body.items.map((i: any) => i.interrupt_id)).not.toContain(interrupt.id);
  });

  it("wait returns the values with __interrupt__ while paused, then the final values", async () => {
    const thread = await client.threads.create();
    const paused = (await client.runs.wait(thread.thread_id, "approval", {
      input: { request: { service: "web" } },
    })) as any;
    expect(paused.plan.args.service).toBe("web");
    const [question] = paused.__interrupt__;
    const done = (await client.runs.wait(thread.thread_id, "approval", {
      command: { resume: { type: "accept" } },
    })) as any;
    expect(done.result).toBe("deployed web@1.0.0 x3");
    expect(done.__interrupt__).toBeUndefined();
    expect(question.id).toMatch(/^[0-9a-f]{32}$/);
  });

  it("history shows every checkpoint with who answered what", async () => {
    const thread = await client.threads.create();
    const paused = (await client.runs.wait(thread.thread_id, "approval", { input: {} })) as any;
    await client.runs.wait(thread.thread_id, "approval", {
      command: { resume: { [paused.__interrupt__[0].id]: { type: "response", args: "not today" } } },
    });
    const history = await client.threads.getHistory(thread.thread_id, { limit: 20 });
    expect(history.map((s) => s.metadata?.step)).toEqual([3, 2, 1, 0, -1]);
    const answered = history.find((s) => s.metadata?.resume)!;
    expect(answered.metadata!.resume).toEqual([
      {
        by: "anonymous",
        at: expect.any(String),
        answers: { [paused.__interrupt__[0].id]: { type: "response", args: "not today" } },
      },
    ]);
    expect(history[0]!.values).toMatchObject({ result: "not applied: not today" });
    const older = await client.threads.getHistory(thread.thread_id, {
      limit: 2,
      before: { configurable: { checkpoint_id: history[1]!.checkpoint.checkpoint_id } },
    });
    expect(older.map((s) => s.metadata?.step)).toEqual([1, 0]);
  });
});

describe("replay and fork", () => {
  it("reads the state at a checkpoint, replays from it, and forks with an edited state", async () => {
    const thread = await client.threads.create();
    const paused = (await client.runs.wait(thread.thread_id, "approval", {
      input: { request: { service: "db" } },
    })) as any;
    await client.runs.wait(thread.thread_id, "approval", { command: { resume: { type: "accept" } } });
    const history = await client.threads.getHistory(thread.thread_id, { limit: 20 });
    const beforeReview = history.find((s) => s.next[0] === "review")!;
    const state = await client.threads.getState(thread.thread_id, beforeReview.checkpoint.checkpoint_id!);
    expect(state.values).toMatchObject({ plan: { args: { service: "db" } } });
    expect(state.tasks[0]).toMatchObject({ name: "review" });

    // Replay: running again from that checkpoint forks the thread there (as LangGraph.js does)
    // and re-executes the steps after it, so the review is asked again, with a new id.
    const replayed = (await client.runs.wait(thread.thread_id, "approval", {
      input: null,
      checkpointId: beforeReview.checkpoint.checkpoint_id!,
    })) as any;
    expect(replayed.__interrupt__[0].value.action_request.args.service).toBe("db");
    expect(replayed.__interrupt__[0].id).not.toBe(paused.__interrupt__[0].id);
    const approvedAgain = (await client.runs.wait(thread.thread_id, "approval", {
      command: { resume: { type: "accept" } },
    })) as any;
    expect(approvedAgain.result).toBe("deployed db@1.0.0 x3");
    const replayHistory = await client.threads.getHistory(thread.thread_id, { limit: 50 });
    expect(replayHistory[0]!.parent_checkpoint).toBeTruthy();

    // Fork: edit the plan at that checkpoint, then continue from the fork.
    const fork = await client.threads.updateState(thread.thread_id, {
      values: { plan: { action: "deploy", args: { service: "db", version: "9.9.9", replicas: 1 } } },
      checkpointId: beforeReview.checkpoint.checkpoint_id!,
      asNode: "propose",
    });
    // The SDK types this response as a config; LangGraph Server (and Interlude) answer { checkpoint }.
    expect((fork as unknown as { checkpoint: { checkpoint_id: string } }).checkpoint.checkpoint_id).toBeTruthy();
    const forked = (await client.runs.wait(thread.thread_id, "approval", { input: null })) as any;
    expect(forked.__interrupt__[0].value.action_request.args.version).toBe("9.9.9");
    const end = (await client.runs.wait(thread.thread_id, "approval", {
      command: { resume: { type: "accept" } },
    })) as any;
    expect(end.result).toBe("deployed db@9.9.9 x1");
  });

  it("copies a thread with its checkpoints", async () => {
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, "approval", { input: { request: { service: "copy-me" } } });
    const copy = await client.threads.copy(thread.thread_id);
    expect(copy.thread_id).not.toBe(thread.thread_id);
    expect(copy.status).toBe("interrupted");
    const done = (await client.runs.wait(copy.thread_id, "approval", {
      command: { resume: { type: "accept" } },
    })) as any;
    expect(done.result).toBe("deployed copy-me@1.0.0 x3");
    expect((await client.threads.get(thread.thread_id)).status).toBe("interrupted");
  });
});

describe("threads", () => {
  it("deletes a thread and its pending interrupts", async () => {
    const thread = await client.threads.create({ metadata: { doomed: true } });
    await client.runs.wait(thread.thread_id, "loop", { input: { rounds: 1 } });
    await client.threads.delete(thread.thread_id);
    await expect(client.threads.get(thread.thread_id)).rejects.toThrow(/404/);
    const inbox = await json(`${server.url}/inbox/interrupts?thread_id=${thread.thread_id}`);
    expect(inbox.body.total).toBe(0);
  });

  it("a failed run leaves the thread in error, with the error in the stream", async () => {
    const thread = await client.threads.create();
    const events = await collect(client.runs.stream(thread.thread_id, "broken", { input: { x: 1 } }));
    expect(events.find((e) => e.event === "error")!.data).toMatchObject({ error: "Error", message: "kaboom" });
    expect((await client.threads.get(thread.thread_id)).status).toBe("error");
    await expect(client.runs.wait(thread.thread_id, "broken", { input: { x: 2 } })).rejects.toThrow(/kaboom/);
    const [run] = await client.runs.list(thread.thread_id, { limit: 1 });
    expect(run!.status).toBe("error");
  });

  it("state with subgraphs shows the child's pending question", async () => {
    const thread = await client.threads.create();
    const paused = (await client.runs.wait(thread.thread_id, "nested", { input: { topic: "cats" } })) as any;
    expect(paused.__interrupt__[0].value).toEqual({ about: "cats" });
    const state = await client.threads.getState(thread.thread_id, undefined, { subgraphs: true });
    expect((state.tasks[0]!.state as any).values).toEqual({ topic: "cats" });
    const done = (await client.runs.wait(thread.thread_id, "nested", { command: { resume: "purr" } })) as any;
    expect(done).toMatchObject({ note: "purr" });
  });

  it("stateless runs", async () => {
    const result = (await client.runs.wait(null, "slow", { input: { tag: "x", delay: 1 } })) as any;
    expect(result.log).toEqual(["first:x", "second:x"]);
  });
});

describe("durability", () => {
  it("saves every step by default, and only where the run stops with durability: exit", async () => {
    const steps = async (options: Record<string, unknown>) => {
      const thread = await client.threads.create();
      const values = (await client.runs.wait(thread.thread_id, "slow", {
        input: { tag: "d", delay: 1 },
        ...options,
      })) as any;
      expect(values.log).toEqual(["first:d", "second:d"]);
      return (await client.threads.getHistory(thread.thread_id, { limit: 20 })).length;
    };
    expect(await steps({})).toBe(4);
    expect(await steps({ durability: "async" })).toBe(4);
    expect(await steps({ durability: "exit" })).toBe(1);
  });
});

describe("background runs", () => {
  it("create, join, and rejoin the stream of a finished run", async () => {
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "slow", {
      input: { tag: "bg", delay: 20 },
      streamMode: ["updates"],
    });
    expect(run.status).toBe("pending");
    const joined = (await client.runs.join(thread.thread_id, run.run_id)) as any;
    expect(joined.log).toEqual(["first:bg", "second:bg"]);
    expect((await client.runs.get(thread.thread_id, run.run_id)).status).toBe("success");
    const replay = await collect(client.runs.joinStream(thread.thread_id, run.run_id));
    expect(replay.map((e) => e.event)).toEqual(["metadata", "updates", "updates", "end"]);
  });

  it("rejoins a live stream after the last event seen", async () => {
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "slow", {
      input: { tag: "live", delay: 150 },
      streamMode: ["updates"],
    });
    const all = await collect(client.runs.joinStream(thread.thread_id, run.run_id));
    const resumed = await collect(client.runs.joinStream(thread.thread_id, run.run_id, { lastEventId: all[1]!.id }));
    expect(resumed.map((e) => e.event)).toEqual(["updates", "end"]);
    expect((resumed[0]!.data as any).second.log).toEqual(["second:live"]);
  });
});
