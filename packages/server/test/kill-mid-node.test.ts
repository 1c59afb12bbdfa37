/**
 * A SQLite server SIGKILLed while a node runs, then restarted on the same file with the default
 * lease and claim TTL (30 s): the thread is free at once (its run is declared lost, the dead
 * process's claim taken over) and resumes from its last checkpoint.
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

it("after SIGKILL mid-node, a restarted server frees and resumes the thread without waiting for leases", async () => {
  const db = join(dir, "db.sqlite");
  const first = await startServerProcess({ db });
  const threadId = (await post(`${first.url}/threads`, {})).body.thread_id;
  // A run that pauses (saving a checkpoint), then one that enters a node and never returns.
  await post(`${first.url}/threads/${threadId}/runs/wait`, { assistant_id: "slow", input: { tag: "a", delay: 1 } });
  // Waited for by its client, so the run belongs to this process (a background run would be queued again).
  const waiting = post(`${first.url}/threads/${threadId}/runs/wait`, { assistant_id: "hang", input: {} }).catch(
    () => undefined,
  );
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
