import { loadConfig, startServer } from "@interlude/server";
import { Client } from "@langchain/langgraph-sdk";

process.env.CHAT_TOKEN_DELAY_MS = "1";
const server = await startServer({
  config: loadConfig("/work/wt/chat/examples/approval/langgraph.json"),
  sqlitePath: "/tmp/probe2.sqlite",
  port: 0,
});
const client = new Client({ apiUrl: server.url });
const t = await client.threads.create();
for await (const e of client.runs.stream(t.thread_id, "agent", {
  input: { messages: [{ type: "human", content: "send an email to x@y.z" }] },
  streamMode: ["values", "updates", "messages-tuple", "tools"],
})) {
  console.log(e.event, JSON.stringify(e.data).slice(0, 250));
}
const st = await client.threads.getState(t.thread_id);
console.log(JSON.stringify(st.tasks).slice(0, 400), st.next);
await server.close();
process.exit(0);
