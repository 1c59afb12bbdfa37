/** Stopping runs whose node never returns: cancel, the interrupt strategy, timeouts, restarts. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, type ServeOptions, startServer } from "@interlude/server";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
// The module the server loads through langgraph.json: same URL, same instance, same counter.
import { hangStats, hooks } from "./fixtures/graphs.mjs";
import { FIXTURE_CONFIG, json, runEnded, type TestServer, testServer, until } from "./helpers.js";

let server: TestServer;
beforeAll(async () => {
  server = await testServer({ abortGraceMs: 50 });
});
afterAll(() => server?.dispose());

async function hungRun(url: string, extra: Record<string, unknown> = {}) {
  const thread = (await json(`${url}/threads`, { method: "POST", body: "{}" })).body;
  const entered = hangStats.entered;
  const run = await json(`${url}/threads/${thread.thread_id}/runs`, {
    method: "POST",
    body: JSON.stringify({ assistant_id: "hang", input: { x: 1 }, ...extra }),
  });
  expect(run.status).toBe(200);
  await until(async () => hangStats.entered > entered);
  return { threadId: thread.thread_id as string, runId: run.body.run_id as string };
}

/**
 * `body` given the options of a server on a SQLite file of its own, which the test starts, stops
 * and starts again (a restart: runs found running were the stopped server's); the file goes after.
 */
async function onOwnFile(prefix: string, extra: Partial<ServeOptions>, body: (options: ServeOptions) => Promise<void>) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  try {
    await body({
      config: loadConfig(FIXTURE_CONFIG),
      sqlitePath: join(dir, "db.sqlite"),
      port: 0,
      runLeaseMs: 200,
      ...extra,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Starts a server on `options` and queues a `hooked` run (`extra` added to its body) whose node
 * "work" goes on once the shutdown has asked its run to drain (config.control), undisturbed (its
 * signal is not aborted); shuts that server down once "work" runs, so that the run goes back to
 * the queue. `ran` counts the nodes "work" and "after" as they run, in this server and the next.
 */
async function drainedHookedRun(options: ServeOptions, extra: Record<string, unknown> = {}) {
  const ran = { work: 0, after: 0 };
  hooks.during = async (config: { control: { drainRequested: boolean }; signal: AbortSignal }) => {
    ran.work++;
    await until(async () => config.control.drainRequested);
    if (config.signal.aborted) throw new Error("aborted at shutdown");
  };
  hooks.after = () => void ran.after++;
  const first = await startServer(options);
  const thread = (await json(`${first.url}/threads`, { method: "POST", body: "{}" })).body;
  const run = (
    await json(`${first.url}/threads/${thread.thread_id}/runs`, {
      method: "POST",
      body: JSON.stringify({ assistant_id: "hooked", input: {}, ...extra }),
    })
  ).body;
  await until(async () => ran.work === 1);
  await first.close();
  return { threadId: thread.thread_id as string, runId: run.run_id as string, ran };
}

describe("a node that never returns", () => {
  it("cancel?wait=1 ends the run as interrupted and frees the thread", async () => {
    const { threadId, runId } = await hungRun(server.url);
    const cancelled = await fetch(`${server.url}/threads/${threadId}/runs/${runId}/cancel?wait=1`, { method: "POST" });
    expect(cancelled.status).toBe(204);
    expect((await json(`${server.url}/threads/${threadId}/runs/${runId}`)).body.status).toBe("interrupted");
    expect((await json(`${server.url}/threads/${threadId}`)).body.status).not.toBe("busy");
  });

  it("cancelMany stops the runs named, or every running run; a cancel it cannot honour is refused (422)", async () => {
    const client = server.client();
    const a = await hungRun(server.url);
    const b = await hungRun(server.url);
    await client.runs.cancelMany({ threadId: a.threadId, runIds: [a.runId] });
    await until(async () => (await client.runs.get(a.threadId, a.runId)).status === "interrupted");
    expect((await client.runs.get(b.threadId, b.runId)).status).toBe("running");
    const c = await hungRun(server.url);
    await client.runs.cancelMany({ status: "running" });
    for (const { threadId, runId } of [b, c])
      await until(async () => (await client.runs.get(threadId, runId)).status === "interrupted");
    const post = (path: string, body: unknown) =>
      json(`${server.url}${path}`, { method: "POST", body: JSON.stringify(body) });
    expect(await post("/runs/cancel", { run_ids: [a.runId] })).toMatchObject({ status: 422 });
    expect(await post("/runs/cancel", { thread_id: a.threadId, run_ids: ["nope"] })).toMatchObject({ status: 404 });
    expect(await post(`/threads/${a.threadId}/runs/${a.runId}/cancel?reason=taken`, {})).toMatchObject({
      status: 422,
      body: { field: "reason" },
    });
    expect(await post(`/threads/${a.threadId}/runs/${a.runId}/cancel?action=undo`, {})).toMatchObject({
      status: 422,
      body: { field: "action" },
    });
  });

  it("a run with multitask_strategy interrupt replaces it instead of queueing forever", async () => {
    const { threadId, runId } = await hungRun(server.url);
    const next = await json(`${server.url}/threads/${threadId}/runs/wait`, {
      method: "POST",
      body: JSON.stringify({ assistant_id: "loop", input: { rounds: 1 }, multitask_strategy: "interrupt" }),
    });
    expect(next.status).toBe(200);
    expect((await json(`${server.url}/threads/${threadId}/runs/${runId}`)).body.status).toBe("interrupted");
  });

  it("a wait run whose client goes away is cancelled when it asked for that (on_disconnect), and goes on otherwise", async () => {
    const waitThenLeave = async (input: Record<string, unknown>, extra: Record<string, unknown>) => {
      const thread = (await json(`${server.url}/threads`, { method: "POST", body: "{}" })).body;
      const runsUrl = `${server.url}/threads/${thread.thread_id}/runs`;
      const controller = new AbortController();
      const waiting = fetch(`${runsUrl}/wait`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ assistant_id: "slow", input, ...extra }),
        signal: controller.signal,
      }).catch(() => "left");
      const run = await until(async () => (await json(runsUrl)).body.find((r: any) => r.status === "running"));
      controller.abort();
      expect(await waiting).toBe("left");
      return runEnded(`${runsUrl}/${run.run_id}`);
    };
    const cancelled = await waitThenLeave({ tag: "c", delay: 60_000, abortable: true }, { on_disconnect: "cancel" });
    expect(cancelled.status).toBe("interrupted");
    const continued = await waitThenLeave({ tag: "d", delay: 200 }, {});
    expect(continued.status).toBe("success");
  });

  it("timeout_seconds stops it with status timeout and says so", async () => {
    const thread = (await json(`${server.url}/threads`, { method: "POST", body: "{}" })).body;
    const waited = await json(`${server.url}/threads/${thread.thread_id}/runs/wait`, {
      method: "POST",
      body: JSON.stringify({ assistant_id: "hang", input: { x: 1 }, timeout_seconds: 0.05 }),
    });
    expect(waited.status).toBe(200);
    expect(waited.body.__error__.code).toBe("RUN_TIMED_OUT");
    const runs = (await json(`${server.url}/threads/${thread.thread_id}/runs`)).body;
    expect(runs[0].status).toBe("timeout");
    expect((await json(`${server.url}/threads/${thread.thread_id}`)).body.status).not.toBe("busy");
  });

  it("a cancelled run is not executed again after a restart; shutting down with a hung run ends", async () => {
    // The hung run never reaches a step boundary: after drainGraceMs, shutting down aborts it.
    await onOwnFile("interlude-stop-", { abortGraceMs: 50, drainGraceMs: 100 }, async (options) => {
      const first = await startServer(options);
      const cancelled = await hungRun(first.url);
      await fetch(`${first.url}/threads/${cancelled.threadId}/runs/${cancelled.runId}/cancel?wait=1`, {
        method: "POST",
      });
      const hung = await hungRun(first.url);
      await first.close(); // stops the hung run too
      const entered = hangStats.entered;
      const second = await startServer(options);
      try {
        const run = (await json(`${second.url}/threads/${cancelled.threadId}/runs/${cancelled.runId}`)).body;
        expect(run.status).toBe("interrupted");
        expect((await json(`${second.url}/threads/${hung.threadId}/runs/${hung.runId}`)).body.status).toBe(
          "interrupted",
        );
        expect(hangStats.entered).toBe(entered);
      } finally {
        await second.close();
      }
    });
  });
});

describe("shutting down", () => {
  afterEach(() => {
    hooks.during = () => undefined;
    hooks.after = () => undefined;
  });

  it("drains a queued run: its step ends undisturbed, and the server started next continues it from there", async () => {
    await onOwnFile("interlude-drain-", {}, async (options) => {
      const { threadId, runId, ran } = await drainedHookedRun(options);
      expect(ran.after).toBe(0);
      const second = await startServer(options);
      try {
        const runUrl = `${second.url}/threads/${threadId}/runs/${runId}`;
        await json(`${runUrl}/join`);
        expect((await json(runUrl)).body.status).toBe("success");
        // "work" ran once (its result kept at the drain), "after" in the next process.
        expect([ran.work, ran.after]).toEqual([1, 1]);
        expect((await json(`${second.url}/threads/${threadId}/state`)).body.values.done).toBe(true);
      } finally {
        await second.close();
      }
    });
  });

  it("drains an answer whose subgraph took it: the server started next continues the thread, the answer applied once", async () => {
    let resumed = 0;
    let after = 0;
    await onOwnFile("interlude-drain-nested-", {}, async (options) => {
      hooks.during = () => undefined;
      const first = await startServer(options);
      const thread = (await json(`${first.url}/threads`, { method: "POST", body: "{}" })).body;
      const threadUrl = (url: string) => `${url}/threads/${thread.thread_id}`;
      const asked = await json(`${threadUrl(first.url)}/runs/wait`, {
        method: "POST",
        body: JSON.stringify({ assistant_id: "hooked_nested", input: { ask: true } }),
      });
      const [question] = asked.body.__interrupt__;
      // The answered node runs again, and holds its step until the shutdown asks to drain: the
      // subgraph saves the step that took the answer and stops before its next one.
      hooks.during = async (config: { control: { drainRequested: boolean } }) => {
        resumed++;
        await until(async () => config.control.drainRequested);
      };
      hooks.after = () => void after++;
      // Not awaited: the run is created once it has taken its answer, at the end of that step.
      const creating = json(`${threadUrl(first.url)}/runs`, {
        method: "POST",
        body: JSON.stringify({ assistant_id: "hooked_nested", command: { resume: { [question.id]: "yes" } } }),
      });
      await until(async () => resumed === 1);
      await first.close();
      await creating;
      expect(after).toBe(0);
      const second = await startServer(options);
      try {
        const [run] = (await json(`${threadUrl(second.url)}/runs?limit=1`)).body;
        await json(`${threadUrl(second.url)}/runs/${run.run_id}/join`);
        const ended = (await json(`${threadUrl(second.url)}/runs/${run.run_id}`)).body;
        expect([ended.status, ended.error?.code]).toEqual(["success", undefined]);
        // The answer taken once (the node ran again only to answer), "after" in the next process.
        expect([resumed, after]).toEqual([1, 1]);
        const state = (await json(`${threadUrl(second.url)}/state`)).body;
        expect(state.values).toMatchObject({ answer: "yes", done: true });
        expect(state.next).toEqual([]);
      } finally {
        await second.close();
      }
    });
  });

  it("counts a drained run's timeout from its first start: past it, the server started next ends it before running more", async () => {
    await onOwnFile("interlude-drain-timeout-", {}, async (options) => {
      const { threadId, runId, ran } = await drainedHookedRun(options, { timeout_seconds: 1 });
      // The second server starts past the run's second: it is not given one of its own.
      await new Promise((resolve) => setTimeout(resolve, 1200));
      const second = await startServer(options);
      try {
        const runUrl = `${second.url}/threads/${threadId}/runs/${runId}`;
        expect((await json(`${runUrl}/join`)).body.__error__.code).toBe("RUN_TIMED_OUT");
        expect((await json(runUrl)).body.status).toBe("timeout");
        expect([ran.work, ran.after]).toEqual([1, 0]);
        expect((await json(`${second.url}/threads/${threadId}`)).body.status).not.toBe("busy");
      } finally {
        await second.close();
      }
    });
  });

  it("answers the requests waiting on the runs it drains 503 SERVER_STOPPING, saying where each goes on", async () => {
    let working = 0;
    await onOwnFile("interlude-drain-answer-", {}, async (options) => {
      hooks.during = async (config: { control: { drainRequested: boolean } }) => {
        working++;
        await until(async () => config.control.drainRequested);
      };
      const first = await startServer(options);
      const newThread = async () => (await json(`${first.url}/threads`, { method: "POST", body: "{}" })).body.thread_id;
      const post = (path: string, body: unknown) =>
        fetch(`${first.url}${path}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        });
      const [waited, streamed, queued, cancelled] = [
        await newThread(),
        await newThread(),
        await newThread(),
        await newThread(),
      ];
      const wait = post(`/threads/${waited}/runs/wait`, { assistant_id: "hooked", input: {} });
      const stream = post(`/threads/${streamed}/runs/stream`, { assistant_id: "hooked", input: {} });
      const cancelledWait = post(`/threads/${cancelled}/runs/wait`, {
        assistant_id: "hooked",
        input: {},
        on_disconnect: "cancel",
      });
      const run = (await (await post(`/threads/${queued}/runs`, { assistant_id: "hooked", input: {} })).json()) as {
        run_id: string;
      };
      const join = fetch(`${first.url}/threads/${queued}/runs/${run.run_id}/join`);
      const joinStream = fetch(`${first.url}/threads/${queued}/runs/${run.run_id}/stream`);
      await until(async () => working === 4);
      await first.close();
      // Every run goes back to the queue, its client told to join it elsewhere; one whose client
      // asked to cancel it when it goes away ended interrupted, and its client continues it.
      const queuedAgain = { code: "SERVER_STOPPING", message: expect.stringMatching(/queue/) };
      const waitAnswer = await wait;
      expect(waitAnswer.status).toBe(503);
      expect(await waitAnswer.json()).toMatchObject(queuedAgain);
      const cancelledAnswer = await cancelledWait;
      expect(cancelledAnswer.status).toBe(503);
      const stoppedHere = { code: "SERVER_STOPPING", message: expect.stringMatching(/run without input/) };
      expect(await cancelledAnswer.json()).toMatchObject(stoppedHere);
      const events = await (await stream).text();
      expect(events).toMatch(/event: error\ndata: \{[^\n]*queue[^\n]*"SERVER_STOPPING"[^\n]*\n\nevent: end\n/);
      const joinAnswer = await join;
      expect(joinAnswer.status).toBe(503);
      expect(await joinAnswer.json()).toMatchObject({
        code: "SERVER_STOPPING",
        message: expect.stringMatching(/queue/),
      });
      const joinedEvents = await (await joinStream).text();
      expect(joinedEvents).toMatch(/event: error\ndata: \{[^\n]*queue[^\n]*"SERVER_STOPPING"[^\n]*\n\nevent: end\n/);
      hooks.during = () => undefined;
      const second = await startServer(options);
      try {
        for (const threadId of [waited, streamed, queued]) {
          const runs = (await json(`${second.url}/threads/${threadId}/runs`)).body;
          expect(runs).toHaveLength(1);
          expect((await json(`${second.url}/threads/${threadId}/runs/${runs[0].run_id}/join`)).body.done).toBe(true);
        }
        expect((await json(`${second.url}/threads/${cancelled}/runs`)).body[0].status).toBe("interrupted");
        const continued = await json(`${second.url}/threads/${cancelled}/runs/wait`, {
          method: "POST",
          body: JSON.stringify({ assistant_id: "hooked" }),
        });
        expect(continued.body.done).toBe(true);
      } finally {
        await second.close();
      }
    });
  });
});
