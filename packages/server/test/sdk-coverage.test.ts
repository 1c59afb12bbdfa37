/**
 * The SDK Client's methods and options that no other test calls, called as a user calls them,
 * against an Interlude server: what LangGraph Server answers (per the SDK's types and API.md), or
 * the refusal API.md documents.
 */
import { randomUUID } from "node:crypto";
import { Annotation, START, StateGraph } from "@interlude/core";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openGate } from "./fixtures/gates.mjs";
import { collect, json, type TestServer, testServer, until } from "./helpers.js";

const list = () => Annotation<string[]>({ reducer: (a: string[], b: string[]) => a.concat(b), default: () => [] });

/** Two steps, a then b. */
const twoSteps = new StateGraph(Annotation.Root({ trail: list() }))
  .addNode("a", () => ({ trail: ["a"] }))
  .addNode("b", () => ({ trail: ["b"] }))
  .addEdge(START, "a")
  .addEdge("a", "b");

/** twoSteps as the subgraph of node "child"; and that graph as the subgraph of node "outer". */
const xrayed = new StateGraph(Annotation.Root({ trail: list() }))
  .addNode("child", twoSteps.compile())
  .addEdge(START, "child");
const deep = new StateGraph(Annotation.Root({ trail: list() }))
  .addNode("outer", xrayed.compile())
  .addEdge(START, "outer");

/** Like deep, but the middle graph runs a plain node "z" after "child": drawn to depth 1, "outer:child" stays one node. */
const layered = new StateGraph(Annotation.Root({ trail: list() }))
  .addNode(
    "outer",
    new StateGraph(Annotation.Root({ trail: list() }))
      .addNode("child", twoSteps.compile())
      .addNode("z", () => ({ trail: ["z"] }))
      .addEdge(START, "child")
      .addEdge("child", "z")
      .compile(),
  )
  .addEdge(START, "outer");

/** Two nodes; START always routes to "a": a Command's goto is the way to "b". */
const jump = new StateGraph(Annotation.Root({ trail: list() }))
  .addNode("a", () => ({ trail: ["a"] }))
  .addNode("b", () => ({ trail: ["b"] }))
  .addConditionalEdges(START, () => "a", ["a", "b"]);

/** Says what its run was configured with. */
const probe = new StateGraph(Annotation.Root({ seen: Annotation<unknown>() }))
  .addNode("look", (_s: unknown, config: { configurable?: Record<string, unknown> }) => ({
    seen: { flavor: config.configurable?.flavor ?? null },
  }))
  .addEdge(START, "look");

let server: TestServer;
let client: Client;
beforeAll(async () => {
  server = await testServer({ graphs: { xrayed, deep, layered, jump, probe } });
  client = server.client();
});
afterAll(() => server?.dispose());

/** The HTTP status and JSON body of a call the server refused (the SDK throws its HTTPError). */
async function refusal(call: Promise<unknown>): Promise<{ status: number; body: any }> {
  try {
    await call;
  } catch (error) {
    const { status, text } = error as { status?: number; text?: string };
    if (typeof status === "number") return { status, body: text ? JSON.parse(text) : null };
    throw error;
  }
  throw new Error("the call was not refused");
}

let gates = 0;
/** A background run of "slow" held inside its first step until `release()`. */
async function heldRun(extra: Record<string, unknown> = {}) {
  const thread = await client.threads.create();
  const gate = `sdk-coverage-${gates++}`;
  const run = await client.runs.create(thread.thread_id, "slow", {
    input: { tag: "held", delay: 1, hold: gate },
    ...extra,
  });
  return { thread, run, release: () => openGate(gate) };
}

const SHAPES = {
  thread: ["thread_id", "created_at", "updated_at", "state_updated_at", "metadata", "status", "values", "interrupts"],
  run: ["run_id", "thread_id", "assistant_id", "created_at", "updated_at", "status", "metadata", "multitask_strategy"],
  state: ["values", "next", "tasks", "checkpoint", "metadata", "created_at", "parent_checkpoint"],
  cron: [
    "cron_id",
    "assistant_id",
    "thread_id",
    "end_time",
    "schedule",
    "timezone",
    "created_at",
    "updated_at",
    "payload",
    "user_id",
    "next_run_date",
    "metadata",
    "enabled",
  ],
};

describe("assistants", () => {
  it("count filters on graphId, name and metadata", async () => {
    const tag = { audit: randomUUID() };
    await client.assistants.create({ graphId: "loop", name: "count-a", metadata: tag });
    await client.assistants.create({ graphId: "loop", name: "count-b", metadata: tag });
    expect(await client.assistants.count({ metadata: tag })).toBe(2);
    expect(await client.assistants.count({ metadata: tag, graphId: "loop" })).toBe(2);
    expect(await client.assistants.count({ metadata: tag, graphId: "slow" })).toBe(0);
    expect(await client.assistants.count({ metadata: tag, name: "count-a" })).toBe(1);
    expect(await client.assistants.count()).toBeGreaterThanOrEqual(13 + 4 + 2);
  });

  it("create with an assistantId: a second create is 409, ifExists do_nothing returns the first unchanged", async () => {
    const assistantId = randomUUID();
    const first = await client.assistants.create({
      graphId: "loop",
      assistantId,
      name: "first",
      description: "the first one",
      context: { user: "ada" },
      config: { configurable: { flavor: "mint" } },
    });
    expect(first).toMatchObject({
      assistant_id: assistantId,
      graph_id: "loop",
      name: "first",
      description: "the first one",
      context: { user: "ada" },
      config: { configurable: { flavor: "mint" } },
      version: 1,
    });
    expect(await refusal(client.assistants.create({ graphId: "loop", assistantId, name: "again" }))).toMatchObject({
      status: 409,
    });
    const kept = await client.assistants.create({
      graphId: "slow",
      assistantId,
      name: "second",
      ifExists: "do_nothing",
    });
    expect(kept).toMatchObject({ assistant_id: assistantId, graph_id: "loop", name: "first", version: 1 });
    expect(await refusal(client.assistants.create({ graphId: "no-such-graph" }))).toMatchObject({ status: 404 });
  });

  it("update moves an assistant to another graph and merges metadata; getVersions pages; runs use the new graph", async () => {
    const created = await client.assistants.create({ graphId: "loop", metadata: { a: 1 } });
    const moved = await client.assistants.update(created.assistant_id, { graphId: "slow", metadata: { b: 2 } });
    expect(moved).toMatchObject({ graph_id: "slow", metadata: { a: 1, b: 2 }, version: 2 });
    expect((await client.assistants.getVersions(created.assistant_id, { limit: 1 })).map((v) => v.version)).toEqual([
      2,
    ]);
    expect(
      (await client.assistants.getVersions(created.assistant_id, { limit: 1, offset: 1 })).map((v) => [
        v.version,
        v.graph_id,
      ]),
    ).toEqual([[1, "loop"]]);
    const thread = await client.threads.create();
    const done = (await client.runs.wait(thread.thread_id, created.assistant_id, {
      input: { tag: "m", delay: 1 },
    })) as any;
    expect(done.log).toEqual(["first:m", "second:m"]);
  });

  it("search pages with limit and offset and filters by name", async () => {
    const tag = { audit: randomUUID() };
    for (const name of ["page-1", "page-2", "page-3"])
      await client.assistants.create({ graphId: "loop", name, metadata: tag });
    const first = await client.assistants.search({ metadata: tag, limit: 2 });
    const rest = await client.assistants.search({ metadata: tag, limit: 2, offset: 2 });
    expect(first).toHaveLength(2);
    expect(rest).toHaveLength(1);
    expect(new Set([...first, ...rest].map((a) => a.name))).toEqual(new Set(["page-1", "page-2", "page-3"]));
    expect((await client.assistants.search({ metadata: tag, name: "page-2" })).map((a) => a.name)).toEqual(["page-2"]);
  });

  it("getSchemas names the graph and gives every schema key; getGraph without xray draws the subgraph as one node", async () => {
    const schemas = await client.assistants.getSchemas("xrayed");
    expect(schemas.graph_id).toBe("xrayed");
    for (const key of ["input_schema", "output_schema", "state_schema", "config_schema", "context_schema"])
      expect(schemas).toHaveProperty(key);
    const drawing = await client.assistants.getGraph("xrayed");
    expect(drawing.nodes.map((n) => n.id)).toEqual(["__start__", "child", "__end__"]);
  });

  it("getSubgraphs: one namespace, and nested ones with recurse", async () => {
    expect(Object.keys(await client.assistants.getSubgraphs("deep"))).toEqual(["outer"]);
    expect(Object.keys(await client.assistants.getSubgraphs("deep", { recurse: true }))).toEqual([
      "outer",
      "outer|child",
    ]);
    const one = await client.assistants.getSubgraphs("deep", { namespace: "outer" });
    expect(Object.keys(one)).toEqual(["outer"]);
    expect(one.outer!.state_schema).toMatchObject({ properties: { trail: expect.anything() } });
    expect(await client.assistants.getSubgraphs("deep", { namespace: "nope" })).toEqual({});
  });

  it("getGraph with xray draws the subgraphs inside their nodes (node:inner ids), all the way down or to a depth", async () => {
    const drawing = await client.assistants.getGraph("xrayed", { xray: true });
    expect(drawing.nodes.map((n) => n.id)).toEqual(expect.arrayContaining(["child:a", "child:b"]));
    // Each node's id and its type (LangGraph's drawing has one; the SDK's AssistantGraph type leaves it out).
    const drawn = async (xray: boolean | number) =>
      (await client.assistants.getGraph("layered", { xray })).nodes.map((n) => [n.id, (n as { type?: string }).type]);
    expect(await drawn(true)).toEqual([
      ["__start__", "runnable"],
      ["outer:child:a", "runnable"],
      ["outer:child:b", "runnable"],
      ["outer:z", "runnable"],
      ["__end__", "runnable"],
    ]);
    expect(await drawn(1)).toEqual([
      ["__start__", "runnable"],
      ["outer:child", "graph"],
      ["outer:z", "runnable"],
      ["__end__", "runnable"],
    ]);
    expect(await refusal(client.assistants.getGraph("layered", { xray: "all" as never }))).toMatchObject({
      status: 422,
      body: { field: "xray" },
    });
  });

  it("search sorts by sortBy and sortOrder, newest first by default; an unknown sortBy is 422", async () => {
    const metadata = { audit: randomUUID() };
    await client.assistants.create({ graphId: "loop", name: "sort-b", metadata });
    // Created in a later millisecond: "newest first" is then one order.
    await new Promise((resolve) => setTimeout(resolve, 5));
    await client.assistants.create({ graphId: "loop", name: "sort-a", metadata });
    const asc = await client.assistants.search({ metadata, sortBy: "name", sortOrder: "asc" });
    const desc = await client.assistants.search({ metadata, sortBy: "name", sortOrder: "desc" });
    const byDefault = await client.assistants.search({ metadata });
    expect([asc, desc, byDefault].map((found) => found.map((a) => a.name))).toEqual([
      ["sort-a", "sort-b"],
      ["sort-b", "sort-a"],
      ["sort-a", "sort-b"],
    ]);
    expect(await refusal(client.assistants.search({ metadata, sortBy: "version" as never }))).toMatchObject({
      status: 422,
      body: { field: "sort_by" },
    });
  });

  it("search with includePagination gives the next page's offset (X-Pagination-Next), null on the last page", async () => {
    const metadata = { audit: randomUUID() };
    for (const name of ["p1", "p2", "p3"]) await client.assistants.create({ graphId: "loop", name, metadata });
    const page = await client.assistants.search({ metadata, limit: 2, includePagination: true });
    expect(page.assistants).toHaveLength(2);
    expect(page.next).toBe("2");
    const last = await client.assistants.search({ metadata, limit: 2, offset: 2, includePagination: true });
    expect([last.assistants.length, last.next]).toEqual([1, null]);
  });

  it("delete with deleteThreads deletes the threads whose metadata.assistant_id is the assistant, a run in progress cancelled", async () => {
    const assistant = await client.assistants.create({ graphId: "slow" });
    const other = await client.assistants.create({ graphId: "slow" });
    const [done, running, kept] = [
      await client.threads.create(),
      await client.threads.create(),
      await client.threads.create(),
    ];
    await client.runs.wait(done.thread_id, assistant.assistant_id, { input: { tag: "d", delay: 1 } });
    const run = await client.runs.create(running.thread_id, assistant.assistant_id, {
      input: { tag: "r", delay: 600_000, abortable: true },
    });
    await client.runs.wait(kept.thread_id, other.assistant_id, { input: { tag: "k", delay: 1 } });
    expect((await client.threads.get(done.thread_id)).metadata).toMatchObject({
      assistant_id: assistant.assistant_id,
    });
    await until(async () => (await client.runs.get(running.thread_id, run.run_id)).status === "running");
    await client.assistants.delete(assistant.assistant_id, { deleteThreads: true });
    for (const gone of [done, running])
      expect(await refusal(client.threads.get(gone.thread_id))).toMatchObject({ status: 404 });
    expect((await client.threads.get(kept.thread_id)).thread_id).toBe(kept.thread_id);
    expect(await refusal(client.assistants.get(assistant.assistant_id))).toMatchObject({ status: 404 });
  });
});

describe("threads", () => {
  it("create with graphId, with a threadId (409 again, or the existing one with ifExists do_nothing); get's shape", async () => {
    const threadId = randomUUID();
    const created = await client.threads.create({ threadId, graphId: "loop", metadata: { owner: "ada" } });
    expect(created).toMatchObject({
      thread_id: threadId,
      status: "idle",
      metadata: { owner: "ada", graph_id: "loop" },
    });
    expect(await refusal(client.threads.create({ threadId }))).toMatchObject({ status: 409 });
    const same = await client.threads.create({ threadId, ifExists: "do_nothing", metadata: { owner: "bob" } });
    expect(same).toMatchObject({ thread_id: threadId, metadata: { owner: "ada" } });
    const read = await client.threads.get(threadId);
    for (const key of SHAPES.thread) expect(read).toHaveProperty(key);
    expect(read).toMatchObject({ values: {}, interrupts: {} });
  });

  it("create with supersteps pre-fills the thread as if those nodes had run", async () => {
    const thread = await client.threads.create({
      graphId: "slow",
      supersteps: [{ updates: [{ values: { tag: "pre", log: ["first:pre"] }, asNode: "first" }] }],
    });
    const state = await client.threads.getState(thread.thread_id);
    expect(state.values).toMatchObject({ tag: "pre", log: ["first:pre"] });
    expect(state.next).toEqual(["second"]);
    const done = (await client.runs.wait(thread.thread_id, "slow", { input: null })) as any;
    expect(done.log).toEqual(["first:pre", "second:pre"]);
  });

  it("a superstep's updates are applied together, as one step's tasks: next follows from all of them", async () => {
    const thread = await client.threads.create({
      graphId: "slow",
      supersteps: [
        {
          updates: [
            { values: { log: ["first:a"] }, asNode: "first" },
            { values: { log: ["second:b"] }, asNode: "second" },
          ],
        },
      ],
    });
    const state = await client.threads.getState(thread.thread_id);
    expect(state.values).toMatchObject({ log: ["first:a", "second:b"] });
    // first's edge leads to second; second's to the end.
    expect(state.next).toEqual(["second"]);
    expect(await client.threads.getHistory(thread.thread_id)).toHaveLength(1);
  });

  it("a superstep's command is written as the node's Command would be; one that resumes is refused", async () => {
    const thread = await client.threads.create({
      graphId: "slow",
      supersteps: [
        { updates: [{ command: { update: { log: ["second:c"] }, goto: "first" }, asNode: "second" } as never] },
      ],
    });
    const state = await client.threads.getState(thread.thread_id);
    expect(state.values).toMatchObject({ log: ["second:c"] });
    expect(state.next).toEqual(["first"]);
    const resumed = await json(`${server.url}/threads`, {
      method: "POST",
      body: JSON.stringify({
        metadata: { graph_id: "slow" },
        supersteps: [{ updates: [{ command: { resume: "yes" }, as_node: "first" }] }],
      }),
    });
    expect(resumed.status).toBe(422);
    expect(JSON.stringify(resumed.body)).toContain("answers no interrupt");
  });

  it("update merges metadata (returnMinimal too)", async () => {
    const thread = await client.threads.create({ metadata: { a: 1 } });
    const updated = await client.threads.update(thread.thread_id, { metadata: { b: 2 } });
    expect(updated.metadata).toEqual({ a: 1, b: 2 });
    await client.threads.update(thread.thread_id, { metadata: { c: 3 }, returnMinimal: true });
    expect((await client.threads.get(thread.thread_id)).metadata).toEqual({ a: 1, b: 2, c: 3 });
    expect(await refusal(client.threads.update("no-such-thread", { metadata: {} }))).toMatchObject({ status: 404 });
  });

  it("search filters on ids, values and status, sorts both ways and pages; count on values and status", async () => {
    const metadata = { audit: randomUUID() };
    const ids: string[] = [];
    for (const fail of [false, false, true]) {
      const thread = await client.threads.create({ metadata });
      ids.push(thread.thread_id);
      await client.runs.wait(thread.thread_id, "picky", { input: { fail }, raiseError: false });
    }
    const sorted = [...ids].sort();
    const asc = await client.threads.search({ metadata, sortBy: "thread_id", sortOrder: "asc" });
    expect(asc.map((t) => t.thread_id)).toEqual(sorted);
    const desc = await client.threads.search({ metadata, sortBy: "thread_id", sortOrder: "desc" });
    expect(desc.map((t) => t.thread_id)).toEqual([...sorted].reverse());
    const paged = await client.threads.search({ metadata, sortBy: "thread_id", sortOrder: "asc", limit: 1, offset: 1 });
    expect(paged.map((t) => t.thread_id)).toEqual([sorted[1]]);
    // As LangGraph Server pages threads (the SDK reads the header for assistants only): the next page's offset, if any.
    const next = async (offset: number) =>
      (
        await fetch(`${server.url}/threads/search`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ metadata, limit: 2, offset }),
        })
      ).headers.get("x-pagination-next");
    expect([await next(0), await next(1)]).toEqual(["2", null]);
    expect((await client.threads.search({ metadata, status: "error" })).map((t) => t.thread_id)).toEqual([ids[2]]);
    const done = await client.threads.search({
      metadata,
      values: { done: true },
      sortBy: "thread_id",
      sortOrder: "asc",
    });
    expect(done.map((t) => t.thread_id)).toEqual([ids[0], ids[1]].sort());
    expect((await client.threads.search({ ids: [ids[1]!, "no-such-thread"] })).map((t) => t.thread_id)).toEqual([
      ids[1],
    ]);
    expect(await client.threads.count({ metadata, values: { done: true } })).toBe(2);
    expect(await client.threads.count({ metadata, status: "error" })).toBe(1);
    expect(await client.threads.count({ metadata, status: "idle" })).toBe(2);
  });

  it("getState at a checkpoint given as an object or an id; updateState aimed at a checkpoint object forks there", async () => {
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, "slow", { input: { tag: "s", delay: 1 } });
    const history = await client.threads.getHistory(thread.thread_id, { limit: 20 });
    const mid = history.find((s) => s.next[0] === "second")!;
    const checkpoint = { ...mid.checkpoint, thread_id: thread.thread_id };
    const byObject = await client.threads.getState(thread.thread_id, checkpoint);
    for (const key of SHAPES.state) expect(byObject).toHaveProperty(key);
    expect(byObject.values).toMatchObject({ log: ["first:s"] });
    expect(byObject.checkpoint.checkpoint_id).toBe(mid.checkpoint.checkpoint_id);
    const byId = await client.threads.getState(thread.thread_id, mid.checkpoint.checkpoint_id!, { select: ["next"] });
    expect(byId).toEqual({ next: ["second"] });

    const fork = (await client.threads.updateState(thread.thread_id, {
      values: { tag: "forked" },
      checkpoint,
      asNode: "first",
    })) as unknown as { checkpoint: { checkpoint_id: string } };
    expect(fork.checkpoint.checkpoint_id).toBeTruthy();
    const now = await client.threads.getState(thread.thread_id);
    expect(now.values).toMatchObject({ tag: "forked", log: ["first:s"] });
    expect(now.next).toEqual(["second"]);
    expect(now.parent_checkpoint?.checkpoint_id).toBe(mid.checkpoint.checkpoint_id);
  });

  it("getHistory filters on checkpoint metadata and starts at a checkpoint", async () => {
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, "slow", { input: { tag: "h", delay: 1 } });
    const all = await client.threads.getHistory(thread.thread_id);
    expect(all.map((s) => s.metadata?.step)).toEqual([2, 1, 0, -1]);
    const inputs = await client.threads.getHistory(thread.thread_id, { metadata: { source: "input" } });
    expect(inputs.map((s) => s.metadata?.step)).toEqual([-1]);
    const stepOne = await client.threads.getHistory(thread.thread_id, { metadata: { step: 1 } });
    expect(stepOne.map((s) => s.checkpoint.checkpoint_id)).toEqual([all[1]!.checkpoint.checkpoint_id]);
    const from = await client.threads.getHistory(thread.thread_id, {
      checkpoint: { checkpoint_id: all[1]!.checkpoint.checkpoint_id },
    });
    expect(from[0]!.checkpoint.checkpoint_id).toBe(all[1]!.checkpoint.checkpoint_id);
  });

  it("patchState is refused through the SDK too (501 UNSUPPORTED_FEATURE), by thread id or config", async () => {
    const thread = await client.threads.create();
    expect(await refusal(client.threads.patchState(thread.thread_id, { label: "x" }))).toMatchObject({
      status: 501,
      body: { code: "UNSUPPORTED_FEATURE" },
    });
    const config = { configurable: { thread_id: thread.thread_id } };
    expect(await refusal(client.threads.patchState(config, { label: "x" }))).toMatchObject({ status: 501 });
  });

  it("joinStream with no run in progress ends at once; with one, follows it from its start to its end", async () => {
    const idle = await client.threads.create();
    expect((await collect(client.threads.joinStream(idle.thread_id))).map((e) => e.event)).toEqual(["end"]);

    const { thread, run, release } = await heldRun({ streamMode: ["updates"] });
    const events = client.threads.joinStream(thread.thread_id)[Symbol.asyncIterator]();
    const first = await events.next();
    release();
    const rest: Array<{ event: string; data: any; id?: string }> = [];
    for (let next = await events.next(); !next.done; next = await events.next()) rest.push(next.value);
    expect(first.value).toMatchObject({ event: "metadata", data: { run_id: run.run_id } });
    expect(rest.map((e) => e.event)).toEqual(["updates", "updates", "end"]);
    expect((await client.runs.get(thread.thread_id, run.run_id)).status).toBe("success");
  });

  it("joinStream with streamMode \"run_modes\" (the SDK's ThreadStreamMode) sends the run's events; other modes are 422", async () => {
    const { thread, release } = await heldRun({ streamMode: ["updates"] });
    const events = client.threads.joinStream(thread.thread_id, { streamMode: "run_modes" })[Symbol.asyncIterator]();
    const first = await events.next();
    release();
    const all = [first.value];
    for (let next = await events.next(); !next.done; next = await events.next()) all.push(next.value);
    expect(all.map((e) => e.event)).toEqual(["metadata", "updates", "updates", "end"]);
    // LangGraph Server's other thread stream modes are not served: refused, not dropped.
    for (const streamMode of ["lifecycle", "state_update", "updates"] as const)
      expect(
        await refusal(collect(client.threads.joinStream(thread.thread_id, { streamMode: streamMode as never }))),
      ).toMatchObject({
        status: 422,
        body: { field: "stream_mode" },
      });
  });

  it("get with include (extra fields such as ttl) is refused with 422 naming include", async () => {
    const thread = await client.threads.create({ ttl: 60 });
    expect(await refusal(client.threads.get(thread.thread_id, { include: ["ttl"] }))).toMatchObject({
      status: 422,
      body: { field: "include" },
    });
  });

  it("threads.stream (the thread-centric protocol): run.start runs the graph; output is its final values", async () => {
    const thread = client.threads.stream({ assistantId: "slow" });
    try {
      const started = await thread.run.start({ input: { tag: "v2", delay: 1 } });
      expect(started).toMatchObject({ run_id: expect.any(String) });
      expect(await thread.output).toMatchObject({ log: ["first:v2", "second:v2"] });
      expect((await client.threads.get(thread.threadId)).values).toMatchObject({ log: ["first:v2", "second:v2"] });
    } finally {
      await thread.close();
    }
  });
});

describe("runs", () => {
  it("get and list: the Run shape, newest first, status filter, limit and offset", async () => {
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, "picky", { input: { fail: true }, raiseError: false });
    await client.runs.wait(thread.thread_id, "picky", { input: { fail: false }, metadata: { attempt: 2 } });
    const [second, first] = await client.runs.list(thread.thread_id);
    for (const key of SHAPES.run) expect(second).toHaveProperty(key);
    expect(second).toMatchObject({ status: "success", metadata: { attempt: 2 }, thread_id: thread.thread_id });
    expect(first!.status).toBe("error");
    expect(await client.runs.get(thread.thread_id, first!.run_id)).toMatchObject({
      run_id: first!.run_id,
      status: "error",
    });
    expect((await client.runs.list(thread.thread_id, { status: "error" })).map((r) => r.run_id)).toEqual([
      first!.run_id,
    ]);
    expect((await client.runs.list(thread.thread_id, { limit: 1, offset: 1 })).map((r) => r.run_id)).toEqual([
      first!.run_id,
    ]);
  });

  it("delete removes a finished run; one in progress is 409; an unknown one 404", async () => {
    const { thread, run, release } = await heldRun();
    expect(await refusal(client.runs.delete(thread.thread_id, run.run_id))).toMatchObject({ status: 409 });
    release();
    await client.runs.join(thread.thread_id, run.run_id);
    await client.runs.delete(thread.thread_id, run.run_id);
    expect(await refusal(client.runs.get(thread.thread_id, run.run_id))).toMatchObject({ status: 404 });
    expect(await client.runs.list(thread.thread_id)).toEqual([]);
    expect(await refusal(client.runs.delete(thread.thread_id, run.run_id))).toMatchObject({ status: 404 });
  });

  it("onRunCreated is told the run's id and thread (Content-Location) by create, stream and wait", async () => {
    const thread = await client.threads.create();
    const told: Array<{ run_id: string; thread_id?: string }> = [];
    const created = await client.runs.create(thread.thread_id, "slow", {
      input: { tag: "c", delay: 1 },
      onRunCreated: (params) => told.push(params),
    });
    await client.runs.join(thread.thread_id, created.run_id);
    const streamed = await collect(
      client.runs.stream(thread.thread_id, "slow", {
        input: { tag: "s", delay: 1 },
        onRunCreated: (params) => told.push(params),
      }),
    );
    await client.runs.wait(thread.thread_id, "slow", {
      input: { tag: "w", delay: 1 },
      onRunCreated: (params) => told.push(params),
    });
    const [, , waited] = await client.runs.list(thread.thread_id).then((runs) => [...runs].reverse());
    expect(told).toEqual([
      { run_id: created.run_id, thread_id: thread.thread_id },
      { run_id: (streamed[0]!.data as any).run_id, thread_id: thread.thread_id },
      { run_id: waited!.run_id, thread_id: thread.thread_id },
    ]);
  });

  it("interruptBefore and interruptAfter stop the run there; a run without input goes on", async () => {
    const before = await client.threads.create();
    const held = (await client.runs.wait(before.thread_id, "slow", {
      input: { tag: "b", delay: 1 },
      interruptBefore: ["second"],
    })) as any;
    expect(held.log).toEqual(["first:b"]);
    expect((await client.threads.getState(before.thread_id)).next).toEqual(["second"]);
    expect((await client.threads.get(before.thread_id)).status).toBe("interrupted");
    expect(((await client.runs.wait(before.thread_id, "slow", { input: null })) as any).log).toEqual([
      "first:b",
      "second:b",
    ]);

    const after = await client.threads.create();
    const events = await collect(
      client.runs.stream(after.thread_id, "slow", {
        input: { tag: "a", delay: 1 },
        interruptAfter: ["first"],
        streamMode: "updates",
      }),
    );
    expect(events.filter((e) => e.event === "updates").map((e) => Object.keys(e.data as object)[0])).toEqual([
      "first",
      "__interrupt__",
    ]);
    expect((await client.threads.getState(after.thread_id)).next).toEqual(["second"]);
  });

  it("command: update with a resume changes the state the answer lands in; goto runs the node named", async () => {
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, "loop", { input: { rounds: 1 } });
    const again = (await client.runs.wait(thread.thread_id, "loop", {
      command: { resume: "one", update: { rounds: 2 } },
    })) as any;
    expect(again.answers).toEqual(["one"]);
    expect(again.__interrupt__).toHaveLength(1);

    // (A Command without resume on a thread that has never run is refused by the runtime: EmptyInputError.)
    const jumped = await client.threads.create();
    expect(((await client.runs.wait(jumped.thread_id, "jump", { input: {} })) as any).trail).toEqual(["a"]);
    const done = (await client.runs.wait(jumped.thread_id, "jump", { command: { goto: "b" } })) as any;
    expect(done.trail).toEqual(["a", "b"]);
  });

  it("ifNotExists: create makes the thread; without it a run on an unknown thread is 404", async () => {
    const missing = randomUUID();
    expect(await refusal(client.runs.create(missing, "loop", { input: { rounds: 1 } }))).toMatchObject({ status: 404 });
    expect(await refusal(client.runs.wait(missing, "loop", { input: {}, ifNotExists: "reject" }))).toMatchObject({
      status: 404,
    });
    const events = await collect(
      client.runs.stream(missing, "loop", { input: { rounds: 1 }, ifNotExists: "create", streamMode: "values" }),
    );
    expect(events.at(-1)!.event).toBe("end");
    expect((await client.threads.get(missing)).status).toBe("interrupted");
  });

  it("config.configurable reaches the nodes; metadata is the run's", async () => {
    const thread = await client.threads.create();
    const done = (await client.runs.wait(thread.thread_id, "probe", {
      input: {},
      config: { configurable: { flavor: "lemon" } },
      metadata: { origin: "sdk-coverage" },
    })) as any;
    expect(done.seen).toEqual({ flavor: "lemon" });
    const [run] = await client.runs.list(thread.thread_id);
    expect(run!.metadata).toMatchObject({ origin: "sdk-coverage" });
  });

  it("wait with raiseError false returns __error__ instead of throwing", async () => {
    const thread = await client.threads.create();
    const failed = (await client.runs.wait(thread.thread_id, "broken", { input: { x: 1 }, raiseError: false })) as any;
    expect(failed).toEqual({ __error__: expect.objectContaining({ error: "Error", message: "kaboom" }) });
  });

  it("a run from a checkpoint given as an object replays from there", async () => {
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, "slow", { input: { tag: "r", delay: 1 } });
    const mid = (await client.threads.getHistory(thread.thread_id)).find((s) => s.next[0] === "second")!;
    const replayed = (await client.runs.wait(thread.thread_id, "slow", {
      input: null,
      checkpoint: { checkpoint_id: mid.checkpoint.checkpoint_id, checkpoint_ns: "", checkpoint_map: null },
    })) as any;
    expect(replayed.log).toEqual(["first:r", "second:r"]);
  });

  it("a stream aborted by its client with onDisconnect cancel stops the run", async () => {
    const thread = await client.threads.create();
    const abort = new AbortController();
    const stream = client.runs.stream(thread.thread_id, "slow", {
      input: { tag: "gone", delay: 600_000, abortable: true },
      onDisconnect: "cancel",
      signal: abort.signal,
    });
    let runId: string | undefined;
    try {
      for await (const part of stream) {
        if (part.event !== "metadata") continue;
        runId = (part.data as { run_id: string }).run_id;
        abort.abort();
      }
    } catch {
      // aborted
    }
    expect(runId).toBeTruthy();
    await until(async () => (await client.runs.get(thread.thread_id, runId!)).status === "interrupted");
    expect((await client.threads.get(thread.thread_id)).status).not.toBe("busy");
  });

  it("a stateless background run keeps its thread with on_completion keep", async () => {
    // The SDK types onCompletion as "complete" | "continue"; LangGraph Server (and Interlude) take "delete" | "keep".
    const run = await client.runs.create(null, "loop", { input: { rounds: 1 }, onCompletion: "keep" as never });
    await client.runs.join(run.thread_id, run.run_id);
    expect((await client.threads.get(run.thread_id)).status).toBe("interrupted");
    expect(
      await refusal(client.runs.create(null, "loop", { input: { rounds: 1 }, onCompletion: "complete" })),
    ).toMatchObject({ status: 422, body: { field: "on_completion" } });
  });

  it("cancel with reason taken (steering) is refused with 422 naming reason, and the run goes on", async () => {
    const { thread, run, release } = await heldRun();
    const refused = await refusal(
      client.runs.cancel(thread.thread_id, run.run_id, false, "interrupt", { reason: "taken" }),
    );
    expect(refused).toMatchObject({ status: 422, body: { field: "reason" } });
    release();
    expect(((await client.runs.join(thread.thread_id, run.run_id)) as any).log).toEqual(["first:held", "second:held"]);
  });

  it('joinStream with lastEventId "-1", or a checkpointId (as useStream rejoins), replays the whole run; a namespace filter is refused', async () => {
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "slow", {
      input: { tag: "j", delay: 1 },
      streamMode: "updates",
    });
    await client.runs.join(thread.thread_id, run.run_id);
    const whole = await collect(client.runs.joinStream(thread.thread_id, run.run_id));
    expect(whole.map((e) => e.event)).toEqual(["metadata", "updates", "updates", "end"]);
    const head = await client.threads.getState(thread.thread_id);
    const replayed = await collect(client.runs.joinStream(thread.thread_id, run.run_id, { lastEventId: "-1" }));
    expect(replayed).toEqual(whole);
    const join = (options: object) => collect(client.runs.joinStream(thread.thread_id, run.run_id, options));
    expect(await join({ checkpointId: head.checkpoint.checkpoint_id! })).toEqual(whole);
    expect(await refusal(join({ streamNamespaces: ["outer"] }))).toMatchObject({
      status: 422,
      body: { field: "namespace" },
    });
  });

  it("joinStream with cancelOnDisconnect: the follower going away cancels the run", async () => {
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "slow", {
      input: { tag: "followed", delay: 600_000, abortable: true },
    });
    const abort = new AbortController();
    try {
      for await (const part of client.runs.joinStream(thread.thread_id, run.run_id, {
        cancelOnDisconnect: true,
        signal: abort.signal,
      })) {
        // The first event: the server is following the run for this client.
        if (part.event === "metadata") abort.abort();
      }
    } catch {
      // aborted
    }
    await until(async () => (await client.runs.get(thread.thread_id, run.run_id)).status === "interrupted");
  });

  it("join with cancelOnDisconnect cancels the run when the client goes away", async () => {
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "slow", {
      input: { tag: "joined", delay: 600_000, abortable: true },
    });
    await until(async () => (await client.runs.get(thread.thread_id, run.run_id)).status === "running");
    const abort = new AbortController();
    const joined = client.runs
      .join(thread.thread_id, run.run_id, { cancelOnDisconnect: true, signal: abort.signal })
      .catch(() => undefined);
    try {
      // Long enough for the join request to reach the server on loopback; the test then waits on the run's status.
      await new Promise((resolve) => setTimeout(resolve, 500));
      abort.abort();
      await joined;
      await until(async () => (await client.runs.get(thread.thread_id, run.run_id)).status === "interrupted", 5_000);
    } finally {
      await client.runs.cancel(thread.thread_id, run.run_id, true);
    }
  });

  it("a stream whose connection is cut mid-run is resumed by the SDK (Location header), not silently cut short", async () => {
    const gate = `sdk-coverage-cut-${gates++}`;
    let cut = false;
    const cutting: typeof fetch = async (input, init) => {
      const url = String(input);
      const response = await fetch(input, init);
      if (!cut && init?.method === "POST" && url.endsWith("/runs/stream")) {
        cut = true;
        // The first chunk (the metadata event) arrives, then the connection ends, as a proxy's would.
        const reader = response.body!.getReader();
        const head = await reader.read();
        void reader.cancel();
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            if (head.value) controller.enqueue(head.value);
            controller.close();
          },
        });
        return new Response(body, { status: response.status, headers: response.headers });
      }
      // The SDK reconnects (GET .../stream with Last-Event-ID): the run may finish now.
      if (url.includes("/stream")) openGate(gate);
      return response;
    };
    const sdk = new Client({ apiUrl: server.url, apiKey: null, callerOptions: { maxRetries: 0, fetch: cutting } });
    const thread = await client.threads.create();
    try {
      const events = await collect(
        sdk.runs.stream(thread.thread_id, "slow", {
          input: { tag: "cut", delay: 1, hold: gate },
          streamMode: "updates",
          streamResumable: true,
        }),
      );
      expect(events.map((e) => e.event)).toEqual(["metadata", "updates", "updates", "end"]);
    } finally {
      openGate(gate);
    }
  });

  it("checkpointDuring false (the older name of durability exit) saves only where the run stops", async () => {
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, "slow", { input: { tag: "x", delay: 1 }, checkpointDuring: false });
    expect(await client.threads.getHistory(thread.thread_id, { limit: 20 })).toHaveLength(1);
  });
});

describe("generative UI (~ui.getComponent)", () => {
  it("is not served (the config's ui key is refused at start): 404", async () => {
    expect(await refusal(client["~ui"].getComponent("loop", "card"))).toMatchObject({ status: 404 });
  });
});

describe("crons", () => {
  it("create's answer has the Cron fields; search filters on enabled and assistant, sorts and pages; update clears endTime", async () => {
    const assistant = await client.assistants.create({ graphId: "loop" });
    const endTime = new Date(Date.now() + 400 * 24 * 3600_000).toISOString();
    const a = await client.crons.create(assistant.assistant_id, {
      schedule: "0 0 1 1 *",
      endTime,
      input: { rounds: 1 },
    });
    const b = await client.crons.create(assistant.assistant_id, { schedule: "0 0 1 6 *", enabled: false });
    for (const key of SHAPES.cron) expect(a).toHaveProperty(key);
    expect(a).toMatchObject({
      assistant_id: assistant.assistant_id,
      thread_id: null,
      enabled: true,
      payload: { input: { rounds: 1 } },
    });
    expect(Date.parse(a.end_time!)).toBe(Date.parse(endTime));
    const mine = { assistantId: assistant.assistant_id };
    expect((await client.crons.search({ ...mine, enabled: false })).map((c) => c.cron_id)).toEqual([b.cron_id]);
    const ids = [a.cron_id, b.cron_id].sort();
    const asc = await client.crons.search({ ...mine, sortBy: "cron_id", sortOrder: "asc" });
    expect(asc.map((c) => c.cron_id)).toEqual(ids);
    const desc = await client.crons.search({ ...mine, sortBy: "cron_id", sortOrder: "desc", limit: 1, offset: 1 });
    expect(desc.map((c) => c.cron_id)).toEqual([ids[0]]);
    // "now" (a CronSelectField): the time the search answered, beside the fields selected.
    const before = Date.now();
    const [withNow] = await client.crons.search({ ...mine, select: ["cron_id", "now"], limit: 1 });
    expect(Object.keys(withNow!)).toEqual(["cron_id", "now"]);
    expect(Date.parse((withNow as unknown as { now: string }).now)).toBeGreaterThanOrEqual(before - 1000);
    const cleared = await client.crons.update(a.cron_id, { endTime: null });
    expect(cleared.end_time).toBeNull();
    expect(cleared.next_run_date).toBeTruthy();
    expect((await client.crons.update(b.cron_id, { enabled: true })).enabled).toBe(true);
    expect(await client.crons.count(mine)).toBe(2);
    await client.assistants.delete(assistant.assistant_id);
    expect(await client.crons.count(mine)).toBe(0);
  });
});

describe("store", () => {
  it("listNamespaces with suffix, maxDepth, limit and offset; searchItems pages; getItem with refreshTtl", async () => {
    const root = `audit${Date.now()}`;
    await client.store.putItem([root, "a", "x"], "k1", { n: 1 });
    await client.store.putItem([root, "b", "x"], "k2", { n: 2 });
    await client.store.putItem([root, "b", "y"], "k3", { n: 3 });
    expect((await client.store.listNamespaces({ prefix: [root], suffix: ["x"] })).namespaces).toEqual([
      [root, "a", "x"],
      [root, "b", "x"],
    ]);
    expect((await client.store.listNamespaces({ prefix: [root], maxDepth: 2 })).namespaces).toEqual([
      [root, "a"],
      [root, "b"],
    ]);
    expect((await client.store.listNamespaces({ prefix: [root], limit: 1, offset: 1 })).namespaces).toEqual([
      [root, "b", "x"],
    ]);
    const page = await client.store.searchItems([root], { limit: 2 });
    const rest = await client.store.searchItems([root], { limit: 2, offset: 2 });
    expect(page.items).toHaveLength(2);
    expect(rest.items).toHaveLength(1);
    expect(new Set([...page.items, ...rest.items].map((i) => i.key))).toEqual(new Set(["k1", "k2", "k3"]));
    expect(typeof page.items[0]!.updatedAt).toBe("string");
    expect(await client.store.getItem([root, "a", "x"], "k1", { refreshTtl: true })).toMatchObject({ value: { n: 1 } });
    expect(await refusal(client.store.putItem([root], "k", { n: 0 }, { ttl: 5 }))).toMatchObject({
      status: 422,
      body: { field: "ttl" },
    });
  });
});
