import { ThreadWriter } from "@interlude/checkpoint-conformance";
import { PostgresSaver } from "@interlude/checkpoint-postgres";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { testPostgresUrl } from "../../../test/setup/urls.js";
import { untilWaitingForLocks } from "./locks.js";

const url = testPostgresUrl();

/** Rows the thread has left in each table. */
async function rowsLeft(client: pg.Client, threadId: string) {
  const { rows } = await client.query(
    `SELECT (SELECT count(*) FROM interlude_checkpoints WHERE thread_id = $1)::int AS checkpoints,
       (SELECT count(*) FROM interlude_blobs WHERE thread_id = $1)::int AS blobs,
       (SELECT count(*) FROM interlude_heads WHERE thread_id = $1)::int AS heads`,
    [threadId],
  );
  return rows[0];
}

/**
 * A put and a thread's delete, each from its own connection, queued in a given order behind a
 * session that holds the thread's head row (as another put would), then let go.
 */
async function race(first: "put" | "delete") {
  // Its connections are named, so that only they are counted (other test files share the server).
  const name = `delete-race-${first}-${process.pid}-${Date.now()}`;
  const pool = new pg.Pool({ connectionString: url, application_name: name, max: 4 });
  const saver = new PostgresSaver(pool);
  const thread = new ThreadWriter(saver);
  await thread.write({ answer: "a" }, {}, { expectedHead: null });
  const holder = new pg.Client({ connectionString: url });
  await holder.connect();
  try {
    await holder.query("BEGIN");
    await holder.query("SELECT FROM interlude_heads WHERE thread_id = $1 FOR UPDATE", [thread.threadId]);
    const put = () => thread.write({ answer: "b" }, {}, { expectedHead: thread.head! });
    const remove = () => saver.deleteThread(thread.threadId);
    const [one, two] = first === "put" ? [put, remove] : [remove, put];
    const settled: Array<Promise<PromiseSettledResult<unknown>>> = [];
    settled.push(Promise.allSettled([one()]).then(([r]) => r!));
    await untilWaitingForLocks(url, name, 1);
    settled.push(Promise.allSettled([two()]).then(([r]) => r!));
    await untilWaitingForLocks(url, name, 2);
    await holder.query("COMMIT");
    const [putResult, deleteResult] =
      first === "put" ? await Promise.all(settled) : (await Promise.all(settled)).reverse();
    const fresh = new PostgresSaver(url, { cachedThreads: 0 });
    const newest = await fresh.getTuple({ configurable: { thread_id: thread.threadId } });
    await fresh.close();
    return { putResult, deleteResult, left: await rowsLeft(holder, thread.threadId), newest };
  } finally {
    await holder.end();
    await saver.close();
    await pool.end();
  }
}

describe("PostgresSaver's thread delete racing a put", () => {
  it("deletes what a put that held the head before it committed, leaving no checkpoint without a head", async () => {
    const { putResult, deleteResult, left, newest } = await race("put");
    expect(putResult.status).toBe("fulfilled");
    expect(deleteResult.status).toBe("fulfilled");
    expect(left).toEqual({ checkpoints: 0, blobs: 0, heads: 0 });
    expect(newest).toBeUndefined();
  });

  it("refuses a put that waited for the head while the thread was deleted, writing nothing", async () => {
    const { putResult, deleteResult, left, newest } = await race("delete");
    expect(deleteResult.status).toBe("fulfilled");
    expect(putResult).toMatchObject({ status: "rejected", reason: { code: "CHECKPOINT_CONFLICT" } });
    expect(left).toEqual({ checkpoints: 0, blobs: 0, heads: 0 });
    expect(newest).toBeUndefined();
  });
});
