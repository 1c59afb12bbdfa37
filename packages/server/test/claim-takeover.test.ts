/**
 * A process killed mid-run leaves its claim on the thread. On the same machine the claim's
 * owner is known dead and a new process takes the thread over at once; a claim whose owner may
 * be alive (another machine) is left to lapse, and the error says when.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { PostgresSaver } from "@interlude/checkpoint-postgres";
import { SqliteSaver } from "@interlude/checkpoint-sqlite";
import { Annotation, type BaseCheckpointSaver, START, StateGraph } from "@interlude/core";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { testDatabase } from "./processes.js";

const HOLDER = fileURLToPath(new URL("./fixtures/hold-claim.mjs", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "interlude-claims-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Starts a process that claims `threadId` and stays in a node; resolves once it holds the claim. */
function holder(kind: "sqlite" | "postgres", where: string, threadId: string) {
  const child = spawn(process.execPath, [HOLDER, kind, where, threadId], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const holding = new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (c: Buffer) => ((output += c.toString()), output.includes("holding") && resolve()));
    child.stderr.on("data", (c: Buffer) => (output += c.toString()));
    child.once("exit", () => reject(new Error(`holder exited: ${output}`)));
  });
  const killed = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return { holding, kill: () => (child.kill("SIGKILL"), killed) };
}

function graphOn(saver: BaseCheckpointSaver) {
  return new StateGraph(Annotation.Root({ done: Annotation<boolean>() }))
    .addNode("stuck", () => ({ done: true }))
    .addEdge(START, "stuck")
    .compile({ checkpointer: saver });
}

async function scenario(kind: "sqlite" | "postgres", where: string, saver: BaseCheckpointSaver) {
  const held = holder(kind, where, "t-killed");
  await held.holding;
  await held.kill();
  expect((await saver.claimHolder("t-killed"))?.owner).toMatch(/\/\d+\//);
  // The default claim TTL is 30 s: without the take-over this is ThreadBusyError.
  expect(await graphOn(saver).invoke({}, { configurable: { thread_id: "t-killed" } })).toEqual({ done: true });

  // A live holder elsewhere: refused, and told when its claim lapses.
  const expires = Date.now() + 60_000;
  await saver.claimThread("t-remote", { owner: "another-host/1234/some-run", ttlMs: 60_000 });
  const error = await graphOn(saver)
    .invoke({}, { configurable: { thread_id: "t-remote" } })
    .catch((e) => e);
  expect(error.code).toBe("THREAD_BUSY");
  expect(Math.abs(error.claimExpiresAt - expires)).toBeLessThan(10_000);
  expect(error.message).toMatch(/lapses at .*Z \(in \d+ s\)/);
}

describe("a thread claimed by a process killed mid-run", () => {
  it("SQLite: taken over at once on the same machine", async () => {
    const file = join(dir, "claims.sqlite");
    const db = new Database(file);
    const saver = new SqliteSaver(db);
    try {
      await scenario("sqlite", file, saver);
    } finally {
      await saver.close();
      db.close();
    }
  });

  it("PostgreSQL: taken over at once on the same machine", async () => {
    const url = await testDatabase("interlude_claims");
    const pool = new pg.Pool({ connectionString: url });
    const saver = new PostgresSaver(pool);
    await saver.setup();
    try {
      await scenario("postgres", url, saver);
    } finally {
      await saver.close();
      await pool.end().catch(() => undefined);
    }
  });
});
