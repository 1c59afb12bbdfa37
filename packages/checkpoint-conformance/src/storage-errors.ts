import { StorageError } from "@interlude/core";
import { describe, expect, it } from "vitest";
import { useHarness } from "./context.js";
import { ThreadWriter } from "./fixtures.js";
import type { MakeSaver } from "./harness.js";

export function storageErrorsSuite(make: MakeSaver): void {
  describe("storage failures", () => {
    const h = useHarness(make);

    it("reports a failing backend as StorageError and leaves the thread as it was", async () => {
      if (!h.current.breakStorage) throw new Error("a breakable saver must return breakStorage from makeSaver");
      const thread = new ThreadWriter(h.current.saver);
      const good = await thread.write({ a: 1 });
      const broken = await h.current.breakStorage();
      const failure = await thread.write({ a: 2 }).catch((error: unknown) => error);
      await broken.restore();
      expect(failure).toBeInstanceOf(StorageError);
      expect((failure as StorageError).code).toBe("STORAGE_FAILED");
      expect((failure as StorageError).message).toMatch(/during put/);
      expect((failure as Error).cause).toBeDefined();
      const tuple = await h.current.saver.getTuple({ configurable: { thread_id: thread.threadId } });
      expect(tuple?.checkpoint.id).toBe(good.configurable?.checkpoint_id);
      expect(tuple?.checkpoint.channel_values).toEqual({ a: 1 });
    });
  });
}
