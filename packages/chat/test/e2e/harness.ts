/**
 * The chat page's end-to-end setting: what `npm start` serves (examples/approval/langgraph.json,
 * with the sample chat agent) on a temp SQLite and a free loopback port, the agent's sends logged
 * to a file, and headless Debian Chromium (the inbox's setup: its own fresh profile).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { loadConfig, startServer } from "@interlude/server";

export { type Browser, openBrowser } from "../../../inbox/test/e2e/harness";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "../../../..");

export interface ChatServer {
  url: string;
  /** Every send_email call the agent's tool ran, in order. */
  sends(): Array<{ to: string; subject: string }>;
  /** The thread's state as the API reports it. */
  state(threadId: string): Promise<{ values: { messages: Array<{ type: string; content: unknown }> }; next: string[] }>;
  stop(): Promise<void>;
}

export async function startChatServer(): Promise<ChatServer> {
  const dir = mkdtempSync(join(tmpdir(), "interlude-chat-e2e-"));
  const sendLog = join(dir, "sends.jsonl");
  // Read by examples/chat/agent.mjs when the server loads it (below).
  process.env.CHAT_SEND_LOG = sendLog;
  // The offline model's pace: its long answer takes a few seconds, so a reload lands mid-answer.
  process.env.CHAT_TOKEN_DELAY_MS ??= "60";
  // The offline model: with a provider's key the agent would call the provider.
  process.env.OPENAI_API_KEY = "";
  process.env.ANTHROPIC_API_KEY = "";
  if (!existsSync(join(repo, "packages/chat/dist/index.html")))
    throw new Error("The chat page is not built (packages/chat/dist); run npm run build.");
  const server = await startServer({
    config: loadConfig(join(repo, "examples/approval/langgraph.json")),
    sqlitePath: join(dir, "chat.sqlite"),
    port: 0,
  });
  return {
    url: server.url,
    sends: () =>
      existsSync(sendLog)
        ? readFileSync(sendLog, "utf8")
            .trim()
            .split("\n")
            .filter(Boolean)
            .map((line) => JSON.parse(line))
        : [],
    state: async (threadId) =>
      (await fetch(`${server.url}/threads/${threadId}/state`)).json() as ReturnType<ChatServer["state"]>,
    async stop() {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
