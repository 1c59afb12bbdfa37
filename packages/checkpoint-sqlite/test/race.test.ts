import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { freshThreadId, ThreadWriter } from "@interlude/checkpoint-conformance";
import { SqliteSaver } from "@interlude/checkpoint-sqlite";
import { afterAll, describe, expect, it } from "vitest";

const dir = mkdtempSync(join(tmpdir(), "interlude-race-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Outcome = { won: string } | { lost: string };

describe("SqliteSaver compare-and-swap across connections running at the same time", () => {
  it("lets exactly one of several threads of execution win each race", async () => {
    const file = join(dir, "race.sqlite");
    const saver = new SqliteSaver(file);
    const rounds: Array<{ threadId: string; head: ThreadWriter["head"] }> = [];
    for (let i = 0; i < 40; i++) {
      const thread = new ThreadWriter(saver, freshThreadId("race"));
      await thread.write({ by: "base" });
      rounds.push({ threadId: thread.threadId, head: thread.head });
    }
    const workers = 3;
    const barrier = new SharedArrayBuffer(4 * rounds.length);
    const script = new URL("./fixtures/race-worker.mjs", import.meta.url);
    const results = await Promise.all(
      Array.from(
        { length: workers },
        (_, i) =>
          new Promise<Outcome[]>((resolve, reject) => {
            const worker = new Worker(script, { workerData: { file, rounds, workers, barrier, name: `w${i}` } });
            worker.once("message", resolve);
            worker.once("error", reject);
          }),
      ),
    );
    for (let round = 0; round < rounds.length; round++) {
      const outcomes = results.map((perWorker) => perWorker[round]!);
      const winners = outcomes.filter((o): o is { won: string } => "won" in o);
      expect(winners).toHaveLength(1);
      expect(outcomes.filter((o) => "lost" in o).map((o) => (o as { lost: string }).lost)).toEqual([
        "CHECKPOINT_CONFLICT",
        "CHECKPOINT_CONFLICT",
      ]);
      const latest = await saver.getTuple({ configurable: { thread_id: rounds[round]!.threadId } });
      expect(latest?.checkpoint.id).toBe(winners[0]!.won);
    }
    await saver.close();
  }, 60_000);
});
