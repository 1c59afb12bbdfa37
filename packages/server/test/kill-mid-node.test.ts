/**
 * A SQLite server SIGKILLed while a node runs, then restarted on the same file with the default
 * lease and claim TTL (30 s): its run is found lost at once and the dead process's claim taken
 * over, so the run goes on from its last checkpoint without waiting (or, when its client asked
 * to cancel it on going away, the thread is free at once and resumes from there).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
// @ts-expect-error: a plain ESM script without types, shared with `npm run bench:server`.
import { startServerProcess } from "../bench/processes.mjs";
import { json, until } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "interlude-kill-node-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const post = (url: string, body: unknown) => json(url, { method: "POST", body: JSON.stringify(body) });

it("after SIGKILL mid-node, a restarted server continues the run at once, without waiting for leases", async () => {
  const db = join(dir, "continued.sqlite");
  const first = await startServerProcess({ db });
  const threadId = (await post(`${first.url}/threads`, {})).body.thread_id;
  const path = (url: string) => `${url}/threads/${threadId}/runs`;
  const waiting = post(`${path(first.url)}/wait`, {
    assistant_id: "slow",
    input: { tag: "a", delay: 1500, secondDelay: 1 },
  }).catch(() => "server gone");
  await until(async () => (await json(path(first.url))).body[0]?.status === "running");
  await first.stop("SIGKILL");
  expect(await waiting).toBe("server gone");

  const second = await startServerProcess({ db });
  try {
    // Well within the 30 s lease and claim TTL: the run ended, each of its steps once.
    const url = second.url;
    const [run] = await until(async () => {
      const runs = (await json(path(url))).body;
      return runs[0]?.status === "success" && runs;
    }, 15_000);
    expect(run.kwargs.input.tag).toBe("a");
    const thread = (await json(`${second.url}/threads/${threadId}`)).body;
    expect({ status: thread.status, log: thread.values.log }).toEqual({ status: "idle", log: ["first:a", "second:a"] });
  } finally {
    await second.stop();
  }
}, 60_000);

it("after SIGKILL mid-node, a restarted server frees the thread of a run whose client asked to cancel it on going away", async () => {
  const db = join(dir, "db.sqlite");
  const first = await startServerProcess({ db });
  const threadId = (await post(`${first.url}/threads`, {})).body.thread_id;
  // A run that pauses (saving a checkpoint), then one that enters a node and never returns.
  await post(`${first.url}/threads/${threadId}/runs/wait`, { assistant_id: "slow", input: { tag: "a", delay: 1 } });
  // Its client goes with the process and asked to cancel it then: it is not queued again.
  const waiting = post(`${first.url}/threads/${threadId}/runs/wait`, {
    assistant_id: "hang",
    input: {},
    on_disconnect: "cancel",
  }).catch(() => undefined);
  const hung = await until(
    async () =>
      (await json(`${first.url}/threads/${threadId}/runs`)).body[0]?.status === "running" &&
      (await json(`${first.url}/threads/${threadId}/runs`)).body[0],
  );
  expect((await json(`${first.url}/threads/${threadId}`)).body.status).toBe("busy");
  await first.stop("SIGKILL");
  await waiting;

  const second = await startServerProcess({ db });
  try {
    const thread = (await json(`${second.url}/threads/${threadId}`)).body;
    expect(thread.status).not.toBe("busy");
    const run = (await json(`${second.url}/threads/${threadId}/runs/${hung.run_id}`)).body;
    expect(run.status).toBe("error");
    expect(thread.status).not.toBe("busy");
    const next = await post(`${second.url}/threads/${threadId}/runs/wait`, {
      assistant_id: "slow",
      input: { tag: "b", delay: 1 },
    });
    expect(next.status).toBe(200);
    expect(next.body.log).toEqual(["first:a", "second:a", "first:b", "second:b"]);
  } finally {
    await second.stop();
  }
}, 60_000);

it("a run cancelled just before its server was killed (still in its grace period) is not executed again", async () => {
  const db = join(dir, "cancelled.sqlite");
  // A long grace period: the hung node is still being waited for when the process dies.
  const env = { INTERLUDE_ABORT_GRACE_MS: "60000" };
  const first = await startServerProcess({ db, env });
  const threadId = (await post(`${first.url}/threads`, {})).body.thread_id;
  const run = (await post(`${first.url}/threads/${threadId}/runs`, { assistant_id: "hang", input: {} })).body;
  await until(
    async () => (await json(`${first.url}/threads/${threadId}/runs/${run.run_id}`)).body.status === "running",
  );
  const cancel = await fetch(`${first.url}/threads/${threadId}/runs/${run.run_id}/cancel`, { method: "POST" });
  expect(cancel.status).toBe(202);
  await first.stop("SIGKILL");

  const second = await startServerProcess({ db, env });
  try {
    expect((await json(`${second.url}/threads/${threadId}/runs/${run.run_id}`)).body.status).toBe("interrupted");
    expect((await json(`${second.url}/threads/${threadId}`)).body.status).not.toBe("busy");
  } finally {
    await second.stop();
  }
}, 60_000);
