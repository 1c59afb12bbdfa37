import { type BaseCheckpointSaver, CheckpointConflictError } from "@interlude/core";
import { describe, expect, it } from "vitest";
import { useHarness } from "./context.js";
import { collect, eventually, freshThreadId, makeCheckpoint, ThreadWriter } from "./fixtures.js";
import type { MakeSaver } from "./harness.js";

function putAt(saver: BaseCheckpointSaver, threadId: string, parent: string | null, value: string) {
  const config = {
    configurable: { thread_id: threadId, checkpoint_ns: "", ...(parent ? { checkpoint_id: parent } : {}) },
  };
  return saver.put(
    config,
    makeCheckpoint({ value }, { value: 1 }),
    { source: "loop", step: 0, parents: {} },
    { value: 1 },
    { expectedHead: parent },
  );
}

export function concurrencySuite(make: MakeSaver): void {
  describe("compare-and-swap", () => {
    const h = useHarness(make);

    it("names the head (the newest checkpoint) of a thread and namespace without loading it", async () => {
      const threadId = freshThreadId("head");
      expect(await h.current.saver.getHeadId(threadId)).toBeUndefined();
      const first = await putAt(h.current.saver, threadId, null, "first");
      const second = await putAt(h.current.saver, threadId, first.configurable!.checkpoint_id!, "second");
      expect(await h.current.saver.getHeadId(threadId)).toBe(second.configurable!.checkpoint_id);
      expect(await h.current.saver.getHeadId(threadId, "child:1")).toBeUndefined();
      const latest = await h.current.saver.getTuple({ configurable: { thread_id: threadId } });
      expect(latest?.checkpoint.id).toBe(second.configurable!.checkpoint_id);
    });

    it("makes writes not waited for (durable: false) durable by flush(), for every other reader", async () => {
      const threadId = freshThreadId("flush");
      const saved = await h.current.saver.put(
        { configurable: { thread_id: threadId, checkpoint_ns: "" } },
        makeCheckpoint({ value: "v" }, { value: 1 }),
        { source: "loop", step: 0, parents: {} },
        { value: 1 },
        { expectedHead: null, durable: false },
      );
      await h.current.saver.putWrites(saved, [["value", "w"]], "task-1", { durable: false });
      await h.current.saver.flush();
      const other = h.current.makeSecondSaver ? await h.current.makeSecondSaver() : h.current.saver;
      try {
        const tuple = await other.getTuple({ configurable: { thread_id: threadId } });
        expect(tuple?.checkpoint.channel_values).toEqual({ value: "v" });
        expect(tuple?.pendingWrites).toEqual([["task-1", "value", "w"]]);
      } finally {
        if (other !== h.current.saver) await other.close();
      }
    });

    it("refuses a put whose expected head is stale, writing nothing", async () => {
      const thread = new ThreadWriter(h.current.saver);
      const first = await thread.write({ a: 1 }, {}, { expectedHead: null });
      await expect(putAt(h.current.saver, thread.threadId, null, "late")).rejects.toBeInstanceOf(
        CheckpointConflictError,
      );
      const second = await thread.write({ a: 2 }, {}, { expectedHead: first.configurable!.checkpoint_id! });
      const stale = await putAt(h.current.saver, thread.threadId, first.configurable!.checkpoint_id!, "stale").catch(
        (e: unknown) => e,
      );
      expect(stale).toBeInstanceOf(CheckpointConflictError);
      expect((stale as CheckpointConflictError).code).toBe("CHECKPOINT_CONFLICT");
      const history = await collect(h.current.saver.list({ configurable: { thread_id: thread.threadId } }));
      expect(history.map((t) => t.checkpoint.id)).toEqual([second, first].map((c) => c.configurable!.checkpoint_id));
      expect(history[0]?.checkpoint.channel_values).toEqual({ a: 2 });
    });

    it("lets exactly one of two racing writers win, every time", async () => {
      const other = h.current.makeSecondSaver ? await h.current.makeSecondSaver() : h.current.saver;
      try {
        for (let round = 0; round < 25; round++) {
          const threadId = freshThreadId("race");
          const base = await putAt(h.current.saver, threadId, null, "base");
          const head = base.configurable!.checkpoint_id!;
          const results = await Promise.allSettled([
            putAt(h.current.saver, threadId, head, "a"),
            putAt(other, threadId, head, "b"),
            putAt(h.current.saver, threadId, head, "c"),
          ]);
          const won = results.filter((r) => r.status === "fulfilled");
          const lost = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
          expect(won).toHaveLength(1);
          for (const loss of lost) expect(loss.reason).toBeInstanceOf(CheckpointConflictError);
          const winner = (won[0] as PromiseFulfilledResult<{ configurable?: { checkpoint_id?: string } }>).value
            .configurable!.checkpoint_id;
          const latest = await h.current.saver.getTuple({ configurable: { thread_id: threadId } });
          expect(latest?.checkpoint.id).toBe(winner);
          expect(await collect(h.current.saver.list({ configurable: { thread_id: threadId } }))).toHaveLength(2);
        }
      } finally {
        if (other !== h.current.saver) await other.close();
      }
    }, 60_000);
  });

  describe("thread claims", () => {
    const h = useHarness(make);

    it("refuses a second owner until the first releases, and renews for the same owner", async () => {
      const other = h.current.makeSecondSaver ? await h.current.makeSecondSaver() : h.current.saver;
      try {
        const threadId = freshThreadId("claim");
        const saver = h.current.saver;
        expect(await saver.claimThread(threadId, { owner: "run-a", ttlMs: 60_000 })).toBe(true);
        expect(await other.claimThread(threadId, { owner: "run-b", ttlMs: 60_000 })).toBe(false);
        expect(await saver.claimThread(threadId, { owner: "run-a", ttlMs: 60_000 })).toBe(true);
        await other.releaseThread(threadId, "run-b");
        expect(await other.claimThread(threadId, { owner: "run-b", ttlMs: 60_000 })).toBe(false);
        await saver.releaseThread(threadId, "run-a");
        expect(await other.claimThread(threadId, { owner: "run-b", ttlMs: 60_000 })).toBe(true);
        expect(await saver.claimThread(threadId, { owner: "run-a", ttlMs: 60_000 })).toBe(false);
        expect(await saver.claimThread(freshThreadId("claim"), { owner: "run-a", ttlMs: 60_000 })).toBe(true);
      } finally {
        if (other !== h.current.saver) await other.close();
      }
    });

    it("stores a run's last writes given with releaseClaim, and frees the thread once releaseThread follows", async () => {
      const other = h.current.makeSecondSaver ? await h.current.makeSecondSaver() : h.current.saver;
      try {
        const threadId = freshThreadId("claim");
        const saver = h.current.saver;
        expect(await saver.claimThread(threadId, { owner: "run-a", ttlMs: 60_000 })).toBe(true);
        const saved = await putAt(saver, threadId, null, "v");
        await saver.putWrites(saved, [["value", "last"]], "task-1", { releaseClaim: "run-a" });
        // A heartbeat's renewal that arrives late takes nothing back for good.
        await saver.claimThread(threadId, { owner: "run-a", ttlMs: 60_000 });
        await saver.releaseThread(threadId, "run-a");
        expect(await other.claimThread(threadId, { owner: "run-b", ttlMs: 60_000 })).toBe(true);
        const tuple = await other.getTuple({ configurable: { thread_id: threadId } });
        expect(tuple?.pendingWrites).toEqual([["task-1", "value", "last"]]);
      } finally {
        if (other !== h.current.saver) await other.close();
      }
    });

    it("frees a claim that was not renewed in time", async () => {
      const threadId = freshThreadId("claim");
      // Refused while fresh (a second of margin, however slow the machine), taken once it lapsed.
      expect(await h.current.saver.claimThread(threadId, { owner: "crashed", ttlMs: 1_000 })).toBe(true);
      expect(await h.current.saver.claimThread(threadId, { owner: "next", ttlMs: 60_000 })).toBe(false);
      await eventually(() => h.current.saver.claimThread(threadId, { owner: "next", ttlMs: 60_000 }));
      expect(await h.current.saver.claimThread(threadId, { owner: "crashed", ttlMs: 1_000 })).toBe(false);
    });
  });
}
