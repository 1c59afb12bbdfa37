/**
 * A server killed (SIGKILL) while 10 clients answer questions as fast as they can, on SQLite
 * with batched commits: every answer it acknowledged is kept, none is applied twice, and every
 * thread resumes after a restart on the same file.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, expect, it } from "vitest";
// @ts-expect-error: a plain ESM script without types, shared with `npm run bench:server`.
import { startServerProcess } from "../bench/processes.mjs";
import { json, until } from "./helpers.js";

const CLIENTS = 10;
const dir = mkdtempSync(join(tmpdir(), "interlude-crash-server-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
// Runs and claims of the killed process lapse in half a second instead of 30.
const env = { INTERLUDE_RUN_LEASE_MS: "500", INTERLUDE_CLAIM_TTL_MS: "500" };

async function post(url: string, body: unknown): Promise<any> {
  const response = await json(url, { method: "POST", body: JSON.stringify(body) });
  if (response.status >= 300) throw new Error(`${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
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
    // The runs the killed process left running were found at the restart: each is counted as
    // lost (the newest run of its thread, in error: the loop graph fails no other way).
    let lost = 0;
    for (const threadId of threads)
      if ((await json(`${second.url}/threads/${threadId}/runs?limit=1`)).body[0]?.status === "error") lost++;
    expect(lost).toBeGreaterThan(0);
    expect((await json(`${second.url}/metrics?format=json`)).body.runs_ended).toEqual({ lost });
    for (const [c, threadId] of threads.entries()) {
      // The killed process's run is declared lost once its lease lapses: the thread then waits
      // for its question again, or, killed between steps, says the run was lost.
      const thread = await until(async () => {
        const t = (await json(`${second.url}/threads/${threadId}`)).body;
        return (t.status === "interrupted" || t.status === "error") && t;
      });
      // An errored thread says why (its run was lost); a thread waiting for its question has no error.
      expect(thread.error?.code ?? null).toBe(thread.status === "error" ? "RUN_LOST" : null);
      const answers: string[] = thread.values.answers;
      // Everything acknowledged is there, in order; at most the one in flight besides; nothing twice.
      expect(answers.slice(0, acked[c]!.length)).toEqual(acked[c]);
      expect(answers.length - acked[c]!.length).toBeLessThanOrEqual(1);
      expect(new Set(answers).size).toBe(answers.length);
      const path = `${second.url}/threads/${threadId}/runs/wait`;
      // Killed after saving the step its answer completed but before asking again: nothing is
      // pending; a run without input continues from that checkpoint and asks.
      const listed = Object.values(thread.interrupts as Record<string, any[]>).flat();
      expect(listed.length > 0).toBe(thread.status === "interrupted");
      const pending = listed[0] ?? (await post(path, { assistant_id: "loop" })).__interrupt__[0];
      expect(pending.value.n).toBe(answers.length);
      const next = await post(path, { assistant_id: "loop", command: { resume: { [pending.id]: "after" } } });
      expect(next.answers).toEqual([...answers, "after"]);
    }
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
