/**
 * Deadlines on SQLite ring one timer set for the earliest pending deadline (nothing in memory
 * per interrupt): each deadline still fires, in turn, one recorded later but due sooner rings
 * first, one far off stays pending, and a server restarted on the same file fires those pending.
 * A deadline the database failed to fire is tried again shortly, not at the next deadline's ring.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, startServer } from "@interlude/server";
import type { Client } from "@langchain/langgraph-sdk";
import type Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { clientOf, FIXTURE_CONFIG, json, until, whileRefusing } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "interlude-deadline-alarm-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const serve = (file: string) =>
  startServer({ config: loadConfig(FIXTURE_CONFIG), sqlitePath: join(dir, file), host: "127.0.0.1", port: 0 });

async function pauseWithDeadline(client: Client, seconds: number) {
  const thread = await client.threads.create();
  await client.runs.wait(thread.thread_id, "deadline", {
    input: { seconds, onTimeout: { error: `after ${seconds} s` } },
  });
  return thread.thread_id;
}

const errored = (client: Client, threadId: string) =>
  until(async () => (await client.threads.get(threadId)).status === "error", 15_000);

describe("deadlines on one timer", () => {
  it("fire one after the other, the sooner first even when recorded later; a far one stays pending", async () => {
    const server = await serve("order.sqlite");
    try {
      const client = clientOf(server.url);
      const far = await pauseWithDeadline(client, 3600);
      const later = await pauseWithDeadline(client, 3);
      const sooner = await pauseWithDeadline(client, 0.2);
      await errored(client, sooner);
      expect((await client.threads.get(later)).status).toBe("interrupted");
      await errored(client, later);
      expect((await client.threads.get(far)).status).toBe("interrupted");
      expect((await json(`${server.url}/inbox/interrupts`)).body.items.map((i: any) => i.thread_id)).toEqual([far]);
    } finally {
      await server.close();
    }
  });

  it("a deadline pending when the server stops fires after it starts again", async () => {
    const first = await serve("restart.sqlite");
    const threadId = await pauseWithDeadline(clientOf(first.url), 2);
    await first.close();
    const second = await serve("restart.sqlite");
    try {
      await errored(clientOf(second.url), threadId);
      const thread = await clientOf(second.url).threads.get(threadId);
      expect((thread as any).error).toMatchObject({ code: "DEADLINE_EXPIRED", message: "after 2 s" });
    } finally {
      await second.close();
    }
  });
});

describe("a deadline the database failed to fire", () => {
  /** The server's SQLite handle, to read what the deadline recorded. */
  const rawOf = (server: Awaited<ReturnType<typeof serve>>) =>
    (server.backend.ctx.store.db as unknown as { raw: Database.Database }).raw;

  it("one whose error could not be recorded after its answer was reserved gives the thread its error once writes are back", async () => {
    const server = await serve("sync-refused.sqlite");
    const raw = rawOf(server);
    try {
      const client = clientOf(server.url);
      const threadId = await pauseWithDeadline(client, 0.3);
      await whileRefusing(
        server.backend.ctx.store.db,
        { event: "UPDATE", table: "interlude_server_threads" },
        async () => {
          // Fired: its answer reserved, the thread's record refused.
          await until(async () =>
            raw.prepare("SELECT 1 FROM interlude_server_answers WHERE thread_id = ?").get(threadId),
          );
          await new Promise((resolve) => setTimeout(resolve, 200));
          expect((await client.threads.get(threadId)).status).toBe("interrupted");
        },
      );
      await errored(client, threadId);
      expect(((await client.threads.get(threadId)) as any).error).toMatchObject({ code: "DEADLINE_EXPIRED" });
    } finally {
      await server.close();
    }
  });

  it("one whose answer could not be queued is answered once writes are back, with no other deadline to ring", async () => {
    const server = await serve("queue-refused.sqlite");
    try {
      const client = clientOf(server.url);
      const thread = await client.threads.create();
      await whileRefusing(
        server.backend.ctx.store.db,
        { event: "INSERT", table: "interlude_server_answers" },
        async () => {
          await client.runs.wait(thread.thread_id, "deadline", {
            input: { seconds: 0.3, onTimeout: { resume: "by default" } },
          });
          await new Promise((resolve) => setTimeout(resolve, 600));
          expect((await client.threads.get(thread.thread_id)).status).toBe("interrupted");
        },
      );
      await until(async () => (await client.threads.get(thread.thread_id)).status === "idle", 15_000);
      expect((await client.threads.getState(thread.thread_id)).values).toMatchObject({ answer: "by default" });
    } finally {
      await server.close();
    }
  });
});
