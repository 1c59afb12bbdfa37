#!/usr/bin/env node
// The README's main command (`npm start`): serves the sample approval graph and the sample chat
// agent (examples/chat/agent.mjs) over the LangGraph Server API with the reviewer's inbox and the
// chat page, on SQLite beside the config, and prints the URLs.
// When nothing waits for review yet, it starts two deployments that pause for a human, so the
// inbox has something to show.
//   PORT=8123 HOST=127.0.0.1 INTERLUDE_DB=./threads.sqlite INTERLUDE_API_KEYS="key:alice@example.com" npm start
import { fileURLToPath } from "node:url";
import { loadConfig, parseApiKeys, startServer } from "@interlude/server";
import { Client } from "@langchain/langgraph-sdk";

const config = loadConfig(fileURLToPath(new URL("./langgraph.json", import.meta.url)));
const apiKeys = parseApiKeys(process.env.INTERLUDE_API_KEYS ?? "");
const server = await startServer({
  config,
  apiKeys,
  host: process.env.HOST ?? "127.0.0.1",
  port: Number(process.env.PORT ?? 8123),
  sqlitePath: process.env.INTERLUDE_DB, // default: examples/approval/.interlude/interlude.sqlite
});

const client = new Client({ apiUrl: server.url, apiKey: Object.keys(apiKeys)[0] ?? null });
const waiting = await fetch(`${server.url}/inbox/interrupts`, {
  headers: Object.keys(apiKeys)[0] ? { "x-api-key": Object.keys(apiKeys)[0] } : {},
}).then((r) => r.json());
if (waiting.total === 0) {
  for (const request of [
    { service: "billing", version: "2.4.0" },
    { service: "search", version: "1.9.1" },
  ]) {
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, "approval", { input: { request } });
  }
}

console.log(`
Interlude is serving the sample approval graph and the sample chat agent.
  API (LangGraph Server, use @langchain/langgraph-sdk): ${server.url}
  Inbox for reviewers:                                   ${server.url}/inbox/
  Chat with the agent (useStream):                       ${server.url}/chat/
  The same page on @langchain/react's useStream:         ${server.url}/chat/?hook=react
  Pending from the terminal: npx interlude pending --url ${server.url}
Stop with Ctrl-C.`);

const stop = async () => {
  await server.close();
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
