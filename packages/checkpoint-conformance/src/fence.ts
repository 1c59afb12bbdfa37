import { ThreadClaimLostError } from "@interlude/core";
import { describe, expect, it } from "vitest";
import { useHarness } from "./context.js";
import { eventually, ThreadWriter } from "./fixtures.js";
import type { MakeSaver } from "./harness.js";

/**
 * A saver that fences a run's writes by its claim: once the claim lapsed and another owner took
 * it, the old owner's puts and writes store nothing and fail with ThreadClaimLostError, checked
 * by the storage in the write itself (a run that believed its claim held, its write delayed on
 * the way, is refused all the same).
 */
export function fenceSuite(make: MakeSaver): void {
  describe("writes fenced by the thread's claim", () => {
    const h = useHarness(make);

    it("refuses the old owner's put and writes once another took its lapsed claim, and takes the new owner's", async () => {
      if (!h.current.makeSecondSaver) throw new Error("a fencing saver must return makeSecondSaver from makeSaver");
      const other = await h.current.makeSecondSaver();
      try {
        const saver = h.current.saver;
        const writer = new ThreadWriter(saver);
        expect(await saver.claimThread(writer.threadId, { owner: "run-a", ttlMs: 1_000 })).toBe(true);
        const first = await writer.write({ step: "first" }, {}, { expectedHead: null });
        // run-a's claim lapses unrenewed; run-b, elsewhere, takes it.
        await eventually(() => other.claimThread(writer.threadId, { owner: "run-b", ttlMs: 60_000 }));
        const late = writer.write({ step: "late" }, {}, { expectedHead: writer.head });
        await expect(late).rejects.toBeInstanceOf(ThreadClaimLostError);
        await expect(saver.putWrites(first, [["step", "w"]], "task-a")).rejects.toBeInstanceOf(ThreadClaimLostError);
        const seen = await other.getTuple({ configurable: { thread_id: writer.threadId } });
        expect(seen?.checkpoint.channel_values).toEqual({ step: "first" });
        expect(seen?.pendingWrites).toEqual([]);
        await other.putWrites(first, [["step", "b"]], "task-b");
        const after = await other.getTuple({ configurable: { thread_id: writer.threadId } });
        expect(after?.pendingWrites).toEqual([["task-b", "step", "b"]]);
      } finally {
        await other.close();
      }
    });
  });
}
