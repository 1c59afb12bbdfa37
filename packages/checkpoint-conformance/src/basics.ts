import { describe, expect, it } from "vitest";
import { useHarness } from "./context.js";
import { collect, freshThreadId, idsOf, ThreadWriter } from "./fixtures.js";
import type { MakeSaver } from "./harness.js";

export function basicsSuite(make: MakeSaver): void {
  describe("put, getTuple and list", () => {
    const h = useHarness(make);

    it("knows nothing of a thread that was never written", async () => {
      const config = { configurable: { thread_id: freshThreadId() } };
      expect(await h.current.saver.getTuple(config)).toBeUndefined();
      expect(await collect(h.current.saver.list(config))).toEqual([]);
    });

    it("gives back the newest checkpoint with its values, metadata and address", async () => {
      const thread = new ThreadWriter(h.current.saver);
      await thread.write({ question: "ship it?", count: 1 });
      const config = await thread.write({ count: 2 }, { note: "second" });
      const tuple = await h.current.saver.getTuple({ configurable: { thread_id: thread.threadId } });
      expect(tuple?.config.configurable).toMatchObject({
        thread_id: thread.threadId,
        checkpoint_ns: "",
        checkpoint_id: config.configurable?.checkpoint_id,
      });
      expect(tuple?.checkpoint.channel_values).toEqual({ question: "ship it?", count: 2 });
      expect(tuple?.checkpoint.channel_versions).toEqual(thread.versions);
      expect(tuple?.checkpoint.versions_seen).toEqual({ node: thread.versions });
      expect(tuple?.metadata).toEqual({ source: "loop", step: 0, parents: {}, note: "second" });
      expect(tuple?.pendingWrites).toEqual([]);
    });

    it("gives back an older checkpoint by id, with the values it had then", async () => {
      const thread = new ThreadWriter(h.current.saver);
      const first = await thread.write({ count: 1, name: "a" });
      await thread.write({ count: 2 });
      const tuple = await h.current.saver.getTuple(first);
      expect(tuple?.checkpoint.id).toBe(first.configurable?.checkpoint_id);
      expect(tuple?.checkpoint.channel_values).toEqual({ count: 1, name: "a" });
      expect(
        await h.current.saver.getTuple({
          configurable: { thread_id: thread.threadId, checkpoint_id: "00000000-0000-7000-0000-000000000000" },
        }),
      ).toBeUndefined();
    });

    it("lists newest first, with limit, before and a metadata filter", async () => {
      const thread = new ThreadWriter(h.current.saver);
      for (let i = 0; i < 5; i++) await thread.write({ i }, { tag: { kind: i % 2 ? "odd" : "even" } });
      const config = { configurable: { thread_id: thread.threadId } };
      const all = await collect(h.current.saver.list(config));
      expect(all.map((t) => t.checkpoint.channel_values.i)).toEqual([4, 3, 2, 1, 0]);
      expect(idsOf(all)).toEqual([...idsOf(all)].sort().reverse());
      expect((await collect(h.current.saver.list(config, { limit: 2 }))).map((t) => t.metadata.step)).toEqual([3, 2]);
      const before = await collect(h.current.saver.list(config, { before: all[1]!.config }));
      expect(idsOf(before)).toEqual(idsOf(all).slice(2));
      const odd = await collect(h.current.saver.list(config, { filter: { tag: { kind: "odd" } } }));
      expect(odd.map((t) => t.checkpoint.channel_values.i)).toEqual([3, 1]);
      const stepTwo = await collect(h.current.saver.list(config, { filter: { source: "loop", step: 2 } }));
      expect(stepTwo.map((t) => t.checkpoint.channel_values.i)).toEqual([3]);
      expect(await collect(h.current.saver.list(config, { filter: { step: 99 } }))).toEqual([]);
    });

    it("links each checkpoint to its parent, in history order", async () => {
      const thread = new ThreadWriter(h.current.saver);
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push((await thread.write({ i })).configurable!.checkpoint_id!);
      const walked: string[] = [];
      let tuple = await h.current.saver.getTuple({ configurable: { thread_id: thread.threadId } });
      while (tuple) {
        walked.push(tuple.checkpoint.id);
        tuple = tuple.parentConfig ? await h.current.saver.getTuple(tuple.parentConfig) : undefined;
      }
      expect(walked).toEqual([...ids].reverse());
      expect(idsOf(await collect(h.current.saver.list({ configurable: { thread_id: thread.threadId } })))).toEqual(
        walked,
      );
    });

    it("is not changed by later changes to the objects it was given", async () => {
      const thread = new ThreadWriter(h.current.saver);
      const items = [{ text: "a" }];
      const metadata = { source: "loop" as const, step: 0, parents: {}, writes: { node: { items } } };
      await thread.write({ items }, metadata);
      items.push({ text: "b" });
      items[0]!.text = "changed";
      const tuple = await h.current.saver.getTuple(thread.config);
      expect(tuple?.checkpoint.channel_values.items).toEqual([{ text: "a" }]);
      expect(tuple?.metadata.writes).toEqual({ node: { items: [{ text: "a" }] } });
    });

    it("deletes a thread with all its namespaces and writes, leaving others alone", async () => {
      const root = new ThreadWriter(h.current.saver);
      const child = new ThreadWriter(h.current.saver, root.threadId, "child:1");
      const other = new ThreadWriter(h.current.saver);
      await root.write({ a: 1 });
      await child.write({ b: 1 });
      await h.current.saver.putWrites(root.config, [["a", 2]], "task-1");
      await other.write({ c: 1 });
      await h.current.saver.deleteThread(root.threadId);
      expect(await h.current.saver.getTuple(root.config)).toBeUndefined();
      expect(await h.current.saver.getTuple(child.config)).toBeUndefined();
      expect(await collect(h.current.saver.list({ configurable: { thread_id: root.threadId } }))).toEqual([]);
      expect((await h.current.saver.getTuple(other.config))?.checkpoint.channel_values).toEqual({ c: 1 });
    });
  });
}
