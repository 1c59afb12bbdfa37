/**
 * A server killed (SIGKILL) while 10 clients answer questions as fast as they can, on SQLite
 * with batched commits: every answer it acknowledged is kept, none is applied twice, and every
 * run it left running continues after a restart on the same file.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { afterAll, expect, it } from "vitest";
// @ts-expect-error: a plain ESM script without types, shared with `npm run bench:server`.
import { startServerProcess } from "../bench/processes.mjs";
import { expectResumable, post } from "./crashed-threads.js";
import { json, runEnded, until } from "./helpers.js";

const CLIENTS = 10;
const dir = mkdtempSync(join(tmpdir(), "interlude-crash-server-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
// Runs and claims of the killed process lapse in half a second instead of 30.
const env = { INTERLUDE_RUN_LEASE_MS: "500", INTERLUDE_CLAIM_TTL_MS: "500" };

/**
 * A server on a file of its own (serving `config`'s graphs, by default the tests'), killed
 * (SIGKILL) and started again on it by `restart()`; `stop()` stops whichever is up.
 */
async function serverOnFile(name: string, config?: string) {
  const db = join(dir, name);
  const start = () => startServerProcess({ db, env, config });
  let current = await start();
  return {
    db,
    get url(): string {
      return current.url;
    },
    /** `whileDown`: done to the file between the kill and the start. */
    async restart(whileDown?: () => void): Promise<void> {
      await current.stop("SIGKILL");
      whileDown?.();
      current = await start();
    },
    stop: (): Promise<number | null> => current.stop("SIGKILL"),
  };
}

it("keeps every acknowledged answer, applies none twice, and resumes every thread after SIGKILL", async () => {
  const db = join(dir, "db.sqlite");
  const first = await startServerProcess({ db, env });
  const acked: string[][] = [];
  const threads: string[] = [];
  const client = async (c: number) => {
    const thread = await post(`${first.url}/threads`, {});
    threads[c] = thread.thread_id;
    acked[c] = [];
    const path = `${first.url}/threads/${thread.thread_id}/runs/wait`;
    let state = await post(path, { assistant_id: "loop", input: { rounds: 100_000 } });
    for (let n = 0; ; n++) {
      const answer = `c${c}-${n}`;
      try {
        state = await post(path, {
          assistant_id: "loop",
          command: { resume: { [state.__interrupt__[0].id]: answer } },
        });
      } catch {
        return; // the server is gone
      }
      acked[c]!.push(answer);
    }
  };
  const clients = Array.from({ length: CLIENTS }, (_, c) => client(c));
  await until(async () => acked.length === CLIENTS && acked.every((a) => a.length >= 20), 20_000);
  await first.stop("SIGKILL");
  await Promise.all(clients);

  const second = await startServerProcess({ db, env });
  try {
    // The runs the killed process left running were found at the restart and went back to the
    // queue: each continued to its thread's next question, none ended lost (or in error).
    for (const [c, threadId] of threads.entries()) await expectResumable(second.url, threadId, acked[c]!);
    for (const threadId of threads)
      expect((await json(`${second.url}/threads/${threadId}/runs`)).body.map((r: any) => r.status)).not.toContain(
        "error",
      );
    expect((await json(`${second.url}/metrics?format=json`)).body.runs_ended.lost ?? 0).toBe(0);
  } finally {
    await second.stop();
  }
}, 60_000);

it("a run its killed predecessor had queued but not started is started by the restarted server", async () => {
  const db = join(dir, "queued.sqlite");
  const first = await startServerProcess({ db, env });
  const done = await post(`${first.url}/threads`, {});
  await post(`${first.url}/threads/${done.thread_id}/runs/wait`, {
    assistant_id: "slow",
    input: { tag: "a", delay: 1 },
  });
  const thread = await post(`${first.url}/threads`, {});
  await first.stop("SIGKILL");
  // What the killed process left between queueing a run (committed) and starting it.
  const raw = new Database(db);
  const { assistant_id } = raw.prepare("SELECT assistant_id FROM interlude_server_runs").get() as {
    assistant_id: string;
  };
  const at = new Date().toISOString();
  raw
    .prepare(
      `INSERT INTO interlude_server_runs (run_id, thread_id, assistant_id, created_at, updated_at, status, metadata,
         multitask_strategy, kwargs, identity, owner, attempt, error) VALUES (?, ?, ?, ?, ?, 'pending', '{}', 'reject', ?, 'anonymous', 'gone', 0, NULL)`,
    )
    .run(
      randomUUID(),
      thread.thread_id,
      assistant_id,
      at,
      at,
      JSON.stringify({ input: { tag: "q", delay: 1, secondDelay: 1 } }),
    );
  raw.close();
  const second = await startServerProcess({ db, env });
  try {
    const state = await until(async () => {
      const t = (await json(`${second.url}/threads/${thread.thread_id}`)).body;
      return t.status === "idle" && t.values?.log && t;
    });
    expect(state.values.log).toEqual(["first:q", "second:q"]);
    expect((await json(`${second.url}/threads/${thread.thread_id}/runs`)).body[0].status).toBe("success");
  } finally {
    await second.stop();
  }
}, 60_000);

it("an answer its killed run had saved stays recorded: given again after the restart, it is refused as answered", async () => {
  const db = join(dir, "answered.sqlite");
  const first = await startServerProcess({ db, env });
  const thread = await post(`${first.url}/threads`, {});
  const path = (url: string) => `${url}/threads/${thread.thread_id}/runs/wait`;
  const asked = await post(path(first.url), { assistant_id: "loop", input: { rounds: 3 } });
  const question = asked.__interrupt__[0].id;
  const answered = await post(path(first.url), { assistant_id: "loop", command: { resume: { [question]: "a0" } } });
  await first.stop("SIGKILL");
  // What a process killed after saving the answered step (and the next question), before
  // recording its run's end, leaves: the run running, its answer reserved.
  const raw = new Database(db);
  raw
    .prepare(
      "UPDATE interlude_server_runs SET status = 'running' WHERE run_id = (SELECT run_id FROM interlude_server_answers WHERE interrupt_id = ?)",
    )
    .run(question);
  raw.prepare("UPDATE interlude_server_answers SET state = 'reserved' WHERE interrupt_id = ?").run(question);
  raw.close();
  const second = await startServerProcess({ db, env });
  try {
    const again = await json(path(second.url), {
      method: "POST",
      body: JSON.stringify({ assistant_id: "loop", command: { resume: { [question]: "a0" } } }),
    });
    expect(again).toMatchObject({
      status: 409,
      body: { code: "ALREADY_ANSWERED", interrupt_id: question, answer: "a0" },
    });
    const next = answered.__interrupt__[0].id;
    const done = await post(path(second.url), { assistant_id: "loop", command: { resume: { [next]: "a1" } } });
    expect(done.answers).toEqual(["a0", "a1"]);
  } finally {
    await second.stop();
  }
}, 60_000);

/** Runs `sql` on the server's file, with a connection of its own. */
function onFile(server: { db: string }, sql: string) {
  const raw = new Database(server.db);
  raw.exec(sql);
  raw.close();
}
const REFUSE_SYNC =
  "CREATE TRIGGER refuse_sync BEFORE UPDATE ON interlude_server_threads BEGIN SELECT RAISE(ABORT, 'refused'); END";

it("a run its killed predecessor was rolling back is rolled back by the restarted server, with its thread, once a refused sync is taken", async () => {
  const server = await serverOnFile("rollback.sqlite");
  try {
    const thread = await post(`${server.url}/threads`, {});
    const runs = (url: string) => `${url}/threads/${thread.thread_id}/runs`;
    await post(`${runs(server.url)}/wait`, { assistant_id: "slow", input: { tag: "a", delay: 1 } });
    const before = (await json(`${server.url}/threads/${thread.thread_id}/state`)).body;
    // Its first step saved, its second never ends by itself (nor when aborted: it ignores the signal).
    const run = await post(runs(server.url), {
      assistant_id: "slow",
      input: { tag: "b", delay: 1, secondDelay: 60_000 },
    });
    await until(async () =>
      (await json(`${server.url}/threads/${thread.thread_id}/state`)).body.values.log.includes("first:b"),
    );
    // The rollback is recorded; the process dies before the run stops (the abort's grace is 5 s).
    expect((await json(`${runs(server.url)}/${run.run_id}/cancel?action=rollback`, { method: "POST" })).status).toBe(
      202,
    );
    // The restarted server's sync of the thread is refused: the run is not deleted without it.
    await server.restart(() => onFile(server, REFUSE_SYNC));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await json(`${runs(server.url)}/${run.run_id}`)).body.status).toBe("running");
    onFile(server, "DROP TRIGGER refuse_sync");
    await until(async () => (await json(`${runs(server.url)}/${run.run_id}`)).status === 404);
    const after = (await json(`${server.url}/threads/${thread.thread_id}/state`)).body;
    expect(after.values.log).toEqual(["first:a", "second:a"]);
    expect(after.checkpoint_id).toBe(before.checkpoint_id);
    expect((await json(`${server.url}/threads/${thread.thread_id}`)).body.status).toBe("idle");
  } finally {
    await server.stop();
  }
}, 60_000);

it("a run cancelled before its process died is ended at the restart with its thread in line, once a refused sync is taken", async () => {
  const server = await serverOnFile("cancelled.sqlite");
  try {
    const thread = await post(`${server.url}/threads`, {});
    const runs = (url: string) => `${url}/threads/${thread.thread_id}/runs`;
    // Its first step saved, its second never ends by itself (nor when aborted: it ignores the signal).
    const run = await post(runs(server.url), {
      assistant_id: "slow",
      input: { tag: "b", delay: 1, secondDelay: 60_000 },
    });
    await until(async () =>
      (await json(`${server.url}/threads/${thread.thread_id}/state`)).body.values.log?.includes("first:b"),
    );
    expect((await json(`${runs(server.url)}/${run.run_id}/cancel`, { method: "POST" })).status).toBe(202);
    // The restarted server ends the run (its recovery) in the transaction that syncs the thread,
    // which is refused: it starts all the same, and the run is not ended without its thread.
    await server.restart(() => onFile(server, REFUSE_SYNC));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await json(`${runs(server.url)}/${run.run_id}`)).body.status).toBe("running");
    expect((await json(`${server.url}/threads/${thread.thread_id}`)).body.status).toBe("busy");
    onFile(server, "DROP TRIGGER refuse_sync");
    expect((await runEnded(`${runs(server.url)}/${run.run_id}`)).status).toBe("interrupted");
    expect((await json(`${server.url}/threads/${thread.thread_id}`)).body.status).toBe("interrupted");
  } finally {
    await server.stop();
  }
}, 60_000);

it("a run whose process dies each time it executes it is tried three times, then ends RUN_LOST", async () => {
  const server = await serverOnFile("poison.sqlite");
  try {
    const thread = await post(`${server.url}/threads`, {});
    const runPath = (url: string) => `${url}/threads/${thread.thread_id}/runs`;
    // Its first step outlasts the test: each server is killed while executing it.
    const run = await post(runPath(server.url), { assistant_id: "slow", input: { tag: "p", delay: 60_000 } });
    // Read from the file, as the next process will: a claim its process had not committed yet
    // when it died is not a try (nothing of the run had executed).
    const raw = new Database(server.db, { readonly: true });
    const claimed = raw.prepare("SELECT status, attempt FROM interlude_server_runs");
    for (let death = 1; death <= 3; death++) {
      await until(async () => {
        const row = claimed.get() as { status: string; attempt: number };
        return row.status === "running" && row.attempt === death;
      });
      await server.restart();
    }
    raw.close();
    // The third death's restart ends it instead of executing it again, and stays up.
    expect((await runEnded(`${runPath(server.url)}/${run.run_id}`)).status).toBe("error");
    const stopped = (await json(`${server.url}/threads/${thread.thread_id}`)).body;
    expect(stopped).toMatchObject({ status: "error", error: { code: "RUN_LOST" } });
    expect(stopped.error.message).toContain("3 times");
    expect((await json(`${server.url}/ok`)).status).toBe(200);
  } finally {
    await server.stop();
  }
}, 60_000);

it("a wait run whose client asked to cancel it when it goes away is not continued after its process died", async () => {
  const server = await serverOnFile("cancel-on-disconnect.sqlite");
  try {
    const thread = await post(`${server.url}/threads`, {});
    const runPath = (url: string) => `${url}/threads/${thread.thread_id}/runs`;
    const waited = json(`${runPath(server.url)}/wait`, {
      method: "POST",
      body: JSON.stringify({ assistant_id: "slow", input: { tag: "c", delay: 60_000 }, on_disconnect: "cancel" }),
    }).catch(() => "server gone");
    const run = await until(async () => {
      const [found] = (await json(runPath(server.url))).body;
      return found?.status === "running" && found;
    });
    await server.restart();
    expect(await waited).toBe("server gone");
    // Ended at the restart (the first time its process died), not queued again.
    expect((await runEnded(`${runPath(server.url)}/${run.run_id}`)).status).toBe("error");
    const stopped = (await json(`${server.url}/threads/${thread.thread_id}`)).body;
    expect(stopped).toMatchObject({ status: "error", error: { code: "RUN_LOST" } });
    expect(stopped.error.message).not.toContain("times");
  } finally {
    await server.stop();
  }
}, 60_000);

it("a stateless run's thread is deleted once its run ends, though the process that made the run died before", async () => {
  // The tests' graphs, swept every 0.6 s.
  const config = join(dir, "langgraph.json");
  const graphs = fileURLToPath(new URL("./fixtures/graphs.mjs", import.meta.url));
  writeFileSync(
    config,
    JSON.stringify({ graphs: { slow: `${graphs}:slow` }, checkpointer: { ttl: { sweep_interval_minutes: 0.01 } } }),
  );
  const server = await serverOnFile("stateless.sqlite", config);
  try {
    const run = await post(`${server.url}/runs`, { assistant_id: "slow", input: { tag: "s", delay: 1_500 } });
    // Read at whichever server is up.
    const thread = () => `${server.url}/threads/${run.thread_id}`;
    await until(async () => (await json(`${thread()}/runs/${run.run_id}`)).body.status === "running");
    // The process that would have deleted the thread once the run ended dies first; the run
    // goes on in the next one, which knows nothing of that deletion.
    await server.restart();
    let last: any;
    await until(async () => {
      const read = await json(thread());
      if (read.status === 200) last = read.body;
      return read.status === 404;
    }, 20_000);
    // Deleted after the run ended, not while it ran.
    expect(last).toMatchObject({ status: "idle", values: { log: ["first:s", "second:s"] } });
  } finally {
    await server.stop();
  }
}, 60_000);
