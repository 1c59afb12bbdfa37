import { makeCheckpoint, ThreadWriter } from "@interlude/checkpoint-conformance";
import { PostgresSaver } from "@interlude/checkpoint-postgres";
import { Command } from "@interlude/core";
import { afterAll, describe, expect, it } from "vitest";
import { testPostgresUrl } from "../../../test/setup/urls.js";
import { approvalGraph } from "./fixtures/approval.js";
import { watchStatements } from "./fixtures/statements.js";

const url = testPostgresUrl();

const ids = (saver: PostgresSaver, threadId: string) =>
  saver.pool
    .query<{ id: string }>(
      "SELECT checkpoint_id AS id FROM interlude_checkpoints WHERE thread_id = $1 ORDER BY checkpoint_id",
      [threadId],
    )
    .then((result) => result.rows.map((row) => row.id));

/** A put as a run saves its input checkpoint: compare-and-swap on the head, not waited for. */
const input = (thread: ThreadWriter, updates: Record<string, unknown>) =>
  thread.write(updates, { source: "input" }, { expectedHead: thread.head ?? null, durable: false });
const step = (thread: ThreadWriter, updates: Record<string, unknown>) =>
  thread.write(updates, {}, { expectedHead: thread.head ?? null });

describe("PostgresSaver's puts not waited for (durable: false)", () => {
  const savers: PostgresSaver[] = [];
  const saverOn = () => {
    const saver = new PostgresSaver(url);
    savers.push(saver);
    return saver;
  };
  afterAll(async () => {
    await Promise.all(savers.map((saver) => saver.close()));
  });

  it("writes a run's input checkpoint in the statement of its next put", async () => {
    const saver = saverOn();
    await saver.setup();
    const thread = new ThreadWriter(saver);
    const sent = watchStatements(saver);
    const held = await input(thread, { question: "q" });
    expect(sent).toEqual([]);
    const next = await step(thread, { answer: "a" });
    expect(sent).toEqual(["interlude_put_first_pair"]);
    expect(await ids(saver, thread.threadId)).toEqual([held, next].map((c) => c.configurable!.checkpoint_id));
    // Both as a fresh process reads them: the newest, and the input by its id.
    const fresh = new PostgresSaver(url, { cachedThreads: 0 });
    expect((await fresh.getTuple(next))?.checkpoint.channel_values).toEqual({ question: "q", answer: "a" });
    expect((await fresh.getTuple(held))?.checkpoint.channel_values).toEqual({ question: "q" });
    expect((await fresh.getTuple(next))?.parentConfig?.configurable?.checkpoint_id).toBe(
      held.configurable!.checkpoint_id,
    );
    await fresh.close();
    // A later run's input goes with its next step too, deltas included.
    await input(thread, { list: [1] });
    await step(thread, { list: [1, 2] });
    // The append is a delta on the input's value, written in the same statement.
    expect(sent.at(-1)).toBe("interlude_put_deltas_pair");
    const again = new PostgresSaver(url, { cachedThreads: 0 });
    expect((await again.getTuple({ configurable: { thread_id: thread.threadId } }))?.checkpoint.channel_values).toEqual(
      { question: "q", answer: "a", list: [1, 2] },
    );
    await again.close();
  });

  it("releases the run's claim in the statement that writes the held input and the run's last checkpoint", async () => {
    const saver = saverOn();
    await saver.setup();
    const thread = new ThreadWriter(saver);
    await step(thread, { answer: "a" });
    expect(await saver.claimThread(thread.threadId, { owner: "run-1", ttlMs: 60_000 })).toBe(true);
    const sent = watchStatements(saver);
    await input(thread, { question: "q" });
    await thread.write({ answer: "b" }, {}, { expectedHead: thread.head!, releaseClaim: "run-1" });
    await saver.releaseThread(thread.threadId, "run-1");
    expect(sent).toEqual(["interlude_put_whole_release_pair"]);
    expect(await saver.claimHolder(thread.threadId)).toBeUndefined();
    expect((await saver.getTuple({ configurable: { thread_id: thread.threadId } }))?.checkpoint.channel_values).toEqual(
      { answer: "b", question: "q" },
    );
  });

  it("stores a held put before anything reads or writes the thread, and by flush()", async () => {
    const saver = saverOn();
    const other = saverOn();
    for (const touch of [
      (thread: ThreadWriter) => saver.getTuple({ configurable: { thread_id: thread.threadId } }),
      (thread: ThreadWriter) => saver.putWrites(thread.config, [["answer", "w"]], "task-1"),
      (thread: ThreadWriter) => saver.claimThread(thread.threadId, { owner: "run-1", ttlMs: 60_000 }),
      // A run that failed before its next put lets go of its claim: the input is stored first.
      (thread: ThreadWriter) => saver.releaseThread(thread.threadId, "run-1"),
      (thread: ThreadWriter) => saver.list({ configurable: { thread_id: thread.threadId } }).next(),
      () => saver.flush(),
    ]) {
      const thread = new ThreadWriter(saver);
      const held = await input(thread, { question: "q" });
      expect(await other.getHeadId(thread.threadId)).toBeUndefined();
      await touch(thread);
      expect(await other.getHeadId(thread.threadId)).toBe(held.configurable!.checkpoint_id);
    }
  });

  it("refuses the next put, and writes neither, when another process moved the head in between", async () => {
    const [a, b] = [saverOn(), saverOn()];
    const thread = new ThreadWriter(a);
    const first = await step(thread, { answer: "a" });
    await input(thread, { question: "q" });
    const moved = await thread
      .through(b)
      .write({ answer: "b" }, {}, { expectedHead: first.configurable!.checkpoint_id! });
    await expect(step(thread, { answer: "c" })).rejects.toMatchObject({ code: "CHECKPOINT_CONFLICT" });
    expect(await ids(a, thread.threadId)).toEqual([first, moved].map((c) => c.configurable!.checkpoint_id));
    // flush() reports a held put that was refused.
    const late = new ThreadWriter(a);
    await step(late, { answer: "a" });
    await input(late, { question: "q" });
    await b.put(
      { configurable: { thread_id: late.threadId } },
      makeCheckpoint({ answer: "b" }, { answer: 9 }),
      { source: "update", step: 5, parents: {} },
      { answer: 9 },
    );
    await expect(a.flush()).rejects.toMatchObject({ code: "CHECKPOINT_CONFLICT" });
  });

  it("drops a held put of a thread it deletes", async () => {
    const saver = saverOn();
    const thread = new ThreadWriter(saver);
    await input(thread, { question: "q" });
    await saver.deleteThread(thread.threadId);
    await saver.flush();
    expect(await ids(saver, thread.threadId)).toEqual([]);
  });

  it("runs an approval round trip with its input checkpoint and first step in one statement, history intact", async () => {
    const saver = saverOn();
    await saver.setup();
    const graph = approvalGraph(saver);
    const config = { configurable: { thread_id: `approval-${Date.now()}` } };
    const sent = watchStatements(saver);
    await graph.invoke({ draft: "" }, config);
    await graph.invoke(new Command({ resume: "yes" }), config);
    expect(sent).toEqual([
      "interlude_claimLatest",
      "interlude_put_first_pair",
      "interlude_put_whole",
      "interlude_putWritesRelease",
      "interlude_claimLatest",
      "interlude_put_whole_release",
    ]);
    const history = [];
    for await (const state of graph.getStateHistory(config)) history.push(state.metadata?.step);
    expect(history).toEqual([2, 1, 0, -1]);
    expect((await graph.getState(config)).values).toEqual({ draft: "refund", decision: "yes" });
  });
});

describe("writes that name a held put that was refused", () => {
  const savers: PostgresSaver[] = [];
  afterAll(async () => {
    await Promise.all(savers.map((saver) => saver.close()));
  });
  const writesOf = async (saver: PostgresSaver, threadId: string) =>
    (await saver.pool.query("SELECT checkpoint_id FROM interlude_writes WHERE thread_id = $1", [threadId])).rows.map(
      (row) => row.checkpoint_id,
    );

  /** A thread whose held put `a` will find refused: `b` moved the head in between. */
  async function refusedLater() {
    const [a, b] = [new PostgresSaver(url), new PostgresSaver(url)];
    savers.push(a, b);
    const thread = new ThreadWriter(a);
    const first = await step(thread, { answer: "a" });
    const held = await input(thread, { question: "q" });
    await thread.through(b).write({ answer: "b" }, {}, { expectedHead: first.configurable!.checkpoint_id! });
    return { a, thread, held };
  }

  it("are refused when the put is sent with them, and stored nowhere", async () => {
    const { a, thread, held } = await refusedLater();
    // A run's last writes (its question) check no head: without the checkpoint they would name nothing stored.
    await expect(a.putWrites(held, [["__interrupt__", "asked"]], "task-1")).rejects.toMatchObject({
      code: "CHECKPOINT_CONFLICT",
    });
    expect(await writesOf(a, thread.threadId)).toEqual([]);
    await a.flush();
  });

  it("are refused when a reader stored the put first and it was refused then", async () => {
    const { a, thread, held } = await refusedLater();
    // A read of the thread (another request's getState) sends the held put alone; its refusal is not the reader's.
    expect((await a.getTuple({ configurable: { thread_id: thread.threadId } }))?.checkpoint.channel_values).toEqual({
      answer: "b",
    });
    await expect(a.putWrites(held, [["__interrupt__", "asked"]], "task-1")).rejects.toMatchObject({
      code: "CHECKPOINT_CONFLICT",
    });
    expect(await writesOf(a, thread.threadId)).toEqual([]);
    // Writes to a stored checkpoint, and the thread's next put, go on as usual.
    const head = await a.getTuple({ configurable: { thread_id: thread.threadId } });
    await a.putWrites(head!.config, [["answer", "w"]], "task-2");
    expect(await writesOf(a, thread.threadId)).toEqual([head!.config.configurable!.checkpoint_id]);
  });
});
