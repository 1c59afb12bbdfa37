/**
 * Deadlines on SQLite ring one timer set for the earliest pending deadline (nothing in memory
 * per interrupt): each deadline still fires, in turn, one recorded later but due sooner rings
 * first, one far off stays pending, and a server restarted on the same file fires those pending.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, startServer } from "@interlude/server";
import type { Client } from "@langchain/langgraph-sdk";
import { afterAll, describe, expect, it } from "vitest";
import { clientOf, FIXTURE_CONFIG, json, until } from "./helpers.js";

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
