import { describe, expect, it } from "vitest";
import { useHarness } from "./context.js";
import { collect, ThreadWriter } from "./fixtures.js";
import type { MakeSaver } from "./harness.js";

export function namespacesSuite(make: MakeSaver): void {
  describe("namespaces", () => {
    const h = useHarness(make);

    it("keeps the root graph and subgraphs of one thread apart", async () => {
      const root = new ThreadWriter(h.current.saver);
      const child = new ThreadWriter(h.current.saver, root.threadId, "review:task-1");
      const grandchild = new ThreadWriter(h.current.saver, root.threadId, "review:task-1|check:task-2");
      await root.write({ who: "root" });
      await child.write({ who: "child" });
      await child.write({ who: "child again" });
      await grandchild.write({ who: "grandchild" });
      const saver = h.current.saver;
      const at = (checkpoint_ns?: string) => ({ configurable: { thread_id: root.threadId, checkpoint_ns } });
      expect((await saver.getTuple(at("")))?.checkpoint.channel_values).toEqual({ who: "root" });
      expect((await saver.getTuple(at(undefined)))?.checkpoint.channel_values).toEqual({ who: "root" });
      expect((await saver.getTuple(at("review:task-1")))?.checkpoint.channel_values).toEqual({ who: "child again" });
      const deepest = await saver.getTuple(at("review:task-1|check:task-2"));
      expect(deepest?.checkpoint.channel_values).toEqual({ who: "grandchild" });
      expect(deepest?.config.configurable?.checkpoint_ns).toBe("review:task-1|check:task-2");
      expect((await collect(saver.list(at("review:task-1")))).map((t) => t.checkpoint.channel_values.who)).toEqual([
        "child again",
        "child",
      ]);
      expect((await collect(saver.list(at("")))).map((t) => t.checkpoint.channel_values.who)).toEqual(["root"]);
      const everything = await collect(saver.list(at(undefined)));
      expect(everything.map((t) => t.checkpoint.channel_values.who)).toEqual([
        "grandchild",
        "child again",
        "child",
        "root",
      ]);
      expect(new Set(everything.map((t) => t.config.configurable?.checkpoint_ns))).toEqual(
        new Set(["", "review:task-1", "review:task-1|check:task-2"]),
      );
    });
  });
}
