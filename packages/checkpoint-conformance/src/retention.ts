import {
  type BaseCheckpointSaver,
  type CheckpointTuple,
  defaultSerializer,
  INTERRUPT,
  newCheckpointId,
  type RunnableConfig,
} from "@interlude/core";
import { describe, expect, it } from "vitest";
import { useHarness } from "./context.js";
import { collect, eventually, freshThreadId, makeCheckpoint, ThreadWriter } from "./fixtures.js";
import type { MakeSaver } from "./harness.js";

const message = (i: number) => ({ id: `m${i}`, text: `message ${i}`.padEnd(120, ".") });

/** A thread with deltas, a big unchanged channel, a subgraph and pending writes on its newest checkpoint. */
async function busyThread(saver: BaseCheckpointSaver, steps: number, ts?: (i: number) => string) {
  const thread = new ThreadWriter(saver);
  const child = new ThreadWriter(saver, thread.threadId, "sub:1");
  let messages: unknown[] = [];
  await thread.write({ document: "D".repeat(10_000), messages }, {}, { ts: ts?.(0) });
  for (let i = 1; i < steps; i++) {
    messages = [...messages, message(i)];
    await thread.write({ messages, step: i, when: new Date(1_700_000_000_000 + i) }, {}, { ts: ts?.(i) });
    if (i % 3 === 0) await child.write({ inner: i }, {}, { ts: ts?.(i) });
  }
  await saver.putWrites(
    thread.config,
    [
      [INTERRUPT, [{ id: "i1", value: "ok?" }]],
      ["messages", [message(999)]],
    ],
    "task-9",
  );
  return { thread, child };
}

/** Byte-level snapshot of what a thread resumes from. */
function fingerprint(tuple: CheckpointTuple | undefined): string {
  if (!tuple) return "missing";
  return String(defaultSerializer.dumps([tuple.checkpoint, tuple.metadata, tuple.pendingWrites]));
}

async function expectResumes(saver: BaseCheckpointSaver, thread: ThreadWriter): Promise<void> {
  const messages = [...(thread.values.messages as unknown[]), message(1000)];
  const config: RunnableConfig = await thread.write({ messages });
  expect((await saver.getTuple(config))?.checkpoint.channel_values.messages).toEqual(messages);
}

export function retentionSuite(make: MakeSaver): void {
  describe("retention", () => {
    const h = useHarness(make);

    it("prunes all but the newest checkpoints of a thread, which reads back byte for byte and resumes", async () => {
      const saver = h.current.saver;
      const { thread, child } = await busyThread(saver, 70);
      const newest = fingerprint(await saver.getTuple(thread.config));
      const newestChild = fingerprint(await saver.getTuple(child.config));
      const removed = await saver.prune(thread.threadId, { keepLast: 2 });
      expect(removed).toBe(68 + 23 - 2);
      expect(fingerprint(await saver.getTuple(thread.config))).toBe(newest);
      expect(fingerprint(await saver.getTuple(child.config))).toBe(newestChild);
      const left = await collect(saver.list({ configurable: { thread_id: thread.threadId, checkpoint_ns: "" } }));
      expect(left).toHaveLength(2);
      const oldest = left[1]!;
      expect(oldest.parentConfig?.configurable?.checkpoint_id).toBeDefined();
      expect(await saver.getTuple(oldest.parentConfig!)).toBeUndefined();
      expect((await saver.getTuple(oldest.config))?.checkpoint.channel_values.document).toBe("D".repeat(10_000));
      expect((await saver.getTuple(thread.config))?.pendingWrites).toHaveLength(2);
      await expectResumes(saver, thread);
    }, 60_000);

    it("rewinds a thread to a checkpoint: every later one goes, in every namespace, and it reads and resumes as it was then", async () => {
      const saver = h.current.saver as BaseCheckpointSaver & {
        rewindThread(threadId: string, checkpointId: string): Promise<number>;
      };
      const { thread, child } = await busyThread(saver, 40);
      const listed = (ns: string) =>
        collect(saver.list({ configurable: { thread_id: thread.threadId, checkpoint_ns: ns } }));
      const before = await listed("");
      const at = before[19]!;
      const atId = at.checkpoint.id;
      const then = fingerprint(await saver.getTuple(at.config));
      const allChildren = await listed(child.ns);
      const children = allChildren.filter((t) => t.checkpoint.id <= atId).map((t) => t.checkpoint.id);
      expect(children.length).toBeGreaterThan(0);
      expect(children.length).toBeLessThan(allChildren.length);
      const removed = await saver.rewindThread(thread.threadId, atId);
      expect(removed).toBe(19 + allChildren.length - children.length);
      expect(
        fingerprint(await saver.getTuple({ configurable: { thread_id: thread.threadId, checkpoint_ns: "" } })),
      ).toBe(then);
      expect((await listed("")).map((t) => t.checkpoint.id)).toEqual(before.slice(19).map((t) => t.checkpoint.id));
      expect((await listed(child.ns)).map((t) => t.checkpoint.id)).toEqual(children);
      // The next step numbers its versions on from the checkpoint it continues, as a run does:
      // versions that went with the later checkpoints are written again.
      const messages = [...(at.checkpoint.channel_values.messages as unknown[]), message(1000)];
      const version = Math.max(...Object.values(at.checkpoint.channel_versions).map(Number)) + 1;
      const versions = { ...at.checkpoint.channel_versions, messages: version };
      const next = await saver.put(
        at.config,
        makeCheckpoint({ messages }, versions),
        { source: "loop", step: 99, parents: {} },
        { messages: version },
      );
      const resumed = await saver.getTuple(next);
      expect(resumed?.checkpoint.channel_values.messages).toEqual(messages);
      expect(resumed?.checkpoint.channel_values.document).toBe("D".repeat(10_000));
    }, 60_000);

    it("rewinds to an id made before a run: a subgraph's checkpoint saved before it stays, though newer than its parent's", async () => {
      const saver = h.current.saver as BaseCheckpointSaver & {
        rewindThread(threadId: string, checkpointId: string): Promise<number>;
      };
      const parent = new ThreadWriter(saver);
      const subgraph = new ThreadWriter(saver, parent.threadId, "inner:task-1");
      await parent.write({ step: 1 });
      // The subgraph asks (its checkpoint is saved after its parent's newest), then the run answers.
      await subgraph.write({ inner: "asked" });
      const asked = fingerprint(await saver.getTuple(subgraph.config));
      const before = fingerprint(await saver.getTuple(parent.config));
      const startedAt = newCheckpointId();
      await subgraph.write({ inner: "answered" });
      await parent.write({ step: 2 });
      expect(await saver.rewindThread(parent.threadId, startedAt)).toBe(2);
      const head = (ns: string) => saver.getTuple({ configurable: { thread_id: parent.threadId, checkpoint_ns: ns } });
      expect(fingerprint(await head("inner:task-1"))).toBe(asked);
      expect(fingerprint(await head(""))).toBe(before);
    });

    it("prunes checkpoints older than a date or an age, never a thread's newest", async () => {
      const saver = h.current.saver;
      const old = (i: number) => new Date(Date.UTC(2020, 0, 1, 0, 0, i)).toISOString();
      const { thread } = await busyThread(saver, 10, old);
      const recent = new ThreadWriter(saver);
      await recent.write({ a: 1 });
      await recent.write({ a: 2 });
      const newest = fingerprint(await saver.getTuple(thread.config));
      const removedByDate = await saver.prune({ olderThan: new Date(Date.UTC(2020, 0, 1, 0, 0, 5)) });
      expect(removedByDate).toBeGreaterThanOrEqual(4);
      const steps = (
        await collect(saver.list({ configurable: { thread_id: thread.threadId, checkpoint_ns: "" } }))
      ).map((t) => t.checkpoint.channel_values.step);
      expect(steps).toEqual([9, 8, 7, 6, 5]);
      await saver.prune({ olderThan: 24 * 3600 * 1000 });
      expect(
        await collect(saver.list({ configurable: { thread_id: thread.threadId, checkpoint_ns: "" } })),
      ).toHaveLength(1);
      expect(fingerprint(await saver.getTuple(thread.config))).toBe(newest);
      expect(await collect(saver.list({ configurable: { thread_id: recent.threadId } }))).toHaveLength(2);
      await expectResumes(saver, thread);
    }, 60_000);

    it("refuses a prune that says nothing to keep or remove", async () => {
      await expect(h.current.saver.prune(freshThreadId(), {})).rejects.toMatchObject({ code: "INVALID_PRUNE" });
      await expect(h.current.saver.prune(freshThreadId(), { keepLast: 0 })).rejects.toMatchObject({
        code: "INVALID_PRUNE",
      });
    });

    it("deletes threads idle longer than ttlMs, keeping active ones", async () => {
      const { saver } = await h.open({ ttlMs: 1_000 });
      const idle = new ThreadWriter(saver);
      const active = new ThreadWriter(saver);
      await idle.write({ a: 1 });
      await active.write({ a: 1 });
      // Until the idle thread is gone, the active one is renewed right before each sweep: a whole
      // ttl of margin on a slow machine.
      let writes = 1;
      await eventually(async () => {
        await active.write({ a: ++writes });
        await saver.sweep();
        return (await saver.getTuple(idle.config)) === undefined;
      });
      expect((await saver.getTuple(active.config))?.checkpoint.channel_values).toEqual({ a: writes });
    }, 20_000);
  });
}
