/**
 * Runs of one thread from different OS processes sharing durable storage (SQLite file,
 * PostgreSQL, Redis): pause in one and resume in another; two resumers racing; a process
 * killed in the middle of a step; storage that refuses writes during a run.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { testPostgresUrl, testRedisUrl } from "../../../test/setup/urls.js";

const script = fileURLToPath(new URL("./fixtures/durable-graph.mjs", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "interlude-xproc-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Outcome {
  ok: boolean;
  code?: string;
  result?: Record<string, any>;
}

function run(args: string[], env: Record<string, string> = {}): { done: Promise<Outcome>; kill: () => void } {
  const child = spawn(process.execPath, [script, ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  const done = new Promise<Outcome>((resolve, reject) => {
    child.on("exit", (code, signal) => {
      if (signal) return resolve({ ok: false, code: `SIGNAL_${signal}` });
      const line = out.trim().split("\n").pop();
      if (!line) return reject(new Error(`child exited ${code} without output`));
      resolve(JSON.parse(line));
    });
  });
  return { done, kill: () => child.kill("SIGKILL") };
}

const effects = (file: string) =>
  existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").filter(Boolean) : [];

async function waitFor(check: () => boolean, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 20));
  }
}

const backends: Array<[string, () => string]> = [
  ["SQLite", () => `sqlite:${join(dir, "threads.sqlite")}`],
  ["PostgreSQL", () => testPostgresUrl()],
  ["Redis", () => testRedisUrl()],
];

describe.each(backends)("a thread stored in %s", (name, storage) => {
  const thread = (label: string) => `${name}-${label}-${Date.now()}`;

  it("pauses in one process and resumes in another started later", async () => {
    const id = thread("handoff");
    const first = await run([storage(), id, "start"]).done;
    expect(first.ok).toBe(true);
    expect(first.result!.__interrupt__[0].value).toEqual({ question: "approve the plan?" });
    const second = await run([storage(), id, "resume", "true"]).done;
    expect(second).toEqual({ ok: true, result: { results: [], approved: true } });
  });

  it("lets exactly one of two racing processes resume; the other gets THREAD_BUSY and nothing runs twice", async () => {
    const id = thread("race");
    const log = join(dir, `${id}.log`);
    expect((await run([storage(), id, "start"]).done).ok).toBe(true);
    const gate = join(dir, `${id}.gate`);
    const slow = run([storage(), id, "resume", '"first"'], { EFFECT_LOG: log, HOLD_UNTIL_FILE: gate });
    await waitFor(() => effects(log).length > 0);
    const racer = await run([storage(), id, "resume", '"second"'], { EFFECT_LOG: log }).done;
    writeFileSync(gate, "go");
    expect(racer).toMatchObject({ ok: false, code: "THREAD_BUSY" });
    expect(await slow.done).toMatchObject({ ok: true, result: { approved: "first" } });
    expect(effects(log)).toHaveLength(1);
    expect(effects(log)[0]).toMatch(/^review applied first/);
  });

  it("after SIGKILL mid-step, a new process resumes from the last checkpoint without re-running finished siblings", async () => {
    const id = thread("crash");
    const log = join(dir, `${id}.log`);
    const doomed = run([storage(), id, "start"], {
      EFFECT_LOG: log,
      FANOUT: "1",
      SLOW_FOREVER: "1",
      LOG_SAVES: "1",
    });
    // Killed once the finished sibling's writes are saved and the other sibling is running.
    await waitFor(
      () =>
        effects(log).some((l) => l.startsWith("writes saved results") && l.includes('"fast"')) &&
        effects(log).some((l) => l.startsWith("slow started")),
    );
    doomed.kill();
    expect((await doomed.done).code).toBe("SIGNAL_SIGKILL");
    // Its claim (30 s by default) is taken over at once: its owner is a dead process of this machine.
    const recovered = await run([storage(), id, "continue"], { EFFECT_LOG: log, FANOUT: "1" }).done;
    expect(recovered).toMatchObject({ ok: true });
    expect(recovered.result!.results).toEqual(["fast", "slow"]);
    expect(effects(log).filter((l) => l.startsWith("fast ran"))).toHaveLength(1);
    expect(effects(log).filter((l) => l.startsWith("slow started"))).toHaveLength(2);
  });

  it("a run whose storage refuses writes (read-only, or down) fails with STORAGE_FAILED; once storage is back the thread resumes", async () => {
    const id = thread("readonly");
    expect((await run([storage(), id, "start"]).done).ok).toBe(true);
    const refused = await run([storage(), id, "resume", "true"], { READ_ONLY: "1" }).done;
    expect(refused).toMatchObject({ ok: false, code: "STORAGE_FAILED" });
    const resumed = await run([storage(), id, "resume", "true"]).done;
    expect(resumed).toEqual({ ok: true, result: { results: [], approved: true } });
  });
});
