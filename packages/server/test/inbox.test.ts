/** The inbox endpoints: pending interrupts across threads, live events, answering, conflicts, deadlines. */

import type { Client } from "@langchain/langgraph-sdk";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { fireDeadline } from "../dist/inbox/deadlines.js";
import { followSse, json, type TestServer, testServer, until } from "./helpers.js";

let server: TestServer;
let client: Client;
// The server reads ages and due deadlines against this clock: a test moves it forward instead of waiting.
let clockAhead = 0;
beforeAll(async () => {
  server = await testServer({ now: () => Date.now() + clockAhead });
  client = server.client();
});
afterEach(() => {
  clockAhead = 0;
});
afterAll(() => server?.dispose());

async function pausedApproval(service: string) {
  const thread = await client.threads.create({ metadata: { service } });
  const paused = (await client.runs.wait(thread.thread_id, "approval", { input: { request: { service } } })) as any;
  return { threadId: thread.thread_id, interruptId: paused.__interrupt__[0].id as string };
}

describe("listing pending interrupts", () => {
  it("lists every pending interrupt oldest first, with filters, paging and a total", async () => {
    const a = await pausedApproval("alpha-svc");
    const b = await pausedApproval("beta-svc");
    const loop = await client.threads.create();
    await client.runs.wait(loop.thread_id, "loop", { input: { rounds: 2 } });

    const all = await json(`${server.url}/inbox/interrupts?graph_id=approval`);
    const ids = all.body.items.map((i: any) => i.interrupt_id);
    expect(ids.indexOf(a.interruptId)).toBeLessThan(ids.indexOf(b.interruptId));
    const item = all.body.items.find((i: any) => i.interrupt_id === a.interruptId);
    expect(item).toMatchObject({
      thread_id: a.threadId,
      graph_id: "approval",
      assistant_id: expect.any(String),
      ns: [expect.stringMatching(/^review:/)],
      response_schema: { required: ["type"] },
    });
    expect(item.value.action_request.args.service).toBe("alpha-svc");
    expect(new Date(item.created_at).getTime()).toBeGreaterThan(0);

    expect((await json(`${server.url}/inbox/interrupts?q=BETA-SVC`)).body.items.map((i: any) => i.thread_id)).toEqual([
      b.threadId,
    ]);
    const olderThanAMinute = async () =>
      (await json(`${server.url}/inbox/interrupts?graph_id=approval&min_age_seconds=60`)).body.items;
    expect((await olderThanAMinute()).map((i: any) => i.interrupt_id)).not.toContain(a.interruptId);
    clockAhead = 61_000;
    const old = await olderThanAMinute();
    expect(old.map((i: any) => i.interrupt_id)).toEqual(expect.arrayContaining([a.interruptId, b.interruptId]));
    expect(old.find((i: any) => i.interrupt_id === a.interruptId).age_seconds).toBeGreaterThanOrEqual(61);
    clockAhead = 0;
    expect((await json(`${server.url}/inbox/interrupts?graph_id=loop`)).body.items[0].value).toEqual({
      question: "next?",
      n: 0,
    });
    const page = await json(`${server.url}/inbox/interrupts?limit=1&offset=1`);
    expect(page.body.items).toHaveLength(1);
    expect(page.body.total).toBeGreaterThanOrEqual(3);
    expect((await json(`${server.url}/inbox/interrupts?limit=0`)).status).toBe(422);
  });
});

describe("answering", () => {
  it("two reviewers racing on one interrupt: one answer applies, the other gets 409 with who answered and what", async () => {
    const { threadId, interruptId } = await pausedApproval("race");
    const alice = server.client();
    const bob = server.client();
    const answer = (type: string) => ({ command: { resume: { [interruptId]: { type } } } });
    const results = await Promise.allSettled([
      alice.runs.wait(threadId, "approval", answer("accept")),
      bob.runs.wait(threadId, "approval", answer("ignore")),
    ]);
    const won = results.filter((r) => r.status === "fulfilled");
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    const conflict = JSON.parse(String(lost[0]!.reason.message).replace(/^HTTP 409: /, ""));
    expect(conflict).toMatchObject({
      error: "already_answered",
      interrupt_id: interruptId,
      by: "anonymous",
      at: expect.any(String),
    });
    const winner = (won[0] as PromiseFulfilledResult<any>).value;
    expect(conflict.answer.type).toBe(winner.review.approved ? "accept" : "ignore");
    const history = await client.threads.getHistory(threadId, { limit: 20 });
    expect(history.flatMap((s) => (s.metadata?.resume as unknown[]) ?? [])).toHaveLength(1);
    expect(history.filter((s) => s.metadata?.source === "loop" && s.metadata.step === 3)).toHaveLength(1);
  });

  it("a refused answer is 422 with the issues; the interrupt stays pending and a corrected answer is taken", async () => {
    const { threadId, interruptId } = await pausedApproval("strict");
    const refused = await json(`${server.url}/threads/${threadId}/runs/wait`, {
      method: "POST",
      body: JSON.stringify({ assistant_id: "approval", command: { resume: { [interruptId]: { type: "maybe" } } } }),
    });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({
      error: "invalid_resume",
      code: "INVALID_RESUME",
      interrupt_id: interruptId,
      issues: [{ message: expect.stringContaining("type must be"), path: ["type"] }],
    });
    expect(JSON.stringify(refused.body)).not.toMatch(/at .*\.js:\d+/);
    expect((await client.threads.get(threadId)).status).toBe("interrupted");
    const listed = await json(`${server.url}/inbox/interrupts?thread_id=${threadId}`);
    expect(listed.body.items.map((i: any) => i.interrupt_id)).toEqual([interruptId]);
    // Background run creation refuses it the same way.
    await expect(client.runs.create(threadId, "approval", { command: { resume: { type: "nope" } } })).rejects.toThrow(
      /422/,
    );
    const done = (await client.runs.wait(threadId, "approval", {
      command: { resume: { [interruptId]: { type: "accept" } } },
    })) as any;
    expect(done.result).toBe("deployed strict@1.0.0 x3");
  });

  it("ambiguous, unknown and nothing-to-resume answers are clear 4xx errors with their code", async () => {
    const thread = await client.threads.create();
    const paused = (await client.runs.wait(thread.thread_id, "pair", { input: {} })) as any;
    expect(paused.__interrupt__).toHaveLength(2);
    const post = (command: unknown) =>
      json(`${server.url}/threads/${thread.thread_id}/runs/wait`, {
        method: "POST",
        body: JSON.stringify({ assistant_id: "pair", command }),
      });
    const ambiguous = await post({ resume: "both?" });
    expect(ambiguous).toMatchObject({
      status: 400,
      body: { code: "AMBIGUOUS_RESUME", pending: [expect.anything(), expect.anything()] },
    });
    const unknown = await post({ resume: { ["0".repeat(32)]: "x" } });
    expect(unknown).toMatchObject({ status: 404, body: { code: "UNKNOWN_INTERRUPT", unknown_ids: ["0".repeat(32)] } });
    const [left, right] = paused.__interrupt__;
    const done = (await client.runs.wait(thread.thread_id, "pair", {
      command: { resume: { [left.id]: "L", [right.id]: "R" } },
    })) as any;
    expect(done).toEqual({ a: "L", b: "R" });
    const nothing = await post({ resume: "again" });
    expect(nothing).toMatchObject({ status: 409, body: { code: "NOTHING_TO_RESUME", reason: "finished" } });
  });

  it("POST /inbox/answer answers by id", async () => {
    const { threadId, interruptId } = await pausedApproval("inbox-answer");
    const answered = await json(`${server.url}/inbox/answer`, {
      method: "POST",
      body: JSON.stringify({
        thread_id: threadId,
        interrupt_id: interruptId,
        answer: { type: "accept" },
        reason: "looks fine",
      }),
    });
    expect(answered).toMatchObject({
      status: 200,
      body: { thread_id: threadId, interrupt_id: interruptId, by: "anonymous", status: "accepted" },
    });
    await until(async () => (await client.threads.get(threadId)).status === "idle");
    const history = await client.threads.getHistory(threadId, { limit: 20 });
    expect(history.flatMap((s) => (s.metadata?.resume as any[]) ?? [])[0]).toMatchObject({
      reason: "looks fine",
      by: "anonymous",
    });
    const again = await json(`${server.url}/inbox/answer`, {
      method: "POST",
      body: JSON.stringify({ thread_id: threadId, interrupt_id: interruptId, answer: { type: "ignore" } }),
    });
    expect(again).toMatchObject({ status: 409, body: { error: "already_answered", answer: { type: "accept" } } });
    const bad = await json(`${server.url}/inbox/answer`, {
      method: "POST",
      body: JSON.stringify({ thread_id: threadId, interrupt_id: "nope", answer: 1 }),
    });
    expect(bad).toMatchObject({ status: 422, body: { code: "INVALID_REQUEST", field: "interrupt_id" } });
  });
});

describe("live events", () => {
  it("emits interrupt.created and interrupt.resolved (who answered, with what)", async () => {
    const stream = await followSse(`${server.url}/inbox/events`);
    try {
      await until(async () => stream.events.some((e) => e.event === "ready"));
      const { threadId, interruptId } = await pausedApproval("live");
      const created = await until(async () =>
        stream.events.find((e) => e.event === "interrupt.created" && e.data.interrupt_id === interruptId),
      );
      expect(created.data).toMatchObject({
        thread_id: threadId,
        graph_id: "approval",
        value: { action_request: { action: "deploy" } },
      });
      await client.runs.wait(threadId, "approval", { command: { resume: { type: "response", args: "later" } } });
      const resolved = await until(async () =>
        stream.events.find((e) => e.event === "interrupt.resolved" && e.data.interrupt_id === interruptId),
      );
      expect(resolved.data).toEqual({
        thread_id: threadId,
        interrupt_id: interruptId,
        by: "anonymous",
        answer: { type: "response", args: "later" },
        at: expect.any(String),
      });
    } finally {
      stream.close();
    }
  });
});

describe("deadlines", () => {
  it("answers with the declared default when nobody answered in time (by: deadline)", async () => {
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, "deadline", {
      input: { seconds: 0.3, onTimeout: { resume: "default answer" } },
    });
    const listed = await json(`${server.url}/inbox/interrupts?thread_id=${thread.thread_id}`);
    expect(listed.body.items[0].deadline_at).toBeTruthy();
    await until(async () => (await client.threads.get(thread.thread_id)).status === "idle");
    expect((await client.threads.getState(thread.thread_id)).values).toMatchObject({ answer: "default answer" });
    const history = await client.threads.getHistory(thread.thread_id, { limit: 10 });
    expect(history.flatMap((s) => (s.metadata?.resume as any[]) ?? [])[0]).toMatchObject({ by: "deadline" });
  });

  it("marks the thread as errored with the reason", async () => {
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, "deadline", {
      input: { seconds: 0.2, onTimeout: { error: "approval window closed" } },
    });
    const errored = await until(async () => {
      const t = await client.threads.get(thread.thread_id);
      return t.status === "error" && t;
    });
    expect(errored.error).toMatchObject({ code: "DEADLINE_EXPIRED", message: "approval window closed" });
    expect((await json(`${server.url}/inbox/interrupts?thread_id=${thread.thread_id}`)).body.total).toBe(0);
  });

  it("an answer given in time wins; the deadline then does nothing", async () => {
    const thread = await client.threads.create();
    const paused = (await client.runs.wait(thread.thread_id, "deadline", {
      input: { seconds: 3600, onTimeout: { resume: "too late" } },
    })) as any;
    await client.runs.wait(thread.thread_id, "deadline", { command: { resume: "human" } });
    // The hour passes and the deadline fires (its timer would call just this).
    clockAhead = 3_601_000;
    await fireDeadline(server.backend.ctx, thread.thread_id, paused.__interrupt__[0].id);
    expect((await client.threads.getState(thread.thread_id)).values).toMatchObject({ answer: "human" });
    expect(await client.runs.list(thread.thread_id)).toHaveLength(2);
  });
});
