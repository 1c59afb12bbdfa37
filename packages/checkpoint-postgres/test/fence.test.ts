/**
 * A run's writes are fenced by its claim on the thread: once the claim was revoked (as the
 * server's lease sweep does for a run it takes from a process held for dead) or taken by another
 * owner, a put or writes this saver sends for the run store nothing and fail with
 * ThreadClaimLostError, whatever the run believed of its claim. A write reads the claim under
 * the thread's fence lock, which a revocation takes exclusively: the revocation waits for the
 * writes under way, and a write that began before the revocation committed reads the claim after
 * it, so nothing of the run lands once the revocation's transaction has read the thread.
 */
import { ThreadWriter } from "@interlude/checkpoint-conformance";
import { PostgresSaver } from "@interlude/checkpoint-postgres";
import { ThreadClaimLostError } from "@interlude/core";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { testPostgresUrl } from "../../../test/setup/urls.js";
import { untilWaitingForLocks } from "./locks.js";

const url = testPostgresUrl();

let pool: pg.Pool;
let saver: PostgresSaver;
let reader: PostgresSaver;
const TTL = { ttlMs: 60_000 };

beforeAll(async () => {
  pool = new pg.Pool({ connectionString: url, max: 2 });
  saver = new PostgresSaver(url);
  reader = new PostgresSaver(url);
  await saver.setup();
});
afterAll(async () => {
  await saver?.close();
  await reader?.close();
  await pool?.end();
});

/** A thread claimed by "run-a" through `through` (`saver`), with one checkpoint written under the claim. */
async function claimedThread(through = saver): Promise<ThreadWriter> {
  const writer = new ThreadWriter(through);
  expect(await through.claimThread(writer.threadId, { owner: "run-a", ...TTL })).toBe(true);
  await writer.write({ step: "first" }, {}, { expectedHead: null });
  return writer;
}

/** What another process reads of the thread. */
async function stored(threadId: string) {
  const tuple = await reader.getTuple({ configurable: { thread_id: threadId } });
  return { values: tuple?.checkpoint.channel_values, writes: tuple?.pendingWrites };
}

const revoke = (threadId: string) => pool.query(...saver.joined.revokeIn(threadId));

it("a put, writes and a run's last writes after the claim was revoked store nothing", async () => {
  const writer = await claimedThread();
  await revoke(writer.threadId);
  const head = writer.head!;
  await expect(writer.write({ step: "late" }, {}, { expectedHead: head })).rejects.toBeInstanceOf(ThreadClaimLostError);
  const config = { configurable: { thread_id: writer.threadId, checkpoint_ns: "", checkpoint_id: head } };
  await expect(saver.putWrites(config, [["step", "w"]], "task-1")).rejects.toBeInstanceOf(ThreadClaimLostError);
  await expect(saver.putWrites(config, [["step", "last"]], "task-2", { releaseClaim: "run-a" })).rejects.toBeInstanceOf(
    ThreadClaimLostError,
  );
  expect(await stored(writer.threadId)).toEqual({ values: { step: "first" }, writes: [] });
  // The thread is free for the next first claim.
  expect(await reader.claimThread(writer.threadId, { owner: "run-b", ...TTL })).toBe(true);
});

it("a put the one statement does not store (no head named) is refused before the long way", async () => {
  const writer = await claimedThread();
  await revoke(writer.threadId);
  await expect(writer.write({ step: "late" })).rejects.toBeInstanceOf(ThreadClaimLostError);
  expect((await stored(writer.threadId)).values).toEqual({ step: "first" });
});

it("a claim taken by another owner once it lapsed fences the old owner's writes; its own renewal is refused", async () => {
  const writer = new ThreadWriter(saver);
  expect(await saver.claimThread(writer.threadId, { owner: "run-a", ttlMs: 200 })).toBe(true);
  await writer.write({ step: "first" }, {}, { expectedHead: null });
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(await reader.claimThread(writer.threadId, { owner: "run-b", ...TTL })).toBe(true);
  await expect(writer.write({ step: "late" }, {}, { expectedHead: writer.head! })).rejects.toBeInstanceOf(
    ThreadClaimLostError,
  );
  expect(await saver.claimThread(writer.threadId, { owner: "run-a", ...TTL })).toBe(false);
  expect((await stored(writer.threadId)).values).toEqual({ step: "first" });
});

it("writes made outside any claim of this saver are not fenced", async () => {
  const writer = new ThreadWriter(saver);
  await writer.write({ step: "first" }, {}, { expectedHead: null });
  await revoke(writer.threadId);
  await writer.write({ step: "second" }, {}, { expectedHead: writer.head! });
  expect((await stored(writer.threadId)).values).toEqual({ step: "second" });
});

/** A connection of its own in a transaction, named for untilWaitingForLocks. */
async function inTransaction(name: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, application_name: name });
  await client.connect();
  await client.query("BEGIN");
  return client;
}

/** A saver on a pool of one connection named `name`, for untilWaitingForLocks; `close` ends both. */
function namedSaver(name: string): { saver: PostgresSaver; close(): Promise<void> } {
  const pool = new pg.Pool({ connectionString: url, application_name: name, max: 1 });
  const named = new PostgresSaver(pool);
  return {
    saver: named,
    async close() {
      await named.close();
      await pool.end();
    },
  };
}

it("a put that begins while a revocation is under way waits for its commit, then stores nothing", async () => {
  const { saver: named, close } = namedSaver("fence-put");
  const sweep = await inTransaction("fence-sweep");
  try {
    const writer = await claimedThread(named);
    await sweep.query(...saver.joined.revokeIn(writer.threadId));
    const put = writer.write({ step: "late" }, {}, { expectedHead: writer.head! }).catch((error: unknown) => error);
    await untilWaitingForLocks(url, "fence-put");
    // What the sweep reads of the thread before its commit is all there will be.
    const { rows } = await sweep.query(
      "SELECT head_id FROM interlude_heads WHERE thread_id = $1 AND checkpoint_ns = ''",
      [writer.threadId],
    );
    await sweep.query("COMMIT");
    expect(await put).toBeInstanceOf(ThreadClaimLostError);
    expect(rows[0].head_id).toBe(writer.head);
    expect((await stored(writer.threadId)).values).toEqual({ step: "first" });
  } finally {
    await sweep.end();
    await close();
  }
});

it("a revocation waits for the fenced writes under way, so that what it reads next holds them", async () => {
  const writer = await claimedThread();
  const run = await inTransaction("fence-run");
  try {
    // A fenced write in a transaction still open (as the server's joined writes are).
    const { rows } = await run.query("SELECT interlude_fenced($1, 'run-a') AS held", [writer.threadId]);
    expect(rows[0].held).toBe(true);
    const revoker = new pg.Client({ connectionString: url, application_name: "fence-revoker" });
    await revoker.connect();
    try {
      const revoked = revoker.query(...saver.joined.revokeIn(writer.threadId));
      await untilWaitingForLocks(url, "fence-revoker");
      await run.query("COMMIT");
      await revoked;
    } finally {
      await revoker.end();
    }
    await expect(writer.write({ step: "late" }, {}, { expectedHead: writer.head! })).rejects.toBeInstanceOf(
      ThreadClaimLostError,
    );
  } finally {
    await run.end();
  }
});

it("a lapsed claim taken by another owner waits for the old owner's fenced put under way, so that the new owner reads it", async () => {
  const { saver: named, close } = namedSaver("fence-late-put");
  const blocker = await inTransaction("fence-blocker");
  try {
    const writer = new ThreadWriter(named);
    expect(await named.claimThread(writer.threadId, { owner: "run-a", ttlMs: 200 })).toBe(true);
    await writer.write({ step: "first" }, {}, { expectedHead: null });
    await new Promise((resolve) => setTimeout(resolve, 300));
    // run-a's late put reads its claim (lapsed, not taken yet) under the fence lock, then waits on the head row.
    await blocker.query("SELECT FROM interlude_heads WHERE thread_id = $1 FOR UPDATE", [writer.threadId]);
    const put = writer.write({ step: "late" }, {}, { expectedHead: writer.head! });
    await untilWaitingForLocks(url, "fence-late-put");
    const committed = new Promise((resolve) => setTimeout(resolve, 300)).then(() => blocker.query("COMMIT"));
    expect(await reader.claimThread(writer.threadId, { owner: "run-b", ...TTL })).toBe(true);
    const seen = await reader.getTuple({ configurable: { thread_id: writer.threadId } });
    await committed;
    await put;
    expect(seen?.checkpoint.channel_values).toEqual({ step: "late" });
  } finally {
    await blocker.end();
    await close();
  }
});

it("a dead holder's claim taken over waits for its fenced writes under way", async () => {
  const writer = await claimedThread();
  const run = await inTransaction("fence-dead-run");
  const { saver: heir, close } = namedSaver("fence-heir");
  try {
    // A statement the dead process sent before dying, still running.
    await run.query("SELECT interlude_fenced($1, 'run-a')", [writer.threadId]);
    let taken = false;
    const takeover = heir.claimThread(writer.threadId, { owner: "run-b", replaces: "run-a", ...TTL }).then((held) => {
      taken = held;
    });
    await untilWaitingForLocks(url, "fence-heir");
    expect(taken).toBe(false);
    await run.query("COMMIT");
    await takeover;
    expect(taken).toBe(true);
  } finally {
    await run.end();
    await close();
  }
});

it("the sweep leaves a dead holder's claim whose fenced writes are under way, and takes it once they end", async () => {
  const writer = new ThreadWriter(saver);
  expect(await saver.claimThread(writer.threadId, { owner: "run-a", ttlMs: 100 })).toBe(true);
  await new Promise((resolve) => setTimeout(resolve, 200));
  const run = await inTransaction("fence-swept-run");
  const claimRow = async () =>
    (await pool.query("SELECT owner FROM interlude_claims WHERE thread_id = $1", [writer.threadId])).rowCount;
  try {
    await run.query("SELECT interlude_fenced($1, 'run-a')", [writer.threadId]);
    await reader.sweep();
    expect(await claimRow()).toBe(1);
    await run.query("COMMIT");
    await reader.sweep();
    expect(await claimRow()).toBe(0);
  } finally {
    await run.end();
  }
});
