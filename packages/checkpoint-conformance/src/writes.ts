import { ERROR, INTERRUPT, RESUME, TASK_RESULT } from "@interlude/core";
import { describe, expect, it } from "vitest";
import { useHarness } from "./context.js";
import { ThreadWriter } from "./fixtures.js";
import type { MakeSaver } from "./harness.js";

export function writesSuite(make: MakeSaver): void {
  describe("pending writes", () => {
    const h = useHarness(make);

    it("returns a checkpoint's writes in the order they were made, per task", async () => {
      const thread = new ThreadWriter(h.current.saver);
      const first = await thread.write({ a: 0 });
      await h.current.saver.putWrites(
        first,
        [
          ["a", 1],
          ["b", "x"],
        ],
        "task-1",
      );
      await h.current.saver.putWrites(first, [["a", 2]], "task-2");
      const tuple = await h.current.saver.getTuple(first);
      expect(tuple?.pendingWrites).toEqual([
        ["task-1", "a", 1],
        ["task-1", "b", "x"],
        ["task-2", "a", 2],
      ]);
      const second = await thread.write({ a: 1 });
      expect((await h.current.saver.getTuple(second))?.pendingWrites).toEqual([]);
    });

    it("replaces a task's earlier error, interrupt, resume and task result instead of adding one", async () => {
      const thread = new ThreadWriter(h.current.saver);
      const config = await thread.write({ a: 0 });
      const saver = h.current.saver;
      await saver.putWrites(config, [[ERROR, { message: "first try failed" }]], "task-1");
      await saver.putWrites(config, [[INTERRUPT, [{ id: "i1", value: "approve?" }]]], "task-1");
      await saver.putWrites(config, [[ERROR, { message: "second try failed" }]], "task-1");
      await saver.putWrites(
        config,
        [
          [
            INTERRUPT,
            [
              { id: "i1", value: "approve?" },
              { id: "i2", value: "and this?" },
            ],
          ],
        ],
        "task-1",
      );
      await saver.putWrites(config, [[RESUME, ["yes"]]], "task-1");
      await saver.putWrites(config, [[RESUME, ["yes", "no"]]], "task-1");
      await saver.putWrites(config, [[TASK_RESULT, { 0: "r1" }]], "task-1");
      await saver.putWrites(config, [[TASK_RESULT, { 0: "r1", 1: "r2" }]], "task-1");
      await saver.putWrites(config, [[ERROR, { message: "other task" }]], "task-2");
      const writes = (await saver.getTuple(config))?.pendingWrites ?? [];
      expect(writes).toEqual([
        ["task-1", ERROR, { message: "second try failed" }],
        [
          "task-1",
          INTERRUPT,
          [
            { id: "i1", value: "approve?" },
            { id: "i2", value: "and this?" },
          ],
        ],
        ["task-1", RESUME, ["yes", "no"]],
        ["task-1", TASK_RESULT, { 0: "r1", 1: "r2" }],
        ["task-2", ERROR, { message: "other task" }],
      ]);
    });

    it("does not duplicate ordinary writes when a task's putWrites is retried", async () => {
      const config = await new ThreadWriter(h.current.saver).write({ a: 0 });
      const writes: Array<[string, unknown]> = [
        ["a", 1],
        ["b", 2],
      ];
      for (const _attempt of [1, 2]) await h.current.saver.putWrites(config, writes, "task-1");
      expect((await h.current.saver.getTuple(config))?.pendingWrites).toEqual([
        ["task-1", "a", 1],
        ["task-1", "b", 2],
      ]);
    });

    it("keeps interrupt and resume records, and the resume audit in metadata", async () => {
      const thread = new ThreadWriter(h.current.saver);
      const paused = await thread.write({ draft: "hello" });
      const interrupts = [
        {
          id: "int-1",
          value: { question: "Send?", at: new Date("2024-05-01T10:00:00Z") },
          when: "during",
          ns: ["review:abc"],
        },
      ];
      await h.current.saver.putWrites(paused, [[INTERRUPT, interrupts]], "task-review");
      const resume = [
        {
          by: "alice",
          reason: "fine",
          at: "2024-05-01T10:05:00.000Z",
          answers: { "int-1": { approved: true, edits: undefined } },
        },
      ];
      const resumed = await thread.write({ draft: "hello!" }, { resume });
      await h.current.saver.putWrites(resumed, [[RESUME, [{ approved: true }]]], "task-review");
      const pausedTuple = await h.current.saver.getTuple(paused);
      expect(pausedTuple?.pendingWrites).toEqual([["task-review", INTERRUPT, interrupts]]);
      expect((pausedTuple!.pendingWrites[0]![2] as typeof interrupts)[0]!.value.at).toBeInstanceOf(Date);
      const resumedTuple = await h.current.saver.getTuple(resumed);
      expect(resumedTuple?.metadata.resume).toEqual(resume);
      expect(Object.hasOwn(resumedTuple!.metadata.resume![0]!.answers["int-1"] as object, "edits")).toBe(true);
      expect(resumedTuple?.pendingWrites).toEqual([["task-review", RESUME, [{ approved: true }]]]);
    });
  });
}
