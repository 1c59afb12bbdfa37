import { newCheckpointId } from "@interlude/core";
import { describe, expect, it } from "vitest";
import { useHarness } from "./context.js";
import { collect, makeCheckpoint, ThreadWriter } from "./fixtures.js";
import type { MakeSaver } from "./harness.js";

const message = (i: number) => ({ role: i % 2 ? "ai" : "human", id: `m${i}`, content: `${i}:`.padEnd(200, "~") });

export function deltasSuite(make: MakeSaver, sharedStorage: boolean): void {
  describe("delta storage", () => {
    const h = useHarness(make);

    it("does not rewrite channels a step did not change", async () => {
      const saver = h.current.saver;
      const thread = new ThreadWriter(saver);
      const document = "d".repeat(100_000);
      await thread.write({ document, counter: 0 });
      const before = saver.stats.bytesWritten;
      for (let i = 1; i <= 10; i++) await thread.write({ counter: i });
      const perStep = (saver.stats.bytesWritten - before) / 10;
      expect(perStep).toBeLessThan(2_000);
      for (const tuple of await collect(saver.list(thread.config)))
        expect(tuple.checkpoint.channel_values.document).toBe(document);
    });

    it("stores appends to a list as deltas, reading every version back exactly, at a cost that does not grow", async () => {
      const saver = h.current.saver;
      const thread = new ThreadWriter(saver);
      const ids: string[] = [];
      const bytesAt: number[] = [];
      let messages: unknown[] = [];
      for (let i = 0; i < 300; i++) {
        messages = [...messages, message(i)];
        ids.push((await thread.write({ messages, step: i })).configurable!.checkpoint_id!);
        bytesAt.push(saver.stats.bytesWritten);
      }
      expect(saver.stats.deltaBlobsWritten).toBeGreaterThan(250);
      const early = (bytesAt[99]! - bytesAt[39]!) / 60;
      const late = (bytesAt[299]! - bytesAt[239]!) / 60;
      expect(late).toBeLessThan(early * 1.5);
      expect(late).toBeLessThan(1_500);
      for (const at of [0, 1, 31, 32, 33, 63, 64, 100, 299]) {
        const tuple = await saver.getTuple({ configurable: { thread_id: thread.threadId, checkpoint_id: ids[at] } });
        expect(tuple?.checkpoint.channel_values.messages).toEqual(Array.from({ length: at + 1 }, (_, i) => message(i)));
      }
    }, 60_000);

    it("sees a list pushed in place as an append, and a rewritten list as a new value", async () => {
      const saver = h.current.saver;
      const thread = new ThreadWriter(saver);
      const list: unknown[] = [message(0)];
      await thread.write({ list });
      list.push(message(1));
      const pushed = await thread.write({ list });
      const rewritten = await thread.write({ list: [message(9), message(1)] });
      const shortened = await thread.write({ list: [message(9)] });
      expect((await saver.getTuple(pushed))?.checkpoint.channel_values.list).toEqual([message(0), message(1)]);
      expect((await saver.getTuple(rewritten))?.checkpoint.channel_values.list).toEqual([message(9), message(1)]);
      expect((await saver.getTuple(shortened))?.checkpoint.channel_values.list).toEqual([message(9)]);
    });

    it("stores an append to a list it read back as a delta (the next run of a thread), reading it back exactly", async () => {
      const saver = h.current.saver;
      const thread = new ThreadWriter(saver);
      const written = Array.from({ length: 10 }, (_, i) => message(i));
      await thread.write({ messages: written });
      const older = await thread.write({ messages: [...written, message(10)] });
      const read = (await saver.getTuple(thread.config))!.checkpoint.channel_values.messages as unknown[];
      expect(read).not.toBe(written);
      const deltas = saver.stats.deltaBlobsWritten;
      const appended = await thread.write({ messages: [...read, message(11)] });
      expect(saver.stats.deltaBlobsWritten).toBe(deltas + 1);
      // A read of an older checkpoint teaches nothing: a list built on it is a full copy.
      const old = (await saver.getTuple(older))!.checkpoint.channel_values.messages as unknown[];
      const fromOld = await thread.write({ messages: [...old, message(12)] });
      expect(saver.stats.deltaBlobsWritten).toBe(deltas + 1);
      // An item of the read list replaced by another object is a new value, not an append.
      const head = (await saver.getTuple(thread.config))!.checkpoint.channel_values.messages as unknown[];
      const edited = await thread.write({ messages: [message(20), ...head.slice(1), message(13)] });
      const all = (n: number) => Array.from({ length: n }, (_, i) => message(i));
      for (const [config, expected] of [
        [appended, all(12)],
        [fromOld, [...all(11), message(12)]],
        [edited, [message(20), ...all(11).slice(1), message(12), message(13)]],
      ] as const) {
        const tuple = await saver.getTuple(config);
        expect(tuple?.checkpoint.channel_values.messages).toEqual(expected);
      }
    });

    it("reads back a list put again at the version it already has (a thread copied with every channel's version)", async () => {
      const saver = h.current.saver;
      const thread = new ThreadWriter(saver);
      const first = await thread.write({ list: ["x", "y"], n: 0 });
      // The next checkpoint puts the list again, unchanged, at its version: it must not be stored
      // as an append to itself.
      const versions = { list: thread.versions.list!, n: 2 };
      const again = await saver.put(
        first,
        makeCheckpoint({ list: ["x", "y"], n: 1 }, versions),
        { source: "loop", step: 1, parents: {} },
        versions,
      );
      expect((await saver.getTuple(again))?.checkpoint.channel_values).toEqual({ list: ["x", "y"], n: 1 });
      const appended = await thread.through(saver).write({ list: ["x", "y", "z"] });
      expect((await saver.getTuple(appended))?.checkpoint.channel_values.list).toEqual(["x", "y", "z"]);
    });

    if (sharedStorage) {
      it("lets a fresh saver continue a thread another one wrote with deltas", async () => {
        if (!h.current.makeSecondSaver)
          throw new Error("a saver with shared storage must return makeSecondSaver from makeSaver");
        const thread = new ThreadWriter(h.current.saver);
        let messages: unknown[] = [];
        for (let i = 0; i < 40; i++) await thread.write({ messages: (messages = [...messages, message(i)]) });
        const second = await h.current.makeSecondSaver();
        const tuple = await second.getTuple(thread.config);
        expect(tuple?.checkpoint.channel_values.messages).toEqual(messages);
        const next = [...(tuple!.checkpoint.channel_values.messages as unknown[]), message(40)];
        const config = await second.put(
          thread.config,
          {
            ...tuple!.checkpoint,
            id: newCheckpointId(),
            channel_values: { messages: next },
            channel_versions: { messages: 1000 },
          },
          { source: "loop", step: 40, parents: {} },
          { messages: 1000 },
        );
        expect(second.stats.deltaBlobsWritten).toBe(0);
        expect((await h.current.saver.getTuple(config))?.checkpoint.channel_values.messages).toEqual([
          ...messages,
          message(40),
        ]);
        await second.close();
      });

      it("stores appends as deltas when two savers take turns on a thread (servers behind a balancer)", async () => {
        const savers = [h.current.saver, await h.current.makeSecondSaver!()];
        let writer = new ThreadWriter(savers[0]!);
        const ids: string[] = [];
        for (let i = 0; i < 80; i++) {
          const saver = savers[i % 2]!;
          // Each step starts from a read of the head through the saver that runs it, as a run does.
          const read = i === 0 ? [] : (await saver.getTuple(writer.config))!.checkpoint.channel_values.messages;
          writer = writer.through(saver);
          ids.push(
            (await writer.write({ messages: [...(read as unknown[]), message(i)] })).configurable!.checkpoint_id!,
          );
        }
        // Each saver's first write is a full copy; every later one continues the chain the other wrote.
        const deltas = savers[0]!.stats.deltaBlobsWritten + savers[1]!.stats.deltaBlobsWritten;
        expect(deltas).toBe(78);
        for (const at of [0, 1, 2, 30, 31, 32, 33, 63, 64, 79])
          for (const saver of savers) {
            const tuple = await saver.getTuple({
              configurable: { thread_id: writer.threadId, checkpoint_id: ids[at] },
            });
            expect(tuple?.checkpoint.channel_values.messages).toEqual(
              Array.from({ length: at + 1 }, (_, i) => message(i)),
            );
          }
        await savers[1]!.close();
      }, 60_000);
    }
  });
}
