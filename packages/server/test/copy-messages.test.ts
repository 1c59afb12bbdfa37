/**
 * Copying a thread that holds messages, in a process that has not loaded @langchain/core yet
 * (a server whose graphs were only read, never run): the copy loads it and reads again.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SqliteSaver } from "@interlude/checkpoint-sqlite";
import { afterAll, expect, it } from "vitest";
import { copyCheckpoints } from "../src/threads/copy.js";

const dir = mkdtempSync(join(tmpdir(), "interlude-copy-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("a thread holding messages copies before this process has loaded @langchain/core", async () => {
  const file = join(dir, "threads.db");
  // Another process writes the thread, as a server's worker would.
  const writer = `
    const { MessagesAnnotation, START, StateGraph } = await import("@interlude/core");
    const { SqliteSaver } = await import("@interlude/checkpoint-sqlite");
    const { HumanMessage } = await import("@langchain/core/messages");
    const saver = new SqliteSaver(${JSON.stringify(file)});
    const graph = new StateGraph(MessagesAnnotation).addNode("n", () => ({})).addEdge(START, "n")
      .compile({ checkpointer: saver });
    await graph.invoke({ messages: [new HumanMessage("hello")] }, { configurable: { thread_id: "from" } });
    await saver.close();`;
  execFileSync(process.execPath, ["--input-type=module", "-e", writer], {
    cwd: fileURLToPath(new URL(".", import.meta.url)),
  });

  const saver = new SqliteSaver(file);
  await copyCheckpoints(saver, "from", "to");
  const copied = await saver.getTuple({ configurable: { thread_id: "to" } });
  expect(copied).toBeDefined();
  const [message] = copied!.checkpoint.channel_values.messages as Array<{ getType(): string; content: unknown }>;
  expect([message?.getType(), message?.content]).toEqual(["human", "hello"]);
  await saver.close();
});
