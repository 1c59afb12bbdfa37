import { spawn } from "node:child_process";
import type { BaseCheckpointSaver, CheckpointTuple } from "@interlude/core";
import { expect } from "vitest";
import { collect } from "./fixtures.js";

/**
 * Runs `node script ...args` (a writer that prints each acknowledged step on its own line)
 * until it has acknowledged at least `minSteps`, then SIGKILLs it after `killAfterMs`, most
 * likely in the middle of a write. Returns the last step it acknowledged.
 */
export async function killWriterMidway(
  script: string,
  args: string[],
  minSteps: number,
  killAfterMs: number,
): Promise<number> {
  const child = spawn(process.execPath, [script, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let acknowledged = -1;
  let stderr = "";
  let buffered = "";
  let killScheduled = false;
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    child.on("exit", (code, signal) =>
      signal === "SIGKILL" ? resolve() : reject(new Error(`writer exited early (${code}): ${stderr}`)),
    );
    child.stdout.on("data", (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split("\n");
      buffered = lines.pop()!;
      for (const line of lines) acknowledged = Number(line);
      if (acknowledged >= minSteps && !killScheduled) {
        killScheduled = true;
        setTimeout(() => child.kill("SIGKILL"), killAfterMs);
      }
    });
  });
  return acknowledged;
}

/**
 * After a crash: the newest checkpoint holds what its step wrote, no acknowledged step is lost,
 * and every checkpoint of the history reads whole and links to the one before it.
 */
export async function expectConsistentHistory(
  saver: BaseCheckpointSaver,
  threadId: string,
  acknowledged: number,
  expectedValues: (step: number) => Record<string, unknown>,
): Promise<void> {
  const config = { configurable: { thread_id: threadId, checkpoint_ns: "" } };
  const newest = await saver.getTuple(config);
  expect(newest).toBeDefined();
  const step = newest!.metadata.step;
  expect(step).toBeGreaterThanOrEqual(acknowledged);
  expect(newest!.checkpoint.channel_values).toEqual(expectedValues(step));
  const history: CheckpointTuple[] = await collect(saver.list(config));
  expect(history.map((t) => t.metadata.step)).toEqual(Array.from({ length: step + 1 }, (_, i) => step - i));
  for (let i = 0; i < history.length; i++) {
    const tuple = history[i]!;
    expect(tuple.parentConfig?.configurable?.checkpoint_id).toBe(history[i + 1]?.checkpoint.id);
    if (i % 7 === 0) expect(tuple.checkpoint.channel_values).toEqual(expectedValues(tuple.metadata.step));
  }
}
